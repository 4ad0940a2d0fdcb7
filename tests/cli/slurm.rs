//! A real Slurm cluster of one node (issue 45): the test starts `munged`,
//! `slurmctld` and `slurmd` from Debian's `slurm-wlm` and `munge` in a
//! temporary folder (its own munge key and socket, its own `slurm.conf` and
//! ports, nothing under /etc touched), submits `scripts/slurm/submit.sh` for a
//! 4-task array over a corpus and over a generated mapping sweep, and checks
//! that each merged result is the single-process run's. It stops the daemons
//! it started by their process ids. Where Slurm is not installed or the
//! daemons cannot start (not root, no munge), it says why and skips; `.ci/run`
//! installs the packages where apt can.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_ptx-litmus")
}

/// The daemons this test started, stopped by pid (SIGTERM, then SIGKILL) when dropped.
struct Cluster {
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for c in self.daemons.iter_mut().rev() {
            let _ = Command::new("kill").arg("-TERM").arg(c.id().to_string()).status();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(5) {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        || Path::new("/usr/sbin").join(name).is_file()
}

fn program(name: &str) -> PathBuf {
    let sbin = Path::new("/usr/sbin").join(name);
    if sbin.is_file() {
        sbin
    } else {
        PathBuf::from(name)
    }
}

fn hostname() -> Option<String> {
    let out = Command::new("hostname").output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|h| !h.is_empty())
}

/// `slurm.conf` for one controller and one node on this machine (the reference
/// configuration: root, no cgroups, proctrack/linuxproc, task/none).
fn slurm_conf(d: &Path, host: &str, port: u32) -> String {
    let p = d.display();
    format!(
        "ClusterName=ptxl\nSlurmctldHost={host}\nSlurmctldPort={port}\nSlurmdPort={}\nSlurmUser=root\nSlurmdUser=root\n\
         AuthType=auth/munge\nAuthInfo=socket={p}/munge/munge.socket\nCredType=cred/munge\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n\
         ReturnToService=2\nSchedulerParameters=kill_invalid_depend\nMpiDefault=none\n\
         StateSaveLocation={p}/state\nSlurmdSpoolDir={p}/spool\nSlurmctldPidFile={p}/slurmctld.pid\nSlurmdPidFile={p}/slurmd.pid\n\
         SlurmctldLogFile={p}/slurmctld.log\nSlurmdLogFile={p}/slurmd.log\n\
         JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n\
         NodeName={host} CPUs=2 State=UNKNOWN\nPartitionName=main Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
        port + 1
    )
}

fn spawn(cmd: &mut Command, log: &Path) -> std::io::Result<Child> {
    let f = std::fs::File::create(log)?;
    cmd.stdin(Stdio::null()).stdout(f.try_clone()?).stderr(f).spawn()
}

/// Start munge and Slurm in a temporary folder, or say why not.
fn start() -> Result<Cluster, String> {
    for p in ["munged", "slurmctld", "slurmd", "sbatch", "sinfo"] {
        if !on_path(p) {
            return Err(format!("`{}` is not installed (Debian: apt-get install slurm-wlm munge)", p));
        }
    }
    let uid = Command::new("id").arg("-u").output().map_err(|e| e.to_string())?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Err("the one-node cluster runs its daemons as root, and this is not root".into());
    }
    let host = hostname().ok_or("no hostname")?;
    let dir = tempfile::Builder::new().prefix("ptxl-slurm-").tempdir().map_err(|e| e.to_string())?;
    let d = dir.path().to_path_buf();
    let mut cluster = Cluster { dir, daemons: Vec::new() };
    for sub in ["state", "spool", "munge", "work"] {
        std::fs::create_dir_all(d.join(sub)).map_err(|e| e.to_string())?;
    }
    let key: Vec<u8> =
        (0..1024u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8 ^ std::process::id() as u8).collect();
    let key_path = d.join("munge/munge.key");
    std::fs::write(&key_path, key).map_err(|e| e.to_string())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o400)).map_err(|e| e.to_string())?;
    // Ports of this run only: another run's cluster may be up.
    let port = 20000 + std::process::id() % 20000;
    let conf = d.join("slurm.conf");
    std::fs::write(&conf, slurm_conf(&d, &host, port)).map_err(|e| e.to_string())?;
    let m = d.join("munge");
    let munged = spawn(
        Command::new(program("munged")).args(["-F", "--force"]).arg(format!("--key-file={}", key_path.display())).args(
            [
                format!("--socket={}/munge.socket", m.display()),
                format!("--pid-file={}/munged.pid", m.display()),
                format!("--log-file={}/munged.log", m.display()),
                format!("--seed-file={}/seed", m.display()),
            ],
        ),
        &d.join("munged.out"),
    )
    .map_err(|e| format!("munged: {}", e))?;
    cluster.daemons.push(munged);
    wait_for(Duration::from_secs(10), || m.join("munge.socket").exists().then_some(()))
        .ok_or("munged did not create its socket")?;
    let ctld = spawn(Command::new(program("slurmctld")).args(["-D", "-c", "-f"]).arg(&conf), &d.join("slurmctld.out"))
        .map_err(|e| format!("slurmctld: {}", e))?;
    cluster.daemons.push(ctld);
    std::thread::sleep(Duration::from_millis(500));
    let slurmd = spawn(Command::new(program("slurmd")).args(["-D", "-f"]).arg(&conf), &d.join("slurmd.out"))
        .map_err(|e| format!("slurmd: {}", e))?;
    cluster.daemons.push(slurmd);
    let idle = wait_for(Duration::from_secs(30), || {
        let out = cluster.slurm("sinfo", &["-h", "-o", "%t"]).ok()?;
        (String::from_utf8_lossy(&out.stdout).trim() == "idle").then_some(())
    });
    if idle.is_none() {
        let log = std::fs::read_to_string(d.join("slurmctld.out")).unwrap_or_default();
        return Err(format!(
            "the node did not become idle in 30 s; slurmctld said: {}",
            log.lines().last().unwrap_or("")
        ));
    }
    Ok(cluster)
}

