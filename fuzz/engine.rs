//! The fuzz harness over the engine, shared by the fuzz target (`fuzz_targets/engine.rs`,
//! coverage-guided with libFuzzer) and the corpus test (`tests/it/fuzz_corpus.rs`, every file
//! of `fuzz/corpus/engine/` on every `cargo test`).
//!
//! One input is two `.proto` texts — the old and the new version of `a.proto` — split at
//! the first line `=====`, plus an optional third part, `b.proto`, imported by neither or
//! both. Each is committed and tagged in a throwaway repository, loaded as a user's history
//! is, and every report is rendered: `log` (text and JSON), the pair's `diff` (text and
//! JSON), the `check` gate under every policy (text, JSON, GitHub annotations, SARIF), the
//! `graph` of every message (text, dot, mermaid, JSON) and its `blame`. What must hold on
//! any input: no panic, no hang, and no raw control or bidi character in what reaches a
//! terminal or a CI log.

use protolapse::config::Config;
use protolapse::history::HistoryOptions;
use protolapse::history::demo::{Snapshot, write_repo};
use protolapse::judge::{Scope, Side, judge};
use protolapse::load::{self, VersionId};
use protolapse::policy::{self, Policy, gate, lifecycle};
use protolapse::report;
use protolapse::sanitize;
use protolapse::schema::graph;

/// The largest input worth running: bigger ones only repeat what smaller ones exercise.
pub const MAX_INPUT: usize = 64 * 1024;

/// The most messages whose graph and blame are rendered per version.
const MAX_ROOTS: usize = 16;

/// The files of one version: (path, text).
pub type Files = Vec<(String, String)>;

/// Splits an input into the files of the two versions.
pub fn versions(data: &[u8]) -> (Files, Files) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, "\n=====\n");
    let old = parts.next().unwrap_or_default().to_string();
    let new = parts.next().unwrap_or_default().to_string();
    let mut a = vec![("a.proto".to_string(), old)];
    let mut b = vec![("a.proto".to_string(), new)];
    if let Some(shared) = parts.next() {
        a.push(("b.proto".to_string(), shared.to_string()));
        b.push(("b.proto".to_string(), shared.to_string()));
    }
    (a, b)
}

/// Runs one input through the engine and every report; panics (the fuzzer's finding) when a
/// property does not hold.
pub fn exercise(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let (old, new) = versions(data);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let snaps = [
        Snapshot {
            tag: "v1.0.0".into(),
            message: None,
            files: old,
        },
        Snapshot {
            tag: "v2.0.0".into(),
            message: Some("second\u{1b}[2J".into()),
            files: new,
        },
    ];
    write_repo(dir.path(), &snaps, 1_600_000_000, 3600).expect("the repository is written");
    let opts = HistoryOptions {
        worktree: false,
        ..HistoryOptions::default()
    };
    let Ok(project) = load::load(dir.path(), &opts, |_, _| {}) else {
        return;
    };
    let mut settings = Config::default().settings().expect("the default settings");

    // log, as text and JSON.
    if let Ok(analysis) = policy::analyze(&project, &settings) {
        shown(&report::log::to_text(&project, &analysis, None));
        json(&report::log::to_json(&project, &analysis, None));
    }

    // The pair, as `diff` shows it.
    let v = &project.versions;
    if let [a, b] = &v[..]
        && let (Some(sa), Some(sb)) = (Side::of(a), Side::of(b))
    {
        let changes = judge(&sa, &sb, &Scope::Whole, &settings.ignores);
        shown(&report::diff::to_text(
            a.name(),
            b.name(),
            None,
            &changes,
            |_| None,
        ));
        json(&report::diff::to_json(a.name(), b.name(), None, &changes));
    }

    // The gate, under every policy.
    if v.len() == 2 {
        for policy in [
            Policy::Backward,
            Policy::Forward,
            Policy::Full,
            Policy::DenyAll,
        ] {
            settings.policy = Some(policy.clone());
            let cmp = policy::comparer(&project, &settings);
            let r = gate::run(
                &cmp,
                &gate::GateInput {
                    subject: VersionId::at(1),
                    base: VersionId::at(0),
                    version: None,
                    policy: &policy,
                    settings: &settings,
                    // Round trips of hostile schemas, once per input.
                    prove: matches!(policy, Policy::Full),
                },
            );
            shown(&report::check::to_text(&r));
            shown(&report::check::to_github(&r));
            json(&report::check::to_json(&r));
            json(&report::check::to_sarif(&r));
        }
    }

    // Every message's graph and blame.
    for version in v {
        let Some(schema) = version.schema() else {
            continue;
        };
        let content = &schema.content;
        for name in content.messages.keys().take(MAX_ROOTS) {
            let g = graph::build(content, name);
            shown(&report::graph::to_text(content, &g));
            shown(&report::graph::to_dot(&g));
            shown(&report::graph::to_mermaid(&g));
            json(&g);
            let l = lifecycle(v, name);
            // At the default width and at one too narrow for its columns.
            shown(&report::blame::to_text(&l, report::blame::DEFAULT_WIDTH));
            shown(&report::blame::to_text(&l, 12));
            json(&l);
        }
    }
}

/// Text for a terminal or a log: no raw control character but the line break, no bidi
/// override.
fn shown(text: &str) {
    if let Some(c) = text.chars().find(|&c| unsafe_char(c)) {
        panic!("raw {c:?} in output:\n{}", text.escape_debug());
    }
}

/// JSON as printed (`sanitize::json`): it parses back, and holds no raw control character.
fn json(value: &impl serde::Serialize) {
    let text = sanitize::json(serde_json::to_string_pretty(value).expect("serializes"));
    shown(&text);
    serde_json::from_str::<serde_json::Value>(&text).expect("the printed JSON parses back");
}

fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
}
