//! Parser tests for the spellings of Dat3M's and herd7's PTX corpora
//! (litmus-format.md section 6). Verdicts are in `litmus/dat3m/`.

use ptx_litmus::ast::*;
use ptx_litmus::parse::parse_litmus;

fn ok(src: &str) -> Litmus {
    parse_litmus(src).unwrap_or_else(|e| panic!("{}\n{}", e, src))
}

fn err(src: &str) -> ptx_litmus::error::Error {
    match parse_litmus(src) {
        Ok(_) => panic!("accepted:\n{}", src),
        Err(e) => e,
    }
}

/// One thread around `rows`, with condition `cond`.
fn one(init: &str, rows: &str, cond: &str) -> Litmus {
    ok(&format!("PTX t\n{{ {} }}\n P0@cta 0,gpu 0 ;\n{}\n{}\n", init, rows, cond))
}

#[test]
fn ld_with_an_immediate_or_a_register_is_an_assignment() {
    for (row, src) in [
        (" ld r0, 1 ;", Operand::Imm(1)),
        (" ld.weak r0, 0x10 ;", Operand::Imm(16)),
        (" tld r0, 3 ;", Operand::Imm(3)),
        (" suld r0, r1 ;", Operand::Reg("r1".into())),
        (" cold r0, %r1 ;", Operand::Reg("%r1".into())),
    ] {
        let lit = one("x = 0;", row, "exists (P0:r0 == 1)");
        match &lit.code[0][0].kind {
            InstrKind::Alu { op: AluOp::Mov, dst, srcs, .. } => {
                assert_eq!(dst, "r0");
                assert_eq!(srcs, &vec![src], "{}", row);
            }
            k => panic!("{}: {:?}", row, k),
        }
    }
    // A location or a bracketed register is still a load.
    let lit = one("x = 0;", " ld r0, x ;\n ld r1, [r2] ;", "exists (P0:r0 == 1)");
    assert!(lit.code[0].iter().all(|i| matches!(i.kind, InstrKind::Load { .. })));
}

#[test]
fn registers_holding_addresses_from_the_init_block() {
    for init in ["P0:r5 = &x;", "P0:r5 = x;", "P0 : r5 = &x;"] {
        let lit = one(&format!("x = 0; {}", init), " ld r1, r5 ;\n ld r2, [r5] ;", "exists (P0:r1 == 1)");
        assert!(
            matches!(&lit.init[1], InitItem::RegisterAddress { reg, location, .. } if reg == "r5" && location == "x"),
            "{:?}",
            lit.init
        );
        for ins in &lit.code[0] {
            match &ins.kind {
                InstrKind::Load { addr, .. } => assert_eq!(addr.base, AddrBase::Reg("r5".into())),
                k => panic!("{}: {:?}", init, k),
            }
        }
    }
}

#[test]
fn location_initialised_from_another_location_or_its_address() {
    // Dat3M: `x = y` copies y's initial value (through chains); herd: `x = &y` is y's address.
    let lit = one("y = 3; x = y; z = x; w = &y; v = u;", " nop ;", "exists (x == 3)");
    let value = |n: &str| {
        lit.init.iter().find_map(|i| match i {
            InitItem::Location { name, value, .. } if name == n => Some(*value),
            _ => None,
        })
    };
    assert_eq!((value("x"), value("z"), value("v")), (Some(3), Some(3), Some(0)));
    assert!(lit
        .init
        .iter()
        .any(|i| matches!(i, InitItem::LocationAddress { name, target, .. } if name == "w" && target == "y")));
    let e = err("PTX t\n{ x = y; y = x; }\n P0 ;\n nop ;\nexists (x == 0)\n");
    assert!(e.message.contains("cycle"), "{}", e.message);
    let e = err("PTX t\n{ y = &z; x = y; }\n P0 ;\n nop ;\nexists (x == 0)\n");
    assert!(e.message.contains("holds an address"), "{}", e.message);
    assert_eq!(e.span.map(|s| (s.line, s.col)), Some((2, 15)));
}

#[test]
fn spaces_around_the_colon_and_bare_thread_numbers() {
    let lit = ok("PTX t\n{ x = 0; 1 : r0 = 2; }\n 0@cta 0,gpu 0 | 1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r1, x ;\nexists (P1 : r1 == 1 /\\ 1:r0 == 2 /\\ P1: r1 == 1)\n");
    assert_eq!(lit.threads.len(), 2);
    assert_eq!((lit.threads[1].cta, lit.threads[1].gpu), (1, 0));
    assert!(matches!(&lit.init[1], InitItem::Register { thread: 1, value: 2, .. }));
    let e = err("PTX t\n{ }\n 0@cta 0,gpu 0 | 2@cta 1,gpu 0 ;\n nop | nop ;\nexists 0==0");
    assert!(e.message.contains("thread header 2 is out of order: expected P1"), "{}", e.message);
}