fn wait_for<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(x) = f() {
            return Some(x);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    None
}

impl Cluster {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A Slurm client command against this cluster.
    fn slurm(&self, program: &str, args: &[&str]) -> std::io::Result<std::process::Output> {
        Command::new(program).args(args).env("SLURM_CONF", self.path().join("slurm.conf")).output()
    }

    /// `submit.sh KIND 4 OUT ARGS...`, then wait for the merge job's exit file.
    fn sweep(&self, kind: &str, out: &Path, args: &[&str]) -> i32 {
        let submit = root().join("scripts/slurm/submit.sh");
        let o = Command::new(submit)
            .args([kind, "4", out.to_str().unwrap()])
            .args(args)
            .current_dir(self.path().join("work"))
            .env("SLURM_CONF", self.path().join("slurm.conf"))
            .env("PTXL", bin())
            .output()
            .unwrap();
        assert!(o.status.success(), "submit.sh {}: {}", kind, String::from_utf8_lossy(&o.stderr));
        let exit = out.join("merged.exit");
        let code =
            wait_for(Duration::from_secs(40), || std::fs::read_to_string(&exit).ok()?.trim().parse::<i32>().ok());
        code.unwrap_or_else(|| {
            let q =
                self.slurm("squeue", &[]).map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
            panic!("the {} sweep's merge job did not finish in 40 s; squeue:\n{}", kind, q)
        })
    }
}

