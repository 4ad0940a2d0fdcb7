//! Parser only: any bytes, as text, must give an AST or an input error with a
//! location inside the text; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptx_litmus::error::ErrorKind;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = ptx_litmus::parse::parse_litmus(&text) {
        assert!(e.kind != ErrorKind::Internal, "internal error: {}", e.message);
        if let Some(sp) = e.span {
            assert!(sp.line >= 1 && sp.col >= 1, "bad span {:?}", sp);
            assert!(sp.start <= text.len() && sp.end <= text.len(), "span {:?} outside the text", sp);
            assert!(sp.line <= text.split('\n').count(), "line {} past the end", sp.line);
        }
        // Rendering must not panic either.
        let _ = e.render("fuzz.litmus", &text);
    }
});
