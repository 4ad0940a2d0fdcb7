//! Sweeps split over many processes (issue 45, D281-D283). `--shard K/N`, or
//! a job array's environment, keeps a deterministic part of a command's tests:
//! the sorted input files (or the generated tests, by index) whose position
//! modulo N is K, so the N parts are the whole run, test for test. With a
//! shard or `--output FILE` the results end with a trailer line saying what
//! they hold (the shard, its tests, its counts and exit status, fingerprints of
//! the sweep and of the inputs), which `ptx-litmus merge` checks and adds up
//! and `--resume` reads to skip a shard already done. `--output` writes the
//! file whole or not at all (`out::redirect`), so a preempted shard leaves no
//! complete-looking output.

use crate::error::{EXIT_INPUT, EXIT_INTERNAL};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Shard `index` of `count` (0 <= index < count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// Most shards: a job array larger than this is a typo.
pub const MAX_SHARDS: usize = 1_000_000;

impl Shard {
    /// Whether the item at position `i` of the sorted inputs is this shard's.
    pub fn holds(&self, i: usize) -> bool {
        i % self.count == self.index
    }

    /// This shard's items of `items`, in their order. Round robin rather than
    /// blocks: neighbouring tests (one family, one size) cost alike, so every
    /// shard gets its share of the slow ones.
    pub fn select<T>(&self, items: Vec<T>) -> Vec<T> {
        items.into_iter().enumerate().filter(|(i, _)| self.holds(*i)).map(|(_, t)| t).collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

fn whole_number(s: &str) -> Option<usize> {
    let s = s.trim();
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

fn checked(index: usize, count: usize) -> Result<Shard, String> {
    if count == 0 {
        Err("there must be at least one shard (N >= 1)".into())
    } else if count > MAX_SHARDS {
        Err(format!("at most {} shards", MAX_SHARDS))
    } else if index >= count {
        Err(format!("there is no shard {} of {}: K counts from 0 to N-1", index, count))
    } else {
        Ok(Shard { index, count })
    }
}

/// `--shard K/N`.
pub fn parse(s: &str) -> Result<Shard, String> {
    let parts = s.split_once('/').map(|(k, n)| (whole_number(k), whole_number(n)));
    let Some((Some(k), Some(n))) = parts else {
        return Err(format!("`{}` is not K/N, shard K of N counted from 0 (0/4, 1/4, 2/4, 3/4)", s));
    };
    checked(k, n).map_err(|e| format!("`{}`: {}", s, e))
}

/// The shard a job array's environment gives (`get` reads a variable), if
/// any: Slurm's `SLURM_ARRAY_TASK_ID` of `SLURM_ARRAY_TASK_COUNT` (counted
/// from `SLURM_ARRAY_TASK_MIN` by `SLURM_ARRAY_TASK_STEP`, so `--array=1-4`
/// works too), else a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` of
/// `JOB_COMPLETIONS`, which the Job must set to its `completions` (Kubernetes
/// gives pods their index only, D281).
pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, String> {
    let var = |name: &str| -> Result<Option<usize>, String> {
        match get(name) {
            None => Ok(None),
            Some(v) => whole_number(&v).map(Some).ok_or_else(|| format!("{}=`{}` is not a whole number", name, v)),
        }
    };
    if let Some(id) = var("SLURM_ARRAY_TASK_ID")? {
        let count = var("SLURM_ARRAY_TASK_COUNT")?
            .ok_or("SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT: give --shard K/N")?;
        let min = var("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let step = var("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
        let k = id.checked_sub(min).filter(|d| d % step == 0).map(|d| d / step);
        let k = k.ok_or_else(|| {
            format!("SLURM_ARRAY_TASK_ID={} is not on the array's range from {} by {}", id, min, step)
        })?;
        return checked(k, count).map(Some).map_err(|e| {
            format!("the Slurm array task {}: {} (submit with --array=0-{})", id, e, count.saturating_sub(1))
        });
    }
    if let Some(index) = var("JOB_COMPLETION_INDEX")? {
        let count = var("JOB_COMPLETIONS")?.ok_or(
            "JOB_COMPLETION_INDEX is set without JOB_COMPLETIONS: set it to the Job's completions, or give --shard K/N",
        )?;
        return checked(index, count).map(Some).map_err(|e| format!("JOB_COMPLETION_INDEX={}: {}", index, e));
    }
    Ok(None)
}

/// The options every sharded command shares.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ShardArgs {
    /// Only shard K of N (K from 0): the sorted input files whose position modulo N is K. Default: a job
    /// array's SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX of JOB_COMPLETIONS
    /// (Kubernetes); `0/1` is the whole run. The output ends with a trailer line for `ptx-litmus merge`.
    #[arg(long, value_name = "K/N", value_parser = parse)]
    pub shard: Option<Shard>,
    /// Write the results (what goes to stdout) to FILE, whole or not at all, ending with the trailer line.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Skip the run when --output already holds this shard's complete results for the same command line and
    /// inputs (a resubmitted job array redoes only its unfinished shards).
    #[arg(long, requires = "output")]
    pub resume: bool,
}

/// A file of a shard that gave no result record (text output: its error went to stderr).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Failure {
    pub file: String,
    pub message: String,
    pub exit_code: i32,
}

/// The last line of a shard's output: what it holds, for `merge` and `--resume`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Trailer {
    /// `check`, `map` or `run`.
    pub command: String,
    /// `herd` (a herd log), `json` (JSON lines) or `text` (another command's text).
    pub format: String,
    pub index: usize,
    pub count: usize,
    /// Input files of this shard, and of the whole sweep.
    pub tests: usize,
    pub total: usize,
    /// MD5 of the command, its options and the whole sorted input list: one value for every shard of a sweep.
    pub sweep: String,
    /// This shard's input files' contents, fingerprinted (what `--resume` compares).
    pub inputs: String,
    pub wall_s: f64,
    /// The exit status of the shard.
    pub exit: i32,
    /// What the command counted (`ok`, `no`, `errors`, ... by command), added up by `merge`.
    pub counts: BTreeMap<String, usize>,
    /// Files that gave no result record (text output only).
    #[serde(default)]
    pub failures: Vec<Failure>,
    /// `--expect` lines (mismatches, deviations, errors).
    #[serde(default)]
    pub listing: Vec<String>,
}

/// How a trailer starts in a herd log: herd's log tools skip a line they do not read.
pub const HERD_PREFIX: &str = "# ptx-litmus shard ";
/// The one key of a trailer object in JSON lines.
pub const JSON_KEY: &str = "ptx_litmus_shard";

impl Trailer {
    /// The trailer as its line (with the newline).
    pub fn line(&self) -> String {
        let body = serde_json::to_string(self).unwrap_or_default();
        if self.format == "json" {
            format!("{{\"{}\":{}}}\n", JSON_KEY, body)
        } else {
            format!("{}{}\n", HERD_PREFIX, body)
        }
    }

    /// The trailer a line is, if it is one (of either format).
    pub fn read(line: &str) -> Option<Trailer> {
        if let Some(body) = line.strip_prefix(HERD_PREFIX) {
            return serde_json::from_str(body).ok();
        }
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let obj = v.as_object().filter(|o| o.len() == 1)?;
        serde_json::from_value(obj.get(JSON_KEY)?.clone()).ok()
    }

    pub fn shard(&self) -> Shard {
        Shard { index: self.index, count: self.count }
    }
}

fn md5_hex(h: md5::Md5) -> String {
    use md5::Digest;
    h.finalize().iter().map(|b| format!("{:02x}", b)).collect()
}

/// The command line without what differs between the shards of one sweep or
/// does not change its results: the shard, the output file, `--resume`, `-j`, `-q`.
fn sweep_args(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut skip_next = false;
    for a in args {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        match a.as_str() {
            "--shard" | "-o" | "--output" | "-j" | "--jobs" => skip_next = true,
            "--resume" | "-q" | "--quiet" => {}
            s if ["--shard=", "--output=", "--jobs="].iter().any(|p| s.starts_with(p)) => {}
            s if (s.starts_with("-o") || s.starts_with("-j")) && s.len() > 2 && !s.starts_with("--") => {}
            s => out.push(s),
        }
    }
    out
}

fn sweep_fingerprint(command: &str, files: &[PathBuf]) -> String {
    use md5::Digest;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut h = md5::Md5::new();
    h.update(command.as_bytes());
    for a in sweep_args(&args) {
        h.update(b"\0");
        h.update(a.as_bytes());
    }
    h.update(b"\0files");
    for f in files {
        h.update(b"\0");
        h.update(f.as_os_str().as_encoded_bytes());
    }
    md5_hex(h)
}

/// XOR of each file's MD5 (of its path, length and bytes): the shards' values
/// XOR to the whole run's, so a merged output keeps the whole run's fingerprint.
fn inputs_fingerprint(files: &[PathBuf]) -> String {
    use md5::Digest;
    let mut acc = [0u8; 16];
    for f in files {
        let mut h = md5::Md5::new();
        h.update(f.as_os_str().as_encoded_bytes());
        // An unreadable file fingerprints as such: its error is part of the results.
        let bytes = std::fs::read(f).unwrap_or_default();
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
        for (a, b) in acc.iter_mut().zip(h.finalize()) {
            *a ^= b;
        }
    }
    acc.iter().map(|b| format!("{:02x}", b)).collect()
}

/// One sharded (or `--output`) run of a command, from its inputs to its trailer.
pub struct Sweep {
    /// No shard and no output: the run prints as it always did, with no trailer.
    plain: bool,
    trailer: Trailer,
    output: Option<PathBuf>,
    start: Instant,
}

/// What a command does after [`Sweep::start`].
pub enum Start {
    /// Run these files, then [`Sweep::finish`].
    Run(Box<Sweep>, Vec<PathBuf>),
    /// Nothing to run (a bad shard or output, or `--resume` found the output done): exit with this status.
    Done(i32),
}

impl Sweep {
    /// Pick the shard's files of `files` (the command's whole input list), skip
    /// them when `--resume` finds their output complete, and redirect stdout to `--output`.
    pub fn start(command: &str, format: &str, a: &ShardArgs, mut files: Vec<PathBuf>) -> Start {
        let shard = match a.shard.map_or_else(|| from_env(|k| std::env::var(k).ok()), |s| Ok(Some(s))) {
            Ok(s) => s,
            Err(e) => {
                crate::out::eprintln(&format!("error: {}", e));
                return Start::Done(EXIT_INPUT);
            }
        };
        let format = format.to_string();
        let mut trailer = Trailer { command: command.into(), format, index: 0, count: 1, ..Trailer::default() };
        let plain = shard.is_none() && a.output.is_none();
        if plain {
            let sweep = Sweep { plain, trailer, output: None, start: Instant::now() };
            return Start::Run(Box::new(sweep), files);
        }
        if let Some(s) = shard {
            files.sort();
            (trailer.index, trailer.count) = (s.index, s.count);
        }
        trailer.total = files.len();
        trailer.sweep = sweep_fingerprint(command, &files);
        let files = trailer.shard().select(files);
        trailer.tests = files.len();
        trailer.inputs = inputs_fingerprint(&files);
        let sweep = Sweep { plain, trailer, output: a.output.clone(), start: Instant::now() };
        if let Some(code) = sweep.resumed(a.resume) {
            return Start::Done(code);
        }
        if let Some(out) = &sweep.output {
            if let Err(e) = crate::out::redirect(out) {
                crate::out::eprintln(&format!("error: cannot write {}: {}", out.display(), e));
                return Start::Done(EXIT_INPUT);
            }
        }
        Start::Run(Box::new(sweep), files)
    }

    /// With `--resume`: the exit status recorded in an output that already
    /// holds this shard's complete results; None (the shard runs) otherwise.
    fn resumed(&self, resume: bool) -> Option<i32> {
        let out = self.output.as_ref().filter(|_| resume)?;
        let text = std::fs::read_to_string(out).ok()?;
        let last = text.lines().rev().find(|l| !l.trim().is_empty());
        let t = &self.trailer;
        let done = last.and_then(Trailer::read).filter(|d| {
            (&d.command, &d.format, d.index, d.count, &d.sweep, &d.inputs)
                == (&t.command, &t.format, t.index, t.count, &t.sweep, &t.inputs)
        });
        match done {
            Some(d) => {
                crate::out::eprintln(&format!(
                    "{}: shard {} is complete ({} tests): skipped (--resume)",
                    out.display(),
                    t.shard(),
                    d.tests
                ));
                Some(d.exit)
            }
            None => {
                crate::out::eprintln(&format!(
                    "{}: not this shard's complete results (another command, other inputs, or cut short): run again",
                    out.display()
                ));
                None
            }
        }
    }

    /// Whether the run is one shard of several (a run that is the whole prints its own "nothing ran" verdicts).
    pub fn is_part(&self) -> bool {
        self.trailer.count > 1
    }

    /// End the run: write the trailer (and make `--output` whole); returns the exit status.
    pub fn finish(
        mut self,
        exit: i32,
        counts: BTreeMap<String, usize>,
        failures: Vec<Failure>,
        listing: Vec<String>,
    ) -> i32 {
        if self.plain {
            return exit;
        }
        let t = &mut self.trailer;
        t.wall_s = (self.start.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        (t.exit, t.counts, t.failures, t.listing) = (exit, counts, failures, listing);
        match crate::out::commit(&t.line()) {
            Ok(()) => exit,
            Err(e) => {
                let name = self.output.as_deref().unwrap_or(Path::new("standard output"));
                crate::out::eprintln(&format!("error: cannot write {}: {}", name.display(), e));
                EXIT_INTERNAL
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_values_are_checked() {
        assert_eq!(parse("1/4"), Ok(Shard { index: 1, count: 4 }));
        assert_eq!(parse(" 0/1 ").map(|s| s.to_string()), Ok("0/1".to_string()));
        for bad in ["4/4", "0/0", "1", "a/4", "-1/4", "1/4/2", "", "1/", "1/+4", "0/2000000"] {
            assert!(parse(bad).is_err(), "{:?} accepted", bad);
        }
        assert!(parse("4/4").unwrap_err().contains("no shard 4 of 4"));
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn job_arrays_give_the_shard() {
        let slurm = [("SLURM_ARRAY_TASK_ID", "3"), ("SLURM_ARRAY_TASK_COUNT", "4")];
        assert_eq!(from_env(env(&slurm)), Ok(Some(Shard { index: 3, count: 4 })));
        let from_one = [("SLURM_ARRAY_TASK_ID", "4"), ("SLURM_ARRAY_TASK_COUNT", "4"), ("SLURM_ARRAY_TASK_MIN", "1")];
        assert_eq!(from_env(env(&from_one)), Ok(Some(Shard { index: 3, count: 4 })));
        let k8s = [("JOB_COMPLETION_INDEX", "0"), ("JOB_COMPLETIONS", "2")];
        assert_eq!(from_env(env(&k8s)), Ok(Some(Shard { index: 0, count: 2 })));
        assert_eq!(from_env(env(&[])), Ok(None));
        assert!(from_env(env(&[("SLURM_ARRAY_TASK_ID", "3")])).unwrap_err().contains("SLURM_ARRAY_TASK_COUNT"));
        assert!(from_env(env(&[("JOB_COMPLETION_INDEX", "x"), ("JOB_COMPLETIONS", "2")])).is_err());
        assert!(from_env(env(&[("JOB_COMPLETION_INDEX", "2"), ("JOB_COMPLETIONS", "2")])).is_err());
        assert!(from_env(env(&[("JOB_COMPLETION_INDEX", "1")])).unwrap_err().contains("JOB_COMPLETIONS"));
    }

    #[test]
    fn the_shards_partition_the_inputs() {
        let items: Vec<usize> = (0..10).collect();
        let mut all: Vec<usize> = (0..3).flat_map(|k| Shard { index: k, count: 3 }.select(items.clone())).collect();
        all.sort();
        assert_eq!(all, items);
        assert_eq!(Shard { index: 1, count: 3 }.select(items), vec![1, 4, 7]);
    }

    #[test]
    fn trailers_read_back_in_both_formats() {
        let mut t =
            Trailer { command: "check".into(), format: "herd".into(), count: 2, tests: 3, ..Default::default() };
        assert_eq!(Trailer::read(t.line().trim_end()), Some(t.clone()));
        t.format = "json".into();
        assert_eq!(Trailer::read(t.line().trim_end()), Some(t));
        assert_eq!(Trailer::read("{\"name\":\"MP\"}"), None);
    }

    #[test]
    fn the_sweep_ignores_what_differs_between_shards() {
        let a: Vec<String> =
            ["check", "c/", "--shard", "1/4", "-o", "x.log", "--resume", "-j2", "--json"].map(String::from).to_vec();
        assert_eq!(sweep_args(&a), vec!["check", "c/", "--json"]);
    }
}
