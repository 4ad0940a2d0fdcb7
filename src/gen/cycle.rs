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
    fn parse(c: char) -> Option<Dir> {
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
    const ALL: [FenceSem; 4] = [FenceSem::AcqRel, FenceSem::Acquire, FenceSem::Release, FenceSem::Sc];
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

fn com_dirs(com: Com) -> (Dir, Dir) {
    match com {
        Com::Rf => (Dir::W, Dir::R),
        Com::Fr => (Dir::R, Dir::W),
        Com::Ws => (Dir::W, Dir::W),
    }
}

fn parse_dirs(s: &str) -> Option<(Dir, Dir)> {
    let mut c = s.chars();
    let (a, b) = (Dir::parse(c.next()?)?, Dir::parse(c.next()?)?);
    if c.next().is_some() {
        return None;
    }
    Some((a, b))
}

enum Token {
    Edge(Edge),
    Ann(Ann),
    /// A fence for the next program-order edge.
    Fence(Fence),
}

/// `sc`, `sc.gpu`, `sc.gpudWR`, `scdWR` (the part after `Fence.`): the fence and
/// an optional `d`/`s` + directions suffix.
fn parse_fence_body(body: &str) -> Option<(Fence, Option<&str>)> {
    let sem = FenceSem::ALL.iter().copied().find(|s| body.to_ascii_lowercase().starts_with(s.name()))?;
    let rest = &body[sem.name().len()..];
    if rest.is_empty() {
        return Some((Fence { sem, scope: None }, None));
    }
    if let Some(r) = rest.strip_prefix('.') {
        let scope = Scope::ALL.iter().copied().find(|s| r.to_ascii_lowercase().starts_with(s.name()))?;
        let tail = &r[scope.name().len()..];
        let suffix = if tail.is_empty() { None } else { Some(tail) };
        return Some((Fence { sem, scope: Some(scope) }, suffix));
    }
    Some((Fence { sem, scope: None }, Some(rest)))
}

fn po_edge(suffix: &str, fence: Option<Fence>) -> Option<Edge> {
    let same_loc = match suffix.chars().next()? {
        'd' => false,
        's' => true,
        _ => return None,
    };
    let (src, dst) = parse_dirs(&suffix[1..])?;
    Some(Edge { kind: EdgeKind::Po { same_loc }, src, dst, fence })
}

fn parse_token(t: &str) -> Result<Token, String> {
    let com = |com, ext| {
        let (src, dst) = com_dirs(com);
        Ok(Token::Edge(Edge { kind: EdgeKind::Com { com, ext }, src, dst, fence: None }))
    };
    match t {
        "Rfe" => return com(Com::Rf, true),
        "Rfi" => return com(Com::Rf, false),
        "Fre" => return com(Com::Fr, true),
        "Fri" => return com(Com::Fr, false),
        "Wse" | "Coe" => return com(Com::Ws, true),
        "Wsi" | "Coi" => return com(Com::Ws, false),
        _ => {}
    }
    for (prefix, same_loc) in [("Pod", false), ("Pos", true)] {
        if let Some(d) = t.strip_prefix(prefix) {
            let (src, dst) = parse_dirs(d).ok_or_else(|| format!("`{}`: expected {}RR, {}RW, {}WR or {}WW", t, prefix, prefix, prefix, prefix))?;
            return Ok(Token::Edge(Edge { kind: EdgeKind::Po { same_loc }, src, dst, fence: None }));
        }
    }
    // FencedWR[.sem[.scope]] / FencesRR...
    if let Some(rest) = t.strip_prefix("Fence").filter(|r| r.starts_with('d') || r.starts_with('s')) {
        let (dirs, tail) = rest.split_at(rest.find('.').unwrap_or(rest.len()));
        let fence = if tail.is_empty() {
            Fence { sem: FenceSem::Sc, scope: None }
        } else {
            match parse_fence_body(&tail[1..]) {
                Some((f, None)) => f,
                _ => return Err(format!("`{}`: expected Fence{}.<sc|acq_rel|acquire|release>[.<cta|cluster|gpu|sys>]", t, dirs)),
            }
        };
        return po_edge(dirs, Some(fence)).map(Token::Edge).ok_or_else(|| format!("`{}`: expected FencedWR, FencesRR, ...", t));
    }
    if t == "Fence" {
        return Ok(Token::Fence(Fence { sem: FenceSem::Sc, scope: None }));
    }
    if let Some(body) = t.strip_prefix("Fence.") {
        let bad = || format!("`{}`: expected Fence.<sc|acq_rel|acquire|release>[.<cta|cluster|gpu|sys>][d|s<RR|RW|WR|WW>]", t);
        let (fence, suffix) = parse_fence_body(body).ok_or_else(bad)?;
        return match suffix {
            None => Ok(Token::Fence(fence)),
            Some(sfx) => po_edge(sfx, Some(fence)).map(Token::Edge).ok_or_else(bad),
        };
    }
    let (head, scope) = match t.split_once('.') {
        Some((h, s)) => (h, Some(Scope::parse(s).ok_or_else(|| format!("`{}`: unknown scope `{}` (cta, cluster, gpu or sys)", t, s))?)),
        None => (t, None),
    };
    let sem = match head.to_ascii_lowercase().as_str() {
        "rel" | "release" => AccSem::Release,
        "acq" | "acquire" => AccSem::Acquire,
        "rlx" | "relaxed" => AccSem::Relaxed,
        "weak" => {
            if scope.is_some() {
                return Err(format!("`{}`: weak accesses have no scope", t));
            }
            AccSem::Weak
        }
        _ => {
            return Err(format!(
                "unknown token `{}`: expected an edge (Rfe Rfi Fre Fri Wse Wsi Coe Coi PodXY PosXY Fence.<sem>.<scope>dXY), \
                 an access annotation (Rel Acq Rlx Weak, with .<scope>) or a fence (Fence.<sem>.<scope>)",
                t
            ))
        }
    };
    Ok(Token::Ann(Ann { sem, scope }))
}

/// Parse a cycle such as `Rfe Acq.gpu PodRR Fre Rel.gpu PodWW` (tokens separated
/// by spaces, commas or `+`).
pub fn parse_cycle(text: &str) -> Result<Cycle, String> {
    if text.len() > 4096 {
        return Err(format!("the cycle is {} characters long, more than the 4096 allowed", text.len()));
    }
    let mut edges: Vec<Edge> = Vec::new();
    let mut anns: Vec<Option<Ann>> = Vec::new();
    let mut pending_ann: Option<Ann> = None;
    let mut pending_fence: Option<Fence> = None;
    for t in text.split(|c: char| c.is_whitespace() || c == ',' || c == '+').filter(|t| !t.is_empty()) {
        match parse_token(t)? {
            Token::Ann(a) => {
                if pending_ann.is_some() {
                    return Err(format!("`{}`: two annotations for one access", t));
                }
                pending_ann = Some(a);
            }
            Token::Fence(f) => {
                if pending_fence.is_some() {
                    return Err(format!("`{}`: two fences before one edge", t));
                }
                pending_fence = Some(f);
            }
            Token::Edge(mut e) => {
                if let Some(f) = pending_fence.take() {
                    if !matches!(e.kind, EdgeKind::Po { .. }) || e.fence.is_some() {
                        return Err(format!("a fence token must be followed by a plain program-order edge (PodXY or PosXY), not `{}`", t));
                    }
                    e.fence = Some(f);
                }
                edges.push(e);
                anns.push(pending_ann.take());
            }
        }
    }
    if edges.len() < 2 {
        return Err("a cycle needs at least two edges".into());
    }
    // Trailing tokens wrap around to the first access / edge.
    if let Some(a) = pending_ann {
        if anns[0].is_some() {
            return Err("the first access has two annotations (one at the start, one at the end of the cycle)".into());
        }
        anns[0] = Some(a);
    }
    if let Some(f) = pending_fence {
        if !matches!(edges[0].kind, EdgeKind::Po { .. }) || edges[0].fence.is_some() {
            return Err("a trailing fence applies to the first edge, which must then be a plain PodXY or PosXY".into());
        }
        edges[0].fence = Some(f);
    }
    let n = edges.len();
    for i in 0..n {
        let (a, b) = (&edges[i], &edges[(i + 1) % n]);
        if a.dst != b.src {
            return Err(format!(
                "`{}` ends at a {} but the next edge `{}` starts at a {}",
                a,
                if a.dst == Dir::R { "read" } else { "write" },
                b,
                if b.src == Dir::R { "read" } else { "write" }
            ));
        }
    }
    for (i, a) in anns.iter().enumerate() {
        match (a.map(|a| a.sem), edges[i].src) {
            (Some(AccSem::Release), Dir::R) => return Err(format!("`{}` annotates a read (before `{}`); release applies to writes", a.unwrap(), edges[i])),
            (Some(AccSem::Acquire), Dir::W) => return Err(format!("`{}` annotates a write (before `{}`); acquire applies to reads", a.unwrap(), edges[i])),
            _ => {}
        }
    }
    Ok(Cycle { edges, anns })
}

/// One access of a resolved cycle.
#[derive(Clone, Debug)]
pub struct Event {
    pub dir: Dir,
    pub thread: usize,
    /// Index in the thread (program order).
    pub index: usize,
    pub loc: usize,
    /// Written value (writes) or the value the witness expects (observed reads).
    pub value: Option<i64>,
}

/// The layout of a cycle: threads, locations, values and the witness.
#[derive(Clone, Debug)]
pub struct Layout {
    pub events: Vec<Event>,
    /// Events of each thread in program order.
    pub threads: Vec<Vec<usize>>,
    pub nlocs: usize,
    /// For each location with two writes: its final value in the witness.
    pub finals: Vec<(usize, i64)>,
}

/// Threads, locations and values of a cycle, following diy7: threads change at
/// external edges, locations at `Pod` edges, writes to a location take values
/// 1, 2 in coherence order along the cycle, an `Rf` read takes its source's
/// value and an `Fr` read the value before its target's.
pub fn layout(c: &Cycle) -> Result<Layout, String> {
    let n = c.edges.len();
    let e = &c.edges;
    let ext: Vec<usize> = (0..n).filter(|&i| e[i].is_external()).collect();
    // Thread layout: start after the last external edge.
    let start = match ext.last() {
        Some(&j) => (j + 1) % n,
        None => {
            let back: Vec<usize> = (0..n).filter(|&i| matches!(e[i].kind, EdgeKind::Com { .. })).collect();
            if back.len() != 1 {
                return Err(
                    "a cycle without external edges (one thread) needs exactly one internal communication edge (Rfi, Fri, Wsi), which closes it backwards in program order".into(),
                );
            }
            (back[0] + 1) % n
        }
    };
    let mut thread_of = vec![0; n];
    let mut threads: Vec<Vec<usize>> = vec![Vec::new()];
    for k in 0..n {
        let i = (start + k) % n;
        let t = threads.len() - 1;
        thread_of[i] = t;
        threads[t].push(i);
        if e[i].is_external() && k + 1 < n {
            threads.push(Vec::new());
        }
    }
    // Locations: a fresh one after each Pod edge.
    let pods: Vec<usize> = (0..n).filter(|&i| e[i].is_pod()).collect();
    if pods.len() == 1 {
        return Err("a cycle needs no Pod edge (one location) or at least two (a Pod edge changes location and the cycle must come back)".into());
    }
    let mut loc_raw = vec![0usize; n];
    let vstart = if let Some(&p) = pods.first() {
        (p + 1) % n
    } else {
        match (0..n).find(|&i| e[i].is_pos()) {
            Some(p) => (p + 1) % n,
            None => return Err("a one-location cycle needs a program-order edge (PosXY): made only of communication edges it cannot be witnessed".into()),
        }
    };
    let mut cur = 0;
    for k in 0..n {
        let i = (vstart + k) % n;
        loc_raw[i] = cur;
        if e[i].is_pod() {
            cur += 1;
        }
    }
    // Rename locations by first appearance in thread order (P0's first access is x).
    let mut rename = vec![usize::MAX; pods.len().max(1)];
    let mut next = 0;
    for t in &threads {
        for &i in t {
            if rename[loc_raw[i]] == usize::MAX {
                rename[loc_raw[i]] = next;
                next += 1;
            }
        }
    }
    let loc: Vec<usize> = loc_raw.iter().map(|&l| rename[l]).collect();
    let nlocs = next;
    // Values: writes numbered along the value walk (coherence order).
    let mut value: Vec<Option<i64>> = vec![None; n];
    let mut writes: Vec<Vec<usize>> = vec![Vec::new(); nlocs];
    for k in 0..n {
        let i = (vstart + k) % n;
        if e[i].src == Dir::W {
            writes[loc[i]].push(i);
            value[i] = Some(writes[loc[i]].len() as i64);
        }
    }
    for (l, ws) in writes.iter().enumerate() {
        if ws.len() > 2 {
            return Err(format!(
                "location {} has {} writes in the cycle; only two writes per location can be witnessed by final values (diy adds observer threads for more)",
                loc_name(l),
                ws.len()
            ));
        }
    }
    for i in 0..n {
        if e[i].src != Dir::R {
            continue;
        }
        let prev = (i + n - 1) % n;
        let from_rf = match e[prev].kind {
            EdgeKind::Com { com: Com::Rf, .. } => value[prev],
            _ => None,
        };
        let from_fr = match e[i].kind {
            EdgeKind::Com { com: Com::Fr, .. } => value[(i + 1) % n].map(|v| v - 1),
            _ => None,
        };
        value[i] = match (from_rf, from_fr) {
            (Some(a), Some(b)) if a != b => return Err(format!("the read before `{}` must read {} (Rf) and {} (Fr): the cycle is contradictory", e[i], a, b)),
            (a, b) => a.or(b),
        };
    }
    let finals = writes.iter().enumerate().filter(|(_, ws)| ws.len() == 2).map(|(l, _)| (l, 2)).collect();
    let mut events = Vec::with_capacity(n);
    for i in 0..n {
        let index = threads[thread_of[i]].iter().position(|&x| x == i).unwrap();
        events.push(Event { dir: e[i].src, thread: thread_of[i], index, loc: loc[i], value: value[i] });
    }
    Ok(Layout { events, threads, nlocs, finals })
}

/// Location names as diy: x, y, z, a, b, ... (no `p`, `r`), then `x26`, `x27`, ...
pub fn loc_name(l: usize) -> String {
    const NAMES: [&str; 24] = ["x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "q", "s", "t", "u", "v", "w"];
    NAMES.get(l).map(|s| s.to_string()).unwrap_or_else(|| format!("x{}", l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let c = parse_cycle("Rfe Acq.gpu PodRR Fre Rel.gpu PodWW").unwrap();
        assert_eq!(c.to_string(), "Rfe Acq.gpu PodRR Fre Rel.gpu PodWW");
        let c = parse_cycle("PodWW Rfe Fence.sc.gpu PodRR Fre").unwrap();
        assert_eq!(c.to_string(), "PodWW Rfe Fence.sc.gpudRR Fre");
        assert_eq!(parse_cycle("FencedWR.acq_rel.cta Fre FencedWR Fre").unwrap().to_string(), "Fence.acq_rel.ctadWR Fre Fence.scdWR Fre");
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
