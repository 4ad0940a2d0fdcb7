//! The whole pipeline (parse, build, SAT engine) with small limits: any bytes
//! must give a verdict, an input error or a limit; never a panic or an internal error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptx_litmus::check::{check_source, CheckOptions};
use ptx_litmus::error::ErrorKind;
use ptx_litmus::program::BuildOptions;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let opts = CheckOptions { build: BuildOptions { max_events: 2_000, ..Default::default() }, timeout: Some(Duration::from_secs(2)), max_memory: 256 << 20, ..Default::default() };
    if let Err(e) = check_source(&text, &opts) {
        assert!(e.kind != ErrorKind::Internal, "internal error: {}", e.message);
        let _ = e.render("fuzz.litmus", &text);
    }
});
