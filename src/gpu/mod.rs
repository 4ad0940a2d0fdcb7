//! Running litmus tests on a GPU (`ptx-litmus run`): each test becomes one PTX
//! kernel that runs many instances of it at once (see paper-notes/hardware.md).
//!
//! - [`layout`]: threads -> warps/CTAs/clusters of the grid, locations -> bytes.
//! - [`instr`], [`instr_sync`]: one litmus instruction -> PTX.
//! - [`emit`]: the whole kernel around the threads' code ([`scan`]: what the code uses;
//!   [`shared`]: the instances' `.shared` copies).
//! - [`driver`]: the CUDA driver (cudarc, loaded at run time), launches.
//! - [`run`]: iterations, histogram, comparison with the model, reports.

/// The results of `run` go through `out` like every command's: `--output`
/// catches them (issue 45) and a closed pipe ends the run instead of a panic.
/// Defined before the modules so that their `println!` is this one.
macro_rules! println {
    ($($t:tt)*) => { $crate::out::println(&format!($($t)*)) };
}

pub mod driver;
pub mod emit;
pub mod instr;
pub mod instr_alu;
pub mod instr_sync;
pub mod launch;
pub mod layout;
pub mod needs;
pub mod report;
pub mod run;
pub mod scan;
pub mod shared;

use crate::ast::{InitItem, InstrKind, Litmus, Observable, Proxy};

/// The lowest `.version` / `.target` a module needs, and why (decision D120,
/// the features in [`needs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Needs {
    /// PTX ISA version times ten (60 = 6.0).
    pub ptx: u32,
    /// SM architecture (70 = sm_70).
    pub sm: u32,
    pub why: Vec<String>,
}

impl Default for Needs {
    /// Every module uses scoped memory operations ([`needs::SCOPED_MEMORY`]).
    fn default() -> Self {
        Needs { ptx: needs::SCOPED_MEMORY.ptx, sm: needs::SCOPED_MEMORY.sm, why: Vec::new() }
    }
}

impl Needs {
    /// Raise the version and target to what `f` needs; name it when it raises either.
    pub fn require(&mut self, f: needs::Feature) {
        let base = needs::SCOPED_MEMORY;
        if f.ptx > base.ptx || f.sm > base.sm {
            let w = format!("{} (PTX {}.{}, sm_{})", f.what, f.ptx / 10, f.ptx % 10, f.sm);
            if !self.why.contains(&w) {
                self.why.push(w);
            }
        }
        self.ptx = self.ptx.max(f.ptx);
        self.sm = self.sm.max(f.sm);
    }
    pub fn version(&self) -> String {
        format!("{}.{}", self.ptx / 10, self.ptx % 10)
    }
}

/// Knobs of the emitted kernel.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Bytes between two variables of one instance.
    pub loc_stride: u64,
    /// A label reached more often abandons the instance.
    pub spin_limit: u32,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions { loc_stride: 128, spin_limit: 10_000 }
    }
}

/// Where an observable's final value comes from after a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Slot `i` of the instance's output record.
    Out(usize),
    /// `size` bytes at `offset` in the instance's memory region.
    Mem { offset: u64, size: u8 },
}

/// One initial value: `bytes` bytes of `value`, little-endian, at `offset` of an instance's region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Init {
    pub offset: u64,
    pub value: i64,
    pub bytes: u8,
}

/// A test turned into a kernel, with what the host needs to run it.
#[derive(Clone, Debug)]
pub struct Module {
    pub name: String,
    /// The PTX text; the entry point is [`ENTRY`].
    pub ptx: String,
    pub needs: Needs,
    pub layout: layout::Layout,
    pub memory: layout::Memory,
    /// Initial value of each variable and array element.
    pub inits: Vec<Init>,
    /// One source per observable of the program, in the program's order.
    pub sources: Vec<Source>,
    /// u64 slots per instance in the output buffer: observed registers, then one
    /// status word per thread (0: never ran; u32::MAX: abandoned; else 1 + most label visits).
    pub out_slots: usize,
    /// Index of thread 0's status word.
    pub status_slot: usize,
    /// The instances' `.shared` copies and `bar.red` words (D277, D278).
    pub shared: shared::SharedPlan,
}

/// The kernel's entry point name.
pub const ENTRY: &str = "litmus_test";

/// Why a test cannot run faithfully on one GPU, if it cannot (D32). Checked
/// before emitting; the emitter may still find an instruction it cannot express.
pub fn unsupported(lit: &Litmus) -> Option<String> {
    for item in &lit.init {
        match item {
            InitItem::Alias { name, proxy, .. } => {
                return Some(
                    format!("`{}` is a {:?} alias: virtual aliases and proxy objects are not emitted", name, proxy)
                        .to_lowercase(),
                );
            }
            // The model gives `x` a synthetic address number; a real address never equals it.
            InitItem::LocationAddress { name, target, .. } => {
                return Some(format!("`{} = &{}` stores an address in memory: the model's address numbers are not the device's addresses", name, target));
            }
            _ => {}
        }
    }
    for (t, code) in lit.code.iter().enumerate() {
        let barrier = code.iter().any(|i| matches!(i.kind, InstrKind::Barrier { .. }));
        let cond_branch = code
            .iter()
            .any(|i| matches!(&i.kind, InstrKind::Branch { cond, .. } if *cond != crate::ast::BranchCond::Always));
        if barrier && cond_branch {
            return Some(format!("P{} has a CTA barrier and a conditional branch: the 32 instances sharing its warp could diverge around the barrier", t));
        }
        for i in code {
            let proxy = match &i.kind {
                InstrKind::Load { proxy, .. } | InstrKind::Store { proxy, .. } | InstrKind::Atomic { proxy, .. } => {
                    *proxy
                }
                _ => Proxy::Generic,
            };
            if proxy != Proxy::Generic {
                return Some(
                    format!(
                        "P{}: `{}` goes through the {:?} proxy (needs texture/surface/constant objects)",
                        t, i.text, proxy
                    )
                    .to_lowercase(),
                );
            }
        }
    }
    None
}

