//! What a release ships besides the binary: the man pages and shell
//! completions generated from the clap definitions, the licence files and the
//! minimum Rust version, stated once in Cargo.toml and once in the README.

use std::path::Path;
use std::process::{Command, Output};

fn ptx_litmus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-litmus")).args(args).output().unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = ptx_litmus(args);
    assert_eq!(out.status.code(), Some(0), "{:?}: {}", args, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const SUBCOMMANDS: &[&str] =
    &["check", "gen", "explain", "run", "advise", "model", "scaffold", "serve", "man", "completions"];

/// The overview page names every subcommand; each subcommand's page has its
/// options; groff (where installed) reads every page without a warning
/// (`-Wbreak`: a long option list that cannot be justified is typography, not markup).
#[test]
fn man_pages_cover_every_subcommand_and_render() {
    let overview = stdout(&["man"]);
    assert!(overview.contains(".TH ptx-litmus 1"), "{}", &overview[..200.min(overview.len())]);
    for sub in SUBCOMMANDS {
        assert!(overview.contains(&format!("ptx\\-litmus\\-{}(1)", sub)), "the overview does not list {}", sub);
    }
    let check = stdout(&["man", "check"]);
    for opt in ["\\-\\-expect", "\\-\\-json", "\\-\\-states", "\\-\\-model"] {
        assert!(check.contains(opt), "check page lacks {}", opt);
    }
    let bad = ptx_litmus(&["man", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("one of: check"));
    if Command::new("groff").arg("--version").output().is_err() {
        eprintln!("skipped: groff is not installed, the pages were not rendered");
        return;
    }
    for page in std::iter::once(None).chain(SUBCOMMANDS.iter().map(Some)) {
        let text = stdout(&page.map_or(vec!["man"], |s| vec!["man", s]));
        let mut groff = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-Wbreak", "-z"])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        groff.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        let out = groff.wait_with_output().unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "{:?}: {}", page, String::from_utf8_lossy(&out.stderr));
    }
}

/// Each shell's script completes every subcommand; bash (where installed)
/// parses its script.
#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&["completions", shell]);
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{} lacks {}", shell, sub);
        }
        assert!(script.contains("expect"), "{} lacks check's --expect", shell);
    }
    let bash = stdout(&["completions", "bash"]);
    match Command::new("bash").args(["-n", "-c", &bash]).output() {
        Ok(out) => assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr)),
        Err(_) => eprintln!("skipped: bash is not installed, the script was not parsed"),
    }
    assert_eq!(ptx_litmus(&["completions", "tcsh"]).status.code(), Some(2));
}

/// Cargo.toml says `MIT OR Apache-2.0` and `rust-version`: both licence texts
/// are at the root and the README states the same minimum Rust.
#[test]
fn licences_and_minimum_rust_are_stated_once_and_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(cargo.contains("license = \"MIT OR Apache-2.0\""));
    let mit = std::fs::read_to_string(root.join("LICENSE-MIT")).unwrap();
    assert!(mit.starts_with("MIT License") && mit.contains("Permission is hereby granted"));
    let apache = std::fs::read_to_string(root.join("LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0, January 2004"));
    let msrv = cargo
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("rust-version in Cargo.toml")
        .trim_matches('"');
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains(&format!("Rust {} or newer", msrv)), "README does not state Rust {}", msrv);
    assert!(readme.contains("cargo install --locked --path ."));
    let changelog = std::fs::read_to_string(root.join("CHANGELOG.md")).unwrap();
    let version = cargo.lines().find_map(|l| l.strip_prefix("version = ")).unwrap().trim_matches('"');
    assert!(
        changelog.contains(&format!("## [{}]", version)) || changelog.contains("## [Unreleased]"),
        "CHANGELOG has no section for {}",
        version
    );
}
