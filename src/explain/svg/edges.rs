//! The relations of an SVG picture: program order as straight arrows down a column, every other relation as a
//! quadratic curve fanned out from its twins, with its label placed clear of the boxes and labels drawn so far.

use super::layout::{inside, overlap, Layout, Rect};
use crate::explain::dot::{color, HIGHLIGHT};
use crate::explain::show::ShownExec;
use crate::explain::view::EdgeKind;
use std::collections::BTreeMap;
use std::fmt::Write;

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
pub(super) fn edges(s: &mut String, x: &ShownExec, l: &Layout, placed: &mut Vec<Rect>) -> String {
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
