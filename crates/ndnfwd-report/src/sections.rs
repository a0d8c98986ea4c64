//! The report's generated sections: each reads the results it knows, appends Markdown (tables,
//! the command, the machine) and writes its SVG plots.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::plot::{bars, lines, Labels, Series};
use crate::{machine_line, BenchResult};

/// A section renderer.
type Section = fn(&[BenchResult], &Path, &mut String, &mut Vec<PathBuf>) -> Result<(), String>;

/// Every generated section, in page order.
pub const ALL: [Section; 7] = [e2e, fib_size, workers, memory, prefetch, grid, lpm];

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn us(v: &Value) -> String {
    v.as_f64().map_or("-".into(), |c| format!("{c:.2}"))
}

/// A phase's CPU cycles per packet, `-` when the run did not measure them.
fn cpu(phase: &Value) -> String {
    match f(&phase["cpu_cycles_per_packet"]) {
        c if c > 0.0 => format!("{c:.0}"),
        _ => "-".into(),
    }
}

fn with_prefix<'a>(r: &'a [BenchResult], prefix: &str) -> Vec<&'a BenchResult> {
    r.iter().filter(|x| x.name.starts_with(prefix)).collect()
}

fn commands(md: &mut String, rs: &[&BenchResult]) {
    md.push_str("Commands:\n\n```sh\n");
    for r in rs {
        let _ = writeln!(md, "{}", r.command);
    }
    md.push_str("```\n\n");
    if let Some(r) = rs.first() {
        let _ = writeln!(
            md,
            "Machine: {}; 2-core VM, shared, noisy.\n",
            machine_line(&r.json)
        );
    }
}

