//! SVG pictures without Graphviz: a fixed layered layout. One column per thread
//! (ordered by GPU, cluster, CTA, thread), one row per program-order position,
//! the initial writes in a row on top; nested boxes for GPU > cluster > CTA >
//! thread; program order as straight arrows down a column, every other relation
//! as a labelled curve. The violated axiom's cycle is drawn bold red.
//!
//! The parts: `layout` places everything (columns, rows, boxes, the title),
//! `boxes` draws the nested boxes, `edges` the relations and their labels; this
//! file writes the picture in that order, with the nodes and the legend.

mod boxes;
mod edges;
mod layout;

use super::dot::{color, HIGHLIGHT};
use super::show::ShownExec;
use super::view::EdgeKind;
use crate::program::Program;
use boxes::boxes;
use edges::edges;
use layout::{Layout, Rect, MARGIN, MONO, SANS};
use std::fmt::Write;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Greedy word wrap at `width` characters.
pub(crate) fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for w in s.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The SVG text of one shown execution: layout, then header, boxes, edges,
/// nodes, edge labels (on top) and the legend.
pub fn render(p: &Program, x: &ShownExec) -> String {
    let l = Layout::new(p, x);
    let mut s = String::new();
    header(&mut s, &l);
    // Label boxes placed so far (box titles, edge labels), to keep labels apart.
    let mut placed: Vec<Rect> = Vec::new();
    boxes(&mut s, p, &l, &mut placed);
    let labels = edges(&mut s, x, &l, &mut placed);
    nodes(&mut s, x, &l);
    s.push_str(&labels);
    legend(&mut s, x, &l);
    s.push_str("</svg>\n");
    s
}

/// The `<svg>` element, one arrowhead per colour, the background and the title.
fn header(s: &mut String, l: &Layout) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="{SANS}">"#,
        w = l.width,
        h = l.height
    );
    let mut colors: Vec<&str> = [
        EdgeKind::Po,
        EdgeKind::Rf,
        EdgeKind::Co,
        EdgeKind::Fr,
        EdgeKind::Sc,
        EdgeKind::Sync,
        EdgeKind::Obs,
        EdgeKind::Cause,
        EdgeKind::Dep,
    ]
    .iter()
    .map(|&k| color(k))
    .collect();
    colors.push(HIGHLIGHT);
    s.push_str("<defs>\n");
    for c in &colors {
        let _ = writeln!(
            s,
            r#"<marker id="a{id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>"#,
            id = &c[1..],
            c = c
        );
    }
    s.push_str("</defs>\n");
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    for (k, line) in l.title_lines.iter().enumerate() {
        let (weight, fill) = if k < l.title_n { ("bold", "#212121") } else { ("normal", HIGHLIGHT) };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" font-size="14" font-weight="{}" fill="{}">{}</text>"#,
            MARGIN,
            MARGIN + 14.0 + 20.0 * k as f64,
            weight,
            fill,
            esc(line)
        );
    }
}
/// One rectangle per event: name and detail, the instruction, a tooltip.
fn nodes(s: &mut String, x: &ShownExec, l: &Layout) {
    for (i, e) in x.events.iter().enumerate() {
        let r = l.rect[i];
        let on_cycle = x.violations.first().is_some_and(|v| v.cycle.iter().any(|st| st.from == i || st.to == i));
        let (stroke, swidth) = if on_cycle { (HIGHLIGHT, 2.2) } else { ("#37474f", 1.2) };
        let fill = if e.thread.is_none() { "#f5f5f5" } else { "#ffffff" };
        let _ = writeln!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6" fill="{}" stroke="{}" stroke-width="{}"/>"#,
            r.cx - r.w / 2.0,
            r.cy - r.h / 2.0,
            r.w,
            r.h,
            fill,
            stroke,
            swidth
        );
        let head_y = if e.thread.is_some() { r.cy - 5.0 } else { r.cy + 4.0 };
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="12"><tspan font-weight="bold">{}</tspan><tspan fill="#546e7a" dx="10">{}</tspan></text>"##,
            r.cx - r.w / 2.0 + 8.0,
            head_y,
            esc(&e.name),
            esc(&e.detail)
        );
        if e.thread.is_some() {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="11" font-family="{}" fill="#263238">{}</text>"##,
                r.cx - r.w / 2.0 + 8.0,
                r.cy + 13.0,
                MONO,
                esc(&e.text)
            );
            let _ = writeln!(s, r##"<title>{} line {}: {}</title>"##, esc(&e.name), e.line, esc(&e.text));
        }
    }
}

/// One sample line per relation, and the cycle's when an axiom is violated.
fn legend(s: &mut String, x: &ShownExec, l: &Layout) {
    let mut lx = MARGIN;
    let legend_y = l.legend_y;
    for k in [
        EdgeKind::Po,
        EdgeKind::Rf,
        EdgeKind::Co,
        EdgeKind::Fr,
        EdgeKind::Sc,
        EdgeKind::Sync,
        EdgeKind::Cause,
        EdgeKind::Dep,
    ] {
        let c = color(k);
        let dash = match k {
            EdgeKind::Cause => r#" stroke-dasharray="6,4""#,
            EdgeKind::Dep => r#" stroke-dasharray="2,3""#,
            _ => "",
        };
        let _ = writeln!(
            s,
            r#"<path d="M{:.1},{:.1} L{:.1},{:.1}" stroke="{}" stroke-width="1.6"{}/><text x="{:.1}" y="{:.1}" font-size="11" fill="{}">{}</text>"#,
            lx,
            legend_y,
            lx + 22.0,
            legend_y,
            c,
            dash,
            lx + 27.0,
            legend_y + 4.0,
            c,
            k.label()
        );
        lx += 64.0;
    }
    if !x.violations.is_empty() {
        let _ = writeln!(
            s,
            r#"<path d="M{:.1},{:.1} L{:.1},{:.1}" stroke="{}" stroke-width="3"/><text x="{:.1}" y="{:.1}" font-size="11" fill="{}">cycle</text>"#,
            lx,
            legend_y,
            lx + 22.0,
            legend_y,
            HIGHLIGHT,
            lx + 27.0,
            legend_y + 4.0,
            HIGHLIGHT
        );
    }
}
