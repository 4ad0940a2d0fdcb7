//! `ptx-litmus merge` (issue 45, D282): the outputs of a sweep's shards made
//! the output of the whole run. Every shard's trailer must be there, of one
//! sweep (command, options, inputs, shard count), each shard once, each output
//! holding as many results as its trailer has tests, and no test twice. The
//! records are written sorted by their key (test name in a herd log, file in
//! JSON lines), so the result does not depend on the order of the shards
//! (nor on how the tests were split), and merging a merged output gives it back.
//! The summary is added up from the trailers and printed as the command prints
//! it, and the exit status is the whole run's.

mod records;

pub use records::{read, Output, Record};

use crate::error::{EXIT_INPUT, EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK};
use crate::shard::Trailer;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `ptx-litmus merge` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct MergeArgs {
    /// The shards' outputs (`--shard K/N --output FILE` of `check`, `map` or `run`): herd logs or JSON lines.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write the merged output to FILE (whole or not at all) instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The whole run made of its shards.
#[derive(Debug)]
pub struct Merged {
    /// The output as the unsharded run would write it (records sorted), with its trailer.
    pub text: String,
    /// The summary lines for stderr, as the command prints them.
    pub summary: Vec<String>,
    pub exit: i32,
}

/// That the outputs are every shard of one sweep, once each, each complete.
fn check_shards(outs: &[(String, Output)]) -> Result<(), String> {
    let (first, t0) = (&outs[0].0, &outs[0].1.trailer);
    for (name, o) in outs {
        let t = &o.trailer;
        if (&t.command, &t.format, &t.sweep, t.count, t.total)
            != (&t0.command, &t0.format, &t0.sweep, t0.count, t0.total)
        {
            return Err(format!("{} and {} are not shards of one sweep (their command, output format, options, inputs or number of shards differ)", first, name));
        }
        let held = o.records.len() + t.failures.len();
        if held != t.tests {
            return Err(format!(
                "{} holds {} results of its shard's {} tests: it is incomplete or was edited",
                name, held, t.tests
            ));
        }
    }
    let mut seen: BTreeMap<usize, &str> = BTreeMap::new();
    for (name, o) in outs {
        if let Some(before) = seen.insert(o.trailer.index, name) {
            return Err(format!("shard {} is given twice: {} and {}", o.trailer.shard(), before, name));
        }
    }
    let missing: Vec<String> =
        (0..t0.count).filter(|k| !seen.contains_key(k)).map(|k| format!("{}/{}", k, t0.count)).collect();
    if !missing.is_empty() {
        let more = if missing.len() > 5 { format!(" and {} more", missing.len() - 5) } else { String::new() };
        return Err(format!("shard {}{} of the sweep is missing", missing[..missing.len().min(5)].join(", "), more));
    }
    let tests: usize = outs.iter().map(|(_, o)| o.trailer.tests).sum();
    if tests != t0.total {
        return Err(format!("the shards hold {} tests, the sweep {}: some output was edited", tests, t0.total));
    }
    Ok(())
}

/// The records of all outputs, sorted by key, each key once.
fn sorted_records(outs: &[(String, Output)]) -> Result<Vec<Record>, String> {
    let mut all: Vec<(&Record, &str)> =
        outs.iter().flat_map(|(n, o)| o.records.iter().map(move |r| (r, n.as_str()))).collect();
    all.sort_by(|a, b| Path::new(&a.0.key).cmp(Path::new(&b.0.key)).then_with(|| a.0.key.cmp(&b.0.key)));
    for w in all.windows(2) {
        if w[0].0.key == w[1].0.key {
            return Err(format!("test `{}` is in {} and in {}", w[0].0.key, w[0].1, w[1].1));
        }
    }
    Ok(all.into_iter().map(|(r, _)| r.clone()).collect())
}

/// XOR of hexadecimal fingerprints: the shards' input fingerprints make the whole run's.
fn xor_hex(a: &str, b: &str) -> String {
    let bytes = |s: &str| {
        (0..s.len() / 2).filter_map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()).collect::<Vec<u8>>()
    };
    let (x, y) = (bytes(a), bytes(b));
    (0..x.len().max(y.len())).map(|i| format!("{:02x}", x.get(i).unwrap_or(&0) ^ y.get(i).unwrap_or(&0))).collect()
}

/// The whole run's exit status from its shards', as the command computes it.
fn exit_of(t: &Trailer, exits: &[i32]) -> i32 {
    let c = |k: &str| t.counts.get(k).copied().unwrap_or(0);
    let worst = exits.iter().copied().max().unwrap_or(EXIT_OK);
    match t.command.as_str() {
        // `map` ranks input errors, then limits, then unsound tests.
        "map" if c("errors") > 0 => EXIT_INPUT,
        "map" if c("limits") > 0 => EXIT_INTERNAL,
        "map" if c("unsound") > 0 => EXIT_MISMATCH,
        "map" => EXIT_OK,
        // A campaign in which no test ran is not a pass (D121), whichever shard ran nothing.
        "run" if c("ran") == 0 => worst.max(EXIT_INTERNAL),
        _ => worst,
    }
}

