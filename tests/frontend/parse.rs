//! Parser tests: the public corpus, both instruction spellings, and errors.

use ptx_litmus::ast::*;
use ptx_litmus::parse::parse_litmus;
use std::path::{Path, PathBuf};

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            litmus_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
}

#[test]
fn every_conformance_test_parses() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/litmus"));
    let mut files = Vec::new();
    litmus_files(root, &mut files);
    assert!(files.len() >= 117, "found only {} files", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        match parse_litmus(&text) {
            Ok(lit) => {
                let header_line =
                    text.lines().find(|l| l.trim_start().starts_with("P0") && !l.contains(':')).unwrap_or("");
                let expected = header_line.matches('|').count() + 1;
                assert_eq!(lit.threads.len(), expected, "{}", f.display());
                assert_eq!(lit.code.len(), lit.threads.len(), "{}", f.display());
            }
            Err(e) => failures.push(format!("{}: {}", f.display(), e)),
        }
        // Windows line endings change nothing.
        if let Err(e) = parse_litmus(&text.replace('\n', "\r\n")) {
            failures.push(format!("{} (CRLF): {}", f.display(), e));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A one-thread test around `rows` (each row ends with `;`).
fn single_thread(rows: &str) -> String {
    format!("PTX t\n{{ x = 0; y = 0; }}\n P0@cta 0,gpu 0 ;\n{}\nexists (x == 0)\n", rows)
}

/// The decoded kind of one instruction, in a one-thread test.
fn one(instr: &str) -> InstrKind {
    let lit = parse_litmus(&single_thread(&format!(" {} ;", instr))).unwrap_or_else(|e| panic!("{}: {}", instr, e));
    assert_eq!(lit.code[0].len(), 1, "{}", instr);
    lit.code[0][0].kind.clone()
}

/// Debug text of a kind with `%` dropped and types cleared, to compare
/// spellings modulo register names: the corpus spelling is untyped, its
/// typed PTX twin has the same meaning on values that fit the type (D15).
fn shape(k: &InstrKind) -> String {
    let text = format!("{:?}", k).replace('%', "");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("Some(IntTy {") {
        out.push_str(&rest[..i]);
        out.push_str("None");
        let close = rest[i..].find("})").map_or(rest.len(), |j| i + j + 2);
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

fn err(source: &str) -> ptx_litmus::error::Error {
    match parse_litmus(source) {
        Ok(_) => panic!("expected an error for:\n{}", source),
        Err(e) => e,
    }
}

// ---- both spellings, one meaning ---------------------------------------

#[test]
fn corpus_and_ptx_spellings_agree() {
    let pairs = [
        ("ld.weak r1, x", "ld.global.u32 %r1, [x]"),
        ("ld.relaxed.gpu r1, y", "ld.relaxed.gpu.global.u32 %r1, [y]"),
        ("st.release.cta x, 1", "st.release.cta.global.u32 [x], 1"),
        ("atom.acq_rel.gpu.add r1, x, 1", "atom.acq_rel.gpu.global.add.u32 %r1, [x], 1"),
        ("atom.relaxed.gpu.cas r1, x, 0, 1", "atom.relaxed.gpu.cas.b32 %r1, [x], 0, 1"),
        ("red.relaxed.gpu.add x, 1", "red.relaxed.gpu.global.add.u32 [x], 1"),
        ("add r1, r2, 1", "add.u32 %r1, %r2, 1"),
        ("mov r1, 5", "mov.u32 %r1, 5"),
        ("beq r1, r2, L", "beq %r1, %r2, L"),
    ];
    for (corpus, ptx) in pairs {
        assert_eq!(shape(&one(corpus)), shape(&one(ptx)), "{} vs {}", corpus, ptx);
    }
}

#[test]
fn qualifier_order_does_not_matter() {
    let forms = [
        "ld.relaxed.gpu.global.u32 %r1, [x]",
        "ld.global.relaxed.gpu.u32 %r1, [x]",
        "ld.u32.gpu.global.relaxed %r1, [x]",
    ];
    let first = shape(&one(forms[0]));
    for f in forms {
        assert_eq!(shape(&one(f)), first, "{}", f);
    }
    assert_eq!(
        shape(&one("atom.add.global.acq_rel.gpu.u32 %r1, [x], 1")),
        shape(&one("atom.acq_rel.gpu.add r1, x, 1"))
    );
    // The ISA's own example puts the state space first.
    assert!(matches!(
        one("st.global.relaxed.sys.u32 [x], 1"),
        InstrKind::Store { sem: Sem::Relaxed, scope: Some(Scope::Sys), .. }
    ));
}

#[test]
fn memory_instruction_details() {
    match one("ld.acquire.sys.shared::cta.u64 %rd1, [x+8]") {
        InstrKind::Load { sem, scope, size, shared, addr, .. } => {
            assert_eq!((sem, scope, size, shared), (Sem::Acquire, Some(Scope::Sys), 8, true));
            assert_eq!(addr, Addr { base: AddrBase::Sym("x".into()), offset: 8 });
        }
        k => panic!("{:?}", k),
    }
    match one("st.weak [%rd1 + 4], r2") {
        InstrKind::Store { addr, src, .. } => {
            assert_eq!(addr, Addr { base: AddrBase::Reg("%rd1".into()), offset: 4 });
            assert_eq!(src, Operand::Reg("r2".into()));
        }
        k => panic!("{:?}", k),
    }
    assert!(matches!(one("ld.volatile r1, x"), InstrKind::Load { sem: Sem::Volatile, scope: None, .. }));
    assert!(matches!(
        one("ld.mmio.relaxed.sys.u32 %r1, [x]"),
        InstrKind::Load { sem: Sem::Mmio, scope: Some(Scope::Sys), .. }
    ));
    assert!(matches!(one("ld.global.nc.u32 %r1, [x]"), InstrKind::Load { proxy: Proxy::Texture, .. }));
    assert!(matches!(one("tld.weak r1, x"), InstrKind::Load { proxy: Proxy::Texture, .. }));
    assert!(matches!(one("suld.b.1d.b32.trap r1, [x]"), InstrKind::Load { proxy: Proxy::Surface, .. }));
    assert!(matches!(one("cold.weak r3, x"), InstrKind::Load { proxy: Proxy::Constant, .. }));
    assert!(matches!(one("ldc r3, x"), InstrKind::Load { proxy: Proxy::Constant, .. }));
    assert!(matches!(one("sust.weak x, 42"), InstrKind::Store { proxy: Proxy::Surface, .. }));
    assert!(matches!(one("suatom.add r1, x, 1"), InstrKind::Atomic { proxy: Proxy::Surface, dst: Some(_), .. }));
    assert!(matches!(one("sured.add x, 1"), InstrKind::Atomic { proxy: Proxy::Surface, dst: None, .. }));
    assert!(matches!(one("ld.u8 r1, x"), InstrKind::Load { size: 1, .. }));
}

#[test]
fn atomics() {
    match one("atom.relaxed.gpu.cas r1, x, 0, 1") {
        InstrKind::Atomic { op, operands, dst, .. } => {
            assert_eq!(op, AtomOp::Cas);
            assert_eq!(operands, vec![Operand::Imm(0), Operand::Imm(1)]);
            assert_eq!(dst.as_deref(), Some("r1"));
        }
        k => panic!("{:?}", k),
    }
    // No sem: relaxed; no scope: left to the model.
    assert!(matches!(one("atom.global.add.u32 %r1, [x], 1"), InstrKind::Atomic { sem: Sem::Relaxed, scope: None, .. }));
    assert!(matches!(
        one("red.sys.global.add.u32 [x], 1"),
        InstrKind::Atomic { sem: Sem::Relaxed, scope: Some(Scope::Sys), dst: None, .. }
    ));
    // Corpus `sub` is `add` of the negated immediate.
    match one("atom.acq_rel.sys.sub r0, x, 1") {
        InstrKind::Atomic { op, operands, .. } => {
            assert_eq!((op, operands), (AtomOp::Add, vec![Operand::Imm(-1)]))
        }
        k => panic!("{:?}", k),
    }
    for op in ["inc", "dec", "exch", "and", "or", "xor", "min", "max"] {
        assert!(matches!(one(&format!("atom.{}.b32 %r1, [x], 1", op)), InstrKind::Atomic { .. }), "{}", op);
    }
}

#[test]
fn fences() {
    assert!(matches!(one("fence.sc.gpu"), InstrKind::Fence { sem: FenceSem::Sc, scope: Scope::Gpu }));
    assert!(matches!(one("fence.acq_rel.cta"), InstrKind::Fence { sem: FenceSem::AcqRel, scope: Scope::Cta }));
    assert!(matches!(one("fence.acquire.gpu"), InstrKind::Fence { sem: FenceSem::Acquire, scope: Scope::Gpu }));
    assert!(matches!(one("fence.release.sys"), InstrKind::Fence { sem: FenceSem::Release, scope: Scope::Sys }));
    assert!(matches!(one("fence.gpu"), InstrKind::Fence { sem: FenceSem::AcqRel, scope: Scope::Gpu }));
    assert!(matches!(one("membar.cta"), InstrKind::Fence { sem: FenceSem::Sc, scope: Scope::Cta }));
    assert!(matches!(one("membar.gl"), InstrKind::Fence { sem: FenceSem::Sc, scope: Scope::Gpu }));
    assert!(matches!(one("membar.sys"), InstrKind::Fence { sem: FenceSem::Sc, scope: Scope::Sys }));
    assert!(matches!(one("fence.proxy.alias"), InstrKind::ProxyFence { proxy: Proxy::Generic, .. }));
    assert!(matches!(one("fence.proxy.texture"), InstrKind::ProxyFence { proxy: Proxy::Texture, .. }));
    assert!(matches!(one("fence.proxy.surface"), InstrKind::ProxyFence { proxy: Proxy::Surface, .. }));
    assert!(matches!(one("membar.proxy.constant"), InstrKind::ProxyFence { proxy: Proxy::Constant, .. }));
}

/// op, id, logical, count, red of a barrier instruction.
type BarrierParts = (BarrierOp, Operand, Option<Operand>, BarrierCount, Option<(String, Operand, bool)>);

fn barrier(instr: &str) -> BarrierParts {
    match one(instr) {
        InstrKind::Barrier { op, id, logical, count, red } => (op, id, logical, count, red),
        k => panic!("{}: {:?}", instr, k),
    }
}

#[test]
fn barrier_forms() {
    use BarrierCount::*;
    use Operand::{Imm, Reg};
    let r2 = || Reg("r2".to_string());
    // Corpus spelling: the second operand names the barrier too; the third is a count.
    assert_eq!(barrier("bar.cta.sync 1"), (BarrierOp::Sync, Imm(1), None, Arrivals, None));
    assert_eq!(barrier("bar.cta.sync 1, r2"), (BarrierOp::Sync, Imm(1), Some(r2()), Arrivals, None));
    assert_eq!(barrier("bar.cta.sync 1, 1, 3"), (BarrierOp::Sync, Imm(1), Some(Imm(1)), Count(Imm(3)), None));
    assert_eq!(barrier("bar.cta.arrive 1"), (BarrierOp::Arrive, Imm(1), None, Arrivals, None));
    // Real PTX: the second operand is a thread count; without it, the whole CTA.
    assert_eq!(barrier("bar.sync 0"), (BarrierOp::Sync, Imm(0), None, AllThreadsInCta, None));
    assert_eq!(barrier("bar.sync 1, 64"), (BarrierOp::Sync, Imm(1), None, Count(Imm(64)), None));
    assert_eq!(barrier("barrier.sync 0"), (BarrierOp::Sync, Imm(0), None, AllThreadsInCta, None));
    assert_eq!(barrier("barrier.sync.aligned 0"), (BarrierOp::Sync, Imm(0), None, AllThreadsInCta, None));
    assert_eq!(barrier("barrier.cta.sync r2, 32"), (BarrierOp::Sync, r2(), None, Count(Imm(32)), None));
    assert_eq!(barrier("bar.arrive 1, 64"), (BarrierOp::Arrive, Imm(1), None, Count(Imm(64)), None));
    assert_eq!(barrier("barrier.arrive 1, r2"), (BarrierOp::Arrive, Imm(1), None, Count(r2()), None));
    assert_eq!(
        barrier("bar.red.popc.u32 %r1, 0, %p"),
        (BarrierOp::Red(RedOp::Popc), Imm(0), None, AllThreadsInCta, Some(("%r1".into(), Reg("%p".into()), false)))
    );
    assert_eq!(
        barrier("bar.red.and.pred %p2, 1, 64, !%p"),
        (BarrierOp::Red(RedOp::And), Imm(1), None, Count(Imm(64)), Some(("%p2".into(), Reg("%p".into()), true)))
    );
    assert!(matches!(barrier("bar.red.or.pred %p2, 1, %p").0, BarrierOp::Red(RedOp::Or)));
    // Cluster barriers.
    assert!(matches!(one("barrier.cluster.arrive"), InstrKind::ClusterBarrier { arrive: true, relaxed: false }));
    assert!(matches!(
        one("barrier.cluster.arrive.release.aligned"),
        InstrKind::ClusterBarrier { arrive: true, relaxed: false }
    ));
    assert!(matches!(one("barrier.cluster.arrive.relaxed"), InstrKind::ClusterBarrier { arrive: true, relaxed: true }));
    assert!(matches!(one("barrier.cluster.wait.acquire"), InstrKind::ClusterBarrier { arrive: false, .. }));
    // bar.arrive needs its count in real PTX.
    assert!(err(&single_thread(" bar.arrive 1 ;")).message.contains("expects"));
}

#[test]
fn arithmetic_and_branches() {
    assert!(matches!(one("mul.lo.u32 %r1, %r2, 3"), InstrKind::Alu { op: AluOp::Mul, .. }));
    assert!(matches!(one("not r1, r2"), InstrKind::Alu { op: AluOp::Not, .. }));
    match one("mov.u64 %rd1, x") {
        InstrKind::Alu { op: AluOp::Mov, dst, srcs, .. } => {
            assert_eq!((dst.as_str(), srcs), ("%rd1", vec![Operand::Sym("x".into())]))
        }
        k => panic!("{:?}", k),
    }
    assert!(matches!(one("cvta.to.global.u64 %rd1, %rd2"), InstrKind::Alu { op: AluOp::Mov, .. }));
    assert!(matches!(one("setp.eq.u32 %p, %r1, 1"), InstrKind::Setp { cmp: Cmp::Eq, .. }));
    assert!(matches!(one("setp.hs.u32 %p, %r1, 1"), InstrKind::Setp { cmp: Cmp::Ge, .. }));
    assert!(matches!(one("selp.u32 %r1, 1, 2, %p"), InstrKind::Selp { .. }));
    assert!(matches!(one("nop"), InstrKind::Nop));
    let lit =
        parse_litmus(&single_thread(" bra.uni L ;\n @%p bra L ;\n @!%p bra L ;\n goto L ;\n bne r1, 0, L ;\n L: ;"))
            .unwrap();
    let conds: Vec<_> = lit.code[0]
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Branch { cond, target } => Some((cond.clone(), target.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(conds[0].0, BranchCond::Always);
    assert_eq!(conds[1].0, BranchCond::Pred { reg: "%p".into(), negated: false });
    assert_eq!(conds[2].0, BranchCond::Pred { reg: "%p".into(), negated: true });
    assert_eq!(conds[3].0, BranchCond::Always);
    assert_eq!(conds[4].0, BranchCond::Compare { cmp: Cmp::Ne, a: Operand::Reg("r1".into()), b: Operand::Imm(0) });
    assert!(conds.iter().all(|c| c.1 == "L"));
}

#[test]
fn registers_versus_locations() {
    let src = "PTX t\n{ x = 0; r9 = 0; P0:tmp = 0; }\n P0 ;\n ld.weak val, x ;\n st.weak x, val ;\n st.weak r9, tmp ;\n st.weak y, r1 ;\nexists (x == 0)";
    let lit = parse_litmus(src).unwrap();
    let kinds: Vec<_> = lit.code[0].iter().map(|i| i.kind.clone()).collect();
    // `val` is a destination of P0, so a register.
    assert!(matches!(&kinds[1], InstrKind::Store { src: Operand::Reg(r), .. } if r == "val"));
    // `r9` is declared a location; `tmp` an init register of P0.
    assert!(
        matches!(&kinds[2], InstrKind::Store { addr: Addr { base: AddrBase::Sym(l), .. }, src: Operand::Reg(r), .. } if l == "r9" && r == "tmp")
    );
    // `y` is undeclared: a location; `r1` looks like a register.
    assert!(
        matches!(&kinds[3], InstrKind::Store { addr: Addr { base: AddrBase::Sym(l), .. }, src: Operand::Reg(r), .. } if l == "y" && r == "r1")
    );
    assert_eq!(lit.threads[0].cta, 0);
}

// ---- file layout --------------------------------------------------------

#[test]
fn init_block_forms() {
    let src = r#"PTX init-forms "one" "two
lines"
{
x = 0; y=-2; int z = 0x10; .global .u32 w = 3; uint32_t v=4;
P1:r1 = 3; P0:%r1=0; P0:r2 = x;
a @ generic aliases x; t @ texture aliases x; s @ surface aliases x; c @ constant aliases x
}
 P0@cta 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;
 ld.weak r0, x  | ld.weak r0, y ;
locations [x; P0:r0;]
filter (P0:r0 == 0)
~exists (P1:r0 == 1)
"#;
    let lit = parse_litmus(src).unwrap();
    assert_eq!((lit.arch.as_str(), lit.name.as_str()), ("PTX", "init-forms"));
    assert_eq!(lit.docs, vec!["one".to_string(), "two\nlines".to_string()]);
    let locs: Vec<_> = lit
        .init
        .iter()
        .filter_map(|i| match i {
            InitItem::Location { name, value, .. } => Some((name.as_str(), *value)),
            _ => None,
        })
        .collect();
    assert_eq!(locs, vec![("x", 0), ("y", -2), ("z", 16), ("w", 3), ("v", 4)]);
    assert!(lit.init.iter().any(|i| matches!(i, InitItem::Register { thread: 1, reg, value: 3, .. } if reg == "r1")));
    assert!(lit.init.iter().any(|i| matches!(i, InitItem::Register { thread: 0, reg, value: 0, .. } if reg == "%r1")));
    assert!(lit.init.iter().any(
        |i| matches!(i, InitItem::RegisterAddress { thread: 0, reg, location, .. } if reg == "r2" && location == "x")
    ));
    let aliases: Vec<_> = lit
        .init
        .iter()
        .filter_map(|i| match i {
            InitItem::Alias { name, proxy, target, .. } => Some((name.as_str(), *proxy, target.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        aliases,
        vec![
            ("a", Proxy::Generic, "x"),
            ("t", Proxy::Texture, "x"),
            ("s", Proxy::Surface, "x"),
            ("c", Proxy::Constant, "x")
        ]
    );
    assert_eq!(lit.threads[1].cluster, Some(0));
    assert_eq!(lit.threads[1].cta, 1);
    assert_eq!(lit.locations, vec![Observable::Loc("x".into()), Observable::Reg { thread: 0, reg: "r0".into() }]);
    assert!(lit.filter.is_some());
    assert_eq!(lit.condition.quantifier, Quantifier::NotExists);
    assert_eq!(lit.condition.text, "~exists (P1:r0 == 1)");
    assert_eq!((lit.condition.span.line, lit.condition.span.col), (12, 1));
}

#[test]
fn bare_thread_headers_and_missing_last_semicolon() {
    // One thread needs no placement (it runs in CTA 0 of GPU 0)...
    let lit = parse_litmus("ptx t\n{ P0:r0=0 }\n P0 ;\n nop ;\nexists 0==0").unwrap();
    assert_eq!(lit.threads.len(), 1);
    assert!(lit.threads.iter().all(|h| h.cta == 0 && h.gpu == 0 && h.cluster.is_none()));
    assert!(matches!(lit.condition.prop, Prop::Eq(Term::Const(0), Term::Const(0))));
    // ...but with two, a bare header would put both in CTA 0 (issue 23, D80).
    check_err("ptx t\n{ P0:r0=0 }\n P0 | P1 ;\n nop | nop ;\nexists 0==0", 3, 2, "P0 does not say where it runs");
}

#[test]
fn condition_precedence() {
    let lit = parse_litmus(
        &single_thread("")
            .replace("{ x = 0; y = 0; }", "{ x = 0; y = 0; P0:r0 = 0; P0:r1 = 0; P0:r2 = 0; }")
            .replace("exists (x == 0)", "exists P0:r0 == 1 \\/ P0:r0 = 2 /\\ ~P0:r1 != 0 => x == P0:r2"),
    )
    .unwrap();
    // `~` > `/\` > `\/` > `=>`.
    let Prop::Implies(lhs, rhs) = &lit.condition.prop else { panic!("{:?}", lit.condition.prop) };
    assert!(matches!(**rhs, Prop::Eq(Term::Obs(Observable::Loc(_), _), Term::Obs(Observable::Reg { .. }, _))));
    let Prop::Or(a, b) = &**lhs else { panic!("{:?}", lhs) };
    assert!(matches!(**a, Prop::Eq(..)));
    let Prop::And(c, d) = &**b else { panic!("{:?}", b) };
    assert!(matches!(**c, Prop::Eq(..)));
    assert!(matches!(&**d, Prop::Not(n) if matches!(**n, Prop::Ne(..))));
    assert_eq!(lit.condition.text, "exists P0:r0 == 1 \\/ P0:r0 = 2 /\\ ~P0:r1 != 0 => x == P0:r2");

    let lit = parse_litmus(
        &single_thread("")
            .replace("{ x = 0; y = 0; }", "{ x = 0; y = 0; P0:r1 = 0; }")
            .replace("exists (x == 0)", "forall\n ( (true) /\\ ~~false \\/ 0:r1 == -0x10 )"),
    )
    .unwrap();
    let Prop::Or(a, b) = &lit.condition.prop else { panic!("{:?}", lit.condition.prop) };
    assert!(matches!(&**a, Prop::And(t, f) if matches!(**t, Prop::True) && matches!(**f, Prop::False)));
    assert!(matches!(&**b, Prop::Eq(Term::Obs(Observable::Reg { thread: 0, .. }, _), Term::Const(-16))));
    assert_eq!(lit.condition.text, "forall ( (true) /\\ ~~false \\/ 0:r1 == -0x10 )");
}

#[test]
fn long_conjunctions_stay_shallow() {
    let conj: Vec<String> = (0..20000).map(|i| format!("x == {}", i)).collect();
    let src = single_thread("").replace("exists (x == 0)", &format!("exists {}", conj.join(" /\\ ")));
    let lit = parse_litmus(&src).unwrap();
    fn depth(p: &Prop) -> usize {
        match p {
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => 1 + depth(a).max(depth(b)),
            Prop::Not(a) => 1 + depth(a),
            _ => 1,
        }
    }
    assert!(depth(&lit.condition.prop) < 40);
}

#[test]
fn comments_anywhere() {
    let src = r#"// leading comment
PTX (* between *) commented
"doc with // and (* inside *)"
{ x = 0; (* init comment *) y = 0; // tail
}
 P0@cta 0,gpu 0 (* c *) | P1@cta 1,gpu 0 ; // header
 st.weak x, 1 (* in a cell *) | ld.weak r0, x ; // row
exists (* before *) (P1:r0 == 1 (* inside *)) // after
"#;
    let lit = parse_litmus(src).unwrap();
    assert_eq!(lit.name, "commented");
    assert_eq!(lit.docs, vec!["doc with // and (* inside *)".to_string()]);
    assert_eq!(lit.code[0][0].text, "st.weak x, 1");
    assert_eq!(lit.condition.text, "exists (P1:r0 == 1 )");
}

#[test]
fn ptx_cells_with_trailing_semicolons() {
    let src = "PTX t\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n \
               st.global.u32 [x], 1; | ld.global.u32 %r1, [y]; ;\n \
               st.release.gpu.global.u32 [y], 1;| ld.global.u32 %r2, [x] ;\n\
               \x20                      | ld.weak r3, x ;\n\
               exists (P1:%r1 == 1 /\\ P1:%r2 == 0)";
    let lit = parse_litmus(src).unwrap();
    assert_eq!(lit.code[0].len(), 2);
    assert_eq!(lit.code[1].len(), 3, "{:?}", lit.code[1]);
    assert_eq!(lit.code[0][0].text, "st.global.u32 [x], 1");
    assert!(
        matches!(&lit.condition.prop, Prop::And(a, _) if matches!(&**a, Prop::Eq(Term::Obs(Observable::Reg { reg, .. }, _), _) if reg == "%r1"))
    );
}

#[test]
fn labels_alone_and_before_an_instruction() {
    let lit =
        parse_litmus(&single_thread(" LC00: ;\n W1: st.weak x, 1 ;\n L1: L2: ld.weak r0, x ;\n goto LC00 ;")).unwrap();
    let kinds: Vec<String> = lit.code[0]
        .iter()
        .map(|i| match &i.kind {
            InstrKind::Label(l) => format!("label {}", l),
            InstrKind::Store { .. } => "st".into(),
            InstrKind::Load { .. } => "ld".into(),
            InstrKind::Branch { target, .. } => format!("goto {}", target),
            k => format!("{:?}", k),
        })
        .collect();
    assert_eq!(kinds, ["label LC00", "label W1", "st", "label L1", "label L2", "ld", "goto LC00"]);
    let st = &lit.code[0][2];
    assert_eq!(st.text, "st.weak x, 1");
    assert_eq!((st.span.line, st.span.col), (5, 6));
}

#[test]
fn values_at_the_limits() {
    let lit = parse_litmus(
        &single_thread("").replace("{ x = 0; y = 0; }", "{ x = -9223372036854775808; y = 0x7fffffffffffffff; }"),
    )
    .unwrap();
    let v: Vec<i64> = lit
        .init
        .iter()
        .filter_map(|i| match i {
            InitItem::Location { value, .. } => Some(*value),
            _ => None,
        })
        .collect();
    assert_eq!(v, vec![i64::MIN, i64::MAX]);
}

// ---- errors -------------------------------------------------------------

/// Assert the error's line, column and a message fragment.
fn check_err(source: &str, line: usize, col: usize, fragment: &str) {
    let e = err(source);
    let span = e.span.unwrap_or_else(|| panic!("no span: {}", e.message));
    assert!(e.message.contains(fragment), "message `{}` lacks `{}`", e.message, fragment);
    assert_eq!((span.line, span.col), (line, col), "{}", e.message);
    assert_eq!(e.exit_code(), ptx_litmus::error::EXIT_INPUT);
}

const TWO: &str = "PTX bad\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n";

#[test]
fn error_unknown_instruction() {
    check_err(
        &format!("{} lod.weak r0, x | st.weak x, 1 ;\nexists (P0:r0 == 1)", TWO),
        4,
        2,
        "unknown instruction `lod.weak`",
    );
}

#[test]
fn error_special_register_in_a_cell() {
    // A cell has no launch: `%laneid` would otherwise read as an unwritten register, 0 (D190).
    check_err(
        &format!("{} add.u32 r1, %laneid, 1 | st.weak x, 1 ;\nexists (P0:r1 == 1)", TWO),
        4,
        14,
        "`%laneid` is a special register, which a litmus cell cannot read",
    );
    check_err(
        &format!("{} ld.weak r1, [%ctaid] | st.weak x, 1 ;\nexists (P0:r1 == 1)", TWO),
        4,
        14,
        "`%ctaid` is a special register",
    );
}

#[test]
fn error_wrong_cell_count() {
    check_err(
        &format!("{} nop | nop ;\n ld.weak r0, x | st.weak x, 1 | nop ;\nexists (P0:r0 == 1)", TWO),
        5,
        33,
        "row 2 has 3 cells but the header declares 2 threads",
    );
    check_err(&format!("{} nop ;\nexists (P0:r0 == 1)", TWO), 4, 6, "row 1 has 1 cell but");
}

#[test]
fn error_thread_out_of_order() {
    check_err(
        "PTX bad\n{ }\n P0@cta 0,gpu 0 | P2@cta 1,gpu 0 ;\n nop | nop ;\nexists 0==0",
        3,
        19,
        "thread header P2 is out of order: expected P1",
    );
}

#[test]
fn error_undeclared_threads() {
    check_err(&format!("{} nop | nop ;\nexists (P0:r0 == 1 /\\ P3:r0 == 0)", TWO), 5, 23, "unknown thread P3");
    check_err("PTX bad\n{ P2:r0 = 1; }\n P0 ;\n nop ;\nexists 0==0", 2, 3, "unknown thread P2");
    check_err(&format!("{} nop | nop ;\nlocations [2:r0]\nexists 0==0", TWO), 5, 12, "unknown thread 2");
}

#[test]
fn error_bad_values() {
    check_err("PTX bad\n{ x = 99999999999999999999; }\n P0 ;\n nop ;\nexists 0==0", 2, 7, "does not fit in 64 bits");
    check_err("PTX bad\n{ x = 0x10000000000000000; }\n P0 ;\n nop ;\nexists 0==0", 2, 7, "does not fit in 64 bits");
    check_err(&single_thread(" st.weak x, 18446744073709551616 ;"), 4, 13, "does not fit in 64 bits");
    // Too large for .s64 but not for .u64: its 64-bit pattern (ISA 4.5.1, D15).
    let lit = parse_litmus(&single_thread(" st.weak x, 9223372036854775808 ;")).unwrap();
    assert!(matches!(&lit.code[0][0].kind, InstrKind::Store { src: Operand::Imm(i64::MIN), .. }));
}

#[test]
fn error_deep_parentheses() {
    let deep = format!("{}x == 1{}", "(".repeat(1000), ")".repeat(1000));
    let src = single_thread("").replace("exists (x == 0)", &format!("exists {}", deep));
    check_err(&src, 5, 8 + 64, "nested deeper than 64");
    // 64 levels are fine.
    let ok = format!("{}x == 1{}", "(".repeat(64), ")".repeat(64));
    assert!(parse_litmus(&single_thread("").replace("exists (x == 0)", &format!("exists {}", ok))).is_ok());
}

#[test]
fn error_empty_and_garbage() {
    check_err("", 1, 1, "empty input");
    check_err("  \n// only a comment\n", 1, 1, "empty input");
    let garbage = String::from_utf8_lossy(&[0x00, 0xff, 0xfe, 0x13, 0x88, 0x01, 0x7f, 0x80]).into_owned();
    check_err(&garbage, 1, 1, "control character");
    check_err("\u{fffd}\u{fffd} PTX", 1, 1, "expected `PTX`");
}

#[test]
fn error_unterminated() {
    check_err("PTX t\n{ x = 0; }\n P0 ;\n (* never closed\n nop ;\nexists 0==0", 4, 2, "unterminated comment");
    check_err("PTX t \"doc\n{ x = 0; }", 1, 7, "unterminated string");
}

#[test]
fn missing_condition_is_accepted() {
    // Dat3M: a test without a condition lists its final states (no verdict).
    let lit = parse_litmus(&format!("{} nop | nop ;\n", TWO)).unwrap();
    assert!(!lit.condition.given);
}

#[test]
fn error_syntax() {
    check_err("PTX t\n{ x = 0 y = 1; }\n P0 ;\n nop ;\nexists 0==0", 2, 9, "expected `}` or `;`, found `y`");
    check_err("X86 t\n{ }\n P0 ;\nexists 0==0", 1, 1, "expected `PTX`, found `X86`");
    check_err(&format!("{} nop | nop ;\nexists (P0:r0 == )", TWO), 5, 18, "found `)`");
}

#[test]
fn error_qualifiers_and_forms() {
    check_err(&single_thread(" ld.relaxed r1, x ;"), 4, 5, "`ld.relaxed` requires a scope");
    check_err(&single_thread(" ld.release.gpu r1, x ;"), 4, 5, "`ld` cannot have `.release`");
    check_err(&single_thread(" st.acquire.gpu x, 1 ;"), 4, 5, "`st` cannot have `.acquire`");
    check_err(&single_thread(" ld.weak.gpu r1, x ;"), 4, 10, "cannot have a scope");
    check_err(&single_thread(" ld.volatile.sys r1, x ;"), 4, 14, "cannot have a scope");
    check_err(&single_thread(" ld.relaxed.acquire.gpu r1, x ;"), 4, 13, "two memory semantics");
    check_err(&single_thread(" ld.relaxed.gpu.cta r1, x ;"), 4, 17, "two scope");
    check_err(&single_thread(" ld.relaxed.gpu.foo r1, x ;"), 4, 17, "unknown qualifier `.foo`");
    check_err(&single_thread(" ld.global.v4.u32 r1, x ;"), 4, 19, "vector of 4 elements");
    check_err(&single_thread(" red.acquire.gpu.add x, 1 ;"), 4, 6, "`red` cannot have `.acquire`");
    check_err(&single_thread(" atom.gpu r1, x, 1 ;"), 4, 2, "requires an operation");
    check_err(&single_thread(" atom.cas r1, x, 1 ;"), 4, 2, "a compare value and a new value");
    check_err(&single_thread(" fence.sc ;"), 4, 2, "fence requires a scope");
    check_err(&single_thread(" fence.proxy.foo ;"), 4, 2, "unsupported proxy fence");
    check_err(&single_thread(" fence.proxy.async.shared::foo ;"), 4, 20, "fence.proxy.async takes one of");
    check_err(&single_thread(" ld.mmio.relaxed.gpu r1, x ;"), 4, 5, "requires `.relaxed.sys`");
    check_err(&single_thread(" st.weak 5, 1 ;"), 4, 10, "expected an address");
    check_err(&single_thread(" add r1, 2 ;"), 4, 2, "expects a destination and two sources");
}

#[test]
fn never_panics_on_truncated_or_mutated_input() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/litmus"));
    let mut files = Vec::new();
    litmus_files(root, &mut files);
    files.sort();
    let mut seed = 0x2545f4914f6cdd1du64;
    for f in files.iter().step_by(9) {
        let text = std::fs::read_to_string(f).unwrap();
        for cut in (0..text.len()).filter(|i| text.is_char_boundary(*i)).step_by(7) {
            let _ = parse_litmus(&text[..cut]);
        }
        for _ in 0..100 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut bytes = text.clone().into_bytes();
            let i = (seed as usize) % bytes.len().max(1);
            if let Some(b) = bytes.get_mut(i) {
                let pool = b"|;:,.()[]{}~/\\*\"@%!=-0x9 \nPr";
                *b = pool[(seed >> 32) as usize % pool.len()];
            }
            let _ = parse_litmus(&String::from_utf8_lossy(&bytes));
        }
    }
}

#[test]
fn isa_message_passing_in_ptx_spelling() {
    let src = r#"PTX MP-isa
"ISA 8.10.6, Message Passing"
{
.global .u32 data = 0;
.global .u32 flag = 0;
}
 P0@cta 0,gpu 0                             | P1@cta 1,gpu 0                               ;
 W1: st.global.u32 [data], 1;               | R1: ld.global.relaxed.sys.u32 %r0, [flag];   ;
 F1: fence.sys;                             | F2: fence.sys;                               ;
 W2: st.global.relaxed.sys.u32 [flag], 1;   | R2: ld.global.u32 %r1, [data];               ;
exists (P1:%r0 == 1 /\ P1:%r1 == 0)
"#;
    let lit = parse_litmus(src).unwrap();
    assert_eq!(lit.code[0].len(), 6);
    assert_eq!(lit.code[1].len(), 6);
    assert!(matches!(lit.code[0][3].kind, InstrKind::Fence { sem: FenceSem::AcqRel, scope: Scope::Sys }));
    assert!(
        matches!(&lit.code[1][1].kind, InstrKind::Load { sem: Sem::Relaxed, scope: Some(Scope::Sys), dst, .. } if dst == "%r0")
    );
    assert_eq!(lit.code[0][5].text, "st.global.relaxed.sys.u32 [flag], 1");
}

/// The warp collectives (litmus-format.md section 7) decode with their mode,
/// type and operands; forms the ISA does not list are input errors (D174).
#[test]
fn warp_collectives_decode() {
    use Operand::{Imm, Reg};
    let r = |s: &str| Reg(s.to_string());
    let InstrKind::Warp { op, dst, pred, srcs, negated, mask, ty } = one("shfl.sync.idx.b32 %r1, %r2, 0, 31, -1")
    else {
        panic!("shfl.sync is not a warp collective");
    };
    assert_eq!((op, dst.as_str(), pred, negated), (WarpOp::Shfl(ShflMode::Idx), "%r1", None, false));
    assert_eq!((srcs, mask, ty.bits), (vec![r("%r2"), Imm(0), Imm(31)], Imm(-1), 32));
    let InstrKind::Warp { op, srcs, negated, mask, .. } = one("vote.sync.ballot.b32 %r1, !%p1, %r3") else {
        panic!("vote.sync is not a warp collective");
    };
    assert_eq!((op, srcs, negated, mask), (WarpOp::Vote(VoteMode::Ballot), vec![r("%p1")], true, r("%r3")));
    let InstrKind::Warp { op, ty, .. } = one("redux.sync.min.s32 %r1, %r2, 3") else { panic!("redux") };
    assert_eq!((op, ty.signed), (WarpOp::Redux(ReduxOp::Min), true));
    assert!(matches!(one("match.all.sync.b64 %r1, %rd2, 3"), InstrKind::Warp { op: WarpOp::Match { all: true }, .. }));
    assert!(matches!(one("activemask.b32 %r1"), InstrKind::ActiveMask { .. }));
    assert!(matches!(one("bar.warp.sync %r1"), InstrKind::Barrier { op: BarrierOp::Warp, .. }));
    for (bad, why) in [
        ("vote.any.pred %p1, %p2, 3", "without `.sync`"),
        ("redux.sync.and.u32 %r1, %r2, 3", "this operation takes .b32"),
        ("redux.sync.add.b32 %r1, %r2, 3", "this operation takes .u32 or .s32"),
        ("shfl.sync.idx.b32 %r1, %r2, 0, 3", "expects `d, a, b, c, membermask`"),
        ("shfl.sync.b32 %r1, %r2, 0, 31, 3", "the operation is missing"),
        ("vote.sync.all.b32 %r1, %p2, 3", "unknown qualifier `.b32`"),
        ("redux.sync.add.u32 %r1, !%p2, 3", "takes no negated operand"),
    ] {
        let e = err(&single_thread(&format!(" {} ;", bad)));
        assert!(e.message.contains(why), "{}: {}", bad, e.message);
    }
}

/// A guard on an instruction other than `bra` (ISA 4.3.2) is a branch around
/// it to a label after it (D178).
#[test]
fn guarded_instructions_branch_around() {
    let lit = parse_litmus(&single_thread(" @!%p ld.weak r1, x ;")).unwrap();
    let kinds: Vec<&InstrKind> = lit.code[0].iter().map(|i| &i.kind).collect();
    let [InstrKind::Branch { cond: BranchCond::Pred { reg, negated: false }, target }, InstrKind::Load { .. }, InstrKind::Label(l)] =
        kinds.as_slice()
    else {
        panic!("{:?}", kinds)
    };
    assert_eq!((reg.as_str(), target), ("%p", l));
}
