//! JSON against the project's schemas (`schema/*.schema.json`), with the
//! `jsonschema` crate (draft 2020-12). A `$ref` to another schema file
//! (`result.schema.json#/$defs/failure`) is read from `schema/`.

// Each test binary uses some of tests/common only.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema")
}

/// Reads `file:///.../schema/NAME` from the repository's `schema/` folder, nothing else.
struct SchemaFiles;

impl jsonschema::Retrieve for SchemaFiles {
    fn retrieve(&self, uri: &jsonschema::Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let name = uri.as_str().rsplit('/').next().unwrap_or_default().to_string();
        let text = std::fs::read_to_string(schema_dir().join(&name))?;
        Ok(serde_json::from_str(&text)?)
    }
}

/// The validator of `schema/NAME` (e.g. `result.schema.json`).
pub fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(schema_dir().join(name)).unwrap_or_else(|e| panic!("{}: {}", name, e));
    let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {}", name, e));
    jsonschema::options()
        .with_base_uri(format!("file:///schema/{}", name))
        .with_retriever(SchemaFiles)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{} is not a valid schema: {}", name, e))
}

/// What `v` breaks in `schema/NAME`, one line per error (empty: valid).
pub fn errors(name: &str, v: &Value) -> Vec<String> {
    validator(name).iter_errors(v).map(|e| format!("{}: {}", e.instance_path(), e)).collect()
}