/// The trailer of the whole run: the shards' added up.
fn merged_trailer(outs: &[(String, Output)]) -> Trailer {
    let t0 = &outs[0].1.trailer;
    let mut t = Trailer { index: 0, count: 1, tests: t0.total, ..t0.clone() };
    t.inputs = outs.iter().fold(String::new(), |acc, (_, o)| xor_hex(&acc, &o.trailer.inputs));
    t.wall_s = outs.iter().map(|(_, o)| o.trailer.wall_s).fold(0.0, f64::max);
    t.counts = BTreeMap::new();
    for (_, o) in outs {
        for (k, v) in &o.trailer.counts {
            *t.counts.entry(k.clone()).or_default() += v;
        }
    }
    t.failures = outs.iter().flat_map(|(_, o)| o.trailer.failures.iter().cloned()).collect();
    t.failures.sort();
    t.listing = outs.iter().flat_map(|(_, o)| o.trailer.listing.iter().cloned()).collect();
    t.listing.sort();
    let exits: Vec<i32> = outs.iter().map(|(_, o)| o.trailer.exit).collect();
    t.exit = exit_of(&t, &exits);
    t
}

/// `map`'s summary line, as `map` writes it.
fn map_summary(t: &Trailer) -> String {
    let c = |k: &str| t.counts.get(k).copied().unwrap_or(0);
    let skipped = if c("skipped") > 0 { format!(", skipped by --only {}", c("skipped")) } else { String::new() };
    format!(
        "{} tests: sound {}, unsound {}, racy {}, errors {}, limits {}{}, wall time {:.2} s",
        t.total - c("skipped"),
        c("sound"),
        c("unsound"),
        c("racy"),
        c("errors"),
        c("limits"),
        skipped,
        t.wall_s
    )
}

/// The lines the command prints on stderr at its end, from the merged trailer.
fn summary(t: &Trailer, shards: usize, records: &[Record]) -> Vec<String> {
    let c = |k: &str| t.counts.get(k).copied().unwrap_or(0);
    let mut out: Vec<String> = t.failures.iter().map(|f| format!("error: {}: {}", f.file, f.message)).collect();
    out.extend(t.listing.iter().cloned());
    match t.command.as_str() {
        "map" => {
            out.push(format!("unsound mappings: {}", c("unsound")));
            if t.format == "json" {
                out.push(map_summary(t));
            }
        }
        "run" => out.push(format!("{} tests: ran {}, skipped {}", t.total, c("ran"), c("skipped"))),
        _ => {
            if t.counts.contains_key("expect_matched") {
                out.push(format!(
                    "expectations: {} matched ({} documented deviations), {} mismatched, {} errors, {} without expectation",
                    c("expect_matched"), c("expect_deviations"), c("expect_mismatched"), c("expect_errors"), c("expect_without")
                ));
            }
            out.push(format!(
                "{} tests: Ok {}, No {}, errors {}, limits {}, wall time {:.2} s",
                t.total,
                c("ok"),
                c("no"),
                c("errors"),
                c("limits"),
                t.wall_s
            ));
        }
    }
    let mut timed: Vec<&Record> = records.iter().filter(|r| r.seconds.is_some()).collect();
    timed
        .sort_by(|a, b| b.seconds.partial_cmp(&a.seconds).unwrap_or(std::cmp::Ordering::Equal).then(a.key.cmp(&b.key)));
    if !timed.is_empty() {
        let top: Vec<String> =
            timed.iter().take(5).map(|r| format!("{} {:.2} s", r.name, r.seconds.unwrap_or(0.0))).collect();
        out.push(format!("slowest tests: {}", top.join(", ")));
    }
    out.push(format!(
        "merged {} shard{} of sweep {}: {} tests, exit {}",
        shards,
        if shards == 1 { "" } else { "s" },
        t.sweep.get(..12).unwrap_or(&t.sweep),
        t.total,
        t.exit
    ));
    out
}

/// Merge outputs already read, each named for messages; `Err` is one sentence.
pub fn merge(outs: &[(String, Output)]) -> Result<Merged, String> {
    if outs.is_empty() {
        return Err("nothing to merge".into());
    }
    check_shards(outs)?;
    let records = sorted_records(outs)?;
    let t = merged_trailer(outs);
    let mut text: String = records.iter().map(|r| r.text.as_str()).collect();
    if t.command == "map" && t.format == "text" {
        text.push_str(&map_summary(&t));
        text.push('\n');
    }
    text.push_str(&t.line());
    let summary = summary(&t, outs.len(), &records);
    Ok(Merged { text, summary, exit: t.exit })
}

