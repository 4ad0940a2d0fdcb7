//! Where tests come from: files (capped, regular files only), standard input
//! (`-`), and directories walked without following symlink loops (issue 11).

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The path that means "read standard input".
pub(crate) fn is_stdin(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// The bytes of `path` (or of standard input for `-`), reading at most
/// `max + 1` of them so a huge or endless file is rejected without reading it
/// all. Anything but a regular file is refused before it is opened: opening a
/// FIFO blocks until a writer appears, which may be never.
pub(crate) fn read_capped(path: &Path, max: usize) -> Result<Vec<u8>, String> {
    let limit = (max as u64).saturating_add(1);
    let mut bytes = Vec::new();
    if is_stdin(path) {
        std::io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {}", e))?;
        return Ok(bytes);
    }
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read the file: {}", e))?;
    if !meta.is_file() {
        return Err(format!("cannot read the file: it is {}, not a regular file", kind_of(&meta)));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read the file: {}", e))?;
    file.take(limit).read_to_end(&mut bytes).map_err(|e| format!("cannot read the file: {}", e))?;
    Ok(bytes)
}

/// `read_capped` as text, with the size limit as one sentence.
pub fn read_text_capped(path: &Path, max: usize) -> Result<String, String> {
    let bytes = read_capped(path, max)?;
    if bytes.len() > max {
        return Err(format!("the file is longer than the {} bytes allowed", max));
    }
    String::from_utf8(bytes).map_err(|e| format!("the file is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
}

pub(crate) fn kind_of(m: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else {
        "a special file"
    }
}

/// What a walk found: the files to check, in order, each once, and notes about
/// what was skipped (symlink loops, unreadable folders).
#[derive(Default, Debug)]
pub struct Inputs {
    pub files: Vec<PathBuf>,
    pub notes: Vec<String>,
    /// `DIR: note: ...` for the `*.harness` files a walk leaves out, by name (D248).
    pub skipped: Vec<String>,
    /// `DIR: error: ...` for each directory given in which no test was found
    /// (an input error: the command exits 2, D248).
    pub empty: Vec<String>,
}

/// What one directory held besides the tests taken from it.
#[derive(Default)]
struct Held {
    tests: usize,
    harnesses: Vec<String>,
    others: Vec<String>,
}

/// At most this many names in one note.
const NAMES_SHOWN: usize = 5;

/// `a, b, c and 4 more`.
fn some_names(names: &[String]) -> String {
    let shown = names.iter().take(NAMES_SHOWN).cloned().collect::<Vec<_>>().join(", ");
    match names.len().saturating_sub(NAMES_SHOWN) {
        0 => shown,
        more => format!("{} and {} more", shown, more),
    }
}

fn files(n: usize, what: &str) -> String {
    format!("{} {} file{}", n, what, if n == 1 { "" } else { "s" })
}

impl Held {
    /// `*.harness` files are tests too, but the library keeps in them the
    /// harnesses its walks must not take (refused ones, ones checked at a lower
    /// bound: litmus/compiled/README.md); `map --emit` writes them as well. A
    /// walk leaves them out and says so, by name, so none is skipped silently.
    fn notes(&self, dir: &Path, out: &mut Inputs) {
        if !self.harnesses.is_empty() {
            out.skipped.push(format!(
                "{}: note: not checked: {} (a directory walk takes *.litmus files; check a harness by naming it): {}",
                dir.display(),
                files(self.harnesses.len(), "*.harness"),
                some_names(&self.harnesses)
            ));
        }
        if self.tests == 0 {
            let mut held = Vec::new();
            if !self.harnesses.is_empty() {
                held.push(format!("{} (named above)", files(self.harnesses.len(), "*.harness")));
            }
            if !self.others.is_empty() {
                held.push(format!(
                    "{} that are not tests ({})",
                    files(self.others.len(), "other"),
                    some_names(&self.others)
                ));
            }
            let held =
                if held.is_empty() { "it is empty".to_string() } else { format!("it holds {}", held.join(" and ")) };
            out.empty.push(format!(
                "{}: error: no test to check in this directory: no *.litmus file; {}",
                dir.display(),
                held
            ));
        }
    }
}

/// Files given as such are kept (whatever their name); directories are walked
/// for `*.litmus`, sorted by name, following symlinks but not their loops
/// (`walkdir` detects a link back to an ancestor). A file reached twice (by a
/// link, or named twice) is checked once.
pub fn collect(paths: &[PathBuf]) -> Inputs {
    let mut out = Inputs::default();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut keep = |p: PathBuf, out: &mut Inputs| {
        let key = if is_stdin(&p) { p.clone() } else { p.canonicalize().unwrap_or_else(|_| p.clone()) };
        if seen.insert(key) {
            out.files.push(p);
        }
    };
    for p in paths {
        if !p.is_dir() {
            keep(p.clone(), &mut out);
            continue;
        }
        let walk = walkdir::WalkDir::new(p).follow_links(true).sort_by_file_name();
        let mut held = Held::default();
        for entry in walk {
            match entry {
                Ok(e) if !e.file_type().is_dir() && e.path().extension().is_some_and(|x| x == "litmus") => {
                    held.tests += 1;
                    keep(e.into_path(), &mut out)
                }
                Ok(e) if !e.file_type().is_dir() => {
                    let name = e.path().strip_prefix(p).unwrap_or(e.path()).display().to_string();
                    match e.path().extension().is_some_and(|x| x == "harness") {
                        true => held.harnesses.push(name),
                        false => held.others.push(name),
                    }
                }
                Ok(_) => {}
                Err(e) => match e.loop_ancestor() {
                    Some(a) => out.notes.push(format!(
                        "{}: note: not followed: a symlink loop back to {}",
                        e.path().map_or_else(|| p.display().to_string(), |x| x.display().to_string()),
                        a.display()
                    )),
                    None => out.notes.push(format!("{}: note: skipped: {}", p.display(), e)),
                },
            }
        }
        held.notes(p, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlink_loops_are_not_followed_and_files_are_checked_once() {
        let d = std::env::temp_dir().join(format!("ptxl-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("a.litmus"), "x").unwrap();
        std::os::unix::fs::symlink(".", d.join("l1")).unwrap();
        std::os::unix::fs::symlink(".", d.join("l2")).unwrap();
        std::os::unix::fs::symlink("a.litmus", d.join("b.litmus")).unwrap();
        let got = collect(std::slice::from_ref(&d));
        assert_eq!(got.files, vec![d.join("a.litmus")], "{:?}", got);
        assert_eq!(got.notes.len(), 2, "{:?}", got.notes);
        let _ = std::fs::remove_dir_all(&d);
    }
}