fn svg(
    dir: &Path,
    written: &mut Vec<PathBuf>,
    md: &mut String,
    file: &str,
    alt: &str,
    draw: impl FnOnce(&Path) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(), String> {
    let p = dir.join(file);
    draw(&p).map_err(|e| format!("{file}: {e}"))?;
    let _ = writeln!(md, "![{alt}](bench/{file})\n");
    written.push(p);
    Ok(())
}

fn e2e(r: &[BenchResult], dir: &Path, md: &mut String, w: &mut Vec<PathBuf>) -> Result<(), String> {
    let Some(e) = r.iter().find(|x| x.name == "e2e") else {
        return Ok(());
    };
    let v = &e.json;
    md.push_str("## End to end: consumer -> forwarder -> producer\n\n");
    let _ = writeln!(
        md,
        "`ndnfwd gen` consumer ({} thread(s); window per thread: up to {} on the lossless local faces \
         (shared memory, Unix) and the self-tests, with at most 1 MiB of payload in flight, and {} on datagram faces, where \
         a deeper one only overflows queues) and producer \
         (signing: {}) as separate processes; forwarder under test: {}; {} s of traffic per case. \
         `self-test` connects the consumer straight to a listening producer (no forwarder): the \
         generator's own ceiling.\n",
        v["consumer_threads"],
        v["stream_window"],
        v["window"],
        v["producer_signing"].as_str().unwrap_or("?"),
        v["forwarder"].as_str().unwrap_or("?"),
        v["duration_s"]
    );
    if let Some(p) = v["pinned"].as_object() {
        let _ = writeln!(
            md,
            "Pinned (`--pin`): the forwarder alone on CPU {}, the consumer and the producer on \
             CPU(s) {}{}; in a self-test (the generator's ceiling with the whole machine) the \
             producer stays there and the consumer takes the forwarder's CPU.\n",
            p.get("forwarder_cpu")
                .map_or("?".into(), ToString::to_string),
            p.get("generator_cpus")
                .and_then(|c| c.as_str())
                .unwrap_or("?"),
            p.get("generator_nap_us")
                .and_then(|c| c.as_str())
                .map_or(String::new(), |n| format!(
                    ", sharing them and napping {n} µs on an empty shared-memory ring \
                     (`gen --nap-us`)"
                )),
        );
    }
    let rounds = v["rounds"].as_u64().unwrap_or(1);
    if rounds > 1 {
        let _ = writeln!(
            md,
            "Every case ran in each of {rounds} rounds (all cases, then all again); a row is the \
             round with the median rate (the lower of the middle two for an even count), and the \
             last column lists every round's rate in round order with the share of the \
             machine's CPU time the hypervisor took from this VM during it (`steal` in \
             `/proc/stat`).\n"
        );
    }
    md.push_str("| face | payload B | path | window | exchanges/s | RTT p50 ms | RTT p99 ms | sent | Data | Nacks | timeouts | forwarder CPU s | CPU µs/exchange: forwarder | consumer | producer | host steal % | rounds' exchanges/s (steal %) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let rows = v["rows"].as_array().cloned().unwrap_or_default();
    for x in &rows {
        let list = |k: &str| x[k].as_array().cloned().unwrap_or_default();
        let steals = list("rounds_host_steal_pct");
        let each: Vec<String> = list("rounds_data_per_sec")
            .iter()
            .enumerate()
            .map(|(k, r)| match steals.get(k).and_then(Value::as_f64) {
                Some(s) => format!("{:.0}k ({s:.0})", f(r) / 1e3),
                None => format!("{:.0}k", f(r) / 1e3),
            })
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.0} | {:.3} | {:.3} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            x["face"].as_str().unwrap_or("?"),
            x["payload"],
            x["path"].as_str().unwrap_or("?"),
            x["window"],
            f(&x["data_per_sec"]),
            f(&x["rtt_p50_ms"]),
            f(&x["rtt_p99_ms"]),
            x["sent"],
            x["received"],
            x["nacks"],
            x["timeouts"],
            x["forwarder_cpu_s"]
                .as_f64()
                .map_or("-".into(), |c| format!("{c:.2}")),
            us(&x["forwarder_us_per_exchange"]),
            us(&x["consumer_us_per_exchange"]),
            us(&x["producer_us_per_exchange"]),
            x["host_steal_pct"]
                .as_f64()
                .map_or("-".into(), |s| format!("{s:.1}")),
            if each.is_empty() {
                "-".into()
            } else {
                each.join(", ")
            },
        );
    }
    md.push('\n');
    for s in v["skipped"].as_array().cloned().unwrap_or_default() {
        let _ = writeln!(
            md,
            "- skipped {} {} B {}{}: {}",
            s["face"].as_str().unwrap_or("?"),
            s["payload"],
            s["path"].as_str().unwrap_or("forwarder"),
            s["round"]
                .as_u64()
                .map_or(String::new(), |r| format!(" (round {r})")),
            s["reason"].as_str().unwrap_or("?")
        );
    }
    for s in v["self_test_ratios"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        let _ = writeln!(
            md,
            "- {}, {} B: generator self-test rate / forwarder rate {:.2}x; forwarder CPU per \
             exchange / the busier generator process's {:.2}x{}",
            s["face"].as_str().unwrap_or("unix"),
            s["payload"],
            f(&s["self_test_over_forwarder"]),
            f(&s["forwarder_cpu_over_busiest_generator_cpu"]),
            match s["rounds"].as_u64() {
                Some(n) if n > 1 => format!(
                    " (each the median over {n} rounds of the ratio within a round, where the \
                     self-test ran right after the forwarder case)"
                ),
                _ => String::new(),
            },
        );
    }
    md.push('\n');
    let cats: Vec<String> = rows
        .iter()
        .map(|x| {
            format!(
                "{} {}B{}",
                x["face"].as_str().unwrap_or("?"),
                x["payload"],
                if x["path"] == "self-test" {
                    " self"
                } else {
                    ""
                }
            )
        })
        .collect();
    let footer = format!("{} | {}", e.command, machine_line(v));
    let rate = Series {
        name: "exchanges/s".into(),
        points: rows.iter().map(|x| (0.0, f(&x["data_per_sec"]))).collect(),
    };
    svg(
        dir,
        w,
        md,
        "e2e-rate.svg",
        "end-to-end exchanges per second",
        |p| {
            bars(
                p,
                &Labels {
                    title: "End to end: Interest-Data exchanges per second",
                    x: "face, payload",
                    y: "exchanges/s",
                    footer: &footer,
                },
                &cats,
                &[rate],
            )
        },
    )?;
    let p50 = Series {
        name: "p50".into(),
        points: rows.iter().map(|x| (0.0, f(&x["rtt_p50_ms"]))).collect(),
    };
    let p99 = Series {
        name: "p99".into(),
        points: rows.iter().map(|x| (0.0, f(&x["rtt_p99_ms"]))).collect(),
    };
    svg(dir, w, md, "e2e-rtt.svg", "end-to-end RTT", |p| {
        bars(
            p,
            &Labels {
                title: "End to end: RTT percentiles",
                x: "face, payload",
                y: "RTT (ms)",
                footer: &footer,
            },
            &cats,
            &[p50, p99],
        )
    })?;
    commands(md, &[e]);
    Ok(())
}

