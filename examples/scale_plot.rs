//! How the SAT engine scales with the number of threads: times `check_source`
//! (median of --reps runs) on generated families, for the verdict alone
//! (`--states none`) and with the default listing (at most 256 states), splits
//! the time into parse+build, encoding and solving, and draws N vs median
//! verdict ms with plotters. A family stops growing once one point takes more
//! than 10 s.
//!
//! cargo run --release --features plot --example scale_plot -- [--reps 5] [--max 32] [--out paper-notes]
//!
//! Writes OUT/scale.csv and OUT/scale.svg and prints a markdown table;
//! `--replot OUT/scale.csv` only redraws the SVG from an earlier CSV.

use plotters::prelude::*;
use ptx_litmus::check::{check_source, CheckOptions};
use ptx_litmus::gen::{shape_test, FenceOpt, SemOpt, Variant};
use ptx_litmus::program::build_program;
use ptx_litmus::sat::encode::Encoding;
use std::time::{Duration, Instant};

struct Point {
    family: String,
    test: String,
    threads: usize,
    events: usize,
    states: usize,
    verdict: String,
    build_ms: f64,
    encode_ms: f64,
    first_ms: f64,
    /// Verdict only (`--states none`).
    total_ms: f64,
    /// Verdict and at most 256 listed states (the default).
    listed_ms: f64,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `k` writer threads store 1..k to x, one reader thread loads x `k` times:
/// (k+1)^k reads-from combinations; the condition observes the first and last load.
pub fn rf_fan(k: usize, sem: &str) -> String {
    let mut cols: Vec<Vec<String>> = (0..k).map(|i| vec![format!("st.{} x, {}", sem, i + 1)]).collect();
    cols.push((0..k).map(|j| format!("ld.{} r{}, x", sem, j)).collect());
    let heads: Vec<String> = (0..=k).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let mut s = format!(
        "PTX RF-fan-{}\n\"{} writers of x, one reader with {} loads: {}^{} reads-from combinations\"\n{{\nx = 0;\n}}\n",
        k,
        k,
        k,
        k + 1,
        k
    );
    s += &format!("{} ;\n", heads.join(" | "));
    for r in 0..k {
        let row: Vec<&str> = cols.iter().map(|c| c.get(r).map(String::as_str).unwrap_or("")).collect();
        s += &format!("{} ;\n", row.join(" | "));
    }
    s += &format!("exists (P{}:r0 == {} /\\ P{}:r{} == 1)\n", k, k, k, k - 1);
    s
}

/// `n` threads in `n` CTAs each increment x once with `atom.add`: `forall (x == n)`.
fn counter(n: usize) -> String {
    let heads: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let row = vec!["atom.relaxed.gpu.add r0, x, 1"; n].join(" | ");
    format!("PTX counter-{}\n{{\nx = 0;\n}}\n{} ;\n{} ;\nforall (x == {})\n", n, heads.join(" | "), row, n)
}

/// A ticket lock of `n` threads (issue 14; as `litmus/locks/ticketlock-*.litmus`).
fn ticket_lock(n: usize) -> String {
    let code = [
        "atom.relaxed.gpu.add r1, t, 1",
        "LOOP:",
        "ld.acquire.gpu r2, s",
        "bne r1, r2, LOOP",
        "ld.weak r3, c",
        "add r3, r3, 1",
        "st.weak c, r3",
        "add r4, r1, 1",
        "st.release.gpu s, r4",
    ];
    let heads: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let rows: Vec<String> = code.iter().map(|c| format!("{} ;\n", vec![*c; n].join(" | "))).collect();
    format!(
        "PTX ticketlock-{}\n{{\nt = 0; s = 0; c = 0;\n}}\n{} ;\n{}forall (c == {})\n",
        n,
        heads.join(" | "),
        rows.concat(),
        n
    )
}

/// `n` threads each incrementing x once with a `cas` loop: `forall (x == n)`.
fn cas_counter(n: usize) -> String {
    let code = [
        "LOOP:",
        "ld.relaxed.gpu r1, x",
        "add r2, r1, 1",
        "atom.relaxed.gpu.cas.b32 r3, x, r1, r2",
        "bne r3, r1, LOOP",
    ];
    let heads: Vec<String> = (0..n).map(|i| format!("P{}@cta {},gpu 0", i, i)).collect();
    let rows: Vec<String> = code.iter().map(|c| format!("{} ;\n", vec![*c; n].join(" | "))).collect();
    format!("PTX cas-counter-{}\n{{\nx = 0;\n}}\n{} ;\n{}forall (x == {})\n", n, heads.join(" | "), rows.concat(), n)
}

/// The medians of one test, or `None` when it stops at a limit (its family stops there).
fn measure(family: &str, test: String, source: &str, reps: usize) -> Option<Point> {
    let listing = CheckOptions::default();
    let opts = CheckOptions { list_states: Some(0), ..CheckOptions::default() };
    let (mut totals, mut builds, mut encodes, mut firsts, mut listed) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..reps {
        let t0 = Instant::now();
        let r = match check_source(source, &listing) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}: {}", test, e.message);
                return None;
            }
        };
        listed.push(ms(t0.elapsed()));
        let t0 = Instant::now();
        check_source(source, &opts).unwrap_or_else(|e| panic!("{}: {}", test, e.message));
        totals.push(ms(t0.elapsed()));
        let t1 = Instant::now();
        let ast = ptx_litmus::parse::parse_litmus(source).unwrap();
        let p = build_program(&ast, &opts.build).unwrap();
        builds.push(ms(t1.elapsed()));
        let t2 = Instant::now();
        // The program the SAT engine encodes: merged, spin paths dropped (D65, D66).
        let gone = ptx_litmus::sat::spin::redundant_traces(&p);
        let merged = ptx_litmus::program::merge::merge(&p, &gone);
        let q = merged.as_ref().map_or(&p, |m| &m.program);
        let mut enc = Encoding::new(q, ptx_litmus::model::ModelKind::Ptx.model()).expect("model ptx compiles");
        encodes.push(ms(t2.elapsed()));
        // One solver call under all axioms: the cost of one query (a verdict
        // without listing the states), against the enumeration of every state.
        // Symmetry breaking as `check` uses it: without it, finding any
        // execution of 22 interchangeable atomic increments already stalls.
        let mut acts = enc.all_acts();
        let classes = ptx_litmus::sat::symmetry::classes_merged(&p, q);
        acts.extend(ptx_litmus::sat::symmetry::break_symmetry(&mut enc, &classes));
        let t3 = Instant::now();
        assert!(enc.f.solve_assuming(&acts).expect("the solver does not fail"));
        firsts.push(ms(t3.elapsed()));
        drop(enc);
        last = Some(r);
    }
    let r = last?;
    Some(Point {
        family: family.to_string(),
        test,
        threads: r.program.threads.len(),
        events: r.program.events.len(),
        states: r.outcome.states.len(),
        verdict: format!("{:?}", r.summary.verdict),
        build_ms: median(builds),
        encode_ms: median(encodes),
        first_ms: median(firsts),
        total_ms: median(totals),
        listed_ms: median(listed),
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str, d: &str| {
        args.iter().position(|a| a == k).map(|i| args[i + 1].clone()).unwrap_or_else(|| d.to_string())
    };
    let reps: usize = get("--reps", "5").parse().unwrap();
    let max: usize = get("--max", "32").parse().unwrap();
    let out = std::path::PathBuf::from(get("--out", "paper-notes"));
    let only = get("--only", "");
    if let Some(i) = args.iter().position(|a| a == "--replot") {
        // Redraw the plot from a CSV this program wrote, without measuring again.
        let text = std::fs::read_to_string(&args[i + 1]).unwrap();
        let points: Vec<Point> = text
            .lines()
            .skip(1)
            .map(|l| {
                let c: Vec<&str> = l.split(',').collect();
                let f = |i: usize| c[i].parse::<f64>().unwrap();
                Point {
                    family: c[0].into(),
                    test: c[1].into(),
                    threads: c[2].parse().unwrap(),
                    events: c[3].parse().unwrap(),
                    states: c[4].parse().unwrap(),
                    verdict: c[5].into(),
                    build_ms: f(6),
                    encode_ms: f(7),
                    first_ms: f(8),
                    total_ms: f(10),
                    listed_ms: f(11),
                }
            })
            .collect();
        std::fs::create_dir_all(&out).unwrap();
        plot(&points, &out.join("scale.svg")).unwrap();
        return;
    }
    let relacq = Variant { sem: SemOpt::RelAcq, ..Variant::default() };
    let sbfence = Variant { sem: SemOpt::Relaxed, fence: FenceOpt::Sc, ..Variant::default() };
    let mut points: Vec<Point> = Vec::new();
    // One family's points, smallest first, until one takes over 10 s.
    let mut family = |name: &str, tests: Vec<(String, String)>| {
        if !only.is_empty() && !name.contains(&only) {
            return;
        }
        for (test, src) in tests {
            let Some(p) = measure(name, test, &src, reps) else { break };
            eprintln!(
                "{:<45} threads {:>2} events {:>3} states {:>6} {:>3} verdict {:>9.2} ms listing {:>9.2} ms",
                p.test, p.threads, p.events, p.states, p.verdict, p.total_ms, p.listed_ms
            );
            let slow = p.listed_ms.max(p.total_ms) > 10_000.0;
            points.push(p);
            if slow {
                break;
            }
        }
    };
    let gen = |shape: String, v: &Variant| {
        let t = shape_test(&shape, v).unwrap();
        (t.name, t.source)
    };
    let evens: Vec<usize> = (2..=max).step_by(2).collect();
    family("MP-chain (rel/acq)", evens.iter().map(|n| gen(format!("MP-chain:{}", n), &relacq)).collect());
    family("RA-ring", evens.iter().map(|n| gen(format!("RA-ring:{}", n), &relacq)).collect());
    family("SB-ring (relaxed + fence.sc)", evens.iter().map(|n| gen(format!("SB-ring:{}", n), &sbfence)).collect());
    family(
        "IRIW (rel/acq; threads/2 observers)",
        evens.iter().filter(|&&n| n >= 4).map(|n| gen(format!("IRIW:{}", n / 2), &relacq)).collect(),
    );
    // k writers and one reader: k + 1 threads.
    family(
        "RF-fan (k writers x k loads)",
        (2..max).step_by(2).map(|k| (format!("RF-fan-{}", k), rf_fan(k, "relaxed.gpu"))).collect(),
    );
    family("counter (n x 1 atom.add)", evens.iter().map(|&n| (format!("counter-{}", n), counter(n))).collect());
    // Control flow (D65, D66): until the builder's paths pass --max-events.
    family("ticket lock (rel/acq)", evens.iter().map(|&n| (format!("ticketlock-{}", n), ticket_lock(n))).collect());
    family("cas-loop counter", evens.iter().map(|&n| (format!("cas-counter-{}", n), cas_counter(n))).collect());
    // Table and CSV.
    std::fs::create_dir_all(&out).unwrap();
    let mut csv = String::from(
        "family,test,threads,events,states,verdict,build_ms,encode_ms,first_solve_ms,solve_ms,median_ms,listed_ms\n",
    );
    println!("| family | test | threads | events | states listed | verdict | parse+build ms | encode ms | one solve ms | verdict solves ms | verdict ms | with 256 states ms |");
    println!("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    for p in &points {
        let solve = (p.total_ms - p.build_ms - p.encode_ms).max(0.0);
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            p.family,
            p.test,
            p.threads,
            p.events,
            p.states,
            p.verdict,
            p.build_ms,
            p.encode_ms,
            p.first_ms,
            solve,
            p.total_ms,
            p.listed_ms
        );
        csv += &format!(
            "{},{},{},{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3}\n",
            p.family,
            p.test,
            p.threads,
            p.events,
            p.states,
            p.verdict,
            p.build_ms,
            p.encode_ms,
            p.first_ms,
            solve,
            p.total_ms,
            p.listed_ms
        );
    }
    std::fs::write(out.join("scale.csv"), csv).unwrap();
    plot(&points, &out.join("scale.svg")).unwrap();
    eprintln!("wrote {} and {}", out.join("scale.csv").display(), out.join("scale.svg").display());
}

