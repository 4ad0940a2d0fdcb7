//! What the warp collectives compute (litmus-format.md section 7, from the
//! instruction chapter of the PTX ISA): one definition each, from the values
//! the member lanes contribute. Which values a lane receives is decided by
//! the program builder (D174): each path assumes the values of the lanes its
//! result reads, and both engines keep only executions whose matched lanes
//! contributed exactly those.

use super::arith;
use crate::ast::{IntTy, ReduxOp, ShflMode, VoteMode, WarpOp};

/// `shfl.sync`'s source lane and whether it is in range, from the ISA's
/// pseudo-code: `bval = b[4:0]; cval = c[4:0]; segmask = c[12:8];
/// maxLane = (lane & segmask) | (cval & ~segmask); minLane = lane & segmask;`
/// `.up: j = lane - bval; pval = (j >= maxLane)`, `.down: j = lane + bval;
/// pval = (j <= maxLane)`, `.bfly: j = lane ^ bval; pval = (j <= maxLane)`,
/// `.idx: j = minLane | (bval & ~segmask); pval = (j <= maxLane)`; `if
/// (!pval) j = lane;`.
pub fn shfl_source(mode: ShflMode, lane: u32, b: i64, c: i64) -> (u32, bool) {
    let lane = i64::from(lane);
    let (bval, cval, segmask) = (b & 31, c & 31, (c >> 8) & 31);
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        ShflMode::Up => (lane - bval, lane - bval >= max_lane),
        ShflMode::Down => (lane + bval, lane + bval <= max_lane),
        ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
        ShflMode::Idx => (min_lane | (bval & !segmask), (min_lane | (bval & !segmask)) <= max_lane),
    };
    let j = if pval { j } else { lane };
    (j as u32, pval)
}

/// The destination (and the `|p` predicate, where the instruction has one)
/// of a collective executed by the thread at `lane` with member `mask`,
/// given `values`: the contribution of every member lane, its own included
/// (`shfl`: the source lane's `a`; the `pval` of [`shfl_source`] is `pval`).
pub fn collect(op: WarpOp, ty: IntTy, (lane, mask): (u32, u32), values: &[(u32, i64)], pval: bool) -> (i64, i64) {
    let own = values.iter().find(|(l, _)| *l == lane).map_or(0, |v| v.1);
    let all_same = values.iter().all(|(_, v)| *v == own);
    match op {
        // "d = SourceA[j]" (j from `shfl_source`: the thread's own lane when out of range).
        WarpOp::Shfl(_) => (values.first().map_or(own, |v| v.1), pval as i64),
        WarpOp::Vote(VoteMode::All) => (values.iter().all(|(_, v)| *v != 0) as i64, 0),
        WarpOp::Vote(VoteMode::Any) => (values.iter().any(|(_, v)| *v != 0) as i64, 0),
        // ".uni: True if source predicate has the same value in all active threads".
        WarpOp::Vote(VoteMode::Uni) => (all_same as i64, 0),
        // ".ballot.b32: bit i of d is the predicate of lane i".
        WarpOp::Vote(VoteMode::Ballot) => {
            (values.iter().filter(|(_, v)| *v != 0).fold(0i64, |m, (l, _)| m | 1 << l), 0)
        }
        // ".any: d is the mask of the threads in membermask that have the same value as a".
        WarpOp::Match { all: false } => {
            (values.iter().filter(|(_, v)| *v == own).fold(0i64, |m, (l, _)| m | 1 << l), 0)
        }
        // ".all: d = membermask when every thread has the same value of a, else 0; p = that".
        WarpOp::Match { all: true } => (if all_same { i64::from(mask) } else { 0 }, all_same as i64),
        WarpOp::Redux(r) => (redux(r, ty, values.iter().map(|v| v.1)), 0),
        // "laneid of the elected thread is returned in d", "p is set to True
        // for the leader thread": the lowest member lane leads (D166; every
        // member contributes its lane number).
        WarpOp::Elect => {
            let leader = values.iter().map(|v| v.1).min().unwrap_or(i64::from(lane));
            (leader, (leader == i64::from(lane)) as i64)
        }
    }
}