/// A row's worker count; results from before rows carried one give it for the whole file.
fn workers_of(file: &Value, row: &Value) -> u64 {
    row["workers"]
        .as_u64()
        .or_else(|| file["workers"].as_u64())
        .unwrap_or(1)
}

/// The 1-worker row of `row`'s algorithm and prefetch mode in the same invocation, when `row`
/// has more workers.
fn one_worker_row<'a>(file: &'a Value, row: &Value) -> Option<&'a Value> {
    if workers_of(file, row) == 1 {
        return None;
    }
    file["rows"].as_array()?.iter().find(|o| {
        o["algo"] == row["algo"] && o["prefetch"] == row["prefetch"] && workers_of(file, o) == 1
    })
}

/// `row`'s Mpps of `phase` over the 1-worker row's (see [`one_worker_row`]).
fn vs_one_worker(file: &Value, row: &Value, phase: &str) -> Option<f64> {
    let one = one_worker_row(file, row)?;
    let base = f(&one[phase]["mpps"]);
    (base > 0.0).then(|| f(&row[phase]["mpps"]) / base)
}

fn ratio(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |r| format!("{r:.2}x"))
}

/// The engine row of a prefetch mode (the first row when `mode` is `None`).
fn engine_row<'a>(v: &'a Value, mode: Option<&str>) -> Option<&'a Value> {
    let rows = v["rows"].as_array()?;
    match mode {
        Some(m) => rows.iter().find(|r| r["prefetch"] == m),
        None => rows.first(),
    }
}

fn engine_table(md: &mut String, key: &str, rows: &[(String, &Value)]) {
    let _ = writeln!(md, "| {key} | prefetch | Interest cycles/pkt | Interest Mpps | Data cycles/pkt | Data Mpps | FIB probes/Interest |\n|---|---|---|---|---|---|---|");
    for (k, r) in rows {
        let _ = writeln!(
            md,
            "| {k} | {} | {:.0} | {:.3} | {:.0} | {:.3} | {:.2} |",
            r["prefetch"].as_str().unwrap_or("?"),
            f(&r["interest"]["cycles_per_packet"]),
            f(&r["interest"]["mpps"]),
            f(&r["data"]["cycles_per_packet"]),
            f(&r["data"]["mpps"]),
            f(&r["fib_probes_per_interest"]),
        );
    }
    md.push('\n');
}

