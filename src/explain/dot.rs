//! Graphviz DOT for one shown execution: the events and edges go into a
//! `petgraph` graph, written out with nested `subgraph cluster_...` boxes
//! (GPU > cluster > CTA > thread), one column per thread, one row per
//! program-order position. The violated row's cycle is bold red.

use super::show::{EdgeInfo, ExecKind, ShownExec};
use super::view::EdgeKind;
use crate::program::Program;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::BTreeMap;

/// Colour of each edge kind (shared with the SVG pictures).
pub fn color(k: EdgeKind) -> &'static str {
    match k {
        EdgeKind::Po => "#000000",
        EdgeKind::Rf => "#2e7d32",
        EdgeKind::Co => "#1565c0",
        EdgeKind::Fr => "#ef6c00",
        EdgeKind::Sc => "#00838f",
        EdgeKind::Sync => "#6a1b9a",
        EdgeKind::Obs => "#558b2f",
        EdgeKind::Cause => "#757575",
        EdgeKind::Dep => "#8d6e63",
        EdgeKind::Exchange => "#8d6e63",
        EdgeKind::Async => "#ad1457",
        // An edge of a new model row (only on a violated row's cycle, drawn highlighted).
        EdgeKind::Row => "#d50000",
    }
}

/// The colour of the violated axiom's cycle.
pub const HIGHLIGHT: &str = "#d50000";

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A one-line title for pictures.
pub fn title(p: &Program, x: &ShownExec) -> String {
    let st: Vec<String> =
        p.observables.iter().zip(&x.state).map(|(o, v)| format!("{}={}", p.observable_name(o), v)).collect();
    match x.kind {
        ExecKind::Witness => {
            format!("{}: allowed execution (witness {}) ending in {}", p.name, x.state_index, st.join(" "))
        }
        ExecKind::Forbidden => format!("{}: candidate {} for forbidden state {}", p.name, x.candidate, st.join(" ")),
    }
}

/// cluster -> CTA -> thread -> events.
type Clusters = BTreeMap<usize, BTreeMap<usize, BTreeMap<usize, Vec<usize>>>>;

/// A node's label: name, values, instruction and line (initial writes: name and value).
fn node_label(x: &ShownExec, i: usize) -> String {
    let e = &x.events[i];
    match e.thread {
        Some(_) => format!("{}  {}\\n{}\\nline {}", esc(&e.name), esc(&e.detail), esc(&e.text), e.line),
        None => format!("{}\\n{}", esc(&e.name), esc(&e.detail)),
    }
}

/// The graph's title (with the violated row's sentence) and default styles.
fn header(out: &mut String, p: &Program, x: &ShownExec) {
    out.push_str(&format!("digraph \"{}\" {{\n", esc(&x.stem(&p.name))));
    let mut lines = vec![title(p, x)];
    if let Some(v) = x.violations.first() {
        lines.extend(super::svg::wrap(&format!("{}: {}", v.axiom, v.text), 110));
    }
    let label: Vec<String> = lines.iter().map(|l| esc(l)).collect();
    out.push_str(&format!(
        "  graph [label=\"{}\", labelloc=t, fontname=\"Helvetica\", newrank=true, nodesep=0.6, ranksep=0.7];\n",
        label.join("\\n")
    ));
    out.push_str(
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=11];\n",
    );
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
}