/// Emit the kernel of a test whose program (observables) is `obs`.
pub fn emit_module(
    lit: &Litmus,
    obs: &[Observable],
    program: &crate::program::Program,
    opts: &EmitOptions,
) -> Result<Module, String> {
    if let Some(why) = unsupported(lit) {
        return Err(why);
    }
    let lay = layout::layout(lit)?;
    let memory = layout::memory(lit, opts.loc_stride);
    let mut sources = Vec::new();
    let mut regs = Vec::new();
    for o in obs {
        match o {
            Observable::Reg { thread, reg } => {
                sources.push(Source::Out(regs.len()));
                regs.push((*thread, reg.clone()));
            }
            Observable::Loc(name) => {
                let (offset, room) = memory.locate(name).ok_or_else(|| format!("location `{}` has no memory", name))?;
                let size = program
                    .loc_names
                    .get(name)
                    .and_then(|&l| program.locations[l].sizes.iter().max().copied())
                    .unwrap_or(4);
                if size as u64 > room {
                    return Err(format!(
                        "`{}` lies beyond the {} bytes of its variable (--loc-stride)",
                        name, memory.stride
                    ));
                }
                sources.push(Source::Mem { offset, size });
            }
        }
    }
    let inits = initial_values(lit, &memory);
    let locs: Vec<String> =
        obs.iter().filter_map(|o| if let Observable::Loc(l) = o { Some(l.clone()) } else { None }).collect();
    let shared = shared::plan(lit, &lay, &locs)?;
    if let Some((t, r)) = regs.iter().find(|(t, r)| token_register(lit, *t, r)) {
        return Err(format!("P{}:{} is an mbarrier state token: the model's token (D153) is not a device's", t, r));
    }
    let status_slot = regs.len();
    let out_slots = regs.len() + lit.threads.len();
    let mut m = Module {
        name: lit.name.clone(),
        ptx: String::new(),
        needs: Needs::default(),
        layout: lay,
        memory,
        inits,
        sources,
        out_slots,
        status_slot,
        shared,
    };
    let (ptx, needs) = emit::kernel(lit, &m, &regs, opts)?;
    m.ptx = ptx;
    m.needs = needs;
    Ok(m)
}

/// Whether thread `t` writes `r` with an mbarrier arrive (a state token).
fn token_register(lit: &Litmus, t: usize, r: &str) -> bool {
    lit.code[t].iter().any(|i| {
        matches!(&i.kind, InstrKind::Atomic { op: crate::ast::AtomOp::MbarrierArrive | crate::ast::AtomOp::MbarrierArriveDrop, dst: Some(d), .. } if d == r)
    })
}

/// The initial bytes of an instance: each location's value (8 bytes, or its
/// stride if smaller) and each array element's (its element size).
fn initial_values(lit: &Litmus, memory: &layout::Memory) -> Vec<Init> {
    let mut out: Vec<Init> = lit
        .init
        .iter()
        .filter_map(|i| match i {
            InitItem::Location { name, value, .. } => memory.offsets.get(name).map(|&offset| Init {
                offset,
                value: *value,
                bytes: memory.stride.min(8) as u8,
            }),
            InitItem::Element { name, index, value, .. } => {
                let (offset, _) = memory.locate(&format!("{}[{}]", name, index))?;
                let bytes = memory.arrays.get(name)?.0.min(8) as u8;
                Some(Init { offset, value: *value, bytes })
            }
            _ => None,
        })
        .collect();
    // A module's `.global` variable with an initialiser: its bytes, 8 at a time.
    for item in &lit.init {
        let InitItem::Var(d) = item else { continue };
        let (Some(bytes), Some(&base)) = (&d.init, memory.offsets.get(&d.name)) else { continue };
        for (i, chunk) in bytes.chunks(8).enumerate() {
            let mut v = [0u8; 8];
            v[..chunk.len()].copy_from_slice(chunk);
            out.push(Init { offset: base + 8 * i as u64, value: i64::from_le_bytes(v), bytes: chunk.len() as u8 });
        }
    }
    out
}

/// Parse a litmus test and emit its kernel (`Err` with a skip reason or input error).
pub fn emit_source(source: &str, opts: &EmitOptions) -> Result<Result<Module, String>, crate::error::Error> {
    emit_source_at(source, std::path::Path::new("."), opts)
}

/// [`emit_source`] for a test whose `ptx "FILE";` paths are relative to
/// `base`: calls into PTX modules are inlined first, so the kernel runs the
/// module's code as the model reads it (special registers from the thread
/// header, D41).
pub fn emit_source_at(
    source: &str,
    base: &std::path::Path,
    opts: &EmitOptions,
) -> Result<Result<Module, String>, crate::error::Error> {
    let lit = crate::check::parse_and_expand(source, base)?;
    // Built as `check` builds it (D113, D188): a spin lock's failed iterations need not be enumerated to
    // emit it, and a test past the path builder's limit is emitted from its symbolic program.
    let program = crate::check::build_encoded(&lit, &Default::default())?;
    Ok(emit_module(&lit, &program.observables, &program, opts))
}