/// Every LPM algorithm under every prefetch mode, one invocation per FIB size and worker
/// count (`bench engine --algo all --prefetch all`): the cycle table the engine issue asks for.
fn grid(r: &[BenchResult], _: &Path, md: &mut String, _: &mut Vec<PathBuf>) -> Result<(), String> {
    let rs = with_prefix(r, "engine-grid-");
    if rs.is_empty() {
        return Ok(());
    }
    md.push_str(
        "## Engine cycles per packet: LPM algorithms and prefetch modes

",
    );
    md.push_str(
        "One invocation per FIB size; within it each algorithm gets its own FIB and workers, \
         and every run goes through each worker count and prefetch mode in turn (a 1-worker \
         slot leaves the second worker waiting), so all rows of an algorithm come from the \
         same runs. `vs none` is the `none` row's Interest cycles over this row's, same \
         algorithm, workers and invocation; `vs 1 worker` is this row's Interest (and Data) \
         Mpps over the 1-worker row's, same algorithm, mode and invocation. \
         Cycles are TSC ticks per packet over the phase; in brackets the same from the worker \
         threads' CPU time, which leaves out time they were preempted (a large gap means the \
         machine was busy during that row).\n\n",
    );
    md.push_str("| FIB prefixes | workers | algorithm | M | prefetch | Interest cycles/pkt (CPU) | vs none | Interest Mpps | Data cycles/pkt (CPU) | Data Mpps | vs 1 worker (Interest, Data) | FIB probes/Interest |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for x in &rs {
        let rows = x.json["rows"].as_array().cloned().unwrap_or_default();
        for row in &rows {
            let w = workers_of(&x.json, row);
            let none = rows
                .iter()
                .find(|n| {
                    n["algo"] == row["algo"]
                        && n["prefetch"] == "none"
                        && workers_of(&x.json, n) == w
                })
                .map_or(0.0, |n| f(&n["interest"]["cycles_per_packet"]));
            let cyc = f(&row["interest"]["cycles_per_packet"]);
            let _ = writeln!(
                md,
                "| {} | {w} | {} | {} | {} | {cyc:.0} ({}) | {} | {:.3} | {:.0} ({}) | {:.3} | {}, {} | {:.2} |",
                x.json["fib_prefixes"],
                row["algo"].as_str().unwrap_or("?"),
                row["m"],
                row["prefetch"].as_str().unwrap_or("?"),
                cpu(&row["interest"]),
                if cyc > 0.0 && none > 0.0 {
                    format!("{:.2}x", none / cyc)
                } else {
                    "-".into()
                },
                f(&row["interest"]["mpps"]),
                f(&row["data"]["cycles_per_packet"]),
                cpu(&row["data"]),
                f(&row["data"]["mpps"]),
                ratio(vs_one_worker(&x.json, row, "interest")),
                ratio(vs_one_worker(&x.json, row, "data")),
                f(&row["fib_probes_per_interest"]),
            );
        }
    }
    md.push('\n');
    commands(md, &rs);
    Ok(())
}

fn fib_size(
    r: &[BenchResult],
    dir: &Path,
    md: &mut String,
    w: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let rs = with_prefix(r, "engine-fib-");
    if rs.is_empty() {
        return Ok(());
    }
    md.push_str("## Engine cycles per packet against FIB size\n\n");
    let rows: Vec<(String, &Value)> = rs
        .iter()
        .filter_map(|x| {
            Some((
                format!("{}", x.json["fib_prefixes"]),
                engine_row(&x.json, None)?,
            ))
        })
        .collect();
    engine_table(md, "FIB prefixes", &rows);
    let pts = |phase: &str| -> Vec<(f64, f64)> {
        rs.iter()
            .filter_map(|x| {
                let n = f(&x.json["fib_prefixes"]);
                let row = engine_row(&x.json, None)?;
                (n > 0.0).then(|| (n.log2(), f(&row[phase]["cycles_per_packet"])))
            })
            .collect()
    };
    let series = [
        Series {
            name: "Interest".into(),
            points: pts("interest"),
        },
        Series {
            name: "Data".into(),
            points: pts("data"),
        },
    ];
    let footer = machine_line(&rs[0].json);
    svg(
        dir,
        w,
        md,
        "engine-fib-size.svg",
        "engine cycles per packet vs FIB size",
        |p| {
            lines(
                p,
                &Labels {
                    title: "Engine cycles per packet vs FIB size (1 worker)",
                    x: "FIB prefixes (log2)",
                    y: "cycles per packet",
                    footer: &footer,
                },
                &series,
                &|x| format!("2^{x:.0}"),
            )
        },
    )?;
    commands(md, &rs);
    Ok(())
}