#[test]
fn orderings_and_not_in_conditions() {
    let lit = one("x = 0;", " ld r0, x ;", "exists (P0:r0 < 1 /\\ P0:r0 <= 1 /\\ P0:r0 > -1 /\\ P0:r0 >= 0 /\\ x = 0)");
    let mut atoms = Vec::new();
    fn walk(p: &Prop, out: &mut Vec<String>) {
        match p {
            Prop::And(a, b) => {
                walk(a, out);
                walk(b, out)
            }
            Prop::Lt(a, b) => out.push(format!("lt {:?} {:?}", konst(a), konst(b))),
            Prop::Le(a, b) => out.push(format!("le {:?} {:?}", konst(a), konst(b))),
            Prop::Eq(..) => out.push("eq".into()),
            p => panic!("{:?}", p),
        }
    }
    fn konst(t: &Term) -> Option<i64> {
        match t {
            Term::Const(c) => Some(*c),
            Term::Obs(..) => None,
        }
    }
    walk(&lit.condition.prop, &mut atoms);
    // `a > b` is `b < a`, `a >= b` is `b <= a`.
    assert_eq!(atoms, ["lt None Some(1)", "le None Some(1)", "lt Some(-1) None", "le Some(0) None", "eq"]);
    let lit = one("x = 0;", " ld r0, x ;", "not exists (P0:r0 == 1)");
    assert_eq!(lit.condition.quantifier, Quantifier::NotExists);
    let lit = one("x = 0;", " ld r0, x ;", "exists (not (P0:r0 == 1) /\\ not P0:r0 == 2)");
    assert!(
        matches!(&lit.condition.prop, Prop::And(a, b) if matches!(**a, Prop::Not(_)) && matches!(**b, Prop::Not(_)))
    );
    // `not` as an instruction is still register arithmetic.
    let lit = one("x = 0;", " not r1, r0 ;", "exists (P0:r1 == 1)");
    assert!(matches!(lit.code[0][0].kind, InstrKind::Alu { op: AluOp::Not, .. }));
}

#[test]
fn no_condition_lists_every_location_and_register() {
    let lit = ok("PTX t\n{ x = 0; P1:r9 = 1; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak y, 1 | ld.weak r0, x ;\n add r2, r2, 1 | nop ;\n");
    assert!(!lit.condition.given);
    let shown: Vec<String> = lit.locations.iter().map(|o| o.to_string()).collect();
    assert_eq!(shown, ["x", "y", "P0:r2", "P1:r0", "P1:r9"]);
}

#[test]
fn comments_semicolons_and_proxy_generic() {
    let lit = ok("PTX t\n<< Dat3M\n   metadata >>\n{ x = 0; };\n P0@cta 0,gpu 0 ;\n fence.proxy.generic ;\n st.weak x, 1 << inline >> ;\nexists (x == 1);\n");
    assert!(matches!(lit.code[0][0].kind, InstrKind::Nop));
    assert!(matches!(lit.code[0][1].kind, InstrKind::Store { .. }));
    let e = err("PTX t\n{ x = 0; }\n P0 ;\n nop << open\n ;\nexists (x == 1)\n");
    assert!(e.message.contains("unterminated `<<`"), "{}", e.message);
    assert_eq!(e.span.map(|s| (s.line, s.col)), Some((4, 6)));
}

#[test]
fn red_acquire_is_an_input_error() {
    let e = err("PTX t\n{ x = 0; }\n P0 ;\n red.acquire.gpu.add x, 1 ;\nexists (x == 1)\n");
    assert!(e.message.contains("`red` cannot have `.acquire`"), "{}", e.message);
    assert_eq!(e.span.map(|s| (s.line, s.col)), Some((4, 6)));
    assert_eq!(e.exit_code(), ptx_litmus::error::EXIT_INPUT);
}

#[test]
fn dat3m_barriers_instance_id_and_count() {
    // `bar.cta.sync I, ID, Q` and `bar.cta.arrive I, ID, Q`: barrier (I, ID), quorum Q.
    let lit = one("", " bar.cta.sync 1, 0, 2 ;\n bar.cta.arrive 1, 0, 2 ;\n bar.cta.sync 2 ;", "exists 0==0");
    let bars: Vec<_> = lit.code[0]
        .iter()
        .map(|i| match &i.kind {
            InstrKind::Barrier { op, id, logical, count, .. } => (*op, id.clone(), logical.clone(), count.clone()),
            k => panic!("{:?}", k),
        })
        .collect();
    assert_eq!(
        bars[0],
        (BarrierOp::Sync, Operand::Imm(1), Some(Operand::Imm(0)), BarrierCount::Count(Operand::Imm(2)))
    );
    assert_eq!(
        bars[1],
        (BarrierOp::Arrive, Operand::Imm(1), Some(Operand::Imm(0)), BarrierCount::Count(Operand::Imm(2)))
    );
    assert_eq!(bars[2], (BarrierOp::Sync, Operand::Imm(2), None, BarrierCount::Arrivals));
}

#[test]
fn did_you_mean_for_unknown_instructions_and_qualifiers() {
    let e = err("PTX t\n{ x = 0; }\n P0 ;\n lod.weak r0, x ;\nexists (x == 1)\n");
    assert_eq!(e.message, "unknown instruction `lod.weak` (did you mean `ld`?)");
    assert_eq!(e.span.map(|s| (s.line, s.col)), Some((4, 2)));
    let e = err("PTX t\n{ x = 0; }\n P0 ;\n ld.relaxd.gpu r0, x ;\nexists (x == 1)\n");
    assert_eq!(e.message, "unknown qualifier `.relaxd` on `ld` (did you mean `.relaxed`?)");
    assert_eq!(e.span.map(|s| (s.line, s.col)), Some((4, 5)));
    // Nothing close: no suggestion.
    let e = err("PTX t\n{ x = 0; }\n P0 ;\n frobnicate r0, x ;\nexists (x == 1)\n");
    assert_eq!(e.message, "unknown instruction `frobnicate`");
}
