//! SVG pictures without Graphviz: a fixed layered layout. One column per thread
//! (ordered by GPU, cluster, CTA, thread), one row per program-order position,
//! the initial writes in a row on top; nested boxes for GPU > cluster > CTA >
//! thread; program order as straight arrows down a column, every other relation
//! as a labelled curve. The violated axiom's cycle is drawn bold red.

use super::dot::{color, title, HIGHLIGHT};
use super::show::ShownExec;
use super::view::EdgeKind;
use crate::program::Program;
use std::collections::BTreeMap;
use std::fmt::Write;

const SANS: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
const MONO: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";
/// Average advance of the fonts used, in pixels per character.
const SANS_W: f64 = 7.0;
const MONO_W: f64 = 6.7;
const NODE_H: f64 = 42.0;
const ROW: f64 = 110.0;
const PAD: f64 = 12.0;
const LABEL_H: f64 = 20.0;
const GAP: f64 = 130.0;
const MARGIN: f64 = 24.0;

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

#[derive(Clone, Copy)]
struct Rect {
    cx: f64,
    cy: f64,
    w: f64,
    h: f64,
}

impl Rect {
    /// Where the ray from the centre towards (tx, ty) leaves the rectangle.
    fn border(&self, tx: f64, ty: f64) -> (f64, f64) {
        let (dx, dy) = (tx - self.cx, ty - self.cy);
        if dx == 0.0 && dy == 0.0 {
            return (self.cx, self.cy);
        }
        let sx = if dx != 0.0 { (self.w / 2.0) / dx.abs() } else { f64::INFINITY };
        let sy = if dy != 0.0 { (self.h / 2.0) / dy.abs() } else { f64::INFINITY };
        let s = sx.min(sy);
        (self.cx + dx * s, self.cy + dy * s)
    }
}

fn inside(r: &Rect, x: f64, y: f64, margin: f64) -> bool {
    (x - r.cx).abs() <= r.w / 2.0 + margin && (y - r.cy).abs() <= r.h / 2.0 + margin
}

fn overlap(a: &Rect, b: &Rect) -> bool {
    (a.cx - b.cx).abs() < (a.w + b.w) / 2.0 && (a.cy - b.cy).abs() < (a.h + b.h) / 2.0
}