fn workers(
    r: &[BenchResult],
    dir: &Path,
    md: &mut String,
    w: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let rs = with_prefix(r, "engine-workers");
    if rs.is_empty() {
        return Ok(());
    }
    md.push_str("## Engine throughput against workers\n\n");
    let rows: Vec<(String, &Value)> = rs
        .iter()
        .flat_map(|x| {
            x.json["rows"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|row| (workers_of(&x.json, row).to_string(), row))
        })
        .collect();
    engine_table(md, "workers", &rows);
    for x in &rs {
        for row in x.json["rows"].as_array().into_iter().flatten() {
            if let (Some(i), Some(d), Some(one)) = (
                vs_one_worker(&x.json, row, "interest"),
                vs_one_worker(&x.json, row, "data"),
                one_worker_row(&x.json, row),
            ) {
                let _ = writeln!(
                    md,
                    "- {} workers against 1 in the same invocation: **{i:.2}x** the Interests \
                     per second, **{d:.2}x** the Data. Each worker's CPU cycles per Interest: \
                     {} with 1 worker, {} with {} (time a worker spent off the CPU counts in \
                     the rates, not here).",
                    workers_of(&x.json, row),
                    cpu(&one["interest"]),
                    cpu(&row["interest"]),
                    workers_of(&x.json, row)
                );
            }
        }
    }
    md.push('\n');
    let pts = |phase: &str| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|(k, row)| (k.parse().unwrap_or(0.0), f(&row[phase]["mpps"])))
            .collect()
    };
    let series = [
        Series {
            name: "Interest Mpps".into(),
            points: pts("interest"),
        },
        Series {
            name: "Data Mpps".into(),
            points: pts("data"),
        },
    ];
    let footer = machine_line(&rs[0].json);
    svg(
        dir,
        w,
        md,
        "engine-workers.svg",
        "engine Mpps vs workers",
        |p| {
            lines(
                p,
                &Labels {
                    title: "Engine packets per second vs workers",
                    x: "workers",
                    y: "Mpps (all workers)",
                    footer: &footer,
                },
                &series,
                &|x| format!("{x:.0}"),
            )
        },
    )?;
    commands(md, &rs);
    Ok(())
}

/// `bench memory`: what the machine's DRAM gives one thread and several, the ceiling under the
/// worker scaling above.
fn memory(
    r: &[BenchResult],
    _: &Path,
    md: &mut String,
    _: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let Some(m) = r.iter().find(|x| x.name == "memory") else {
        return Ok(());
    };
    md.push_str(
        "## Memory ceiling for worker scaling

",
    );
    let _ = writeln!(
        md,
        "Dependent random loads over {} MiB per thread (one random cycle on huge pages, so each \
         load misses the caches; whether it also misses the TLB depends on the pages the host \
         backs the guest with: see the translation sweep below). One chain per thread measures \
         latency; several interleaved chains keep that many misses in flight, as the engine's \
         prefetching does. Threads of a row run at once.\n",
        m.json["mib_per_thread"]
    );
    md.push_str("| chains per thread | threads | ns per load | million loads/s (all threads) |\n");
    md.push_str("|---|---|---|---|\n");
    for row in m.json["rows"].as_array().into_iter().flatten() {
        let _ = writeln!(
            md,
            "| {} | {} | {:.1} | {:.1} |",
            row["chains"],
            row["threads"],
            f(&row["ns_per_load"]),
            f(&row["loads_per_s"]) / 1e6
        );
    }
    md.push('\n');
    for s in m.json["scaling"].as_array().into_iter().flatten() {
        let _ = writeln!(
            md,
            "- {} chain(s) per thread: {} threads move **{:.2}x** the loads of one.",
            s["chains"],
            s["threads"],
            f(&s["ratio"])
        );
    }
    md.push('\n');
    let pages: Vec<&Value> = m.json["pages"].as_array().into_iter().flatten().collect();
    if !pages.is_empty() {
        md.push_str(
            "Translation sweep: one thread chases the same number of cache lines in one random \
             cycle twice, packed (consecutive lines) and spread one line per 4 KiB page (on huge \
             pages in the guest). Both touch as many cache lines, so the difference is what \
             translating that many distinct 4 KiB pages adds to a load: nothing while they fit \
             the TLB, a page walk beyond it. In the engine, prefetching a line early did not hide \
             its page's walk (docs/bench/recorded.md, session 22): the random pages a packet \
             touches beyond the TLB's reach cost it cycles even when every line is prefetched.\n\n",
        );
        md.push_str("| lines (= spread pages) | packed ns per load | spread ns per load | translation ns |\n");
        md.push_str("|---|---|---|---|\n");
        for p in pages {
            let _ = writeln!(
                md,
                "| {} | {:.1} | {:.1} | {:.1} |",
                p["lines"],
                f(&p["packed_ns"]),
                f(&p["spread_ns"]),
                f(&p["translation_ns"])
            );
        }
        md.push('\n');
    }
    commands(md, &[m]);
    Ok(())
}

