fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let ast = ptx_litmus::parse::parse_litmus(&text).unwrap();
    let p = ptx_litmus::program::build_program(&ast, &Default::default()).unwrap();
    println!("events {} traces {}", p.events.len(), p.traces.len());
    for t in &p.threads { println!("thread {} traces {}", t.id, t.traces.len()); }
    let t0 = std::time::Instant::now();
    let enc = ptx_litmus::sat::encode::Encoding::new(&p);
    println!("vars {} clauses {} cb {} encode {:?}", enc.f.vars, enc.f.clauses, enc.cb.len(), t0.elapsed());
}
