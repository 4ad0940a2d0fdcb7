//! diy7-style cycles: parsing of edge/annotation tokens and resolution of a
//! cycle into threads, locations, values and the cycle's witness condition.
//!
//! A cycle is a list of relaxation edges `e0 -E0-> e1 -E1-> ... -E(n-1)-> e0`
//! between memory accesses. Annotation tokens (`Rel.gpu`, `Acq.cta`, `Rlx.sys`,
//! `Weak`) written between two edges apply to the access between them (the
//! target of the edge before, the source of the edge after). A fence token
//! without direction (`Fence.sc.gpu`) applies to the next edge, which must be a
//! program-order edge; `Fence.sc.gpudWR` / `Fence.sc.gpusRR` are fence edges in
//! diy's own spelling (d: different location, s: same location).

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Dir {
    R,
    W,
}

impl Dir {
    fn letter(self) -> char {
        match self {
            Dir::R => 'R',
            Dir::W => 'W',
        }
    }
    pub(super) fn parse(c: char) -> Option<Dir> {
        match c {
            'R' => Some(Dir::R),
            'W' => Some(Dir::W),
            _ => None,
        }
    }
}

/// PTX scopes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];
    pub fn name(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }
    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.iter().copied().find(|x| x.name().eq_ignore_ascii_case(s))
    }
}

/// Semantics of a `fence` instruction.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FenceSem {
    Sc,
    AcqRel,
    Acquire,
    Release,
}

impl FenceSem {
    pub fn name(self) -> &'static str {
        match self {
            FenceSem::Sc => "sc",
            FenceSem::AcqRel => "acq_rel",
            FenceSem::Acquire => "acquire",
            FenceSem::Release => "release",
        }
    }
    /// Longest names first so that `acq_rel` is not read as a prefix of something else.
    pub(super) const ALL: [FenceSem; 4] = [FenceSem::AcqRel, FenceSem::Acquire, FenceSem::Release, FenceSem::Sc];
}

/// A fence; `scope: None` takes the variant's `--scope`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Fence {
    pub sem: FenceSem,
    pub scope: Option<Scope>,
}

/// Communication relations.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Com {
    Rf,
    Fr,
    Ws,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum EdgeKind {
    /// Program order, to the same (`Pos`) or a different (`Pod`) location.
    Po { same_loc: bool },
    /// Communication, external (other thread) or internal (same thread, forward in program order).
    Com { com: Com, ext: bool },
    /// diy's `Rmw`: the read and the write of one read-modify-write (C tests only).
    Rmw,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Edge {
    pub kind: EdgeKind,
    pub src: Dir,
    pub dst: Dir,
    /// A fence between the two accesses (program-order edges only).
    pub fence: Option<Fence>,
}

impl Edge {
    pub fn is_external(&self) -> bool {
        matches!(self.kind, EdgeKind::Com { ext: true, .. })
    }
    pub fn is_pod(&self) -> bool {
        matches!(self.kind, EdgeKind::Po { same_loc: false })
    }
    pub fn is_pos(&self) -> bool {
        matches!(self.kind, EdgeKind::Po { same_loc: true })
    }
    pub fn is_rmw(&self) -> bool {
        self.kind == EdgeKind::Rmw
    }
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            EdgeKind::Po { same_loc } => {
                let (d, name) = if same_loc { ('s', "Pos") } else { ('d', "Pod") };
                match self.fence {
                    None => write!(f, "{}{}{}", name, self.src.letter(), self.dst.letter()),
                    Some(fe) => {
                        write!(f, "Fence.{}", fe.sem.name())?;
                        if let Some(s) = fe.scope {
                            write!(f, ".{}", s.name())?;
                        }
                        write!(f, "{}{}{}", d, self.src.letter(), self.dst.letter())
                    }
                }
            }
            EdgeKind::Rmw => write!(f, "Rmw"),
            EdgeKind::Com { com, ext } => {
                let c = match com {
                    Com::Rf => "Rf",
                    Com::Fr => "Fr",
                    Com::Ws => "Ws",
                };
                write!(f, "{}{}", c, if ext { 'e' } else { 'i' })
            }
        }
    }
}

/// Semantics of an access.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum AccSem {
    Weak,
    Relaxed,
    Release,
    Acquire,
    /// C's `memory_order_seq_cst` (C tests only).
    Sc,
}

/// An access annotation; `scope: None` takes the variant's `--scope`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Ann {
    pub sem: AccSem,
    pub scope: Option<Scope>,
}

impl fmt::Display for Ann {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.sem {
            AccSem::Weak => return write!(f, "Weak"),
            AccSem::Relaxed => "Rlx",
            AccSem::Release => "Rel",
            AccSem::Acquire => "Acq",
            AccSem::Sc => "Sc",
        };
        write!(f, "{}", s)?;
        if let Some(sc) = self.scope {
            write!(f, ".{}", sc.name())?;
        }
        Ok(())
    }
}

/// A parsed cycle: `anns[i]` annotates event i, the source of `edges[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    pub edges: Vec<Edge>,
    pub anns: Vec<Option<Ann>>,
}

impl fmt::Display for Cycle {
    /// Canonical spelling: `[annotation] edge` for each event in order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (e, a) in self.edges.iter().zip(&self.anns) {
            if let Some(a) = a {
                write!(f, "{}{}", if first { "" } else { " " }, a)?;
                first = false;
            }
            write!(f, "{}{}", if first { "" } else { " " }, e)?;
            first = false;
        }
        Ok(())
    }
}

impl Cycle {
    /// The tokens of the canonical spelling, for test names.
    pub fn tokens(&self) -> Vec<String> {
        self.to_string().split(' ').map(str::to_string).collect()
    }
}

pub use super::cycle_parse::parse_cycle;
pub use super::layout::{layout, loc_name, Event, Layout};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let c = parse_cycle("Rfe Acq.gpu PodRR Fre Rel.gpu PodWW").unwrap();
        assert_eq!(c.to_string(), "Rfe Acq.gpu PodRR Fre Rel.gpu PodWW");
        let c = parse_cycle("PodWW Rfe Fence.sc.gpu PodRR Fre").unwrap();
        assert_eq!(c.to_string(), "PodWW Rfe Fence.sc.gpudRR Fre");
        assert_eq!(
            parse_cycle("FencedWR.acq_rel.cta Fre FencedWR Fre").unwrap().to_string(),
            "Fence.acq_rel.ctadWR Fre Fence.scdWR Fre"
        );
        assert!(parse_cycle("PodWW Rfe PodWR Fre").is_err());
        assert!(parse_cycle("Rel.gpu PodRR Fre Rfe").is_err());
    }

    #[test]
    fn mp_layout() {
        let l = layout(&parse_cycle("PodWW Rfe PodRR Fre").unwrap()).unwrap();
        assert_eq!(l.threads, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(l.nlocs, 2);
        let v: Vec<_> = l.events.iter().map(|e| (e.loc, e.value)).collect();
        assert_eq!(v, vec![(0, Some(1)), (1, Some(1)), (1, Some(1)), (0, Some(0))]);
    }
}