/// Threads' events nested in boxes GPU > cluster > CTA > thread, after the initial writes' box.
fn boxes(out: &mut String, p: &Program, x: &ShownExec) {
    out.push_str("  subgraph cluster_init {\n    label=\"initial writes\"; style=dashed; color=\"#9e9e9e\";\n");
    for i in (0..x.events.len()).filter(|&i| x.events[i].thread.is_none()) {
        out.push_str(&format!("    n{} [label=\"{}\", fillcolor=\"#f5f5f5\"];\n", i, node_label(x, i)));
    }
    out.push_str("  }\n");
    let mut tree: BTreeMap<u32, Clusters> = BTreeMap::new();
    for (i, e) in x.events.iter().enumerate() {
        if let Some(t) = e.thread {
            let pl = p.threads[t].placement;
            tree.entry(pl.gpu)
                .or_default()
                .entry(pl.cluster)
                .or_default()
                .entry(pl.cta)
                .or_default()
                .entry(t)
                .or_default()
                .push(i);
        }
    }
    // dot places sibling clusters right to left in the order they are declared
    // (checked with Graphviz 2.43 and 7): declare them in reverse so P0 is left.
    for (gpu, clusters) in tree.iter().rev() {
        out.push_str(&format!(
            "  subgraph cluster_gpu{} {{\n    label=\"GPU {}\"; style=rounded; color=\"#455a64\";\n",
            gpu, gpu
        ));
        for (cl, ctas) in clusters.iter().rev() {
            // Labels say what the thread header says (any thread of the box has it).
            let first = |m: &BTreeMap<usize, Vec<usize>>| m.keys().next().map(|&t| p.threads[t].written);
            let cl_label =
                ctas.values().next().and_then(first).map_or_else(|| format!("cluster {}", cl), |w| w.cluster_label());
            out.push_str(&format!(
                "    subgraph cluster_cl{} {{\n      label=\"{}\"; style=rounded; color=\"#78909c\";\n",
                cl, cl_label
            ));
            for (cta, threads) in ctas.iter().rev() {
                let cta_label = first(threads).map_or(*cta as u32, |w| w.cta);
                out.push_str(&format!(
                    "      subgraph cluster_cta{} {{\n        label=\"CTA {}\"; style=rounded; color=\"#90a4ae\";\n",
                    cta, cta_label
                ));
                for (t, evs) in threads.iter().rev() {
                    out.push_str(&format!("        subgraph cluster_t{} {{\n          label=\"P{}\"; style=\"rounded,filled\"; fillcolor=\"#eceff1\"; color=\"#b0bec5\";\n", t, t));
                    for &i in evs {
                        out.push_str(&format!("          n{} [label=\"{}\"];\n", i, node_label(x, i)));
                    }
                    out.push_str("        }\n");
                }
                out.push_str("      }\n");
            }
            out.push_str("    }\n");
        }
        out.push_str("  }\n");
    }
}

/// Rows: one per program-order position; initial writes on top.
fn ranks(out: &mut String, x: &ShownExec) {
    let inits: Vec<String> =
        x.events.iter().enumerate().filter(|(_, e)| e.thread.is_none()).map(|(i, _)| format!("n{}", i)).collect();
    if !inits.is_empty() {
        out.push_str(&format!("  {{ rank=min; {}; }}\n", inits.join("; ")));
    }
    let mut rows: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, e) in x.events.iter().enumerate() {
        if e.thread.is_some() {
            rows.entry(e.po).or_default().push(i);
        }
    }
    for evs in rows.values() {
        let ids: Vec<String> = evs.iter().map(|i| format!("n{}", i)).collect();
        out.push_str(&format!("  {{ rank=same; {}; }}\n", ids.join("; ")));
    }
    // Keep the initial writes above the first row.
    if let (Some(first), false) = (rows.values().next(), inits.is_empty()) {
        out.push_str(&format!("  {} -> n{} [style=invis];\n", inits[0], first[0]));
    }
}

/// One DOT edge: its label and colour, bold red on the violated row's cycle.
fn edge(out: &mut String, (a, b): (usize, usize), e: &EdgeInfo) {
    let mut attrs = vec![format!("label=\"{}\"", e.kind.label())];
    let c = if e.highlighted { HIGHLIGHT } else { color(e.kind) };
    attrs.push(format!("color=\"{}\"", c));
    attrs.push(format!("fontcolor=\"{}\"", c));
    if e.highlighted {
        attrs.push("penwidth=3".into());
        attrs.push("style=bold".into());
    } else if e.kind == EdgeKind::Cause {
        attrs.push("style=dashed".into());
    } else if e.kind == EdgeKind::Dep {
        attrs.push("style=dotted".into());
    }
    if e.kind != EdgeKind::Po {
        attrs.push("constraint=false".into());
    } else {
        attrs.push("weight=10".into());
    }
    out.push_str(&format!("  n{} -> n{} [{}];\n", a, b, attrs.join(", ")));
}

/// The DOT text of one shown execution.
pub fn render(p: &Program, x: &ShownExec) -> String {
    let mut g: DiGraph<usize, usize> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..x.events.len()).map(|i| g.add_node(i)).collect();
    for (k, e) in x.edges.iter().enumerate() {
        g.add_edge(nodes[e.from], nodes[e.to], k);
    }
    let mut out = String::new();
    header(&mut out, p, x);
    boxes(&mut out, p, x);
    ranks(&mut out, x);
    for er in g.edge_references() {
        let e = &x.edges[*er.weight()];
        edge(&mut out, (g[er.source()], g[er.target()]), e);
    }
    out.push_str("}\n");
    out
}
