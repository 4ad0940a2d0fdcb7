//! PTX module text -> functions with their parameters and bodies (grammar in
//! `grammar/ptx.pest`). Instructions stay raw (`RawInstr`): they are decoded by
//! the litmus decoder once inlined, with registers renamed per call frame.

use crate::ast::{Span, VarSpace};
use crate::error::{Error, Origin, Result};
use crate::parse::instr::{Guard, RawInstr, RawKind, RawOperand};
use crate::parse::text::{parse_int, Src};
use pest::iterators::Pair;
use pest::Parser;
use std::sync::Arc;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/ptx.pest"]
struct PtxParser;

/// Deepest `{ }` nesting accepted (the grammar recurses on scopes).
const MAX_SCOPE_DEPTH: usize = 64;

/// A parsed module.
#[derive(Debug)]
pub struct Module {
    pub(crate) origin: Arc<Origin>,
    /// `.version` as written, and where.
    pub version: Option<(String, Span)>,
    pub funcs: Vec<Func>,
    /// Variables in memory: module-scope `.global`/`.const`/`.shared`
    /// declarations and the static ones declared in function bodies.
    pub(crate) vars: Vec<ModVar>,
}

/// A variable of a module's memory (ISA 5.1, 5.4).
#[derive(Clone, Debug)]
pub(crate) struct ModVar {
    pub name: String,
    pub space: VarSpace,
    /// Bytes (element size times elements); `None` for `name[]`.
    pub size: Option<u64>,
    /// Initial bytes from offset 0 (the rest 0), or `None`: no initial value (D71).
    pub init: Option<Vec<u8>>,
    /// `.visible` or `.extern`: the name is shared with other modules (linkage).
    pub(crate) linked: bool,
    /// `.extern`: a declaration of a variable another module defines.
    pub(crate) external: bool,
    pub span: Span,
}

#[derive(Debug)]
pub struct Func {
    pub name: String,
    pub entry: bool,
    pub(crate) params: Vec<Param>,
    pub(crate) rets: Vec<Param>,
    /// `None`: a declaration (`.extern .func f(...);`).
    pub(crate) body: Option<Vec<Stmt>>,
    pub span: Span,
}

