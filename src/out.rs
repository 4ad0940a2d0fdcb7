//! Checked output (issue 11): `println!` panics (exit 101) when stdout is a
//! closed pipe or a full disk, and `eprintln!` when stderr is. Everything the
//! command line prints goes through here instead.
//!
//! - stdout closed by the reader (`check F | head -1`): exit at once, quietly,
//!   with the exit code the results so far have earned (the reader chose to stop).
//! - stdout failing otherwise (a full disk): a message on stderr, exit 3.
//! - stderr failing: the output is dropped, the run goes on (stdout may still
//!   work), and the exit code is at least 3 (see [`exit_code`]).

use crate::error::EXIT_INTERNAL;
use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static WORST: AtomicI32 = AtomicI32::new(0);
static QUIET: AtomicBool = AtomicBool::new(false);
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// `--output FILE` (issue 45): the results go to a temporary file beside FILE,
/// renamed over it by [`commit`] once the run is complete, so FILE exists only
/// whole and a preempted shard leaves nothing that looks done.
struct Sink {
    path: std::path::PathBuf,
    file: std::io::BufWriter<tempfile::NamedTempFile>,
}

static SINK: std::sync::Mutex<Option<Sink>> = std::sync::Mutex::new(None);

/// From now on, what [`print`] writes goes to `path` (made whole by [`commit`]).
pub fn redirect(path: &std::path::Path) -> std::io::Result<()> {
    let target = output_target(path)?;
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let tmp = temp_in(dir)?;
    let mut sink = SINK.lock().unwrap_or_else(|e| e.into_inner());
    *sink = Some(Sink { path: target, file: std::io::BufWriter::new(tmp) });
    Ok(())
}

/// Drop an output redirected and never committed (its temporary file goes).
pub fn abandon() {
    drop(SINK.lock().unwrap_or_else(|e| e.into_inner()).take());
}

/// Write `last` (the trailer line) and rename the redirected output over its
/// file; without a redirection, print `last` on stdout.
pub fn commit(last: &str) -> std::io::Result<()> {
    let taken = SINK.lock().unwrap_or_else(|e| e.into_inner()).take();
    let Some(Sink { path, mut file }) = taken else {
        print(last);
        return Ok(());
    };
    file.write_all(last.as_bytes())?;
    let tmp = file.into_inner().map_err(|e| e.into_error())?;
    tmp.as_file().sync_data()?;
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(())
}

/// Record an exit code earned so far (used if stdout closes early).
pub fn note_code(code: i32) {
    WORST.fetch_max(code, Ordering::Relaxed);
}

/// The exit code to end with: `code`, raised to 3 when stderr lost output.
pub fn exit_code(code: i32) -> i32 {
    if STDERR_FAILED.load(Ordering::Relaxed) {
        code.max(EXIT_INTERNAL)
    } else {
        code
    }
}

/// Write `text` to stdout and flush it (results stream as they come).
pub fn print(text: &str) {
    if let Some(sink) = SINK.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        if let Err(e) = sink.file.write_all(text.as_bytes()) {
            eprintln(&format!("error: cannot write the results to {}: {}", sink.path.display(), e));
            std::process::exit(EXIT_INTERNAL);
        }
        return;
    }
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        drop(o);
        stdout_failed(e);
    }
}

/// `print` with a newline.
pub fn println(text: &str) {
    print(&format!("{}\n", text));
}

/// `-q`: warnings are not printed (errors still are).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `-q` asked for no warnings.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Print a warning on stderr, unless `-q`.
pub(crate) fn warn(text: &str) {
    if !quiet() {
        eprintln(text);
    }
}

/// Write a line to stderr; a failure is remembered, not fatal.
pub fn eprintln(text: &str) {
    let mut e = std::io::stderr().lock();
    if e.write_all(text.as_bytes()).and_then(|_| e.write_all(b"\n")).and_then(|_| e.flush()).is_err() {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == ErrorKind::BrokenPipe {
        std::process::exit(exit_code(WORST.load(Ordering::Relaxed)));
    }
    eprintln(&format!("error: cannot write the results to standard output: {}", e));
    std::process::exit(EXIT_INTERNAL);
}

/// Write a whole file or nothing: the bytes go to a temporary file in the same
/// folder, which is renamed over `path` only once complete (a full disk leaves
/// no empty or truncated file behind). Only a regular file is ever replaced
/// (`output_target`): a FIFO, a device or a socket is refused, never renamed over.
/// A new file gets the mode every tool gives one, 0666 less the umask (a
/// temporary file alone would be 0600).
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let path = output_target(path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let mut tmp = temp_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_data()?;
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(())
}

/// A temporary file in `dir`, with the mode a new file gets from any tool.
fn temp_in(dir: &std::path::Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".ptxl-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The mode passed to open(2), which takes the umask off.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// The file an output named `path` may replace: `path` itself when nothing is
/// there or a regular file is; the file a symlink points to when that is a
/// regular file (the link stays). Anything else (a FIFO, a device, a socket, a
/// folder, a dangling link) is an error: renaming over it would destroy it.
pub(crate) fn output_target(path: &std::path::Path) -> std::io::Result<std::path::PathBuf> {
    let refuse = |what: &str| {
        std::io::Error::new(
            ErrorKind::InvalidInput,
            format!("it is {}, not a regular file, and is never replaced", what),
        )
    };
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(path.to_path_buf()),
        Err(e) => Err(e),
        Ok(m) if m.is_file() => Ok(path.to_path_buf()),
        Ok(m) if m.file_type().is_symlink() => match std::fs::metadata(path) {
            Ok(t) if t.is_file() => path.canonicalize(),
            Ok(t) => Err(refuse(&format!("a symlink to {}", crate::input::kind_of(&t)))),
            Err(_) => Err(refuse("a symlink to nothing")),
        },
        Ok(m) => Err(refuse(crate::input::kind_of(&m))),
    }
}

/// `PTXL_DEBUG` is set: the engines trace sizes and timings on stderr. Read
/// once per process, here only; a command's `context::Ctx` carries it.
pub(crate) fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("PTXL_DEBUG").is_some())
}
