//! `map --nvcc`: the real compiler instead of the mapping table (issue 28).
//!
//! The C test is written as CUDA ([`super::cuda`]), compiled by nvcc
//! (`-ptx -O3 -arch=sm_XX`), and the PTX it emits is run by a harness (README
//! "Checking compiler output"): one thread per C thread, placed as the C test
//! places it, calling its kernel with the test's locations and an `s32`
//! array that receives the registers the condition observes. The harness is
//! decided like any test; its final states are read back in the C test's
//! observables (`out0[1]` is `P0:r1`) and compared with the source model's.
//! Without nvcc nothing is faked: every test is an error (exit 3).

use super::cuda::CudaTest;
use crate::ast::{Litmus, Observable, Prop, Quantifier, Term};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one nvcc run may take before it is stopped (exit 3).
const NVCC_TIMEOUT: Duration = Duration::from_secs(300);

/// The compiler of a `map --nvcc` run.
#[derive(Clone, Debug)]
pub struct Nvcc {
    /// The nvcc found, or why none was.
    pub path: std::result::Result<PathBuf, String>,
    /// `--arch`; `None`: sm_75, or sm_90 for a test placed in clusters.
    pub arch: Option<String>,
}

/// The nvcc to run: `--nvcc=PATH` when given (non-empty), else `$PTXL_NVCC`,
/// else `nvcc` on `PATH`; absolute, since nvcc runs in a scratch folder.
pub fn locate(given: &str) -> std::result::Result<PathBuf, String> {
    let found = locate_as_given(given)?;
    std::path::absolute(&found).map_err(|e| format!("nvcc not found: `{}`: {}", found.display(), e))
}

fn locate_as_given(given: &str) -> std::result::Result<PathBuf, String> {
    let install = "scripts/install-nvcc.sh installs it; --nvcc=PATH or PTXL_NVCC=PATH names it";
    if !given.is_empty() {
        let p = PathBuf::from(given);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("nvcc not found: `{}` is not a file ({})", given, install))
        };
    }
    if let Some(p) = std::env::var_os("PTXL_NVCC").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("nvcc not found: PTXL_NVCC names `{}`, which is not a file ({})", p.display(), install))
        };
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("nvcc"))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("nvcc not found on PATH ({})", install))
}