fn plot(points: &[Point], path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut families: Vec<&str> = Vec::new();
    for p in points {
        if !families.contains(&p.family.as_str()) {
            families.push(&p.family);
        }
    }
    let xmax = points.iter().map(|p| p.threads).max().unwrap_or(2) as i32 + 1;
    let ymin = points.iter().map(|p| p.total_ms).fold(f64::INFINITY, f64::min).max(1e-3) / 2.0;
    let ymax = (points.iter().map(|p| p.total_ms).fold(0.0, f64::max) * 2.0).max(2000.0);
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("ptx-litmus SAT engine: median verdict time vs threads", ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(1i32..xmax, (ymin..ymax).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc("median time (ms, log scale)")
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 15))
        .draw()?;
    // The 1 s target.
    chart
        .draw_series(LineSeries::new([(1, 1000.0), (xmax, 1000.0)], BLACK.stroke_width(3)))?
        .label("1 s target")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(3)));
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK, RGBColor(230, 140, 0), RGBColor(120, 60, 20)];
    for (i, f) in families.iter().enumerate() {
        let c = colors[i % colors.len()];
        let pts: Vec<(i32, f64)> =
            points.iter().filter(|p| p.family == *f).map(|p| (p.threads as i32, p.total_ms.max(ymin))).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
            .label(*f)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart.draw_series(pts.iter().map(|&(x, y)| Circle::new((x, y), 3, c.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()?;
    Ok(())
}