impl Func {
    /// A definition, not a declaration: it can be called.
    pub fn has_body(&self) -> bool {
        self.body.is_some()
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub name: String,
    /// `.u64`, `.b32`, ... (the first type word), for `scaffold`.
    pub ty: String,
    /// `.ptr` was written (a pointer parameter).
    pub(crate) ptr: bool,
    /// Bytes of parameter memory (`.b8 p[16]` is 16).
    pub size: u64,
}

/// A call written in a body: `call.uni (ret), f, (args);`.
#[derive(Clone, Debug)]
pub(crate) struct CallStmt {
    pub guard: Option<Guard>,
    pub(crate) rets: Vec<RawOperand>,
    pub func: String,
    pub args: Vec<RawOperand>,
    /// An indirect call's prototype (refused when inlined).
    pub(crate) proto: bool,
    pub span: Span,
    pub text: String,
}

#[derive(Clone, Debug)]
pub(crate) enum Stmt {
    Open,
    Close,
    /// `.reg`/`.local`/`.shared`/`.param`/`.global`/`.const` declarations.
    Decl(Decl),
    Label {
        name: String,
        span: Span,
        text: String,
    },
    Instr(RawInstr),
    Call(CallStmt),
    /// A statement that could not be read (an instruction form the grammar
    /// does not know, a literal out of range): its error, raised only when
    /// its function is inlined, so the module's other functions stay usable.
    Unread(Error),
}

/// A declaration: `.reg .b32 %r<4>;`, `.global .align 4 .u32 g[2] = {1, 2};`.
#[derive(Clone, Debug)]
pub(crate) struct Decl {
    /// The state space without the dot (`reg`, `local`, `shared`, `param`, `global`, `const`).
    pub space: String,
    /// `.visible`/`.extern`/`.weak`/`.common` was written.
    pub(crate) linked: bool,
    pub(crate) external: bool,
    /// The names with their size in bytes (`None`: unknown, as in `name[]`).
    pub names: Vec<(String, Option<u64>)>,
    /// Parameterized names (`%r<10>` is `("%r", 10)`: `%r0`..`%r9`, kept as a
    /// range so that a huge count costs nothing until a name of it is used).
    pub ranges: Vec<(String, u32)>,
    /// The size in bytes of one name of `ranges`.
    pub(crate) elem: u64,
    /// The initializer's bytes (for the last name), little-endian.
    pub init: Option<Vec<u8>>,
    pub span: Span,
}

impl Decl {
    /// The variables in memory this declaration defines (none for `.reg` and `.param`).
    fn vars(&self) -> Vec<ModVar> {
        let space = match self.space.as_str() {
            "global" => VarSpace::Global,
            "const" => VarSpace::Const,
            "shared" => VarSpace::Shared,
            "local" => VarSpace::Local,
            _ => return Vec::new(),
        };
        let last = self.names.len().saturating_sub(1);
        let mut named = self.names.clone();
        for (base, n) in &self.ranges {
            // Module variables are few: each name is charged as it is made.
            crate::budget::charge(u64::from(*n) * 64);
            named.extend((0..*n).map(|i| (format!("{}{}", base, i), Some(self.elem))));
        }
        named
            .iter()
            .enumerate()
            .map(|(i, (name, size))| {
                let given = if i == last { self.init.clone() } else { None };
                // 5.4.4: "Variables in constant and global state spaces with no
                // explicit initializer are initialized to zero by default."
                let init = match space {
                    VarSpace::Global | VarSpace::Const => Some(given.unwrap_or_default()),
                    _ => given,
                };
                ModVar {
                    name: name.clone(),
                    space,
                    size: size.or_else(|| init.as_ref().map(|b| b.len() as u64)),
                    init,
                    linked: self.linked,
                    external: self.external,
                    span: self.span,
                }
            })
            .collect()
    }
}

/// Parse module `text`, whose errors point at `origin`.
pub(crate) fn parse_module(origin: Arc<Origin>) -> Result<Module> {
    let text: &str = &origin.source;
    let src = Src::new(text);
    check_depth(&src).map_err(|e| e.in_origin(&Some(origin.clone())))?;
    let mut pairs =
        PtxParser::parse(Rule::module, text).map_err(|e| syntax(e, &src).in_origin(&Some(origin.clone())))?;
    let mut m = Module { origin: origin.clone(), version: None, funcs: Vec::new(), vars: Vec::new() };
    let Some(top) = pairs.next() else { return Err(Error::internal("the PTX parser returned no parse tree")) };
    let reader = Reader { src: &src };
    for p in top.into_inner() {
        match p.as_rule() {
            Rule::version => {
                let v = p.clone().into_inner().find(|q| q.as_rule() == Rule::version_num);
                m.version = v.map(|v| (v.as_str().to_string(), src.pair_span(&v)));
            }
            Rule::func => {
                let f = reader.func(p).map_err(|e| e.in_origin(&Some(origin.clone())))?;
                // `.shared`/`.global`/`.const` in a body are static: one per program (5.1).
                for s in f.body.iter().flatten() {
                    if let Stmt::Decl(d) = s {
                        if matches!(d.space.as_str(), "shared" | "global" | "const") {
                            m.vars.extend(d.vars());
                        }
                    }
                }
                m.funcs.push(f);
            }
            Rule::var_decl => {
                let d = reader.decl(p).map_err(|e| e.in_origin(&Some(origin.clone())))?;
                m.vars.extend(d.vars());
            }
            _ => {}
        }
    }
    Ok(m)
}

/// `{ }` nesting is bounded before parsing, so the parser never recurses
/// deeply. Braces inside comments and strings are not scopes: they are skipped
/// as the grammar skips them (`//` to the end of the line, `/* ... */`, `"..."`).
fn check_depth(src: &Src) -> Result<()> {
    let text = src.text;
    let (mut depth, mut i) = (0usize, 0usize);
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        let skip_to = if rest.starts_with("//") {
            Some(rest.find('\n').map_or(text.len(), |n| i + n))
        } else if let Some(body) = rest.strip_prefix("/*") {
            Some(body.find("*/").map_or(text.len(), |n| i + 2 + n + 2))
        } else if c == '"' {
            Some(rest[1..].find('"').map_or(text.len(), |n| i + 1 + n + 1))
        } else {
            None
        };
        if let Some(end) = skip_to {
            i = end;
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_SCOPE_DEPTH {
            return Err(Error::input(
                format!("scopes are nested deeper than {} levels", MAX_SCOPE_DEPTH),
                src.span(i, i + 1),
            ));
        }
        i += c.len_utf8();
    }
    Ok(())
}

/// A pest error as one sentence at its place.
fn syntax(e: pest::error::Error<Rule>, src: &Src) -> Error {
    let at = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let at = crate::parse::text::skip_blank(src.text, at);
    let found: String = src.text[at..].chars().take_while(|c| !c.is_whitespace()).take(20).collect();
    let what = if found.is_empty() { "the end of the module".to_string() } else { format!("`{}`", found) };
    Error::input(
        format!("unexpected {} in this PTX module: expected a directive, a declaration or an instruction", what),
        src.span(at, at + 1),
    )
}

struct Reader<'s> {
    src: &'s Src<'s>,
}