fn prefetch(
    r: &[BenchResult],
    dir: &Path,
    md: &mut String,
    w: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let Some(e) = r.iter().find(|x| x.name == "engine-prefetch") else {
        return Ok(());
    };
    md.push_str("## Prefetch ablation (one run, all modes side by side)\n\n");
    let rows: Vec<(String, &Value)> = e.json["rows"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| (format!("{}", e.json["fib_prefixes"]), x))
                .collect()
        })
        .unwrap_or_default();
    engine_table(md, "FIB prefixes", &rows);
    let cats: Vec<String> = rows
        .iter()
        .map(|(_, x)| x["prefetch"].as_str().unwrap_or("?").to_owned())
        .collect();
    let s = |phase: &str| Series {
        name: format!("{phase} cycles/pkt"),
        points: rows
            .iter()
            .map(|(_, x)| (0.0, f(&x[phase]["cycles_per_packet"])))
            .collect(),
    };
    let series = [s("interest"), s("data")];
    let footer = machine_line(&e.json);
    svg(
        dir,
        w,
        md,
        "engine-prefetch.svg",
        "prefetch ablation",
        |p| {
            bars(
                p,
                &Labels {
                    title: "Prefetch ablation: engine cycles per packet",
                    x: "prefetch mode",
                    y: "cycles per packet",
                    footer: &footer,
                },
                &cats,
                &series,
            )
        },
    )?;
    commands(md, &[e]);
    Ok(())
}

fn lpm(r: &[BenchResult], dir: &Path, md: &mut String, w: &mut Vec<PathBuf>) -> Result<(), String> {
    let rs = with_prefix(r, "fib-");
    if rs.is_empty() {
        return Ok(());
    }
    md.push_str("## LPM algorithms and FIB bytes per prefix\n\n");
    md.push_str("| workload | prefixes | algorithm | prefetch | M | Mlookups/s | cycles/lookup | probes mean / max | B/prefix used |\n|---|---|---|---|---|---|---|---|---|\n");
    let mut cats = Vec::new();
    let (mut cyc_none, mut cyc_all, mut bytes) = (Vec::new(), Vec::new(), Vec::new());
    for x in &rs {
        let wl = x.json["workload"].as_str().unwrap_or("?");
        for row in x.json["rows"].as_array().cloned().unwrap_or_default() {
            let algo = row["algorithm"].as_str().unwrap_or("?").to_owned();
            let pf = row["prefetch"].as_str().unwrap_or("?").to_owned();
            let _ = writeln!(
                md,
                "| {wl} | {} | {algo} | {pf} | {} | {:.2} | {:.0} | {:.2} / {} | {:.1} |",
                row["prefixes"],
                row["m"],
                f(&row["lookups_per_sec"]) / 1e6,
                f(&row["cycles_per_lookup"]),
                f(&row["probes_mean"]),
                row["probes_max"],
                f(&row["bytes_per_prefix"]["total_used"]),
            );
            let cat = format!("{wl} {algo}");
            if !cats.contains(&cat) {
                cats.push(cat);
                bytes.push((0.0, f(&row["bytes_per_prefix"]["total_used"])));
            }
            if pf == "None" {
                cyc_none.push((0.0, f(&row["cycles_per_lookup"])));
            } else {
                cyc_all.push((0.0, f(&row["cycles_per_lookup"])));
            }
        }
    }
    md.push('\n');
    let footer = machine_line(&rs[0].json);
    let series = [
        Series {
            name: "no prefetch".into(),
            points: cyc_none,
        },
        Series {
            name: "prefetch".into(),
            points: cyc_all,
        },
    ];
    svg(
        dir,
        w,
        md,
        "fib-lpm.svg",
        "LPM algorithms, cycles per lookup",
        |p| {
            bars(
                p,
                &Labels {
                    title: "FIB LPM: cycles per lookup",
                    x: "workload, algorithm",
                    y: "cycles per lookup",
                    footer: &footer,
                },
                &cats,
                &series,
            )
        },
    )?;
    let series = [Series {
        name: "bytes per prefix (used)".into(),
        points: bytes,
    }];
    svg(dir, w, md, "fib-bytes.svg", "FIB bytes per prefix", |p| {
        bars(
            p,
            &Labels {
                title: "FIB memory: bytes per prefix",
                x: "workload, algorithm",
                y: "bytes per prefix",
                footer: &footer,
            },
            &cats,
            &series,
        )
    })?;
    commands(md, &rs);
    Ok(())
}
