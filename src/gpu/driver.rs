//! The CUDA driver through `cudarc`, whose `dynamic-loading` feature opens
//! libcuda at run time: the crate builds and its tests run without CUDA, and
//! `run` reports a missing driver or device instead of failing to link (D31).
//! The driver JIT-compiles the emitted PTX: no nvcc, no NVRTC.

use super::Module;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// An open device.
pub struct Gpu {
    stream: Arc<CudaStream>,
    ctx: Arc<CudaContext>,
    pub name: String,
    /// `cuDriverGetVersion`: 12040 = CUDA 12.4.
    pub driver: i32,
    /// Compute capability, e.g. (9, 0).
    pub sm: (i32, i32),
}

/// Open device `ordinal`; `Err` says why there is no GPU to run on.
pub fn open(ordinal: usize) -> Result<Gpu, String> {
    // cudarc panics when a symbol is missing from an old driver: keep it an error.
    std::panic::catch_unwind(|| open_inner(ordinal))
        .unwrap_or_else(|_| Err("the CUDA driver library lacks a needed function (driver too old?)".into()))
}

fn open_inner(ordinal: usize) -> Result<Gpu, String> {
    // SAFETY: only tries to dlopen libcuda.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver: libcuda could not be loaded (is an NVIDIA driver installed?)".into());
    }
    let ctx = CudaContext::new(ordinal).map_err(|e| format!("no usable CUDA device {}: {}", ordinal, e))?;
    let name = ctx.name().map_err(|e| e.to_string())?;
    let sm = ctx.compute_capability().map_err(|e| e.to_string())?;
    let mut driver = 0;
    // SAFETY: writes one int; the library is loaded and initialised above.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver) };
    Ok(Gpu { stream: ctx.default_stream(), ctx, name, driver, sm })
}

impl Gpu {
    /// "NVIDIA H100 80GB HBM3, driver 12.4, sm_90".
    pub fn describe(&self) -> String {
        format!(
            "{}, driver {}.{}, sm_{}{}",
            self.name,
            self.driver / 1000,
            (self.driver % 1000) / 10,
            self.sm.0,
            self.sm.1
        )
    }

    /// Why this device or its driver cannot run `m`, if it cannot: the
    /// module's `.target` is newer than the device, or its `.version` newer
    /// than the driver's JIT reads (D120).
    pub fn cannot_run(&self, m: &Module) -> Option<String> {
        let have = (self.sm.0 * 10 + self.sm.1) as u32;
        let why = if m.needs.why.is_empty() { String::new() } else { format!(" for {}", m.needs.why.join(", ")) };
        if have < m.needs.sm {
            return Some(format!("needs sm_{}{}; this GPU ({}) is sm_{}", m.needs.sm, why, self.name, have));
        }
        match super::needs::min_driver(m.needs.ptx) {
            Some(d) if self.driver < d => Some(format!(
                "needs PTX ISA {}{}, which a CUDA {}.{} driver or newer reads; this driver is {}.{}",
                m.needs.version(),
                why,
                d / 1000,
                (d % 1000) / 10,
                self.driver / 1000,
                (self.driver % 1000) / 10
            )),
            _ => None,
        }
    }

    /// JIT-load a module and allocate its buffers for `groups` groups (32
    /// instances each) and `stress` stress CTAs.
    pub fn prepare(&self, m: &Module, groups: u32, stress: u32) -> Result<Prepared, String> {
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(m.ptx.clone()))
            .map_err(|e| format!("the driver rejected the PTX: {}", e))?;
        let func = module.load_function(super::ENTRY).map_err(|e| e.to_string())?;
        let instances = groups as usize * 32;
        let e = |e: cudarc::driver::DriverError| e.to_string();
        let mem = self.stream.alloc_zeros::<u8>(instances * m.memory.region_bytes() as usize).map_err(e)?;
        let out = self.stream.alloc_zeros::<u64>(instances * m.out_slots).map_err(e)?;
        let stress = super::launch::stress_ctas(m, stress);
        let words = super::launch::perm_words(m, groups, stress);
        let perm = self.stream.alloc_zeros::<u32>(words).map_err(e)?;
        let scratch = self.stream.alloc_zeros::<u8>((super::emit::STRESS_LINES * 128) as usize).map_err(e)?;
        Ok(Prepared { func, mem, out, perm, scratch, groups, stress })
    }

    /// One launch: fresh memory (`image`), fresh permutations and CTA order
    /// (`perm`, `launch::perm_words` of them), the stress CTAs looping
    /// `stress_iters` times, each test thread `pre_stress` times before its
    /// code. Returns (output records, memory).
    pub fn launch(
        &self,
        m: &Module,
        p: &mut Prepared,
        image: &[u8],
        perm: &[u32],
        (stress_iters, pre_stress): (u32, u32),
    ) -> Result<(Vec<u64>, Vec<u8>), String> {
        let e = |e: cudarc::driver::DriverError| e.to_string();
        self.stream.memcpy_htod(image, &mut p.mem).map_err(e)?;
        self.stream.memcpy_htod(perm, &mut p.perm).map_err(e)?;
        self.stream.memset_zeros(&mut p.out).map_err(e)?;
        let blocks = p.groups * m.layout.blocks_per_group() + p.stress;
        let cfg =
            LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (32 * m.layout.warps, 1, 1), shared_mem_bytes: 0 };
        let mut b = self.stream.launch_builder(&p.func);
        b.arg(&mut p.mem)
            .arg(&mut p.out)
            .arg(&p.perm)
            .arg(&mut p.scratch)
            .arg(&p.groups)
            .arg(&stress_iters)
            .arg(&pre_stress);
        // SAFETY: the kernel's parameters are exactly (u64, u64, u64, u64, u32, u32, u32),
        // and every buffer is sized for `groups` groups as the kernel indexes them.
        unsafe { b.launch(cfg) }.map_err(|e| format!("launch failed: {}", e))?;
        self.stream.synchronize().map_err(|e| format!("the kernel failed: {}", e))?;
        let out = self.stream.clone_dtoh(&p.out).map_err(e)?;
        let mem = self.stream.clone_dtoh(&p.mem).map_err(e)?;
        Ok((out, mem))
    }
}

/// A loaded kernel and its device buffers.
pub struct Prepared {
    func: CudaFunction,
    mem: CudaSlice<u8>,
    out: CudaSlice<u64>,
    perm: CudaSlice<u32>,
    scratch: CudaSlice<u8>,
    groups: u32,
    /// Stress CTAs, a whole number of clusters.
    stress: u32,
}
