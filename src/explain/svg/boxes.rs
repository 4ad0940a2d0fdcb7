//! The nested boxes GPU > cluster > CTA > thread of an SVG picture, each over the columns it spans and labelled
//! as the thread header says, and the dashed box of the initial writes.

use super::esc;
use super::layout::{Layout, Rect, LABEL_H, NODE_H, PAD, SANS_W};
use crate::program::Program;
use std::fmt::Write;

/// Nested boxes GPU > cluster > CTA > thread, each over the columns it spans,
/// and the dashed box of the initial writes.
pub(super) fn boxes(s: &mut String, p: &Program, l: &Layout, placed: &mut Vec<Rect>) {
    let threads = &l.threads;
    for level in 0..LEVELS.len() {
        let mut c = 0;
        while c < threads.len() {
            let k = level_key(p, level, threads[c]);
            let mut d = c;
            while d + 1 < threads.len() && level_key(p, level, threads[d + 1]) == k {
                d += 1;
            }
            level_box(s, p, l, level, (c, d), placed);
            c = d + 1;
        }
    }
    init_box(s, l);
}

/// Per level, outermost first: the word of its label, its stroke and its fill.
const LEVELS: [(&str, &str, &str); 4] = [
    ("GPU", "#455a64", "none"),
    ("cluster", "#78909c", "none"),
    ("CTA", "#90a4ae", "none"),
    ("P", "#546e7a", "#eceff1"),
];

/// Which box of `level` thread `t` is in: adjacent columns with equal keys share one.
fn level_key(p: &Program, level: usize, t: usize) -> (u32, usize, usize, usize) {
    let pl = p.threads[t].placement;
    match level {
        0 => (pl.gpu, 0, 0, 0),
        1 => (pl.gpu, pl.cluster, 0, 0),
        2 => (pl.gpu, pl.cluster, pl.cta, 0),
        _ => (pl.gpu, pl.cluster, pl.cta, t + 1),
    }
}

/// The box of `level` over columns `c..=d`, inset by its depth; its label says what the thread header says.
fn level_box(s: &mut String, p: &Program, l: &Layout, level: usize, (c, d): (usize, usize), placed: &mut Vec<Rect>) {
    let (what, stroke, fill) = LEVELS[level];
    let lf = level as f64;
    let x0 = l.col_left[c] + lf * PAD;
    let x1 = l.col_left[d] + l.slot(d) - lf * PAD;
    let y0 = l.box_top + lf * LABEL_H;
    let y1 = l.boxes_bottom - lf * PAD;
    // Labels say what the thread header says.
    let w = p.threads[l.threads[c]].written;
    let label = match level {
        0 => format!("{} {}", what, w.gpu),
        1 => w.cluster_label(),
        2 => format!("{} {}", what, w.cta),
        _ => format!("P{}", l.threads[c]),
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
}

/// The dashed box around the row of initial writes (none when the test has none).
fn init_box(s: &mut String, l: &Layout) {
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
