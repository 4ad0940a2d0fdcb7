//! Distributed shared memory (ISA 5.1.7, 9.7.10.26): `mapa`, the address of
//! a variable in another CTA of the cluster (D292). `st.async` and
//! `red.async` into that memory are asynchronous operations
//! (`meaning::async_op`).

use super::*;
use crate::ast;
use crate::error::{Error, Result};

impl Ctx<'_> {
    /// Thread `t`'s rank among the CTAs of its cluster and their number, as
    /// `%cluster_ctarank` / `%cluster_nctarank` give them (the header's CTA
    /// numbers in order; without `cluster`, a cluster of one CTA).
    pub(super) fn cluster_rank(&self, t: usize) -> (i64, i64) {
        let me = &self.lit.threads[t];
        if me.cluster.is_none() {
            return (0, 1);
        }
        let mut ctas: Vec<u32> =
            self.lit.threads.iter().filter(|h| h.gpu == me.gpu && h.cluster == me.cluster).map(|h| h.cta).collect();
        ctas.sort_unstable();
        ctas.dedup();
        let rank = ctas.iter().position(|&c| c == me.cta).unwrap_or(0);
        (rank as i64, ctas.len() as i64)
    }

    /// What `mapa` of variable `name` to CTA rank `rank` of thread `t`'s
    /// cluster names (9.7.10.26: "Get address in the CTA specified by operand
    /// b which corresponds to the address specified by operand a"). A test's
    /// `.shared` variable is one copy per cluster (D19), so its address in any
    /// CTA of the cluster is the same location (D292), seen through that
    /// CTA's window (`getctarank` gives the rank back, D298); a module's
    /// `.shared` variable has one copy per CTA, so the address names the copy
    /// of the CTA of that rank (D297).
    pub(super) fn mapped_name(&mut self, t: usize, name: &str, rank: i64, ins: &ast::Instr) -> Result<String> {
        let (_, n) = self.cluster_rank(t);
        if !(0..n).contains(&rank) {
            let msg = format!(
                "CTA rank {} is not in this thread's cluster, which has {} CTA{} (ranks 0 to {}): the address is undefined",
                rank,
                n,
                if n == 1 { "" } else { "s" },
                n - 1
            );
            return Err(Error::input(msg, ins.span));
        }
        let info = self.resolve_name(name);
        if !self.in_shared_memory(&info.root) {
            return Ok(name.to_string());
        }
        let cta = self.cta_of_rank(t, rank);
        let own = cta == self.placements[t].cta;
        Ok(self.name_in_cta(name, &info, cta, own))
    }

    /// The rank `getctarank` gives for variable `name` in thread `t`
    /// (9.7.10.27: "Write the destination register with the rank of the CTA
    /// which contains the address specified in operand a"): a module
    /// `.shared` variable's copy is the thread's own CTA's, or the one `mapa`
    /// named; a test's `.shared` variable is one copy per cluster (D19), which
    /// every CTA's window shows, so it is the thread's own rank; any other
    /// address is in no CTA's shared memory (D298).
    pub(super) fn rank_of(&mut self, t: usize, name: &str, ins: &ast::Instr) -> Result<i64> {
        let info = self.resolve_name(name);
        if !self.in_shared_memory(&info.root) {
            let msg = format!("`getctarank` of `{}`, which is not in shared memory: the result is undefined", name);
            return Err(Error::input(msg, ins.span));
        }
        Ok(match info.cta {
            Some(cta) => (0..self.placements.len())
                .find(|&u| self.placements[u].cta == cta)
                .map_or(0, |u| self.cluster_rank(u).0),
            None => self.cluster_rank(t).0,
        })
    }

    /// Whether `root` may be in shared memory: a module's `.shared`
    /// variable, or a test's own location, which is shared memory wherever a
    /// `.shared` access names it (D19).
    fn in_shared_memory(&self, root: &str) -> bool {
        self.vars.get(root).is_none_or(|d| d.space == ast::VarSpace::Shared)
    }

    /// The CTA (its placement number) of rank `rank` in thread `t`'s cluster.
    fn cta_of_rank(&self, t: usize, rank: i64) -> usize {
        (0..self.placements.len())
            .find(|&u| self.cluster_rank(u).0 == rank && self.same_cluster(t, u))
            .map_or(self.placements[t].cta, |u| self.placements[u].cta)
    }

    fn same_cluster(&self, t: usize, u: usize) -> bool {
        let (a, b) = (&self.lit.threads[t], &self.lit.threads[u]);
        a.gpu == b.gpu && a.cluster == b.cluster && (a.cluster.is_some() || a.cta == b.cta)
    }

    /// The name under which module `.shared` variable `name` (its `info`)
    /// denotes CTA `cta`'s copy: the same virtual address, another copy (a
    /// DSMEM address is no alias of 8.6: it names the other CTA's memory).
    /// The thread's own CTA (`own`) keeps the plain name.
    fn name_in_cta(&mut self, name: &str, info: &NameInfo, cta: usize, own: bool) -> String {
        let base = match info.cta {
            Some(_) => name.rsplit_once("@cta").map_or(name, |(b, _)| b),
            None => name,
        };
        if own {
            return base.to_string();
        }
        let mapped = format!("{}@cta{}", base, cta);
        let entry = NameInfo { root: info.root.clone(), vaddr: info.vaddr.clone(), cta: Some(cta) };
        self.names.entry(mapped.clone()).or_insert(entry);
        mapped
    }
}