/// The SVG text of one shown execution.
pub fn render(p: &Program, x: &ShownExec) -> String {
    // Columns.
    let mut threads: Vec<usize> = x.events.iter().filter_map(|e| e.thread).collect();
    threads.sort_by_key(|&t| {
        let pl = p.threads[t].placement;
        (pl.gpu, pl.cluster, pl.cta, t)
    });
    threads.dedup();
    let col_of: BTreeMap<usize, usize> = threads.iter().enumerate().map(|(c, &t)| (t, c)).collect();
    let node_w = |i: usize| -> f64 {
        let e = &x.events[i];
        let head = e.name.chars().count() + 2 + e.detail.chars().count();
        (head as f64 * SANS_W).max(e.text.chars().count() as f64 * MONO_W) + 18.0
    };
    let mut col_w = vec![120.0f64; threads.len()];
    for (i, e) in x.events.iter().enumerate() {
        if let Some(t) = e.thread {
            let c = col_of[&t];
            col_w[c] = col_w[c].max(node_w(i));
        }
    }
    let slot = |c: usize| col_w[c] + 8.0 * PAD;
    let mut col_left = Vec::new();
    let mut at = MARGIN;
    for c in 0..threads.len() {
        col_left.push(at);
        at += slot(c) + GAP;
    }
    let threads_w = at - GAP + MARGIN;
    // Initial writes, in a row.
    let inits: Vec<usize> = (0..x.events.len()).filter(|&i| x.events[i].thread.is_none()).collect();
    let init_w: Vec<f64> = inits.iter().map(|&i| node_w(i).max(90.0)).collect();
    let init_h = 30.0;
    let inits_total: f64 = init_w.iter().sum::<f64>() + 40.0 * inits.len().saturating_sub(1) as f64;
    let legend_w = 9.0 * 64.0 + 2.0 * MARGIN;
    let width = threads_w.max(inits_total + 2.0 * MARGIN).max(legend_w);
    // Title.
    let chars = ((width - 2.0 * MARGIN) / 8.4) as usize;
    let mut title_lines = wrap(&title(p, x), chars.max(40));
    let title_n = title_lines.len();
    if let Some(v) = x.violations.first() {
        title_lines.extend(wrap(&format!("{}: {}", v.axiom, v.text), chars.max(40)));
    }
    let title_h = 20.0 * title_lines.len() as f64 + 10.0;
    let init_y = MARGIN + title_h + 30.0 + NODE_H / 2.0;
    let box_top = init_y + NODE_H / 2.0 + 50.0;
    let first_row = box_top + 4.0 * LABEL_H + 18.0 + NODE_H / 2.0;
    let rows = x.events.iter().filter(|e| e.thread.is_some()).map(|e| e.po + 1).max().unwrap_or(0);
    let last_row_bottom = first_row + (rows.max(1) - 1) as f64 * ROW + NODE_H / 2.0;
    let boxes_bottom = last_row_bottom + 4.0 * PAD;
    let legend_y = boxes_bottom + 34.0;
    let height = legend_y + 30.0;

    // Node rectangles.
    let mut rect: Vec<Rect> = vec![Rect { cx: 0.0, cy: 0.0, w: 0.0, h: 0.0 }; x.events.len()];
    let mut ix = (width - inits_total) / 2.0;
    for (k, &i) in inits.iter().enumerate() {
        rect[i] = Rect { cx: ix + init_w[k] / 2.0, cy: init_y, w: init_w[k], h: init_h };
        ix += init_w[k] + 40.0;
    }
    for (i, e) in x.events.iter().enumerate() {
        if let Some(t) = e.thread {
            let c = col_of[&t];
            rect[i] = Rect { cx: col_left[c] + slot(c) / 2.0, cy: first_row + e.po as f64 * ROW, w: col_w[c], h: NODE_H };
        }
    }

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="{SANS}">"#,
        w = width,
        h = height
    );
    // Arrowheads, one per colour.
    let mut colors: Vec<&str> = [EdgeKind::Po, EdgeKind::Rf, EdgeKind::Co, EdgeKind::Fr, EdgeKind::Sc, EdgeKind::Sync, EdgeKind::Obs, EdgeKind::Cause, EdgeKind::Dep]
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
    for (k, l) in title_lines.iter().enumerate() {
        let (weight, fill) = if k < title_n { ("bold", "#212121") } else { ("normal", HIGHLIGHT) };
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" font-size="14" font-weight="{}" fill="{}">{}</text>"#, MARGIN, MARGIN + 14.0 + 20.0 * k as f64, weight, fill, esc(l));
    }

    // Label boxes placed so far (box titles, edge labels), to keep labels apart.
    let mut placed: Vec<Rect> = Vec::new();
    // Boxes: GPU > cluster > CTA > thread, each over the columns it spans.
    let levels: [(&str, &str, &str); 4] = [("GPU", "#455a64", "none"), ("cluster", "#78909c", "none"), ("CTA", "#90a4ae", "none"), ("P", "#546e7a", "#eceff1")];
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
            let x0 = col_left[c] + lf * PAD;
            let x1 = col_left[d] + slot(d) - lf * PAD;
            let y0 = box_top + lf * LABEL_H;
            let y1 = boxes_bottom - lf * PAD;
            let pl = p.threads[threads[c]].placement;
            let label = match level {
                0 => format!("{} {}", what, pl.gpu),
                1 => format!("{} {}", what, pl.cluster),
                2 => format!("{} {}", what, pl.cta),
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
            let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" font-size="12" fill="{}" font-weight="{}">{}</text>"#, x0 + 8.0, y0 + 14.0, stroke, if level == 3 { "bold" } else { "normal" }, esc(&label));
            let lw = label.len() as f64 * SANS_W;
            placed.push(Rect { cx: x0 + 8.0 + lw / 2.0, cy: y0 + 10.0, w: lw, h: 14.0 });
            c = d + 1;
        }
    }
    if !inits.is_empty() {
        let x0 = rect[inits[0]].cx - rect[inits[0]].w / 2.0 - 10.0;
        let last = rect[*inits.last().unwrap_or(&inits[0])];
        let x1 = last.cx + last.w / 2.0 + 10.0;
        let _ = writeln!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="8" fill="none" stroke="#9e9e9e" stroke-dasharray="5,4"/>"##,
            x0,
            init_y - NODE_H / 2.0 - 22.0,
            x1 - x0,
            NODE_H + 30.0
        );
        let _ = writeln!(s, r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#757575">initial writes</text>"##, x0 + 8.0, init_y - NODE_H / 2.0 - 8.0);
    }

    // Edges: non-highlighted first, so the cycle is drawn on top.
    let mut order: Vec<usize> = (0..x.edges.len()).collect();
    order.sort_by_key(|&k| x.edges[k].highlighted);
    // How many edges join each unordered pair, to fan them out.
    let mut fan: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut labels = String::new();
    for &k in &order {
        let e = &x.edges[k];
        let (a, b) = (rect[e.from], rect[e.to]);
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
            let _ = writeln!(s, r#"<path d="M{:.1},{:.1} L{:.1},{:.1}" stroke="{}" stroke-width="{}" fill="none" marker-end="url(#a{})"/>"#, x0, y0, x1, y1, c, sw, &c[1..]);
            lx = x0 + 12.0;
            ly = (y0 + y1) / 2.0 + 4.0;
            placed.push(Rect { cx: lx + 10.0, cy: ly - 4.0, w: 20.0, h: 14.0 });
        } else {
            // A quadratic curve; within one column it bows out to the right of the
            // column, otherwise to whichever side (and how far) crosses the fewest
            // other nodes and labels.
            let (dx, dy) = (b.cx - a.cx, b.cy - a.cy);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let (nx, ny) = (dy / len, -dx / len);
            let base = 26.0 + 0.12 * len;
            let mut best: Option<(f64, (f64, f64))> = None;
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
            for (oi, &(qx, qy)) in options.iter().enumerate() {
                let (x0, y0) = a.border(qx, qy);
                let (x1, y1) = b.border(qx, qy);
                let mut cost = oi as f64 * 0.3;
                for step in 1..40 {
                    let t = step as f64 / 40.0;
                    let px = (1.0 - t) * (1.0 - t) * x0 + 2.0 * (1.0 - t) * t * qx + t * t * x1;
                    let py = (1.0 - t) * (1.0 - t) * y0 + 2.0 * (1.0 - t) * t * qy + t * t * y1;
                    if (0..rect.len()).any(|j| j != e.from && j != e.to && inside(&rect[j], px, py, 6.0)) {
                        cost += 1.0;
                    }
                    if placed.iter().any(|r: &Rect| inside(r, px, py, 2.0)) {
                        cost += 0.5;
                    }
                    if px < 4.0 || py < 4.0 || px > width - 4.0 || py > boxes_bottom + 10.0 {
                        cost += 2.0;
                    }
                }
                if best.is_none_or(|(c, _)| cost < c) {
                    best = Some((cost, (qx, qy)));
                }
            }
            let (ctrl_x, ctrl_y) = best.map(|b| b.1).unwrap_or((a.cx, a.cy));
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
            // The label: the point along the curve nearest the middle that
            // overlaps no node and no other label.
            let tw = e.kind.label().len() as f64 * 6.6 + 6.0;
            let mut spot = None;
            for t in [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.2, 0.8] {
                let px = (1.0 - t) * (1.0 - t) * x0 + 2.0 * (1.0 - t) * t * ctrl_x + t * t * x1;
                let py = (1.0 - t) * (1.0 - t) * y0 + 2.0 * (1.0 - t) * t * ctrl_y + t * t * y1;
                let r = Rect { cx: px, cy: py, w: tw, h: 14.0 };
                let clash = placed.iter().any(|q| overlap(q, &r)) || rect.iter().any(|q| overlap(q, &r));
                if !clash {
                    spot = Some((px, py));
                    break;
                }
            }
            let (px, py) = spot.unwrap_or((0.25 * x0 + 0.5 * ctrl_x + 0.25 * x1, 0.25 * y0 + 0.5 * ctrl_y + 0.25 * y1));
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
    // Nodes.
    for (i, e) in x.events.iter().enumerate() {
        let r = rect[i];
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
        }
        if e.thread.is_some() {
            let _ = writeln!(s, r##"<title>{} line {}: {}</title>"##, esc(&e.name), e.line, esc(&e.text));
        }
    }
    s.push_str(&labels);
    // Legend.
    let mut lx = MARGIN;
    for k in [EdgeKind::Po, EdgeKind::Rf, EdgeKind::Co, EdgeKind::Fr, EdgeKind::Sc, EdgeKind::Sync, EdgeKind::Cause, EdgeKind::Dep] {
        let c = color(k);
        let _ = writeln!(
            s,
            r#"<path d="M{:.1},{:.1} L{:.1},{:.1}" stroke="{}" stroke-width="1.6"{}/><text x="{:.1}" y="{:.1}" font-size="11" fill="{}">{}</text>"#,
            lx,
            legend_y,
            lx + 22.0,
            legend_y,
            c,
            match k {
                EdgeKind::Cause => r#" stroke-dasharray="6,4""#,
                EdgeKind::Dep => r#" stroke-dasharray="2,3""#,
                _ => "",
            },
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
    s.push_str("</svg>\n");
    s
}
