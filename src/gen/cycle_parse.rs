//! Parsing diy7-style cycles: edge, annotation and fence tokens (syntax in
//! [`super::cycle`]).

use super::cycle::*;

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
        "Rmw" => return Ok(Token::Edge(Edge { kind: EdgeKind::Rmw, src: Dir::R, dst: Dir::W, fence: None })),
        _ => {}
    }
    for (prefix, same_loc) in [("Pod", false), ("Pos", true)] {
        if let Some(d) = t.strip_prefix(prefix) {
            let (src, dst) = parse_dirs(d)
                .ok_or_else(|| format!("`{}`: expected {}RR, {}RW, {}WR or {}WW", t, prefix, prefix, prefix, prefix))?;
            return Ok(Token::Edge(Edge { kind: EdgeKind::Po { same_loc }, src, dst, fence: None }));
        }
    }
    if let Some(fence) = fence_token(t) {
        return fence;
    }
    annotation(t)
}

/// `FencedWR[.sem[.scope]]`, `Fence`, `Fence.sem[.scope][dXY]`: a fenced program-order edge or a fence for the
/// next edge; None when `t` is no fence token.
fn fence_token(t: &str) -> Option<Result<Token, String>> {
    // FencedWR[.sem[.scope]] / FencesRR...
    if let Some(rest) = t.strip_prefix("Fence").filter(|r| r.starts_with('d') || r.starts_with('s')) {
        let (dirs, tail) = rest.split_at(rest.find('.').unwrap_or(rest.len()));
        let fence = if tail.is_empty() {
            Fence { sem: FenceSem::Sc, scope: None }
        } else {
            match parse_fence_body(&tail[1..]) {
                Some((f, None)) => f,
                _ => {
                    return Some(Err(format!(
                        "`{}`: expected Fence{}.<sc|acq_rel|acquire|release>[.<cta|cluster|gpu|sys>]",
                        t, dirs
                    )))
                }
            }
        };
        return Some(
            po_edge(dirs, Some(fence))
                .map(Token::Edge)
                .ok_or_else(|| format!("`{}`: expected FencedWR, FencesRR, ...", t)),
        );
    }
    if t == "Fence" {
        return Some(Ok(Token::Fence(Fence { sem: FenceSem::Sc, scope: None })));
    }
    let body = t.strip_prefix("Fence.")?;
    let bad =
        || format!("`{}`: expected Fence.<sc|acq_rel|acquire|release>[.<cta|cluster|gpu|sys>][d|s<RR|RW|WR|WW>]", t);
    let Some((fence, suffix)) = parse_fence_body(body) else { return Some(Err(bad())) };
    Some(match suffix {
        None => Ok(Token::Fence(fence)),
        Some(sfx) => po_edge(sfx, Some(fence)).map(Token::Edge).ok_or_else(bad),
    })
}

/// An access annotation: `Rel`, `Acq`, `Rlx`, `Sc` (with `.scope`) or `Weak`.
fn annotation(t: &str) -> Result<Token, String> {
    let (head, scope) = match t.split_once('.') {
        Some((h, s)) => (
            h,
            Some(Scope::parse(s).ok_or_else(|| format!("`{}`: unknown scope `{}` (cta, cluster, gpu or sys)", t, s))?),
        ),
        None => (t, None),
    };
    let sem = match head.to_ascii_lowercase().as_str() {
        "rel" | "release" => AccSem::Release,
        "acq" | "acquire" => AccSem::Acquire,
        "rlx" | "relaxed" => AccSem::Relaxed,
        "sc" | "seq_cst" => AccSem::Sc,
        "weak" => {
            if scope.is_some() {
                return Err(format!("`{}`: weak accesses have no scope", t));
            }
            AccSem::Weak
        }
        _ => {
            return Err(format!(
                "unknown token `{}`: expected an edge (Rfe Rfi Fre Fri Wse Wsi Coe Coi Rmw PodXY PosXY Fence.<sem>.<scope>dXY), \
                 an access annotation (Rel Acq Rlx Sc Weak, with .<scope>) or a fence (Fence.<sem>.<scope>)",
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
                        return Err(format!(
                            "a fence token must be followed by a plain program-order edge (PodXY or PosXY), not `{}`",
                            t
                        ));
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
    wrap_around(&mut edges, &mut anns, pending_ann, pending_fence)?;
    check_directions(&edges)?;
    check_annotations(&edges, &anns)?;
    Ok(Cycle { edges, anns })
}

/// Tokens after the last edge wrap around: an annotation to the first access, a fence to the first edge.
fn wrap_around(
    edges: &mut [Edge],
    anns: &mut [Option<Ann>],
    ann: Option<Ann>,
    fence: Option<Fence>,
) -> Result<(), String> {
    if let Some(a) = ann {
        if anns[0].is_some() {
            return Err("the first access has two annotations (one at the start, one at the end of the cycle)".into());
        }
        anns[0] = Some(a);
    }
    if let Some(f) = fence {
        if !matches!(edges[0].kind, EdgeKind::Po { .. }) || edges[0].fence.is_some() {
            return Err("a trailing fence applies to the first edge, which must then be a plain PodXY or PosXY".into());
        }
        edges[0].fence = Some(f);
    }
    Ok(())
}

/// Each edge starts at the kind of access (read or write) the one before it ends at.
fn check_directions(edges: &[Edge]) -> Result<(), String> {
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
    Ok(())
}

/// Release annotates writes, acquire reads.
fn check_annotations(edges: &[Edge], anns: &[Option<Ann>]) -> Result<(), String> {
    for (i, a) in anns.iter().enumerate() {
        match (a.map(|a| a.sem), edges[i].src) {
            (Some(AccSem::Release), Dir::R) => {
                return Err(format!(
                    "`{}` annotates a read (before `{}`); release applies to writes",
                    a.unwrap(),
                    edges[i]
                ))
            }
            (Some(AccSem::Acquire), Dir::W) => {
                return Err(format!(
                    "`{}` annotates a write (before `{}`); acquire applies to reads",
                    a.unwrap(),
                    edges[i]
                ))
            }
            _ => {}
        }
    }
    Ok(())
}
