//! Random tests of two or three threads with loops (issue 39 item 7): spin
//! loops on loads and on read-modify-writes (`atom.exch`, `atom.add`,
//! `atom.cas` with constants, and the load-then-`cas` retry loop), in the
//! `bra` spelling (`bne r, c, L`) and the CADP corpus's `goto` spelling
//! (`bne r, c, OUT; goto L; OUT:`), beside plain stores, loads and exchanges.
//! Every register a thread writes is initialised and observed, so a final
//! state shows every value a thread read last.

#![allow(dead_code)]

use proptest::prelude::*;

pub const LOCS: [&str; 2] = ["x", "y"];
const SCOPES: [&str; 3] = ["cta", "gpu", "sys"];

/// What one loop iteration (or one straight-line statement) does to its location.
#[derive(Clone, Debug)]
pub enum Access {
    Ld,
    Exch(i64),
    Add(i64),
    /// `atom.cas r, [x], cmp, new`.
    Cas(i64, i64),
    /// `ld r, [x]; add s, r, 1; atom.cas t, [x], r, s`: a retry loop ends when `t == r`.
    LoadCas,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    St {
        loc: usize,
        val: i64,
        sem: usize,
        scope: usize,
    },
    Once {
        access: Access,
        loc: usize,
        sem: usize,
        scope: usize,
    },
    /// Repeat `access` while its result `== c` (`stay_equal`) or `!= c`;
    /// `goto`: the corpus spelling with a forward exit and a `goto` back.
    Loop {
        access: Access,
        loc: usize,
        sem: usize,
        scope: usize,
        c: i64,
        stay_equal: bool,
        goto: bool,
    },
}

#[derive(Clone, Debug)]
pub struct LoopTest {
    pub threads: Vec<(u32, Vec<Stmt>)>,
    pub init: [i64; 2],
    /// The condition: `exists (LOCS[.0] == .1 /\ P.2:r0 == .3)` or, with `.4`, a `forall`.
    pub cond: (usize, i64, usize, i64, bool),
}

fn access() -> impl Strategy<Value = Access> {
    prop_oneof![
        3 => Just(Access::Ld),
        2 => (0..2i64).prop_map(Access::Exch),
        1 => (1..3i64).prop_map(Access::Add),
        2 => (0..2i64, 0..2i64).prop_map(|(c, n)| Access::Cas(c, n)),
        1 => Just(Access::LoadCas),
    ]
}

fn stmt() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        2 => (0..2usize, 0..2i64, 0..3usize, 0..3usize).prop_map(|(loc, val, sem, scope)| Stmt::St { loc, val, sem, scope }),
        1 => (access(), 0..2usize, 0..3usize, 0..3usize)
            .prop_map(|(access, loc, sem, scope)| Stmt::Once { access, loc, sem, scope }),
        5 => (access(), 0..2usize, 0..3usize, 0..3usize, 0..2i64, any::<bool>(), any::<bool>()).prop_map(
            |(access, loc, sem, scope, c, stay_equal, goto)| Stmt::Loop { access, loc, sem, scope, c, stay_equal, goto }
        ),
    ]
}

fn is_rmw_loop(s: &Stmt) -> bool {
    matches!(s, Stmt::Loop { access, .. } if !matches!(access, Access::Ld))
}

/// Two or three threads of one or two statements, in one or two CTAs, over
/// values 0 and 1 (so that most loops can end); at least two threads loop,
/// and some loop is a read-modify-write loop.
pub fn loop_strategy() -> impl Strategy<Value = LoopTest> {
    let thread = (0..2u32, proptest::collection::vec(stmt(), 1..=2));
    (
        proptest::collection::vec(thread, 2..=3),
        [0..2i64, 0..2i64],
        (0..2usize, 0..3i64, 0..3usize, 0..3i64, any::<bool>()),
    )
        .prop_map(|(threads, init, (l, v, t, w, f))| {
            let n = threads.len();
            LoopTest { threads, init, cond: (l, v, t % n, w, f) }
        })
        .prop_filter("two looping threads, one read-modify-write loop", |t| {
            let looping = t.threads.iter().filter(|(_, s)| s.iter().any(|s| matches!(s, Stmt::Loop { .. }))).count();
            looping >= 2 && t.threads.iter().flat_map(|(_, s)| s).any(is_rmw_loop)
        })
}

/// The qualifiers of an access: weak, `.relaxed` or the strong form of its
/// kind (`acquire` for a load, `release` for a store, `acq_rel` for an atom).
fn quals(op: &str, sem: usize, scope: usize, strong: &str) -> String {
    match sem {
        0 if op == "atom" => format!("atom.relaxed.{}", SCOPES[scope]),
        0 => format!("{}.weak", op),
        1 => format!("{}.relaxed.{}", op, SCOPES[scope]),
        _ => format!("{}.{}.{}", op, strong, SCOPES[scope]),
    }
}

