//! A symbolic state's uses of barriers (D196; their meaning is
//! `meaning::cta_barrier`, D309). A use's phase is the number of earlier
//! uses of its barrier on the path: a state keeps that count, and two states
//! that meet with different counts are refused, so every instance of a
//! barrier has one phase on every path that performs it.

use super::*;
use crate::program::{SyncKey, SyncRole};

/// Per barrier (its key at phase 0, and the role where arrives and waits
/// count apart), the uses the state's paths performed.
pub(super) type Phases = BTreeMap<(SyncKey, Option<SyncRole>), usize>;