/// `sm_75`, `sm_90a`: what `--arch` accepts.
pub fn valid_arch(a: &str) -> bool {
    a.strip_prefix("sm_").is_some_and(|n| {
        let digits = n.trim_end_matches(['a', 'f']);
        !digits.is_empty() && digits.len() + 1 >= n.len() && digits.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The architecture a test is compiled for: `--arch`, else the oldest nvcc
/// 13.5 still compiles for (sm_75), or sm_90, the first with clusters, when
/// the test places a thread in one.
pub fn arch_for(lit: &Litmus, given: Option<&str>) -> String {
    match given {
        Some(a) => a.to_string(),
        None if lit.threads.iter().any(|h| h.cluster.is_some()) => "sm_90".into(),
        None => "sm_75".into(),
    }
}

/// A file name from a test name: characters other than letters, digits and `+-._` become `_`.
pub fn file_stem(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || "+-._".contains(c) { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with('.') {
        format!("test{}", s)
    } else {
        s
    }
}

/// Run nvcc on `stem.cu` in `dir`, writing `stem.ptx`; its text.
pub fn compile(nvcc: &Path, dir: &Path, stem: &str, arch: &str) -> Result<String> {
    let (cu, ptx, log) = (format!("{}.cu", stem), format!("{}.ptx", stem), dir.join(format!("{}.nvcc.log", stem)));
    let log_file = std::fs::File::create(&log).map_err(|e| Error::limit(format!("cannot write nvcc's log: {}", e)))?;
    let mut child = Command::new(nvcc)
        .args(["-ptx", "-O3", &format!("-arch={}", arch), &cu, "-o", &ptx])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(log_file.try_clone().map_err(|e| Error::limit(e.to_string()))?)
        .stderr(log_file)
        .spawn()
        .map_err(|e| Error::limit(format!("cannot run {}: {}", nvcc.display(), e)))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > NVCC_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::limit(format!("nvcc ran past {} s and was stopped", NVCC_TIMEOUT.as_secs())));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(Error::limit(format!("waiting for nvcc: {}", e))),
        }
    };
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    if !status.success() {
        let tail: Vec<&str> = said.lines().take(12).collect();
        return Err(Error::limit(format!("nvcc failed ({}) on {}:\n{}", status, cu, tail.join("\n"))));
    }
    std::fs::read_to_string(dir.join(&ptx)).map_err(|e| Error::limit(format!("nvcc wrote no {}: {}", ptx, e)))
}

/// The harness's name for a C observable: `P0:r1` is the element of
/// thread 0's out array that its kernel writes `r1` to; a location keeps its name.
fn harness_name(o: &Observable, cuda: &CudaTest) -> String {
    match o {
        Observable::Reg { thread, reg } => {
            let k = cuda.outs[*thread].iter().position(|r| r == reg).unwrap_or(0);
            format!("out{}[{}]", thread, k)
        }
        Observable::Loc(l) => l.clone(),
    }
}

/// The harness running nvcc's `stem.ptx` as the C test `lit`; `observables`
/// are the source program's (all listed in `locations`).
pub fn harness_text(lit: &Litmus, cuda: &CudaTest, observables: &[Observable], stem: &str, arch: &str) -> String {
    let mut init: Vec<String> = cuda.locations.iter().map(|l| format!("{} = {};", l, initial(lit, l))).collect();
    init.extend(cuda.outs.iter().enumerate().map(|(t, o)| format!("s32 out{}[{}];", t, o.len().max(1))));
    let heads: Vec<String> = lit
        .threads
        .iter()
        .map(|h| {
            let cluster = h.cluster.map_or(String::new(), |c| format!("cluster {},", c));
            format!("P{}@cta {},{}gpu {}", h.id, h.cta, cluster, h.gpu)
        })
        .collect();
    let calls: Vec<String> = (0..lit.threads.len())
        .map(|t| {
            let args: Vec<String> = cuda.locations.iter().cloned().chain([format!("out{}", t)]).collect();
            format!("call P{}, ({})", t, args.join(", "))
        })
        .collect();
    let width: Vec<usize> = heads.iter().zip(&calls).map(|(h, c)| h.len().max(c.len())).collect();
    let row = |cells: &[String]| {
        cells.iter().zip(&width).map(|(c, w)| format!(" {:<w$} ", c, w = w)).collect::<Vec<_>>().join("|") + ";\n"
    };
    let mut s = format!(
        "PTX {}\n\"{} compiled by nvcc -ptx -O3 -arch={} ({}.cu): one kernel per C thread, observed registers in outT\"\n",
        lit.name,
        lit.name.replace('"', "'"),
        arch,
        stem
    );
    s.push_str(&format!("{{ {} }}\nptx \"{}.ptx\";\n", init.join(" "), stem));
    s.push_str(&row(&heads));
    s.push_str(&row(&calls));
    if !observables.is_empty() {
        let names: Vec<String> = observables.iter().map(|o| format!("{};", harness_name(o, cuda))).collect();
        s.push_str(&format!("locations [{}]\n", names.join(" ")));
    }
    if lit.condition.given {
        s.push_str(&condition(lit, cuda));
        s.push('\n');
    }
    s
}

fn initial(lit: &Litmus, loc: &str) -> i64 {
    lit.init
        .iter()
        .find_map(|i| match i {
            crate::ast::InitItem::Location { name, value, .. } if name == loc => Some(*value),
            _ => None,
        })
        .unwrap_or(0)
}

/// The C test's condition over the harness's names.
fn condition(lit: &Litmus, cuda: &CudaTest) -> String {
    let q = match lit.condition.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    let term = |t: &Term| match t {
        Term::Obs(o, _) => harness_name(o, cuda),
        Term::Const(c) => c.to_string(),
    };
    let text = crate::report::herd::prop(&lit.condition.prop, 0, &mut |p| match p {
        Prop::Eq(a, b) => format!("{} == {}", term(a), term(b)),
        Prop::Ne(a, b) => format!("{} != {}", term(a), term(b)),
        Prop::Lt(a, b) => format!("{} < {}", term(a), term(b)),
        Prop::Le(a, b) => format!("{} <= {}", term(a), term(b)),
        _ => String::new(),
    });
    format!("{} ({})", q, text)
}

/// For each source observable, the index of its harness counterpart among
/// the harness program's observables.
pub fn projection(source: &[Observable], target: &[Observable], cuda: &CudaTest) -> Result<Vec<usize>> {
    source
        .iter()
        .map(|o| {
            let name = harness_name(o, cuda);
            target
                .iter()
                .position(|t| t.to_string() == name)
                .ok_or_else(|| Error::internal(format!("the harness does not observe `{}` (for {})", name, o)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// nvcc runs in a scratch folder, so a relative `--nvcc=PATH` must be made absolute first.
    #[test]
    fn a_relative_nvcc_path_is_made_absolute() {
        let here = std::env::current_dir().expect("cwd");
        let file = std::fs::read_dir(&here)
            .expect("lists")
            .filter_map(|e| e.ok())
            .find(|e| e.path().is_file())
            .expect("a file here");
        let name = file.file_name().to_string_lossy().into_owned();
        assert_eq!(locate(&name), Ok(here.join(&name)));
        assert!(locate("no/such/nvcc").unwrap_err().starts_with("nvcc not found: `no/such/nvcc` is not a file"));
    }

    #[test]
    fn arch_and_file_names() {
        assert!(valid_arch("sm_75") && valid_arch("sm_90a") && valid_arch("sm_100f"));
        assert!(!valid_arch("sm_") && !valid_arch("compute_90") && !valid_arch("sm_9x0") && !valid_arch("sm_90aa"));
        assert_eq!(file_stem("MP+rel/acq"), "MP+rel_acq");
        assert_eq!(file_stem(".x"), "test.x");
    }
}
