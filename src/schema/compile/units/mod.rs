//! protoc, by unit: one file that protox cannot link (an editions file, or one importing
//! one) and its import closure. Each distinct unit — (path, blob, hash of the closure's paths
//! and blobs) — is compiled once for a whole history, units in parallel; the unit is what a
//! persistent cache and commit histories key on as well. The descriptors protoc writes join
//! the version's pool, rewritten for prost-reflect.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::super::diagnostic::Diagnostic;
use super::super::protoc::{self, Failure};

mod output;

use output::run_unit;
pub(super) use output::{UnitOut, join};

/// (import path, blob id, hash of the import closure's paths and blobs).
pub(super) type UnitKey = (String, String, [u8; 32]);

pub(super) type Unit = Arc<Result<UnitOut, Failure>>;

/// One file to compile with protoc: its unit key and the texts protoc is given.
pub(super) struct Target<'a> {
    pub path: &'a str,
    pub key: UnitKey,
    pub sources: Vec<(&'a str, &'a str)>,
    /// The closure as (path, blob).
    pub blobs: Vec<(String, String)>,
    /// Why protox could not parse it, if that is why it is here.
    pub protox_error: Option<Diagnostic>,
    /// The line of its `edition` statement, for a diagnostic without protoc.
    pub edition_line: u32,
    /// The units of the files it imports (directly or not) that protoc compiles too, each
    /// without it in its own closure; sorted by path. Should protoc reject one, it rejects
    /// this unit with it: the unit inherits their diagnostics without a call.
    pub needs: Vec<UnitKey>,
    /// Whether it is one of the version's judged files, or only the import of one (its
    /// unit is compiled for what its importers inherit, and not joined).
    pub judged: bool,
}

impl<'a> Target<'a> {
    /// `path` (blob `blob`) with its closure in `deps`, texts from `texts`.
    pub fn new(
        path: &'a str,
        blob: &str,
        deps: &HashMap<&str, Vec<String>>,
        blob_of: &HashMap<&str, &str>,
        texts: &HashMap<&'a str, &'a str>,
    ) -> Self {
        let closure = closure(path, |p| deps.get(p));
        let mut h = Sha256::new();
        for p in &closure {
            h.update(p.as_bytes());
            h.update([0]);
            h.update(blob_of.get(p.as_str()).copied().unwrap_or("").as_bytes());
            h.update([0]);
        }
        let sources = closure
            .iter()
            .filter_map(|p| texts.get_key_value(p.as_str()).map(|(k, v)| (*k, *v)))
            .collect();
        let blobs = closure
            .iter()
            .map(|p| {
                let b = blob_of.get(p.as_str()).copied().unwrap_or("");
                (p.clone(), b.to_string())
            })
            .collect();
        Target {
            path,
            key: (path.to_string(), blob.to_string(), h.finalize().into()),
            sources,
            blobs,
            protox_error: None,
            edition_line: 0,
            needs: Vec::new(),
            judged: true,
        }
    }
}

/// What protoc made of the files it read so far, by (path, blob): which it rejected, which
/// it compiled; and the paths it rejected some text of. Where a unit runs (in a batch, or
/// alone) follows from it, never what the unit gives.
#[derive(Default)]
pub(super) struct Known {
    bad: HashSet<(String, String)>,
    good: HashSet<(String, String)>,
    bad_paths: HashSet<String>,
}

impl Known {
    /// Whether a unit is likely to fail: its closure holds a file protoc rejected, or a
    /// text not known good of a path protoc rejected another text of (protobuf's
    /// `unittest.proto` is rejected at every tag from v29 on, each tag a new blob: its
    /// importers made a batch fail, and be split and run again, once per window).
    fn risky(&self, t: &Target<'_>) -> bool {
        t.blobs.iter().any(|b| {
            self.bad.contains(b) || (self.bad_paths.contains(&b.0) && !self.good.contains(b))
        })
    }
}