impl Reader<'_> {
    fn func(&self, pair: Pair<Rule>) -> Result<Func> {
        let span = self.src.pair_span(&pair);
        let mut f = Func { name: String::new(), entry: false, params: Vec::new(), rets: Vec::new(), body: None, span };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::func_kw => f.entry = p.as_str() == ".entry",
                Rule::ident => f.name = p.as_str().to_string(),
                Rule::ret_params => {
                    f.rets = p.into_inner().filter(|q| q.as_rule() == Rule::param_decl).map(param).collect()
                }
                Rule::params => {
                    f.params = p.into_inner().filter(|q| q.as_rule() == Rule::param_decl).map(param).collect()
                }
                Rule::scope => {
                    let mut body = Vec::new();
                    self.scope(p, &mut body)?;
                    f.body = Some(body);
                }
                _ => {}
            }
        }
        Ok(f)
    }

    fn scope(&self, pair: Pair<Rule>, out: &mut Vec<Stmt>) -> Result<()> {
        out.push(Stmt::Open);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::scope => self.scope(p, out)?,
                Rule::var_decl => out.push(self.decl(p).map_or_else(Stmt::Unread, Stmt::Decl)),
                Rule::label_def => {
                    let text = p.as_str().to_string();
                    let name = text.trim_end_matches(':').to_string();
                    out.push(Stmt::Label { name, span: self.src.pair_span(&p), text });
                }
                Rule::call => out.push(self.call(p).map_or_else(Stmt::Unread, Stmt::Call)),
                Rule::instr => out.push(self.instr(p).map_or_else(Stmt::Unread, Stmt::Instr)),
                Rule::unread => out.push(Stmt::Unread(self.unread(p))),
                _ => {}
            }
        }
        out.push(Stmt::Close);
        Ok(())
    }

    /// Why a statement is not read, at the place in it where reading stops.
    fn unread(&self, pair: Pair<Rule>) -> Error {
        let start = pair.as_span().start();
        let stmt = pair.as_str();
        let at = match PtxParser::parse(Rule::lone_instr, stmt) {
            Err(e) => match e.location {
                pest::error::InputLocation::Pos(p) => p,
                pest::error::InputLocation::Span((s, _)) => s,
            },
            Ok(_) => 0,
        };
        let at = crate::parse::text::skip_blank(self.src.text, start + at);
        let found: String = self.src.text[at..].chars().take_while(|c| !c.is_whitespace()).take(20).collect();
        Error::input(
            format!("cannot read `{}` in this statement: it is not an instruction form this checker knows", found),
            self.src.span(at, at + 1),
        )
    }

    fn decl(&self, pair: Pair<Rule>) -> Result<Decl> {
        let span = self.src.pair_span(&pair);
        let mut d = Decl {
            space: String::new(),
            linked: false,
            external: false,
            names: Vec::new(),
            ranges: Vec::new(),
            elem: 1,
            init: None,
            span,
        };
        let mut elem: Option<u64> = None;
        let mut float = false;
        let mut lanes = 1u64;
        let mut init = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::linkage => {
                    d.linked = true;
                    d.external |= p.as_str() == ".extern";
                }
                Rule::space_kw => d.space = p.as_str().trim_start_matches('.').to_string(),
                Rule::dir_word => match p.as_str() {
                    ".v2" => lanes = 2,
                    ".v4" => lanes = 4,
                    ".v8" => lanes = 8,
                    w => {
                        if elem.is_none() {
                            float = w.starts_with(".f");
                        }
                        elem = elem.or_else(|| type_bytes(w))
                    }
                },
                Rule::decl_name => match self.decl_name(p) {
                    Ok(n) => d.names.push(n),
                    Err(r) => d.ranges.push(r),
                },
                Rule::init_val => init = Some((p.as_str().trim_start_matches('=').to_string(), self.src.pair_span(&p))),
                _ => {}
            }
        }
        let elem = elem.unwrap_or(1) * lanes;
        d.elem = elem;
        for (_, size) in d.names.iter_mut() {
            *size = size.map(|n| n * elem);
        }
        if let Some((text, at)) = init {
            let bytes = initializer(&text, elem, float, at)?;
            if let Some((name, Some(size))) = d.names.last() {
                if bytes.len() as u64 > *size {
                    return Err(Error::input(
                        format!("the initializer of `{}` has more values than its {} bytes hold", name, size),
                        at,
                    ));
                }
            }
            d.init = Some(bytes);
        }
        Ok(d)
    }

    /// `buf[16]` (16 elements), `g` (one element), `a[]` (unknown size), with
    /// sizes in elements here; `Err`: `%r<10>` (ten registers, a range).
    fn decl_name(&self, p: Pair<Rule>) -> std::result::Result<(String, Option<u64>), (String, u32)> {
        let mut base = String::new();
        let mut count = None;
        let mut elems: Option<u64> = Some(1);
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::reg_token => base = q.as_str().to_string(),
                Rule::range => count = q.into_inner().next().and_then(|n| n.as_str().parse::<u32>().ok()),
                Rule::dims => {
                    // `[]` leaves the size to the initializer; dimensions multiply.
                    let dims: Vec<Option<u64>> = q
                        .as_str()
                        .split('[')
                        .skip(1)
                        .map(|x| x.trim_end().trim_end_matches(']').trim().parse::<u64>().ok())
                        .collect();
                    elems = dims.into_iter().try_fold(1u64, |acc, n| n.and_then(|n| acc.checked_mul(n)));
                }
                _ => {}
            }
        }
        match count {
            // `%r<10>` declares %r0 .. %r9 (ISA 5.3.1.1).
            Some(n) => Err((base, n)),
            None => Ok((base, elems)),
        }
    }

    fn call(&self, pair: Pair<Rule>) -> Result<CallStmt> {
        let span = self.src.pair_span(&pair);
        let text = crate::parse::text::normalize(pair.as_str());
        let mut c =
            CallStmt { guard: None, rets: Vec::new(), func: String::new(), args: Vec::new(), proto: false, span, text };
        let mut lists = Vec::new();
        let mut idents = 0;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::guard => c.guard = Some(self.guard(p)),
                Rule::arg_list => lists.push((idents, self.list(p)?)),
                Rule::ident | Rule::callee_reg => {
                    if idents == 0 {
                        c.func = p.as_str().to_string();
                    } else {
                        c.proto = true;
                    }
                    idents += 1;
                }
                _ => {}
            }
        }
        for (before, l) in lists {
            if before == 0 {
                c.rets = l;
            } else {
                c.args = l;
            }
        }
        Ok(c)
    }

    fn list(&self, pair: Pair<Rule>) -> Result<Vec<RawOperand>> {
        pair.into_inner().filter(|p| p.as_rule() == Rule::operand).map(|p| self.operand(p, None)).collect()
    }

    fn guard(&self, pair: Pair<Rule>) -> Guard {
        let span = self.src.pair_span(&pair);
        let mut g = Guard { reg: String::new(), negated: false, span };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::guard_not => g.negated = true,
                Rule::reg_token => g.reg = p.as_str().to_string(),
                _ => {}
            }
        }
        g
    }

    fn instr(&self, pair: Pair<Rule>) -> Result<RawInstr> {
        let span = self.src.pair_span(&pair);
        let text = crate::parse::text::normalize(pair.as_str().trim_end_matches(';'));
        let mut raw = RawInstr::empty(span, text);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::guard => raw.guard = Some(self.guard(p)),
                Rule::mnemonic => raw.set_mnemonic(p.as_str(), self.src.pair_span(&p), self.src),
                Rule::operand => raw.operands.push(self.operand(p, float_width(&raw))?),
                _ => {}
            }
        }
        Ok(raw)
    }

    fn operand(&self, pair: Pair<Rule>, float: Option<u32>) -> Result<RawOperand> {
        let span = self.src.pair_span(&pair);
        let text = pair.as_str().to_string();
        let Some(p) = pair.into_inner().next() else {
            return Err(Error::internal("empty operand in the PTX parse tree"));
        };
        let kind = match p.as_rule() {
            Rule::number => RawKind::Imm(parse_int(p.as_str().trim_end_matches(['U', 'u']), span)?),
            // `0f` is "an exact single-precision value": its bits as written.
            Rule::float_lit if p.as_str()[..2].eq_ignore_ascii_case("0f") => RawKind::Imm(hex_bits(p.as_str(), span)?),
            Rule::float_lit => RawKind::Imm(float_at(f64::from_bits(hex_bits(p.as_str(), span)? as u64), float, span)?),
            Rule::dec_float => {
                let x: f64 = p.as_str().parse().map_err(|_| Error::input("bad floating-point literal", span))?;
                RawKind::Imm(float_at(x, float, span)?)
            }
            Rule::not_operand => RawKind::Not(p.as_str().trim_start_matches('!').trim().to_string()),
            Rule::vector => RawKind::Vector(
                p.into_inner()
                    .filter(|q| q.as_rule() == Rule::operand)
                    .map(|q| self.operand(q, float))
                    .collect::<Result<_>>()?,
            ),
            Rule::address => self.address(p, span)?,
            Rule::pred_pair => {
                let mut regs = p.into_inner().map(|r| r.as_str().to_string());
                let (Some(a), Some(b)) = (regs.next(), regs.next()) else {
                    return Err(Error::internal("a register pair without two registers"));
                };
                RawKind::Pair(a, b)
            }
            _ => RawKind::Name(p.as_str().to_string()),
        };
        Ok(RawOperand { kind, span, text })
    }

    fn address(&self, pair: Pair<Rule>, span: Span) -> Result<RawKind> {
        let (mut base, mut negative, mut offset) = (String::new(), false, 0i64);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::reg_token => base = p.as_str().to_string(),
                Rule::offset_sign => negative = p.as_str() == "-",
                Rule::number if base.is_empty() => {
                    return Err(Error::input(
                        "absolute addresses such as `[0]` are not supported: address a variable or a register",
                        span,
                    ))
                }
                Rule::number => {
                    let n = parse_int(p.as_str(), self.src.pair_span(&p))?;
                    offset = if negative { n.wrapping_neg() } else { n };
                }
                _ => {}
            }
        }
        Ok(RawKind::Addr { base, offset })
    }
}

