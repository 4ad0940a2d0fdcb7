//! The layout of an SVG picture (`super`): a fixed layered layout, one
//! column per thread (ordered by GPU, cluster, CTA, thread), one row per
//! program-order position, the initial writes in a row on top.

use super::wrap;
use crate::explain::dot::title;
use crate::explain::show::ShownExec;
use crate::program::Program;
use std::collections::BTreeMap;

pub(super) const SANS: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
pub(super) const MONO: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";
/// Average advance of the fonts used, in pixels per character.
pub(super) const SANS_W: f64 = 7.0;
pub(super) const MONO_W: f64 = 6.7;
pub(super) const NODE_H: f64 = 42.0;
pub(super) const ROW: f64 = 110.0;
pub(super) const PAD: f64 = 12.0;
pub(super) const LABEL_H: f64 = 20.0;
pub(super) const GAP: f64 = 130.0;
pub(super) const MARGIN: f64 = 24.0;

#[derive(Clone, Copy)]
pub(super) struct Rect {
    pub cx: f64,
    pub cy: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    /// Where the ray from the centre towards (tx, ty) leaves the rectangle.
    pub fn border(&self, tx: f64, ty: f64) -> (f64, f64) {
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

pub(super) fn inside(r: &Rect, x: f64, y: f64, margin: f64) -> bool {
    (x - r.cx).abs() <= r.w / 2.0 + margin && (y - r.cy).abs() <= r.h / 2.0 + margin
}

pub(super) fn overlap(a: &Rect, b: &Rect) -> bool {
    (a.cx - b.cx).abs() < (a.w + b.w) / 2.0 && (a.cy - b.cy).abs() < (a.h + b.h) / 2.0
}

/// Where everything goes: columns, rows, node rectangles and the picture's size.
pub(super) struct Layout {
    /// Threads in column order (by GPU, cluster, CTA, thread).
    pub threads: Vec<usize>,
    pub col_left: Vec<f64>,
    pub col_w: Vec<f64>,
    pub inits: Vec<usize>,
    pub rect: Vec<Rect>,
    pub width: f64,
    pub height: f64,
    pub title_lines: Vec<String>,
    /// How many of `title_lines` are the title proper (the rest: the violation).
    pub title_n: usize,
    pub init_y: f64,
    pub box_top: f64,
    pub boxes_bottom: f64,
    pub legend_y: f64,
}

impl Layout {
    pub fn slot(&self, c: usize) -> f64 {
        self.col_w[c] + 8.0 * PAD
    }

    pub fn new(p: &Program, x: &ShownExec) -> Layout {
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
        // Node rectangles.
        let mut rect: Vec<Rect> = vec![Rect { cx: 0.0, cy: 0.0, w: 0.0, h: 0.0 }; x.events.len()];
        let mut ix = (width - inits_total) / 2.0;
        for (k, &i) in inits.iter().enumerate() {
            rect[i] = Rect { cx: ix + init_w[k] / 2.0, cy: init_y, w: init_w[k], h: 30.0 };
            ix += init_w[k] + 40.0;
        }
        for (i, e) in x.events.iter().enumerate() {
            if let Some(t) = e.thread {
                let c = col_of[&t];
                rect[i] =
                    Rect { cx: col_left[c] + slot(c) / 2.0, cy: first_row + e.po as f64 * ROW, w: col_w[c], h: NODE_H };
            }
        }
        Layout {
            threads,
            col_left,
            col_w,
            inits,
            rect,
            width,
            height: legend_y + 30.0,
            title_lines,
            title_n,
            init_y,
            box_top,
            boxes_bottom,
            legend_y,
        }
    }
}
