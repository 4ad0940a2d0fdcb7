//! The names of PTX's special registers (ISA 10): which are timers (D81),
//! which depend on the machine, and which are special at all. Their values
//! (from the thread header) are the module layer's (`module::special`).

/// A timer (D81): the counter it reads, and which bits (shift, width).
pub fn timer(name: &str) -> Option<(&'static str, u8, u8)> {
    Some(match name {
        "%clock" => ("clock", 0, 32),
        "%clock64" => ("clock", 0, 64),
        "%globaltimer" => ("globaltimer", 0, 64),
        "%globaltimer_lo" => ("globaltimer", 0, 32),
        "%globaltimer_hi" => ("globaltimer", 32, 32),
        _ => return None,
    })
}

/// Is `name` a special register (ISA 10) of any kind: one the thread header
/// determines, a timer, or one that depends on the machine?
pub fn is_special(name: &str) -> bool {
    const FROM_HEADER: [&str; 13] = [
        "%tid",
        "%ntid",
        "%ctaid",
        "%nctaid",
        "%laneid",
        "%warpid",
        "%nwarpid",
        "%gridid",
        "%lanemask_",
        "%cluster",
        "%nclusterid",
        "%is_explicit_cluster",
        "%envreg",
    ];
    timer(name).is_some() || unsupported(name).is_some() || FROM_HEADER.iter().any(|p| name.starts_with(p))
}

/// Special registers whose value depends on the machine, the driver or the
/// launch configuration beyond the thread header: no litmus test fixes them,
/// so reading one is an input error rather than a guess (issue 23).
pub fn unsupported(name: &str) -> Option<&'static str> {
    const MACHINE: [(&str, &str); 9] = [
        ("%smid", "the number of the multiprocessor running the thread"),
        ("%nsmid", "the number of multiprocessors"),
        ("%envreg", "a driver-defined environment value"),
        ("%dynamic_smem_size", "the launch's shared memory size"),
        ("%total_smem_size", "the launch's shared memory size"),
        ("%aggr_smem_size", "the launch's shared memory size"),
        ("%pm", "a performance counter"),
        ("%reserved_smem_offset", "a reserved shared memory offset"),
        ("%current_graph_exec", "the running CUDA graph"),
    ];
    MACHINE.iter().find(|(prefix, _)| name.starts_with(prefix)).map(|(_, what)| *what)
}
