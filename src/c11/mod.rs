//! C11 litmus tests (herd's C format, as diy7 writes them) and the RC11
//! models (issue 28).
//!
//! A C test is read into the same AST and program as a PTX test: plain
//! accesses are `.weak`, atomic ones strong with their scope (default
//! system), read-modify-writes `atom` events, fences `fence` events (D100).
//! The C memory order of each access or fence, which PTX semantics cannot
//! say (`memory_order_seq_cst`, `memory_order_consume`), is kept beside the
//! code in [`Orders`] and read by the RC11 rows through the event sets
//! `NA`, `RLX`, `CON`, `ACQ`, `REL`, `ACQ_REL`, `SC` (`model::prims`).

pub mod cuda;
pub mod emit;
pub mod map;
pub mod mapping;
pub mod nvcc;
pub mod parse;

use std::collections::BTreeMap;

/// A C11 memory order (C11 7.17.3), `Na` for a plain access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Order {
    Na,
    Rlx,
    Con,
    Acq,
    Rel,
    AcqRel,
    Sc,
}

impl Order {
    /// The order named by `memory_order_X` (with or without `std::`/`cuda::`).
    pub fn from_name(name: &str) -> Option<Order> {
        let n = name.rsplit("::").next().unwrap_or(name);
        Some(match n.strip_prefix("memory_order_")? {
            "relaxed" => Order::Rlx,
            "consume" => Order::Con,
            "acquire" => Order::Acq,
            "release" => Order::Rel,
            "acq_rel" => Order::AcqRel,
            "seq_cst" => Order::Sc,
            _ => return None,
        })
    }

    /// The name of the event set of herd's C model holding this order.
    pub fn set_name(self) -> &'static str {
        match self {
            Order::Na => "NA",
            Order::Rlx => "RLX",
            Order::Con => "CON",
            Order::Acq => "ACQ",
            Order::Rel => "REL",
            Order::AcqRel => "ACQ_REL",
            Order::Sc => "SC",
        }
    }

    /// The C spelling, `memory_order_relaxed`.
    pub fn c_name(self) -> &'static str {
        match self {
            Order::Na => "plain",
            Order::Rlx => "memory_order_relaxed",
            Order::Con => "memory_order_consume",
            Order::Acq => "memory_order_acquire",
            Order::Rel => "memory_order_release",
            Order::AcqRel => "memory_order_acq_rel",
            Order::Sc => "memory_order_seq_cst",
        }
    }
}

/// The C order of each access and fence of a C test: (thread, instruction
/// index in the thread's code) -> order. Events find theirs through their
/// instruction instance (`Event::instance`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Orders {
    pub by_instr: BTreeMap<(usize, usize), Order>,
    /// The compare-exchanges (their `atom.cas` instruction), keyed like `by_instr`,
    /// whose order there is the success order.
    pub cas: BTreeMap<(usize, usize), CompareExchange>,
    /// The locations of a signed integer type (`int`, `long`) and their width
    /// in bits: memory holds their bit pattern (D74), and a condition and a
    /// final state read it as that type, two's complement, as C and herd7 do
    /// (D285).
    pub signed: BTreeMap<String, u32>,
}

/// What a C compare-exchange says beyond its `atom.cas` and the `setp.eq`
/// after it that computes its boolean (C11 7.17.7.4, D143): "If the
/// comparison is false, memory is affected according to the value of
/// failure" — the read of a failing one has the failure order; "A weak
/// compare-and-exchange operation may fail spuriously" — it may return false
/// (the `setp` skipped, its register 0) while the values were equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompareExchange {
    pub failure: Order,
    pub weak: bool,
}

impl Orders {
    /// The order of the instruction `pc` of thread `t`, if it is a C access or fence.
    pub fn get(&self, t: usize, pc: usize) -> Option<Order> {
        self.by_instr.get(&(t, pc)).copied()
    }

    /// The order of an event of the instruction `pc` of thread `t`: that of the
    /// instruction, or for a compare-exchange whose event does not write (it
    /// failed) its failure order.
    pub fn of_event(&self, t: usize, pc: usize, writes: bool) -> Option<Order> {
        match self.cas.get(&(t, pc)) {
            Some(c) if !writes => Some(c.failure),
            _ => self.get(t, pc),
        }
    }

    /// `raw`, the bit pattern location `name` holds, read as the C type of
    /// `name`: sign-extended from its width when that type is signed (D285).
    pub fn as_declared(&self, name: &str, raw: i64) -> i64 {
        match self.signed.get(name) {
            Some(&bits) => crate::ast::norm(crate::ast::IntTy { bits, signed: true }, raw as i128),
            None => raw,
        }
    }

    /// The compare-exchange at instruction `pc` of thread `t`, if it is one.
    pub fn compare_exchange(&self, t: usize, pc: usize) -> Option<&CompareExchange> {
        self.cas.get(&(t, pc))
    }
}

/// Is this text a C litmus test (its first word is `C`)? Comments before it
/// are skipped like the parsers skip them.
pub fn is_c_source(text: &str) -> bool {
    header_words(text).0 == "C"
}

/// The name of a C test (its second word), without parsing the rest.
pub fn c_test_name(text: &str) -> Option<&str> {
    let (arch, name) = header_words(text);
    (arch == "C" && !name.is_empty()).then_some(name)
}

/// The first two words of a test, comments before them skipped.
fn header_words(text: &str) -> (&str, &str) {
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |x| x.1);
        } else if let Some(r) = rest.strip_prefix("(*") {
            rest = r.split_once("*)").map_or("", |x| x.1);
        } else {
            break;
        }
    }
    let mut words = rest.split_whitespace();
    (words.next().unwrap_or(""), words.next().unwrap_or(""))
}

/// Does `name` match the glob `pattern` (`*` any run of characters, `?` one)?
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Iterative wildcard matching: remember the last `*` and retry from there.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_c_test_is_known_by_its_first_word() {
        assert!(is_c_source("C MP\n{}\n"));
        assert!(is_c_source("// note\nC SB\n"));
        assert!(!is_c_source("PTX MP\n"));
        assert!(!is_c_source("Cx y\n"));
    }

    #[test]
    fn names_and_globs() {
        assert_eq!(c_test_name("(* x *)\nC MP+rel+acq\n{}"), Some("MP+rel+acq"));
        assert_eq!(c_test_name("PTX MP\n"), None);
        assert!(glob_matches("MP*", "MP+rel+acq"));
        assert!(glob_matches("*+acq", "MP+rel+acq"));
        assert!(glob_matches("S?", "SB"));
        assert!(glob_matches("*", ""));
        assert!(!glob_matches("MP", "MP+rel"));
        assert!(!glob_matches("SB*", "MP+SB"));
        assert!(glob_matches("*a*b*", "xxaxxbxx"));
    }

    #[test]
    fn orders_are_read_from_their_c_names() {
        assert_eq!(Order::from_name("memory_order_seq_cst"), Some(Order::Sc));
        assert_eq!(Order::from_name("cuda::memory_order_acquire"), Some(Order::Acq));
        assert_eq!(Order::from_name("memory_order_bogus"), None);
    }
}