fn ptx_litmus(args: &[&str], cwd: &Path) -> (i32, String) {
    let o = Command::new(bin()).args(args).current_dir(cwd).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// An output without what differs between two runs of the same tests: the
/// times (herd `Time` lines, JSON `time_ms`, the trailer's `wall_s`).
fn timeless(text: &str) -> String {
    let mut out = String::new();
    for l in text.lines() {
        let l = if l.starts_with("Time ") {
            l.rsplit_once(' ').map_or(l.to_string(), |(head, _)| head.to_string())
        } else if let Some(body) = l.strip_prefix(ptx_litmus::shard::HERD_PREFIX) {
            drop_times(body)
        } else if l.starts_with('{') {
            drop_times(l)
        } else {
            l.to_string()
        };
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn drop_times(json: &str) -> String {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("time_ms");
                m.remove("wall_s");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    strip(&mut v);
    v.to_string()
}

/// `check` over a corpus as a 4-task array: the merged log is the
/// single-process run's, test for test, with its summary and exit status.
fn corpus_sweep(c: &Cluster) {
    let out = c.path().join("corpus");
    let corpus = root().join("litmus/classic");
    let code = c.sweep("corpus", &out, &[corpus.to_str().unwrap()]);
    for k in 0..4 {
        let t = std::fs::read_to_string(out.join(format!("check-{}.log", k))).unwrap();
        assert!(t.contains(&format!("\"index\":{},\"count\":4", k)), "shard {} of 4", k);
    }
    let single = c.path().join("single.log");
    let (single_code, _) = ptx_litmus(&["check", corpus.to_str().unwrap(), "-o", single.to_str().unwrap()], c.path());
    let (m, _) = ptx_litmus(&["merge", single.to_str().unwrap(), "-o", "single-merged.log"], c.path());
    assert_eq!((code, m), (single_code, single_code));
    let merged = std::fs::read_to_string(out.join("merged.log")).unwrap();
    let whole = std::fs::read_to_string(c.path().join("single-merged.log")).unwrap();
    assert_eq!(timeless(&merged), timeless(&whole));
    assert_eq!(merged.matches("\nTest ").count() + 1, 70, "litmus/classic has 70 tests");
}

/// A mapping sweep: 4 tasks generate the C tests, 4 map them, one merges.
fn mapping_sweep(c: &Cluster) {
    let out = c.path().join("mapping");
    let gen = ["--lang", "c", "--random", "40", "--seed", "3", "--max-edges", "5"];
    let code = c.sweep("mapping", &out, &gen);
    let whole = c.path().join("whole-tests");
    let (g, err) = ptx_litmus(
        &[&["gen", "--shard", "0/1", "-q", "--out", whole.to_str().unwrap()][..], &gen[..]].concat(),
        c.path(),
    );
    assert_eq!(g, 0, "{}", err);
    let files = |d: &Path| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(files(&out.join("tests")), files(&whole), "the gen shards are the whole generation");
    let tests = out.join("tests");
    let single = c.path().join("single.json");
    let (single_code, _) =
        ptx_litmus(&["map", tests.to_str().unwrap(), "--json", "-o", single.to_str().unwrap()], c.path());
    let (m, _) = ptx_litmus(&["merge", single.to_str().unwrap(), "-o", "single-merged.json"], c.path());
    assert_eq!((code, m), (single_code, single_code));
    let merged = std::fs::read_to_string(out.join("merged.json")).unwrap();
    let whole = std::fs::read_to_string(c.path().join("single-merged.json")).unwrap();
    assert_eq!(timeless(&merged), timeless(&whole));
    assert_eq!(merged.lines().count(), 41, "40 tests and the trailer");
}

#[test]
fn a_slurm_job_array_merges_to_the_single_process_run() {
    let cluster = match start() {
        Ok(c) => c,
        Err(why) => {
            eprintln!("skipped: no one-node Slurm cluster: {}", why);
            return;
        }
    };
    let t = Instant::now();
    corpus_sweep(&cluster);
    mapping_sweep(&cluster);
    eprintln!("slurm: both sweeps in {:.1} s", t.elapsed().as_secs_f64());
}
