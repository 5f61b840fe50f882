//! `protolapse bench`: load a history cold and print the time per phase and the peak memory.
//! With `--synthetic N,M,K` it first writes a history of N tags x M files with K files
//! changed per tag, to show that cost follows distinct blobs and file sets, not tags x files
//! (with `--commits`: N commits, their subjects saying what changed, a few of them tagged).
//! Then the terminal UI's responsiveness: its real event loop, loader and workers on an
//! in-memory 120x40 terminal — time to the first frame, to the whole history browsable,
//! and per key press.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use protolapse::history::{self, HistoryOptions, demo::Snapshot};
use protolapse::load;

pub fn run(
    repo: Option<&Path>,
    demo: bool,
    synthetic: Option<&str>,
    opts: &HistoryOptions,
    root: Option<String>,
) -> Result<()> {
    let started = Instant::now();
    let _keep;
    let path = if let Some(spec) = synthetic {
        let (n, m, k) = parse_spec(spec)?;
        let dir = tempfile::tempdir().context("cannot create a temporary folder")?;
        let commits = opts.commits.is_some();
        let snapshots = synthetic_history(n, m, k, commits);
        history::demo::write_repo(dir.path(), &snapshots, 1_600_000_000, 3600)?;
        println!(
            "synthetic history: {n} {} x {m} files, {k} changed per {} (written in {:.0} ms)",
            if commits { "commits" } else { "tags" },
            if commits { "commit" } else { "tag" },
            started.elapsed().as_secs_f64() * 1e3
        );
        let p = dir.path().to_path_buf();
        _keep = Some(dir);
        p
    } else if demo {
        let dir = history::demo::build()?;
        let p = dir.path().to_path_buf();
        _keep = Some(dir);
        p
    } else {
        _keep = None;
        repo.map(Path::to_path_buf).unwrap_or_else(|| ".".into())
    };
    let started = Instant::now();
    let project = load::load(&path, opts, |_, _| {})?;
    let total = started.elapsed();
    let s = &project.stats;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let files: usize = project
        .versions
        .iter()
        .map(|v| v.compiled.files_total)
        .sum();
    println!("versions            {:>8}", project.versions.len());
    println!("files (all tags)    {:>8}", files);
    println!("trees walked        {:>8}", s.trees_walked);
    println!(
        "blobs read          {:>8}  ({} KiB)",
        s.blobs_read,
        s.bytes_read / 1024
    );
    println!("blobs parsed        {:>8}", s.compile.blobs_parsed);
    println!(
        "file sets compiled  {:>8}  (reused {})",
        s.compile.sets_compiled, s.compile.sets_reused
    );
    println!("git reads           {:>8.1} ms", ms(s.git));
    // Sets compile side by side: parse, link, normalize and the cache's look-ups and stores
    // add up every thread's time; protoc is its phase's wall time.
    println!(
        "parse               {:>8.1} ms  (all threads)",
        ms(s.compile.parse)
    );
    println!(
        "link (protox)       {:>8.1} ms  ({} files; all threads)",
        ms(s.compile.link),
        s.compile.protox_files
    );
    println!(
        "protoc              {:>8.1} ms  ({} units compiled, {} of them rejected with an import, {} reused; {})",
        ms(s.compile.protoc),
        s.compile.protoc_units,
        s.compile.protoc_inherited,
        s.compile.protoc_reused,
        protolapse::schema::protoc_source()
    );
    println!(
        "normalize           {:>8.1} ms  (all threads; {} of {} files as in an earlier set; {} declarations shared with an earlier set)",
        ms(s.compile.normalize),
        s.compile.files_memo.0,
        s.compile.files_memo.1,
        s.compile.decls_shared
    );
    let d = &s.compile.disk;
    match protolapse::schema::store::global() {
        Some(store) => {
            println!(
                "cache: file sets   {:>8} from the cache, {} after compiling the files that missed ({} files), {} compiled ({} after a part in vain)  ({})",
                d.sets_hit,
                d.sets_partial,
                d.files_compiled,
                d.sets_missed,
                d.sets_in_vain,
                store.root().display()
            );
            println!(
                "cache: parts       {:>8} hits, {} misses, {} stored  (records {} hits, {} misses, {} stored)",
                d.parts_hit,
                d.parts_missed,
                d.parts_stored,
                d.records_hit,
                d.records_missed,
                d.records_stored
            );
            let c = &store.counters;
            let n = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
            println!(
                "cache: lookups     {:>8.1} ms  ({} KiB read, {} rejected); stores {:.1} ms ({} KiB written; all threads)",
                ms(d.lookup),
                n(&c.read_bytes) / 1024,
                n(&c.rejected),
                ms(d.store),
                n(&c.written_bytes) / 1024
            );
        }
        None => println!("cache               off"),
    }
    println!("total load          {:>8.1} ms", ms(total));
    if s.commits_walked > 0 {
        // --commits: what the walk costs per commit, what the rest costs per file set.
        let sets = s.compile.sets_compiled.max(1) as f64;
        println!(
            "commits walked      {:>8}  ({:.1} µs per commit, git reads included)",
            s.commits_walked,
            ms(s.git) * 1e3 / s.commits_walked as f64
        );
        println!(
            "per file set        {:>8.2} ms  ({} distinct sets; load after git reads / sets)",
            ms(total.saturating_sub(s.git)) / sets,
            s.compile.sets_compiled
        );
    }
    // Every adjacent pair, whole schema (all levels are computed together).
    let started = Instant::now();
    let none = protolapse::judge::Ignores::default();
    // Each pair's changes, kept for the round trips below (None: a side has no schema).
    let judged: Vec<Option<Vec<protolapse::rules::Change>>> = project
        .versions
        .windows(2)
        .map(|w| {
            use protolapse::judge::{Scope, Side, judge};
            let (a, b) = (Side::of(&w[0])?, Side::of(&w[1])?);
            Some(judge(&a, &b, &Scope::Whole, &none))
        })
        .collect();
    let pairs = judged.iter().flatten().count();
    let changes: usize = judged.iter().flatten().map(Vec::len).sum();
    println!(
        "diff adjacent pairs {:>8.1} ms  ({pairs} pairs, {changes} changes)",
        ms(started.elapsed())
    );
    // Every adjacent pair's changes proved by round trips (`diff --prove`), pairs side by
    // side; the judging is the loop's above, not timed again.
    let started = Instant::now();
    let proved: Vec<(usize, usize, usize, Vec<String>)> = {
        use rayon::prelude::*;
        project
            .versions
            .par_windows(2)
            .zip(judged.par_iter())
            .map(|(w, changes)| {
                let (Some(sa), Some(sb), Some(changes)) = (w[0].schema(), w[1].schema(), changes)
                else {
                    return (0, 0, 0, Vec::new());
                };
                let proofs = protolapse::prove::prove(sa, sb, changes);
                let samples = proofs
                    .iter()
                    .flat_map(|p| [&p.wire, &p.json])
                    .flatten()
                    .map(|c| c.backward.samples.len() + c.forward.samples.len())
                    .sum();
                let observed = proofs.iter().filter(|p| p.wire.is_some()).count();
                // The oracle's figure: changes whose safe claim a sample contradicts.
                let contradicted = proofs
                    .iter()
                    .filter(|p| p.safe_contradicted())
                    .map(|p| {
                        format!(
                            " {} -> {}: {} {}",
                            w[0].name(),
                            w[1].name(),
                            p.rule,
                            p.element
                        )
                    })
                    .collect();
                (proofs.len(), observed, samples, contradicted)
            })
            .collect()
    };
    let elapsed = started.elapsed();
    let (all, observed, samples) = proved
        .iter()
        .fold((0, 0, 0), |t, p| (t.0 + p.0, t.1 + p.1, t.2 + p.2));
    let contradicted: Vec<&String> = proved.iter().flat_map(|p| &p.3).collect();
    println!(
        "prove adjacent pairs {:>7.1} ms  ({all} changes, {observed} with samples, {samples} samples, {} safe claims contradicted)",
        ms(elapsed),
        contradicted.len()
    );
    for c in contradicted.iter().take(20) {
        println!("  contradicted:{c}");
    }
    // The whole-history analysis: semver and hazards, then each policy kind.
    for policy in [
        None,
        Some(protolapse::policy::Policy::Backward),
        Some(protolapse::policy::Policy::FullTransitive),
    ] {
        let started = Instant::now();
        let settings = protolapse::policy::Settings {
            policy: policy.clone(),
            ..Default::default()
        };
        let what = policy.map_or("semver + hazards".to_string(), |p| format!("+ {p}"));
        let summaries = protolapse::judge::stored_summaries();
        let lists = protolapse::judge::stored_changes();
        match protolapse::policy::analyze(&project, &settings) {
            Ok(a) => {
                let counted = |what: &str, (read, done): (u64, u64), (r, d): (u64, u64)| {
                    if r + d > read + done {
                        format!(
                            "; {what}: {} from the cache, {} computed",
                            r - read,
                            d - done
                        )
                    } else {
                        String::new()
                    }
                };
                let kept = counted("change lists", lists, protolapse::judge::stored_changes())
                    + &counted(
                        "pair summaries",
                        summaries,
                        protolapse::judge::stored_summaries(),
                    );
                println!(
                    "analysis {what:<20} {:>8.1} ms  ({} hazards{kept})",
                    ms(started.elapsed()),
                    a.hazards.len()
                )
            }
            Err(e) => println!("analysis {what}: {e}"),
        }
    }
    match peak_memory_kib() {
        Some(kib) => println!("peak memory         {:>8.1} MiB", kib as f64 / 1024.0),
        None => println!("peak memory         unknown (no /proc/self/status)"),
    }
    let root = root
        .or_else(|| {
            protolapse::config::Config::load(&project.repo_root)
                .ok()
                .flatten()
                .and_then(|c| c.root)
        })
        .or_else(|| widest_root(&project));
    drop(project);
    ui(&path, opts, root)
}

