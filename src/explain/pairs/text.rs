//! The text `ptx-litmus explain` prints: threads, operations, then (PTX tests) morally strong pairs and
//! patterns, and the pairs that may synchronize.

use super::Explanation;

/// What changes in the explanation of a test decided by the symbolic encoding (D216).
const SYMBOLIC_NOTE: &str = "Encoding: symbolic (a thread has more paths than the path builder's limit): each \
instruction instance is one operation, whichever paths perform it; two operations of one thread are paired even \
where no path performs both\n";

impl Explanation {
    /// The text `explain` prints.
    pub fn text(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("Test {}\n", self.name));
        if self.encoding == "symbolic" {
            out.push_str(SYMBOLIC_NOTE);
        }
        out.push_str("Threads\n");
        for t in &self.threads {
            let paths = match t.paths {
                Some(n) if n > 1 => format!(" ({} paths)", n),
                Some(_) => String::new(),
                None => " (symbolic)".to_string(),
            };
            out.push_str(&format!("  P{}: {}{}\n", t.thread, t.placement, paths));
        }
        out.push_str("Operations\n");
        let width = self.operations.iter().map(|o| o.text.chars().count()).max().unwrap_or(0);
        for o in &self.operations {
            let path = o.path.map(|k| format!(" [path {}]", k)).unwrap_or_default();
            out.push_str(&format!(
                "  {:<5} P{:<2} line {:<3} {:<w$}  {}{}\n",
                o.event,
                o.thread,
                o.line,
                o.text,
                o.description,
                path,
                w = width
            ));
        }
        if self.c_test {
            self.sync_text(&mut out, "Synchronizes-with (the C model's sw)");
            return out;
        }
        out.push_str("Morally strong pairs (8.7)\n");
        for x in &self.morally_strong {
            out.push_str(&format!(
                "  {} {}: {}: {}\n",
                x.a,
                x.b,
                if x.morally_strong { "yes" } else { "no" },
                x.reason
            ));
        }
        for (title, rows) in
            [("Release patterns (8.8)", &self.release_patterns), ("Acquire patterns (8.8)", &self.acquire_patterns)]
        {
            out.push_str(title);
            out.push('\n');
            if rows.is_empty() {
                out.push_str("  none\n");
            }
            for x in rows {
                out.push_str(&format!("  {} on {}: {}\n", x.pattern, x.location, x.rule));
            }
        }
        self.sync_text(&mut out, "Synchronization (8.9.4)");
        out
    }

    /// The pairs that may synchronize, under `title`.
    fn sync_text(&self, out: &mut String, title: &str) {
        out.push_str(&format!("{}: pairs that may synchronize, and whether some allowed execution has it\n", title));
        if self.synchronization.is_empty() {
            out.push_str("  none: no two operations can synchronize\n");
        }
        for x in &self.synchronization {
            let yes = if x.in_some_allowed_execution {
                "yes, in some allowed execution"
            } else {
                "never in an allowed execution"
            };
            out.push_str(&format!("  {} -> {}: {} ({})\n", x.from, x.to, yes, x.rules));
        }
    }
}
