//! SVG pictures without Graphviz: a fixed layered layout. One column per thread
//! (ordered by GPU, cluster, CTA, thread), one row per program-order position,
//! the initial writes in a row on top; nested boxes for GPU > cluster > CTA >
//! thread; program order as straight arrows down a column, every other relation
//! as a labelled curve. The violated axiom's cycle is drawn bold red.

use super::dot::{color, HIGHLIGHT};
use super::show::ShownExec;
use super::svg_layout::{inside, overlap, Layout, Rect, LABEL_H, MARGIN, MONO, NODE_H, PAD, SANS, SANS_W};
use super::view::EdgeKind;
use crate::program::Program;
use std::collections::BTreeMap;
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

/// Nested boxes GPU > cluster > CTA > thread, each over the columns it spans,
/// and the dashed box of the initial writes.
fn boxes(s: &mut String, p: &Program, l: &Layout, placed: &mut Vec<Rect>) {
    let threads = &l.threads;
    let levels: [(&str, &str, &str); 4] = [
        ("GPU", "#455a64", "none"),
        ("cluster", "#78909c", "none"),
        ("CTA", "#90a4ae", "none"),
        ("P", "#546e7a", "#eceff1"),
    ];
    for (level, (what, stroke, fill)) in levels.iter().enumerate() {
        let key = |t: usize| -> (u32, usize, usize, usize) {
            let pl = p.threads[t].placement;
            match level {
                0 => (pl.gpu, 0, 0, 0),
                1 => (pl.gpu, pl.cluster, 0, 0),
                2 => (pl.gpu, pl.cluster, pl.cta, 0),
                _ => (pl.gpu, pl.cluster, pl.cta, t + 1),
            }
        };
        let mut c = 0;
        while c < threads.len() {
            let k = key(threads[c]);
            let mut d = c;
            while d + 1 < threads.len() && key(threads[d + 1]) == k {
                d += 1;
            }
            let lf = level as f64;
            let x0 = l.col_left[c] + lf * PAD;
            let x1 = l.col_left[d] + l.slot(d) - lf * PAD;
            let y0 = l.box_top + lf * LABEL_H;
            let y1 = l.boxes_bottom - lf * PAD;
            // Labels say what the thread header says.
            let w = p.threads[threads[c]].written;
            let label = match level {
                0 => format!("{} {}", what, w.gpu),
                1 => w.cluster_label(),
                2 => format!("{} {}", what, w.cta),
                _ => format!("P{}", threads[c]),
            };
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="8" fill="{}" stroke="{}" stroke-width="1.2"/>"#,
                x0,
                y0,
                x1 - x0,
                y1 - y0,
                fill,
                stroke
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" font-size="12" fill="{}" font-weight="{}">{}</text>"#,
                x0 + 8.0,
                y0 + 14.0,
                stroke,
                if level == 3 { "bold" } else { "normal" },
                esc(&label)
            );
            let lw = label.len() as f64 * SANS_W;
            placed.push(Rect { cx: x0 + 8.0 + lw / 2.0, cy: y0 + 10.0, w: lw, h: 14.0 });
            c = d + 1;
        }
    }
    if let (Some(&first), Some(&last)) = (l.inits.first(), l.inits.last()) {
        let x0 = l.rect[first].cx - l.rect[first].w / 2.0 - 10.0;
        let last = l.rect[last];
        let x1 = last.cx + last.w / 2.0 + 10.0;
        let _ = writeln!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="8" fill="none" stroke="#9e9e9e" stroke-dasharray="5,4"/>"##,
            x0,
            l.init_y - NODE_H / 2.0 - 22.0,
            x1 - x0,
            NODE_H + 30.0
        );
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#757575">initial writes</text>"##,
            x0 + 8.0,
            l.init_y - NODE_H / 2.0 - 8.0
        );
    }
}

/// A point of the quadratic curve from (x0, y0) through control (qx, qy) to (x1, y1).
fn bezier(t: f64, (x0, y0): (f64, f64), (qx, qy): (f64, f64), (x1, y1): (f64, f64)) -> (f64, f64) {
    let px = (1.0 - t) * (1.0 - t) * x0 + 2.0 * (1.0 - t) * t * qx + t * t * x1;
    let py = (1.0 - t) * (1.0 - t) * y0 + 2.0 * (1.0 - t) * t * qy + t * t * y1;
    (px, py)
}

/// The control point of a curved edge a -> b (the `nth` between this pair):
/// within one column it bows out to the right of the column, otherwise to
/// whichever side (and how far) crosses the fewest other nodes and labels.
fn control_point(l: &Layout, from: usize, to: usize, same_col: bool, nth: usize, placed: &[Rect]) -> (f64, f64) {
    let (a, b) = (l.rect[from], l.rect[to]);
    let (dx, dy) = (b.cx - a.cx, b.cy - a.cy);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (nx, ny) = (dy / len, -dx / len);
    let base = 26.0 + 0.12 * len;
    let options: Vec<(f64, f64)> = if same_col {
        (0..6)
            .map(|k| {
                let side = a.w.max(b.w) / 2.0 + 40.0 + 28.0 * (nth + k) as f64 + 0.08 * dy.abs();
                (a.cx + side, (a.cy + b.cy) / 2.0)
            })
            .collect()
    } else {
        [1.0, -1.0, 1.8, -1.8, 2.6, -2.6, 0.5, -0.5]
            .iter()
            .map(|m| {
                let bow = (base + 30.0 * nth as f64) * m;
                ((a.cx + b.cx) / 2.0 + nx * bow, (a.cy + b.cy) / 2.0 + ny * bow)
            })
            .collect()
    };
    let mut best: Option<(f64, (f64, f64))> = None;
    for (oi, &q) in options.iter().enumerate() {
        let (p0, p1) = (a.border(q.0, q.1), b.border(q.0, q.1));
        let mut cost = oi as f64 * 0.3;
        for step in 1..40 {
            let (px, py) = bezier(step as f64 / 40.0, p0, q, p1);
            if (0..l.rect.len()).any(|j| j != from && j != to && inside(&l.rect[j], px, py, 6.0)) {
                cost += 1.0;
            }
            if placed.iter().any(|r: &Rect| inside(r, px, py, 2.0)) {
                cost += 0.5;
            }
            if px < 4.0 || py < 4.0 || px > l.width - 4.0 || py > l.boxes_bottom + 10.0 {
                cost += 2.0;
            }
        }
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, q));
        }
    }
    best.map(|b| b.1).unwrap_or((a.cx, a.cy))
}