/// The message or service of the newest compiled version that reaches the most types.
fn widest_root(project: &load::Project) -> Option<String> {
    let v = project
        .versions
        .iter()
        .rev()
        .find(|v| v.compiled.status != protolapse::schema::Status::Failed)?;
    let content = &v.compiled.schema.content;
    v.compiled
        .schema
        .root_names()
        .into_iter()
        .map(|r| (protolapse::schema::graph::build(content, r).nodes.len(), r))
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, r)| r.to_string())
}

/// The UI's figures: first frame, browsable, key presses.
fn ui(path: &Path, opts: &HistoryOptions, root: Option<String>) -> Result<()> {
    use protolapse::ui::runtime::bench;
    use protolapse::ui::{LoadOptions, Source};
    let load = LoadOptions {
        tags: opts.tags.clone(),
        revs: opts.revs.clone(),
        proto_paths: opts.proto_paths.clone(),
        commits: opts.commits.clone(),
        paths: opts.paths.clone(),
    };
    let f = bench::measure(Source::Repo(path.to_path_buf()), load, root, 120, 40)?;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!();
    println!(
        "terminal UI, 120x40, {} versions, root {}",
        f.versions,
        f.root.as_deref().unwrap_or("(none: the finder)")
    );
    println!("first frame         {:>8.1} ms", ms(f.first_frame));
    println!(
        "graph visible       {:>8.1} ms  (the newest version and its base compiled, their comparison drawn)",
        ms(f.graph_visible)
    );
    println!(
        "browsable           {:>8.1} ms  (every version compiled and indexed, analysis and comparison drawn)",
        ms(f.browsable)
    );
    println!("history loaded      {:>8.1} ms", ms(f.loaded));
    let after = |what: &str, d: Option<std::time::Duration>, why: &str| match d {
        Some(d) => println!(
            "{what:<20}{:>8.1} ms  after the history loaded ({why})",
            ms(d)
        ),
        None => println!("{what:<20}not within the limit"),
    };
    after(
        "analysis ready",
        f.analysis_ready,
        "semver, policy and hazards of every version",
    );
    after(
        "policy view marked",
        f.policy_marked,
        "every policy × every version, computed ahead",
    );
    after(
        "policy view ready",
        f.policy_ready,
        "and the first violation of each failing cell",
    );
    println!("key press                          redraw median / max    on screen median / max");
    for p in &f.presses {
        println!(
            "  {:<28} x{:<3} {:>8.2} / {:>7.2} ms  {:>9.2} / {:>8.2} ms",
            p.what,
            p.count,
            ms(p.redraw_median),
            ms(p.redraw_max),
            ms(p.settled_median),
            ms(p.settled_max)
        );
    }
    Ok(())
}

