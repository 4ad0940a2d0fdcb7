//! The result of one mapped test as `map` prints it: text (the unsound states explained on both sides) or a JSON
//! object (`schema/map.schema.json`).

use super::{MapSetup, Mapped, Soundness};
use crate::explain::show::{shown_exec, ExecKind, ShowOptions, Shown};
use crate::outcome::State;

/// The report of one mapped test, in text.
pub fn report(m: &Mapped, s: &MapSetup, max_show: usize) -> String {
    let p = &m.target.program;
    let head = format!("Map {} ({} to {} by {})", p.name, s.source.name(), s.target.name(), m.compiler(s));
    let n = m.target.outcome.states.len();
    match &m.soundness {
        Soundness::Sound => format!(
            "{} sound: {} PTX final state{}, each allowed by {}\n",
            head,
            n,
            if n == 1 { "" } else { "s" },
            s.source.name()
        ),
        Soundness::Racy { plain } => format!(
            "{} racy: the C test has a data race {} under {} (herd's Undef), so no outcome is forbidden\n",
            head,
            race_kind(*plain, s),
            s.source.name()
        ),
        Soundness::Unsound(extra) => {
            let mut out = format!(
                "{} UNSOUND: {} of {} PTX final states are forbidden by {}\n",
                head,
                extra.len(),
                n,
                s.source.name()
            );
            out.push_str(&m.renaming());
            for st in extra.iter().take(max_show.max(1)) {
                out.push_str(&unsound_state(m, s, st));
            }
            if extra.len() > max_show.max(1) {
                out.push_str("(more unsound states; raise --max-show to see them)\n");
            }
            out.push_str("Compiled test:\n");
            for l in m.ptx_text.lines() {
                out.push_str(&format!("  {}\n", l));
            }
            out
        }
    }
}

/// What can race (D234): under rc11 only a plain access; scoped-rc11 also makes
/// two conflicting atomics race when neither's scope includes the other's
/// thread, so a test whose every access is atomic races only that way.
fn race_kind(plain: bool, s: &MapSetup) -> &'static str {
    match (s.source, plain) {
        (crate::model::ModelKind::ScopedRc11, false) => "between atomics that are out of each other's scope",
        (crate::model::ModelKind::ScopedRc11, true) => {
            "(on a plain access, or between atomics out of each other's scope)"
        }
        _ => "on a plain access",
    }
}

/// The JSON object of one mapped test (`schema/map.schema.json`): both
/// results, the verdict, the compiled test and, when unsound, the forbidden
/// PTX final states with the first `max_show` explained as in the text.
pub fn report_json(m: &Mapped, s: &MapSetup, file: &str, max_show: usize) -> serde_json::Value {
    use crate::report::{result_json, state_json};
    let p = &m.target.program;
    let (verdict, extra): (&str, &[State]) = match &m.soundness {
        Soundness::Sound => ("sound", &[]),
        Soundness::Racy { .. } => ("racy", &[]),
        Soundness::Unsound(extra) => ("unsound", extra),
    };
    let counterexamples: Vec<serde_json::Value> = extra
        .iter()
        .take(max_show.max(1))
        .map(|st| serde_json::json!({ "state": state_json(p, st), "explanation": unsound_state(m, s, st) }))
        .collect();
    let unsound_states: Vec<serde_json::Value> = extra.iter().map(|st| state_json(p, st)).collect();
    let mut v = serde_json::json!({
        "name": p.name,
        "file": file,
        "mapping": m.compiler(s),
        "source_model": s.source.name(),
        "target_model": s.target.name(),
        "verdict": verdict,
        "source": result_json(&m.source, file),
        "target": result_json(&m.target, file),
        "unsound_states": unsound_states,
        "counterexamples": counterexamples,
        "ptx": m.ptx_text,
    });
    if let (Some(n), Some(obj)) = (&m.nvcc, v.as_object_mut()) {
        obj.insert("nvcc".into(), serde_json::json!({ "arch": n.arch, "cuda": n.cuda, "module": n.module }));
    }
    v
}

/// One unsound state: the PTX execution reaching it (explained like
/// `--show`), and why the source forbids it when the condition names it.
fn unsound_state(m: &Mapped, s: &MapSetup, st: &State) -> String {
    let p = &m.target.program;
    let mut out = String::new();
    if let Some(x) = m.target.outcome.states.get(st) {
        let shown = shown_exec(p, x, s.target.model(), ExecKind::Witness, st.clone(), 1, 1);
        let one = Shown { want_witness: true, witnesses: vec![shown], ..Shown::default() };
        for l in crate::explain::show_text::text(p, &one).lines() {
            out.push_str(&format!(
                "  {}\n",
                l.replace("Witness 1: allowed execution", "PTX execution allowed by the PTX model,")
            ));
        }
    }
    let so = ShowOptions { witness: false, forbidden: true, max: 1, ctx: s.opts.ctx.with_model(s.source.shared()) };
    if let Ok(sh) = crate::explain::show(&m.source, &so) {
        let in_source = m.in_source(st);
        if let Some(f) = sh.forbidden.iter().find(|f| f.state == in_source) {
            let one = Shown { want_forbidden: true, forbidden: vec![f.clone()], ..Shown::default() };
            out.push_str(&format!("  Why {} forbids it (the C test's candidate execution):\n", s.source.name()));
            for l in crate::explain::show_text::text(&m.source.program, &one).lines() {
                out.push_str(&format!("    {}\n", l));
            }
        }
    }
    out
}
