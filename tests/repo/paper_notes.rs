//! `paper-notes/README.md` maps each ISA definition to its row (issue 13): every
//! row of both models has a table line under its section, and every primitive,
//! event set, execution relation and function the rows read is on some line.

use ptx_litmus::model::algebra::Stmt;
use ptx_litmus::model::{prims, ModelKind};
use std::path::Path;

fn table_lines() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("paper-notes/README.md");
    let text = std::fs::read_to_string(&path).expect("paper-notes/README.md reads");
    text.lines().filter(|l| l.starts_with("| ")).map(String::from).collect()
}

/// The first column of a table line (the ISA sections).
fn sections(line: &str) -> &str {
    line.split('|').nth(1).unwrap_or("")
}

#[test]
fn every_row_of_both_models_is_mapped_under_its_section() {
    let lines = table_lines();
    assert!(lines.len() > 10, "the table is there");
    for kind in ModelKind::ALL {
        for row in &kind.model().rows {
            let (needle, what) = match &row.stmt {
                Stmt::Let { name, .. } => (format!("`let {}", name), name.clone()),
                Stmt::Check { name, .. } => (format!(" as {}`", name), name.clone()),
            };
            let found = lines.iter().any(|l| l.contains(&needle) && sections(l).contains(row.section.as_str()));
            assert!(
                found,
                "model {}: row {} ({}) has no line `| {} | ... {} ...` in paper-notes/README.md",
                kind.name(),
                what,
                row.section,
                row.section,
                needle
            );
        }
    }
}

#[test]
fn every_primitive_the_rows_read_is_mapped() {
    let lines = table_lines();
    let names = prims::SETS.iter().chain(&prims::STATIC).chain(&prims::EXEC).chain(&prims::CALLS).map(|(n, _)| *n);
    for name in names {
        let quoted = format!("`{}`", name);
        let called = format!("{}(", name);
        assert!(
            lines.iter().any(|l| l.contains(&quoted) || l.contains(&called)),
            "primitive `{}` has no line in paper-notes/README.md",
            name
        );
    }
}

/// Every file or folder ARCHITECTURE.md names in backquotes (a word with a `/`
/// or a file name with an extension) exists: the recipes name real places.
#[test]
fn every_path_architecture_md_names_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md is there");
    let named: Vec<&str> = text
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| !s.contains(' ') && (s.contains('/') || s.ends_with(".rs") || s.ends_with(".cat")))
        .collect();
    assert!(named.len() > 40, "ARCHITECTURE.md names its files: {:?}", named);
    let missing: Vec<&&str> = named.iter().filter(|p| !root.join(p).exists()).collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md names paths that do not exist: {:?}", missing);
}
