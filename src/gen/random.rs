//! `gen --random N`: random diy-style cycles, each access with a random
//! semantics, from a seed (the same seed gives the same cycles).
//!
//! A cycle is drawn edge by edge, each edge starting where the previous one
//! ends (a read or a write), from the edges diy relaxes: external
//! communication (`Rfe`, `Fre`, `Wse`), program order to another location
//! (`PodXY`, with a fence one time in four), to the same location (`PosWW`,
//! `PosRR`) and, in C tests, the read and the
//! write of one read-modify-write (`Rmw`). Draws that `layout` refuses (a
//! single `Pod`, too many writes to one location) or that make one thread or
//! more than four are drawn again.

use super::args::Lang;
use super::cycle::{self, Dir};

/// splitmix64: a small, fixed generator, so a seed means the same tests on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// The edges leaving an access of direction `from`, with the direction each reaches.
fn edges_from(from: Dir, lang: Lang) -> Vec<(&'static str, Dir)> {
    let mut out = match from {
        Dir::W => vec![("Rfe", Dir::R), ("Wse", Dir::W), ("PodWR", Dir::R), ("PodWW", Dir::W), ("PosWW", Dir::W)],
        Dir::R => vec![("Fre", Dir::W), ("PodRR", Dir::R), ("PodRW", Dir::W), ("PosRR", Dir::R)],
    };
    if from == Dir::R && lang == Lang::C {
        out.push(("Rmw", Dir::W));
    }
    out
}

/// A random annotation for an access: mostly atomic, plain (weak) one time in sixteen.
fn annotation(rng: &mut Rng, dir: Dir, lang: Lang) -> &'static str {
    if rng.below(16) == 0 {
        return "Weak";
    }
    match (dir, lang) {
        (Dir::W, Lang::C) => rng.pick(&["Rlx", "Rel", "Sc"]),
        (Dir::R, Lang::C) => rng.pick(&["Rlx", "Acq", "Sc"]),
        (Dir::W, Lang::Ptx) => rng.pick(&["Rlx", "Rel"]),
        (Dir::R, Lang::Ptx) => rng.pick(&["Rlx", "Acq"]),
    }
}

/// One drawn cycle as text, or None when the draw does not close.
fn draw(rng: &mut Rng, edges: usize, lang: Lang) -> Option<String> {
    let start = if rng.below(2) == 0 { Dir::W } else { Dir::R };
    let mut dir = start;
    let mut tokens = Vec::new();
    for k in 0..edges {
        tokens.push(annotation(rng, dir, lang).to_string());
        let choices: Vec<(&str, Dir)> =
            edges_from(dir, lang).into_iter().filter(|&(_, to)| k + 1 < edges || to == start).collect();
        if choices.is_empty() {
            return None;
        }
        // In C tests a read starts a read-modify-write one time in three, and
        // the write of one is followed by a write to the same location one time
        // in three: RMWs and their release sequences (C11 5.1.2.4p10) are what
        // C mappings get wrong most often.
        let after_rmw = k > 0 && tokens.len() >= 2 && tokens[tokens.len() - 2] == "Rmw";
        let favoured = if after_rmw { "PosWW" } else { "Rmw" };
        let bias = choices.iter().position(|&(e, _)| e == favoured).filter(|_| rng.below(3) == 0);
        let (edge, to) = choices[bias.unwrap_or_else(|| rng.below(choices.len()))];
        let fenced = edge.starts_with("Pod") && rng.below(4) == 0;
        tokens.push(if fenced {
            let sem = rng.pick(&["sc", "acq_rel", "acquire", "release"]);
            format!("Fence.{}d{}", sem, &edge[3..])
        } else {
            edge.to_string()
        });
        dir = to;
    }
    Some(tokens.join(" "))
}

/// `n` distinct random cycles of 4 to `max_edges` edges (2 to 4 threads) from `seed`.
pub fn random_cycles(n: usize, seed: u64, max_edges: usize, lang: Lang) -> Vec<String> {
    let mut rng = Rng(seed);
    let max_edges = max_edges.clamp(4, 12);
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    // Each draw closes with probability well above 1/100; the bound only stops a runaway.
    for _ in 0..n.saturating_mul(200) {
        if out.len() == n {
            break;
        }
        let edges = 4 + rng.below(max_edges - 3);
        let Some(text) = draw(&mut rng, edges, lang) else { continue };
        let Ok(c) = cycle::parse_cycle(&text) else { continue };
        let Ok(lay) = cycle::layout(&c) else { continue };
        if (2..=4).contains(&lay.threads.len()) && seen.insert(c.to_string()) {
            out.push(c.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_cycles_and_each_lays_out() {
        let a = random_cycles(20, 7, 6, Lang::C);
        assert_eq!(a, random_cycles(20, 7, 6, Lang::C));
        assert_ne!(a, random_cycles(20, 8, 6, Lang::C));
        assert_eq!(a.len(), 20);
        for text in &a {
            let c = cycle::parse_cycle(text).unwrap();
            let threads = cycle::layout(&c).unwrap().threads.len();
            assert!((2..=4).contains(&threads) && (4..=6).contains(&c.edges.len()), "{}", text);
        }
        assert!(random_cycles(50, 1, 8, Lang::Ptx).iter().all(|t| !t.contains("Rmw") && !t.contains("Sc")));
    }
}
