//! How the SAT engine scales with the number of threads: times `check_source`
//! (median of --reps runs) on generated families, splits the time into
//! parse+build, encoding and solving, and draws N vs median ms with plotters.
//!
//! cargo run --release --features plot --example scale_plot -- [--reps 5] [--max 16] [--out paper-notes]
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
    total_ms: f64,
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
    let mut s = format!("PTX RF-fan-{}\n\"{} writers of x, one reader with {} loads: {}^{} reads-from combinations\"\n{{\nx = 0;\n}}\n", k, k, k, k + 1, k);
    s += &format!("{} ;\n", heads.join(" | "));
    for r in 0..k {
        let row: Vec<&str> = cols.iter().map(|c| c.get(r).map(String::as_str).unwrap_or("")).collect();
        s += &format!("{} ;\n", row.join(" | "));
    }
    s += &format!("exists (P{}:r0 == {} /\\ P{}:r{} == 1)\n", k, k, k, k - 1);
    s
}

fn measure(family: &str, test: String, source: &str, reps: usize) -> Point {
    let opts = CheckOptions::default();
    let (mut totals, mut builds, mut encodes, mut firsts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..reps {
        let t0 = Instant::now();
        let r = check_source(source, &opts).unwrap_or_else(|e| panic!("{}: {}", test, e.message));
        totals.push(ms(t0.elapsed()));
        let t1 = Instant::now();
        let ast = ptx_litmus::parse::parse_litmus(source).unwrap();
        let p = build_program(&ast, &opts.build).unwrap();
        builds.push(ms(t1.elapsed()));
        let t2 = Instant::now();
        let mut enc = Encoding::new(&p);
        encodes.push(ms(t2.elapsed()));
        // One solver call under all axioms: the cost of one query (a verdict
        // without listing the states), against the enumeration of every state.
        let acts = enc.all_acts();
        let t3 = Instant::now();
        assert!(enc.f.solve_assuming(&acts).expect("the solver does not fail"));
        firsts.push(ms(t3.elapsed()));
        drop(enc);
        last = Some(r);
    }
    let r = last.unwrap();
    Point {
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
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str, d: &str| args.iter().position(|a| a == k).map(|i| args[i + 1].clone()).unwrap_or_else(|| d.to_string());
    let reps: usize = get("--reps", "5").parse().unwrap();
    let max: usize = get("--max", "16").parse().unwrap();
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
    let mut run = |family: &str, shape: String, v: &Variant| {
        if !only.is_empty() && !family.contains(&only) {
            return;
        }
        let t = shape_test(&shape, v).unwrap();
        let p = measure(family, t.name.clone(), &t.source, reps);
        eprintln!("{:<45} threads {:>2} events {:>3} states {:>6} {:>3} median {:>10.2} ms", p.test, p.threads, p.events, p.states, p.verdict, p.total_ms);
        points.push(p);
    };
    for n in (2..=max).step_by(2) {
        run("MP-chain (rel/acq)", format!("MP-chain:{}", n), &relacq);
    }
    for n in (2..=max).step_by(2) {
        run("RA-ring", format!("RA-ring:{}", n), &relacq);
    }
    for n in (2..=max).step_by(2) {
        run("SB-ring (relaxed + fence.sc)", format!("SB-ring:{}", n), &sbfence);
    }
    for k in 2..=max / 2 {
        run("IRIW (rel/acq; threads/2 observers)", format!("IRIW:{}", k), &relacq);
    }
    if only.is_empty() || "RF-fan".contains(&only) {
        for k in 2..=(max / 2 + 2).min(10) {
            let src = rf_fan(k, "relaxed.gpu");
            let p = measure("RF-fan (k writers x k loads)", format!("RF-fan-{}", k), &src, reps);
            eprintln!("{:<45} threads {:>2} events {:>3} states {:>6} {:>3} median {:>10.2} ms", p.test, p.threads, p.events, p.states, p.verdict, p.total_ms);
            points.push(p);
        }
    }
    // Table and CSV.
    std::fs::create_dir_all(&out).unwrap();
    let mut csv = String::from("family,test,threads,events,states,verdict,build_ms,encode_ms,first_solve_ms,solve_ms,median_ms\n");
    println!("| family | test | threads | events | states | verdict | parse+build ms | encode ms | one solve ms | all solves ms | median ms |");
    println!("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|");
    for p in &points {
        let solve = (p.total_ms - p.build_ms - p.encode_ms).max(0.0);
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            p.family, p.test, p.threads, p.events, p.states, p.verdict, p.build_ms, p.encode_ms, p.first_ms, solve, p.total_ms
        );
        csv += &format!(
            "{},{},{},{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3}\n",
            p.family, p.test, p.threads, p.events, p.states, p.verdict, p.build_ms, p.encode_ms, p.first_ms, solve, p.total_ms
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
        .caption("ptx-litmus SAT engine: median check time vs threads", ("sans-serif", 24))
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
    chart.draw_series(LineSeries::new([(1, 1000.0), (xmax, 1000.0)], BLACK.stroke_width(3)))?.label("1 s target").legend(|(x, y)| {
        PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(3))
    });
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    for (i, f) in families.iter().enumerate() {
        let c = colors[i % colors.len()];
        let pts: Vec<(i32, f64)> = points.iter().filter(|p| p.family == *f).map(|p| (p.threads as i32, p.total_ms.max(ymin))).collect();
        chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?.label(*f).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart.draw_series(pts.iter().map(|&(x, y)| Circle::new((x, y), 3, c.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()?;
    Ok(())
}