/// Compiles the units of `targets` that `units` does not hold yet; returns how many were
/// compiled, and how many of them inherited a rejection. A unit any of whose
/// [`Target::needs`] protoc rejected is rejected with them, with their diagnostics (protoc
/// rejects every importer of a file it rejects: 58 of protobuf's 200 calls were importers
/// of its own test protos that protoc 36 rejects); any other unit gives what protoc gives
/// it. So what a unit gives never depends on what was compiled before it or beside it.
///
/// Units run in rounds: a unit waits for the needs likely to fail ([`Known::risky`]), and
/// inherits their rejection without a call; the units of a round run as one protoc call per
/// core (a call reads each shared import once), each unit cut out of its call's output
/// afterwards; a call that fails is split and retried, so one broken file never takes the
/// others down with it. A risky unit runs alone at once: protoc stops at the first input
/// that fails, so a failing unit needs a call of its own anyway.
pub(super) fn compile(
    texts: &protoc::Texts,
    units: &mut HashMap<UnitKey, Unit>,
    known: &mut Known,
    targets: &[&Target<'_>],
) -> (usize, usize) {
    let mut seen = HashSet::new();
    let mut todo: Vec<&Target<'_>> = targets
        .iter()
        .copied()
        .filter(|t| !units.contains_key(&t.key) && seen.insert(&t.key))
        .collect();
    let (mut n, mut inheriting) = (0, 0);
    while !todo.is_empty() {
        let risky: HashSet<&UnitKey> = todo
            .iter()
            .filter(|t| known.risky(t))
            .map(|t| &t.key)
            .collect();
        let (mut ready, mut later): (Vec<&Target<'_>>, Vec<&Target<'_>>) = todo
            .iter()
            .partition(|t| !t.needs.iter().any(|k| risky.contains(k)));
        // Needs have smaller closures than their unit, so the smallest unit left is always
        // ready; were none, all would run now rather than never.
        if ready.is_empty() {
            ready = later;
            later = Vec::new();
        }
        let run: Vec<&Target<'_>> = ready
            .iter()
            .copied()
            .filter(|t| inherited(t, units).is_none())
            .collect();
        let ran: HashMap<UnitKey, Unit> = run_round(texts, known, &run).into_iter().collect();
        learn(known, &run, &ran);
        // Needs first (a need's closure is smaller), so each unit sees its needs' results.
        ready.sort_by_key(|t| t.blobs.len());
        for t in ready {
            let unit = match inherited(t, units) {
                Some(failure) => {
                    inheriting += 1;
                    Arc::new(Err(failure))
                }
                // Every unit run has its result; were one missing, it is said, never skipped
                // (an importer after it would then keep protoc's cascade).
                None => ran.get(&t.key).cloned().unwrap_or_else(|| {
                    Arc::new(Err(Failure::not_run(
                        t.path,
                        "protoc gave no result for it".into(),
                    )))
                }),
            };
            units.insert(t.key.clone(), unit);
            n += 1;
        }
        todo = later;
    }
    (n, inheriting)
}

/// What `t` inherits of the units it needs that protoc rejected: their diagnostics, once
/// each, in the order of the needs; `None` when protoc rejected none of them.
fn inherited(t: &Target<'_>, units: &HashMap<UnitKey, Unit>) -> Option<Failure> {
    let mut seen = HashSet::new();
    let diagnostics: Vec<Diagnostic> = t
        .needs
        .iter()
        .filter_map(|k| match units.get(k).map(|u| u.as_ref()) {
            Some(Err(f)) if f.rejected => Some(&f.diagnostics),
            _ => None,
        })
        .flatten()
        .filter(|d| d.file != t.path && seen.insert(*d))
        .cloned()
        .collect();
    (!diagnostics.is_empty()).then_some(Failure {
        diagnostics,
        rejected: true,
    })
}

/// Runs `run` with protoc: the units likely to fail alone, the others together.
fn run_round(texts: &protoc::Texts, known: &Known, run: &[&Target<'_>]) -> Vec<(UnitKey, Unit)> {
    match protoc::locate() {
        Ok(protoc) => {
            let (alone, together): (Vec<&Target<'_>>, Vec<&Target<'_>>) =
                run.iter().partition(|t| known.risky(t));
            let threads = rayon::current_num_threads().max(1);
            let mut calls: Vec<Vec<&Target<'_>>> = Vec::new();
            for group in one_text_per_path(together) {
                let per_call = group.len().div_ceil(threads).max(1);
                calls.extend(group.chunks(per_call).map(<[_]>::to_vec));
            }
            calls.extend(alone.into_iter().map(|t| vec![t]));
            calls
                .par_iter()
                .flat_map_iter(|chunk| run_batch(texts, protoc, chunk))
                .collect()
        }
        Err(why) => run
            .iter()
            .map(|t| (t.key.clone(), Arc::new(Err(without_protoc(t, why)))))
            .collect(),
    }
}

/// Remembers the files protoc complained about, by blob, and those it compiled.
fn learn(known: &mut Known, run: &[&Target<'_>], ran: &HashMap<UnitKey, Unit>) {
    for (key, unit) in ran {
        let Some(t) = run.iter().find(|t| &t.key == key) else {
            continue;
        };
        match unit.as_ref() {
            Err(f) => {
                for (i, d) in f.diagnostics.iter().enumerate() {
                    if let Some(b) = t.blobs.iter().find(|(p, _)| *p == d.file) {
                        // The first error's file is the one protoc rejected; the others
                        // may only import it.
                        if i == 0 {
                            known.bad_paths.insert(b.0.clone());
                        }
                        known.bad.insert(b.clone());
                    }
                }
            }
            Ok(_) => known.good.extend(t.blobs.iter().cloned()),
        }
    }
}

/// `targets` in groups that can share a protoc call: in each, one blob per path (the sets
/// of a window may hold two versions of one file, and a call reads one text per path).
/// Each target joins the first group it agrees with, in order.
fn one_text_per_path<'t, 'a>(targets: Vec<&'t Target<'a>>) -> Vec<Vec<&'t Target<'a>>> {
    let mut groups: Vec<(HashMap<&'t str, &'t str>, Vec<&'t Target<'a>>)> = Vec::new();
    for t in targets {
        let agrees = |files: &HashMap<&str, &str>| {
            t.blobs
                .iter()
                .all(|(p, b)| files.get(p.as_str()).is_none_or(|x| x == b))
        };
        let closure = t.blobs.iter().map(|(p, b)| (p.as_str(), b.as_str()));
        match groups.iter_mut().find(|(files, _)| agrees(files)) {
            Some((files, members)) => {
                files.extend(closure);
                members.push(t);
            }
            None => groups.push((closure.collect(), vec![t])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// Runs the units of `chunk`, as few protoc calls as it takes: all together first; after a
/// failure, the units that hold a file protoc named run alone and the rest together again
/// (halves when protoc named nothing useful). A loop over a work list, not recursion: the
/// number of calls is bounded by the units, the depth by nothing.
fn run_batch(
    texts: &protoc::Texts,
    protoc: &protoc::Protoc,
    chunk: &[&Target<'_>],
) -> Vec<(UnitKey, Unit)> {
    let mut out = Vec::with_capacity(chunk.len());
    let mut work: Vec<Vec<&Target<'_>>> = vec![chunk.to_vec()];
    while let Some(group) = work.pop() {
        if let [single] = group.as_slice() {
            let unit = run_unit(texts, protoc, &[*single], &single.sources).and_then(|mut outs| {
                outs.pop()
                    .ok_or_else(|| Failure::not_run(single.path, "protoc's output lacks it".into()))
            });
            out.push((single.key.clone(), Arc::new(unit)));
            continue;
        }
        let mut sources: Vec<(&str, &str)> = group
            .iter()
            .flat_map(|t| t.sources.iter().copied())
            .collect();
        sources.sort_unstable();
        sources.dedup_by_key(|(p, _)| *p);
        let written: HashSet<&str> = sources.iter().map(|(p, _)| *p).collect();
        let errors = match run_unit(texts, protoc, &group, &sources) {
            Ok(outs) if outs.len() == group.len() => {
                for (t, unit) in group.iter().zip(outs) {
                    // A unit that used a file of another unit's closure (an import the
                    // text scan missed) would be cached under a key that does not cover
                    // it: it runs alone, with its own closure only.
                    let own: HashSet<&str> = t.blobs.iter().map(|(p, _)| p.as_str()).collect();
                    if unit.files.iter().all(|f| {
                        own.contains(f.name.as_str()) || !written.contains(f.name.as_str())
                    }) {
                        out.push((t.key.clone(), Arc::new(Ok(unit))));
                    } else {
                        work.push(vec![*t]);
                    }
                }
                continue;
            }
            Ok(_) => Vec::new(),
            Err(failure) => failure.diagnostics,
        };
        let bad: HashSet<&str> = errors.iter().map(|d| d.file.as_str()).collect();
        let (suspects, rest): (Vec<&Target<'_>>, Vec<&Target<'_>>) = group
            .iter()
            .partition(|t| t.sources.iter().any(|(p, _)| bad.contains(p)));
        if suspects.is_empty() || rest.is_empty() {
            let (left, right) = group.split_at(group.len() / 2);
            work.push(left.to_vec());
            work.push(right.to_vec());
        } else {
            work.extend(suspects.into_iter().map(|t| vec![t]));
            work.push(rest);
        }
    }
    out
}

/// Why a target was not compiled when there is no protoc.
fn without_protoc(t: &Target<'_>, why: &str) -> Failure {
    let d = match &t.protox_error {
        Some(d) => Diagnostic {
            message: format!("{} (protoc would be tried next, but {why})", d.message),
            ..d.clone()
        },
        None => Diagnostic {
            file: t.path.to_string(),
            line: t.edition_line,
            column: u32::from(t.edition_line > 0),
            message: format!(
                "this file needs Google's protoc (an editions file, or one that imports one), \
                 and {why}"
            ),
        },
    };
    Failure {
        diagnostics: vec![d],
        rejected: false,
    }
}

/// `file` and everything it imports within the set, transitively, sorted.
pub(super) fn closure<'d>(
    file: &str,
    deps: impl Fn(&str) -> Option<&'d Vec<String>>,
) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![file.to_string()];
    while let Some(f) = stack.pop() {
        if seen.contains(&f) {
            continue;
        }
        if let Some(d) = deps(&f) {
            stack.extend(d.iter().filter(|x| !seen.contains(*x)).cloned());
        }
        seen.insert(f);
    }
    seen.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit runs alone at once when its closure holds a text protoc rejected, or a text
    /// not known good of a path protoc rejected another text of; a text that compiled
    /// since is trusted again.
    #[test]
    fn units_likely_to_fail_are_told_apart() {
        let deps: HashMap<&str, Vec<String>> = [
            ("t.proto", vec!["u.proto".to_string()]),
            ("u.proto", vec![]),
        ]
        .into();
        let texts: HashMap<&str, &str> = [("t.proto", ""), ("u.proto", "")].into();
        let unit = |u_blob: &'static str| {
            let blob_of: HashMap<&str, &str> = [("t.proto", "t1"), ("u.proto", u_blob)].into();
            Target::new("t.proto", "t1", &deps, &blob_of, &texts)
        };
        let mut known = Known::default();
        assert!(!known.risky(&unit("u1")));
        known.bad.insert(("u.proto".into(), "u1".into()));
        known.bad_paths.insert("u.proto".into());
        assert!(known.risky(&unit("u1")));
        // Another text of the rejected path: likely rejected too, until it compiles.
        assert!(known.risky(&unit("u2")));
        known.good.insert(("u.proto".into(), "u2".into()));
        assert!(!known.risky(&unit("u2")));
    }
}