/// The bits of a `0f`/`0d` literal's hex digits.
fn hex_bits(lit: &str, span: Span) -> Result<i64> {
    u64::from_str_radix(&lit[2..], 16).map(|b| b as i64).map_err(|_| Error::input("bad floating-point literal", span))
}

/// The width a floating-point constant of `raw` is converted to (ISA 4.5.2:
/// "Each 64-bit floating-point constant is converted to the appropriate
/// floating-point size based on the data or instruction type at its use"):
/// the instruction's first `.f32`/`.f64` type, else its first `.b32`/`.b64`
/// one; `createpolicy.fractional`'s fraction is a `.f32`. `None`: no such
/// type (also `.f16`/`.bf16`, whose conversion is not written).
fn float_width(raw: &RawInstr) -> Option<u32> {
    if raw.opcode == "createpolicy" {
        return Some(32);
    }
    let width = |names: [&str; 2]| {
        raw.quals.iter().find_map(|q| match q.text.as_str() {
            t if t == names[0] => Some(32),
            t if t == names[1] => Some(64),
            _ => None,
        })
    };
    let first_float = raw.quals.iter().find(|q| matches!(q.text.as_str(), "f16" | "bf16" | "f32" | "f64"));
    match first_float {
        Some(q) if q.text.ends_with("16") => None,
        Some(_) => width(["f32", "f64"]),
        None => width(["b32", "b64"]),
    }
}