/// `ptx-litmus merge FILE...`: exit 2 when an output is unreadable, garbled,
/// incomplete, missing, doubled or of another sweep; else the whole run's status.
pub fn run(a: &MergeArgs) -> i32 {
    let mut outs = Vec::new();
    for f in &a.files {
        let name = f.display().to_string();
        let text = match crate::input::read_text_capped(f, usize::MAX >> 1) {
            Ok(t) => t,
            Err(e) => {
                crate::out::eprintln(&format!("{}: error: {}", name, e));
                return EXIT_INPUT;
            }
        };
        match read(&text) {
            Ok(o) => outs.push((name, o)),
            Err(e) => {
                crate::out::eprintln(&e.render(&name, &text));
                return EXIT_INPUT;
            }
        }
    }
    let m = match merge(&outs) {
        Ok(m) => m,
        Err(e) => {
            crate::out::eprintln(&format!("error: {}", e));
            return EXIT_INPUT;
        }
    };
    match &a.output {
        Some(p) => {
            if let Err(e) = crate::out::write_atomic(p, m.text.as_bytes()) {
                crate::out::eprintln(&format!("error: cannot write {}: {}", p.display(), e));
                return EXIT_INTERNAL;
            }
        }
        None => crate::out::print(&m.text),
    }
    for l in &m.summary {
        crate::out::eprintln(l);
    }
    m.exit
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A herd-format shard `index` of `count` holding tests `names`, all Ok.
    fn shard(index: usize, count: usize, total: usize, names: &[&str]) -> (String, Output) {
        let mut text = String::new();
        for n in names {
            text.push_str(&format!("Test {} Allowed\nOk\nTime {} 0.{}\n\n", n, n, n.len()));
        }
        let counts = [("ok".to_string(), names.len())].into();
        let t = Trailer {
            command: "check".into(),
            format: "herd".into(),
            index,
            count,
            tests: names.len(),
            total,
            sweep: "ab".into(),
            inputs: format!("{:02x}", index + 1),
            counts,
            ..Default::default()
        };
        text.push_str(&t.line());
        (format!("s{}", index), read(&text).unwrap())
    }

    #[test]
    fn shards_merge_in_any_order_and_a_merge_merges_to_itself() {
        let a = merge(&[shard(0, 2, 3, &["B", "A"]), shard(1, 2, 3, &["C"])]).unwrap();
        let b = merge(&[shard(1, 2, 3, &["C"]), shard(0, 2, 3, &["B", "A"])]).unwrap();
        assert_eq!(a.text, b.text);
        assert!(a.text.starts_with("Test A Allowed\n"), "{}", a.text);
        let again = merge(&[("m".into(), read(&a.text).unwrap())]).unwrap();
        assert_eq!(again.text, a.text);
        assert!(
            a.summary.iter().any(|l| l == "3 tests: Ok 3, No 0, errors 0, limits 0, wall time 0.00 s"),
            "{:?}",
            a.summary
        );
        assert!(a.summary.iter().any(|l| l.starts_with("slowest tests: ")), "{:?}", a.summary);
        assert_eq!(a.exit, EXIT_OK);
    }

    #[test]
    fn missing_doubled_and_foreign_shards_are_refused() {
        let miss = merge(&[shard(0, 3, 3, &["A"]), shard(2, 3, 3, &["C"])]).unwrap_err();
        assert!(miss.contains("shard 1/3 of the sweep is missing"), "{}", miss);
        let twice = merge(&[shard(0, 2, 2, &["A"]), shard(0, 2, 2, &["A"])]).unwrap_err();
        assert!(twice.contains("given twice"), "{}", twice);
        let doubled = merge(&[shard(0, 2, 2, &["A"]), shard(1, 2, 2, &["A"])]).unwrap_err();
        assert!(doubled.contains("test `A` is in s0 and in s1"), "{}", doubled);
        let mut other = shard(1, 2, 2, &["B"]);
        other.1.trailer.sweep = "cd".into();
        assert!(merge(&[shard(0, 2, 2, &["A"]), other]).unwrap_err().contains("not shards of one sweep"));
        let mut cut = shard(1, 2, 3, &["B"]);
        cut.1.trailer.tests = 2;
        assert!(merge(&[shard(0, 2, 3, &["A"]), cut]).unwrap_err().contains("holds 1 results of its shard's 2 tests"));
    }

    #[test]
    fn the_exit_status_is_the_whole_runs() {
        let t = |command: &str, counts: &[(&str, usize)]| Trailer {
            command: command.into(),
            counts: counts.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Default::default()
        };
        assert_eq!(exit_of(&t("check", &[]), &[0, 1, 0]), 1);
        assert_eq!(exit_of(&t("map", &[("unsound", 1), ("limits", 1)]), &[1, 3]), EXIT_INTERNAL);
        assert_eq!(exit_of(&t("map", &[("unsound", 2)]), &[1, 0]), EXIT_MISMATCH);
        assert_eq!(exit_of(&t("run", &[("ran", 0), ("skipped", 2)]), &[0, 0]), EXIT_INTERNAL);
        assert_eq!(exit_of(&t("run", &[("ran", 1)]), &[0, 0]), EXIT_OK);
        assert_eq!(xor_hex("0f", "ff"), "f0");
    }
}