fn parse_spec(spec: &str) -> Result<(usize, usize, usize)> {
    let parts: Vec<usize> = spec
        .split(',')
        .map(|p| p.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--synthetic takes N,M,K (three numbers), not `{spec}`"))?;
    match parts[..] {
        [n, m, _] if n > MAX_TAGS || m > MAX_FILES || n * m > MAX_TAG_FILES => bail!(
            "--synthetic {spec} asks for {n} tags x {m} files; the largest history it writes is \
             {MAX_TAGS} tags, {MAX_FILES} files, {MAX_TAG_FILES} tag-files in all"
        ),
        [n, m, k] if n > 0 && m > 0 && k <= m => Ok((n, m, k)),
        _ => bail!("--synthetic takes N,M,K with N, M > 0 and K <= M, not `{spec}`"),
    }
}

/// The largest synthetic history (each tag-file is written to disk and committed).
const MAX_TAGS: usize = 10_000;
const MAX_FILES: usize = 10_000;
const MAX_TAG_FILES: usize = 2_000_000;

/// File `i` imports file `i-1`; at tag `t`, files `t*K .. t*K+K` (mod M) gain a field.
/// `commits` (for `--commits`): commits with a subject saying what changed, one in every
/// thousand tagged, a file's fields growing to 39 and starting again.
fn synthetic_history(n: usize, m: usize, k: usize, commits: bool) -> Vec<Snapshot> {
    let mut revision = vec![0usize; m];
    (0..n)
        .map(|t| {
            if t > 0 {
                for j in 0..k {
                    let r = &mut revision[(t * k + j) % m];
                    // Commits add fields and drop them again: a long history of small
                    // versions, within the history's cap of statements compiled.
                    *r = if commits { (*r + 1) % 40 } else { *r + 1 };
                }
            }
            let files = (0..m)
                .map(|i| {
                    let import = if i > 0 { format!("import \"gen/f{}.proto\";\n", i - 1) } else { String::new() };
                    let prev = if i > 0 { format!("  M{} prev = 1;\n", i - 1) } else { String::new() };
                    let extra: String = (0..revision[i]).map(|r| format!("  int64 added_{r} = {};\n", 100 + r)).collect();
                    let text = format!(
                        "syntax = \"proto3\";\npackage gen;\n{import}\n// Message {i}.\nmessage M{i} {{\n{prev}  string name = 2;\n  repeated int32 values = 3;\n  map<string, string> labels = 4;\n{extra}}}\n\nenum E{i} {{\n  E{i}_UNSPECIFIED = 0;\n  E{i}_ONE = 1;\n}}\n"
                    );
                    (format!("gen/f{i}.proto"), text)
                })
                .collect();
            if commits && t % 1000 != 999 {
                let changed: Vec<String> = (0..k).map(|j| format!("M{}", (t * k + j) % m)).collect();
                let subject = format!("Change {t}: fields of {} added or dropped", changed.join(", "));
                return Snapshot { tag: String::new(), message: Some(subject), files };
            }
            Snapshot { tag: format!("v1.{t}.0"), message: None, files }
        })
        .collect()
}

fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_synthetic_history_is_bounded() {
        assert_eq!(super::parse_spec("3,4,2").ok(), Some((3, 4, 2)));
        for spec in [
            "100000,1,1",
            "1,100000,1",
            "5000,5000,1",
            "1,1,2",
            "0,1,0",
            "a,b,c",
            "1,2",
        ] {
            assert!(super::parse_spec(spec).is_err(), "{spec}");
        }
    }
}