impl LoopTest {
    /// The test in litmus syntax.
    pub fn render(&self, name: &str) -> String {
        let mut cells = Vec::new();
        let mut regs = Vec::new();
        for (t, (_, stmts)) in self.threads.iter().enumerate() {
            let mut th = Thread { t, next_reg: 0, next_label: 0, lines: Vec::new() };
            for s in stmts {
                th.stmt(s);
            }
            // r0 is in the condition: observed (and initialised) even in a thread that reads nothing.
            regs.push(th.next_reg.max(1));
            cells.push(th.lines);
        }
        let mut s = format!("PTX {}\n{{ x = {}; y = {};\n", name, self.init[0], self.init[1]);
        for (t, n) in regs.iter().enumerate() {
            s += &(0..*n).map(|r| format!("P{}:r{} = 0;", t, r)).collect::<Vec<_>>().join(" ");
            s += "\n";
        }
        s += "}\n";
        let header: Vec<String> =
            self.threads.iter().enumerate().map(|(t, (cta, _))| format!("P{}@cta {},gpu 0", t, cta)).collect();
        s += &format!(" {} ;\n", header.join(" | "));
        for r in 0..cells.iter().map(Vec::len).max().unwrap_or(0) {
            let row: Vec<String> = cells.iter().map(|c| c.get(r).cloned().unwrap_or_default()).collect();
            s += &format!(" {} ;\n", row.join(" | "));
        }
        let mut obs: Vec<String> = LOCS.iter().map(|l| l.to_string()).collect();
        for (t, n) in regs.iter().enumerate() {
            obs.extend((0..*n).map(|r| format!("P{}:r{}", t, r)));
        }
        s += &format!("locations [{};]\n", obs.join("; "));
        let (l, v, t, w, forall) = self.cond;
        let q = if forall { "forall" } else { "exists" };
        s += &format!("{} ({} == {} /\\ P{}:r0 == {})\n", q, LOCS[l], v, t, w);
        s
    }
}

/// One thread's lines while it is printed: fresh registers and labels.
struct Thread {
    t: usize,
    next_reg: usize,
    next_label: usize,
    lines: Vec<String>,
}

impl Thread {
    fn reg(&mut self) -> String {
        self.next_reg += 1;
        format!("r{}", self.next_reg - 1)
    }

    fn label(&mut self) -> String {
        self.next_label += 1;
        format!("L{}_{}", self.t, self.next_label - 1)
    }

    /// The access's instructions; the register its loop compares, and the
    /// value it compares it with when that is a register (`LoadCas`).
    fn access(&mut self, a: &Access, loc: usize, sem: usize, scope: usize) -> (String, Option<String>) {
        let x = LOCS[loc];
        let atom = |op: &str| format!("{}.{}", quals("atom", sem, scope, "acq_rel"), op);
        let r = self.reg();
        let line = match a {
            Access::Ld => format!("{} {}, {}", quals("ld", sem, scope, "acquire"), r, x),
            Access::Exch(v) => format!("{} {}, {}, {}", atom("exch"), r, x, v),
            Access::Add(v) => format!("{} {}, {}, {}", atom("add"), r, x, v),
            Access::Cas(c, n) => format!("{} {}, {}, {}, {}", atom("cas"), r, x, c, n),
            Access::LoadCas => {
                let (s, t) = (self.reg(), self.reg());
                self.lines.push(format!("{} {}, {}", quals("ld", sem, scope, "acquire"), r, x));
                self.lines.push(format!("add {}, {}, 1", s, r));
                self.lines.push(format!("{} {}, {}, {}, {}", atom("cas"), t, x, r, s));
                return (t, Some(r));
            }
        };
        self.lines.push(line);
        (r, None)
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::St { loc, val, sem, scope } => {
                self.lines.push(format!("{} {}, {}", quals("st", *sem, *scope, "release"), LOCS[*loc], val))
            }
            Stmt::Once { access, loc, sem, scope } => {
                self.access(access, *loc, *sem, *scope);
            }
            Stmt::Loop { access, loc, sem, scope, c, stay_equal, goto } => {
                let head = self.label();
                self.lines.push(format!("{}:", head));
                let (r, against) = self.access(access, *loc, *sem, *scope);
                // A retry loop stays while the cas failed (its result differs from what it expected).
                let (against, stay_equal) = match against {
                    Some(a) => (a, false),
                    None => (c.to_string(), *stay_equal),
                };
                let (stay, leave) = if stay_equal { ("beq", "bne") } else { ("bne", "beq") };
                if *goto {
                    let out = self.label();
                    self.lines.push(format!("{} {}, {}, {}", leave, r, against, out));
                    self.lines.push(format!("goto {}", head));
                    self.lines.push(format!("{}:", out));
                } else {
                    self.lines.push(format!("{} {}, {}, {}", stay, r, against, head));
                }
            }
        }
    }
}
