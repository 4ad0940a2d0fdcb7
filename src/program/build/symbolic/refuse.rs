//! What the symbolic builder does not cover (D182): each refusal names the
//! first construct outside its fragment and its line.

use crate::ast::{InstrKind, Litmus};

/// A test the symbolic builder refuses before walking it: a C test.
pub(super) fn upfront(lit: &Litmus) -> Option<String> {
    lit.c11.as_ref()?;
    let line = lit.code.iter().flatten().map(|i| i.span.line).min().unwrap_or(1);
    Some(format!(
        "line {}: the test is a C test, whose orders and compare-exchanges the symbolic builder does not translate",
        line
    ))
}

/// Why an instruction of this kind is outside the fragment; `None` for the
/// kinds the walk covers.
pub(super) fn kind(k: &InstrKind) -> Option<&'static str> {
    Some(match k {
        InstrKind::Label(_)
        | InstrKind::Nop
        | InstrKind::Alu { .. }
        | InstrKind::Setp { .. }
        | InstrKind::Selp { .. }
        | InstrKind::Branch { .. }
        | InstrKind::Load { .. }
        | InstrKind::Store { .. }
        | InstrKind::Atomic { .. }
        | InstrKind::Fence { .. }
        | InstrKind::SharedFence { .. }
        | InstrKind::ProxyFence { .. }
        | InstrKind::InitFence
        | InstrKind::Barrier { .. }
        | InstrKind::Timer { .. }
        | InstrKind::IsSpace { .. }
        | InstrKind::Warp { .. }
        | InstrKind::ActiveMask { .. }
        | InstrKind::Mapa { .. }
        | InstrKind::CtaRank { .. }
        | InstrKind::Mbarrier { .. }
        | InstrKind::ClusterBarrier { .. }
        | InstrKind::Choose(_)
        | InstrKind::Async(_)
        | InstrKind::Skip(_) => return None,
        InstrKind::Call { .. } => "calls are outside the symbolic builder",
        InstrKind::Refused(_) => "an instruction the model does not support is outside the symbolic builder",
    })
}