/// A floating-point constant `x` as the bits of a float of `width` bits.
fn float_at(x: f64, width: Option<u32>, span: Span) -> Result<i64> {
    match width {
        Some(32) => Ok(i64::from((x as f32).to_bits())),
        Some(_) => Ok(x.to_bits() as i64),
        None => Err(Error::input(
            "a floating-point constant needs an instruction of type .f32, .f64, .b32 or .b64 to give it a size",
            span,
        )),
    }
}

/// The size in bytes of a fundamental type (`.u32` is 4, `.b8` 1, `.f64` 8,
/// `.pred` 1); `None` for other directive words (`.align`, `.ptr`).
pub(crate) fn type_bytes(word: &str) -> Option<u64> {
    let w = word.strip_prefix('.')?;
    if w == "pred" {
        return Some(1);
    }
    let (kind, bits) = w.split_at(1);
    let bits: u64 = bits.parse().ok()?;
    (matches!(kind, "b" | "u" | "s" | "f") && matches!(bits, 8 | 16 | 32 | 64 | 128)).then_some(bits / 8)
}

/// The bytes of an initializer (ISA 5.4.4): integers (and `0f`/`0d` bit
/// patterns) in nested braces, each stored as `elem` bytes, little-endian; in
/// a `.f32`/`.f64` variable (`float`), decimal floating-point constants and
/// `0d` ones are converted to its size (4.5.2); initializers holding addresses
/// (`generic(x)`, `x+4`) are refused.
fn initializer(text: &str, elem: u64, float: bool, span: Span) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let width = (float && matches!(elem, 4 | 8)).then_some(elem as u32 * 8);
    for tok in text.split(|c: char| c == '{' || c == '}' || c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
        let t = tok.trim_end_matches(['U', 'u']);
        let unread = || Error::input(format!("`{}` is not a number this checker reads in an initializer", tok), span);
        let v = if let Some(hex) = t.strip_prefix("0f").or_else(|| t.strip_prefix("0F")) {
            u64::from_str_radix(hex, 16).map(|b| b as i64).map_err(|_| unread())?
        } else if let Some(hex) = t.strip_prefix("0d").or_else(|| t.strip_prefix("0D")) {
            let bits = u64::from_str_radix(hex, 16).map_err(|_| unread())?;
            if width.is_some() {
                float_at(f64::from_bits(bits), width, span)?
            } else {
                bits as i64
            }
        } else if width.is_some() && t.parse::<f64>().is_ok() && !t.starts_with(['+', 'i', 'I', 'n', 'N']) {
            float_at(t.parse::<f64>().map_err(|_| unread())?, width, span)?
        } else if t.starts_with(|c: char| c.is_ascii_digit() || c == '-') && !t.contains('.') {
            parse_int(t, span)?
        } else {
            return Err(Error::input(format!("initializers holding addresses or floating-point text (`{}`) are not supported: give the value as an integer", tok), span));
        };
        out.extend((0..elem.min(16)).map(|i| {
            if i < 8 {
                (v >> (8 * i)) as u8
            } else if v < 0 {
                0xff
            } else {
                0
            }
        }));
    }
    Ok(out)
}

/// `.param .u64 .ptr .global .align 1 name`.
fn param(pair: Pair<Rule>) -> Param {
    let mut p = Param { name: String::new(), ty: String::new(), ptr: false, size: 0 };
    let mut elems = 1u64;
    for q in pair.into_inner() {
        match q.as_rule() {
            Rule::dir_word if q.as_str() == ".ptr" => p.ptr = true,
            Rule::dir_word if p.ty.is_empty() && q.as_str() != ".align" => p.ty = q.as_str().to_string(),
            Rule::ident => p.name = q.as_str().to_string(),
            Rule::dims => {
                elems = q
                    .as_str()
                    .split('[')
                    .skip(1)
                    .filter_map(|x| x.trim_end().trim_end_matches(']').trim().parse::<u64>().ok())
                    .product()
            }
            _ => {}
        }
    }
    p.size = type_bytes(&p.ty).unwrap_or(8) * elems.max(1);
    p
}