/// The label of a curve: the point along it nearest the middle that overlaps
/// no node and no other label.
fn label_spot(l: &Layout, p0: (f64, f64), q: (f64, f64), p1: (f64, f64), tw: f64, placed: &[Rect]) -> (f64, f64) {
    for t in [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.2, 0.8] {
        let (px, py) = bezier(t, p0, q, p1);
        let r = Rect { cx: px, cy: py, w: tw, h: 14.0 };
        if !(placed.iter().any(|o| overlap(o, &r)) || l.rect.iter().any(|o| overlap(o, &r))) {
            return (px, py);
        }
    }
    (0.25 * p0.0 + 0.5 * q.0 + 0.25 * p1.0, 0.25 * p0.1 + 0.5 * q.1 + 0.25 * p1.1)
}

/// The edges (non-highlighted first, so the cycle is drawn on top); returns
/// their labels, drawn after the nodes.
fn edges(s: &mut String, x: &ShownExec, l: &Layout, placed: &mut Vec<Rect>) -> String {
    let mut order: Vec<usize> = (0..x.edges.len()).collect();
    order.sort_by_key(|&k| x.edges[k].highlighted);
    // How many edges join each unordered pair, to fan them out.
    let mut fan: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut labels = String::new();
    for &k in &order {
        let e = &x.edges[k];
        let (a, b) = (l.rect[e.from], l.rect[e.to]);
        let c = if e.highlighted { HIGHLIGHT } else { color(e.kind) };
        let sw = if e.highlighted { 3.0 } else { 1.4 };
        let dash = match (e.highlighted, e.kind) {
            (false, EdgeKind::Cause) => r#" stroke-dasharray="6,4""#,
            (false, EdgeKind::Dep) => r#" stroke-dasharray="2,3""#,
            _ => "",
        };
        let same_col = x.events[e.from].thread.is_some() && x.events[e.from].thread == x.events[e.to].thread;
        let straight = e.kind == EdgeKind::Po && same_col && x.events[e.to].po == x.events[e.from].po + 1;
        let key = (e.from.min(e.to), e.from.max(e.to));
        let nth = *fan.entry(key).and_modify(|n| *n += 1).or_insert(0);
        let (lx, ly);
        if straight {
            let (x0, y0) = (a.cx, a.cy + a.h / 2.0);
            let (x1, y1) = (b.cx, b.cy - b.h / 2.0);
            let _ = writeln!(
                s,
                r#"<path d="M{:.1},{:.1} L{:.1},{:.1}" stroke="{}" stroke-width="{}" fill="none" marker-end="url(#a{})"/>"#,
                x0,
                y0,
                x1,
                y1,
                c,
                sw,
                &c[1..]
            );
            lx = x0 + 12.0;
            ly = (y0 + y1) / 2.0 + 4.0;
            placed.push(Rect { cx: lx + 10.0, cy: ly - 4.0, w: 20.0, h: 14.0 });
        } else {
            let (ctrl_x, ctrl_y) = control_point(l, e.from, e.to, same_col, nth, placed);
            let (x0, y0) = a.border(ctrl_x, ctrl_y);
            let (x1, y1) = b.border(ctrl_x, ctrl_y);
            let _ = writeln!(
                s,
                r#"<path d="M{:.1},{:.1} Q{:.1},{:.1} {:.1},{:.1}" stroke="{}" stroke-width="{}" fill="none"{} marker-end="url(#a{})"/>"#,
                x0,
                y0,
                ctrl_x,
                ctrl_y,
                x1,
                y1,
                c,
                sw,
                dash,
                &c[1..]
            );
            let tw = e.kind.label().len() as f64 * 6.6 + 6.0;
            let (px, py) = label_spot(l, (x0, y0), (ctrl_x, ctrl_y), (x1, y1), tw, placed);
            placed.push(Rect { cx: px, cy: py, w: tw, h: 14.0 });
            lx = px;
            ly = py + 4.0;
        }
        let text = e.kind.label();
        let tw = text.len() as f64 * 6.6 + 6.0;
        let anchor_x = if straight { lx } else { lx - tw / 2.0 };
        let _ = writeln!(
            labels,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="14" rx="3" fill="#ffffff" fill-opacity="0.85"/><text x="{:.1}" y="{:.1}" font-size="11" fill="{}" font-weight="{}">{}</text>"##,
            anchor_x,
            ly - 11.0,
            tw,
            anchor_x + 3.0,
            ly,
            c,
            if e.highlighted { "bold" } else { "normal" },
            text
        );
    }
    labels
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