/// `redux.sync.OP.TYPE`: the operation over every member's value, at 32 bits
/// (`.add` wraps; `.min`/`.max` compare as the type says).
fn redux(op: ReduxOp, ty: IntTy, values: impl Iterator<Item = i64>) -> i64 {
    let as_ty = |v: i64| arith::convert(Some(ty), v);
    let mut values = values.map(as_ty);
    let first = values.next().unwrap_or(0);
    let r = values.fold(first, |acc, v| match op {
        ReduxOp::Add => acc.wrapping_add(v),
        ReduxOp::Min => acc.min(v),
        ReduxOp::Max => acc.max(v),
        ReduxOp::And => acc & v,
        ReduxOp::Or => acc | v,
        ReduxOp::Xor => acc ^ v,
    });
    as_ty(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const U32: IntTy = IntTy { bits: 32, signed: false };
    const S32: IntTy = IntTy { bits: 32, signed: true };

    #[test]
    fn shfl_lanes_follow_the_pseudo_code() {
        // `__shfl_down_sync(m, v, 1)`: c = 0x1f, lane 3 reads lane 4; lane 31 is out of range.
        assert_eq!(shfl_source(ShflMode::Down, 3, 1, 0x1f), (4, true));
        assert_eq!(shfl_source(ShflMode::Down, 31, 1, 0x1f), (31, false));
        // `.up` by 2 with c = 0: lanes 0 and 1 keep their own value.
        assert_eq!(shfl_source(ShflMode::Up, 1, 2, 0), (1, false));
        assert_eq!(shfl_source(ShflMode::Up, 5, 2, 0), (3, true));
        assert_eq!(shfl_source(ShflMode::Bfly, 5, 1, 0x1f), (4, true));
        // `__shfl_sync(m, v, 0)` broadcasts lane 0; width 16 (c = 0x101f... segmask 0x10).
        assert_eq!(shfl_source(ShflMode::Idx, 7, 0, 0x1f), (0, true));
        assert_eq!(shfl_source(ShflMode::Idx, 20, 3, 0x100f | 0x1000), (19, true));
    }

    #[test]
    fn votes_matches_and_reductions() {
        let v = [(0, 1), (1, 0), (3, 1)];
        let vote = |m| collect(WarpOp::Vote(m), U32, (0, 0b1011), &v, true).0;
        assert_eq!([vote(VoteMode::All), vote(VoteMode::Any), vote(VoteMode::Uni)], [0, 1, 0]);
        assert_eq!(vote(VoteMode::Ballot), 0b1001);
        let vals = [(0, 7), (1, 9), (2, 7)];
        assert_eq!(collect(WarpOp::Match { all: false }, U32, (2, 7), &vals, true), (0b101, 0));
        assert_eq!(collect(WarpOp::Match { all: true }, U32, (2, 7), &vals, true), (0, 0));
        assert_eq!(collect(WarpOp::Match { all: true }, U32, (0, 1), &vals[..1], true), (1, 1));
        let neg = [(0, -1), (1, 2)];
        assert_eq!(collect(WarpOp::Redux(ReduxOp::Min), S32, (0, 3), &neg, true).0, -1);
        assert_eq!(collect(WarpOp::Redux(ReduxOp::Min), U32, (0, 3), &neg, true).0, 2);
        assert_eq!(collect(WarpOp::Redux(ReduxOp::Add), U32, (0, 3), &neg, true).0, 1);
    }

    #[test]
    fn elect_picks_the_lowest_member_lane() {
        // Lanes 2, 5 and 9 meet: lane 2 leads, and only lane 2's predicate is true.
        let lanes = [(2, 2), (5, 5), (9, 9)];
        assert_eq!(collect(WarpOp::Elect, U32, (5, 0x224), &lanes, true), (2, 0));
        assert_eq!(collect(WarpOp::Elect, U32, (2, 0x224), &lanes, true), (2, 1));
    }
}
