//! The layer boundaries of STYLE.md, checked on the source: only `history/` uses git2, only
//! `schema/` uses protox and prost-reflect, nothing but `ui/` knows a terminal (ratatui,
//! crossterm), `ui/` knows no git, and the lower layers never reach up.

use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

fn uses(text: &str, krate: &str) -> bool {
    text.lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with("//"))
        .any(|l| l.contains(&format!("{krate}::")) || l.starts_with(&format!("use {krate}")))
}

#[test]
fn each_dependency_stays_in_its_layer() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 10);
    let rules: &[(&str, &[&str])] = &[
        ("git2", &["src/history/"]),
        ("protox", &["src/schema/"]),
        ("prost_reflect", &["src/schema/"]),
        ("prost_types", &["src/schema/"]),
        ("ratatui", &["src/ui/"]),
        ("crossterm", &["src/ui/"]),
        ("fuzzy_matcher", &["src/explore/"]),
    ];
    let mut bad = Vec::new();
    for (path, text) in &files {
        for (krate, allowed) in rules {
            if uses(text, krate) && !allowed.iter().any(|a| path.starts_with(a)) {
                bad.push(format!("{path} uses {krate}"));
            }
        }
        let below_ui = [
            "src/history/",
            "src/schema/",
            "src/load/",
            "src/judge/",
            "src/report/",
            "src/config.rs",
            "src/explore/",
            "src/policy/",
            "src/rules/",
            "src/diff/",
            "src/prove/",
        ];
        if below_ui.iter().any(|p| path.starts_with(p)) && text.contains("crate::ui") {
            bad.push(format!("{path} reaches up into ui"));
        }
        if path.starts_with("src/ui/") && (uses(text, "git2") || text.contains("git2::")) {
            bad.push(format!("{path}: the UI knows nothing of git"));
        }
        if path.starts_with("src/explore/")
            && (text.contains("crate::history::load")
                || text.contains("crate::report")
                || uses(text, "ratatui")
                || uses(text, "crossterm"))
        {
            bad.push(format!(
                "{path}: explore computes what the UI shows, without a terminal or git"
            ));
        }
        if path.starts_with("src/diff/")
            && (text.contains("crate::rules") || text.contains("crate::history"))
        {
            bad.push(format!("{path}: diff pairs, it does not judge or read git"));
        }
        if path.starts_with("src/rules/")
            && (text.contains("crate::history")
                || text.contains("crate::load")
                || text.contains("crate::report"))
        {
            bad.push(format!("{path}: rules see only schema and diff"));
        }
        if path.starts_with("src/policy/")
            && (text.contains("crate::report")
                || text.contains("crate::config")
                || text.contains("git2"))
        {
            bad.push(format!(
                "{path}: policy judges data; it neither renders nor reads config or git"
            ));
        }
        if path.starts_with("src/prove/")
            && (text.contains("crate::history")
                || text.contains("crate::load")
                || text.contains("crate::report"))
        {
            bad.push(format!("{path}: prove sees only schema and rules"));
        }
        if path.starts_with("src/schema/") && text.contains("crate::history") {
            bad.push(format!("{path}: schema must not see git history"));
        }
        if path.starts_with("src/history/")
            && (text.contains("crate::schema") || text.contains("crate::load"))
        {
            bad.push(format!("{path}: history must not use schema or load"));
        }
    }
    assert!(bad.is_empty(), "layer violations:\n{}", bad.join("\n"));
}

/// The layer map of `src/lib.rs`, bottom up: a module may use the modules of its own rank
/// and below, never one above it (`load` uses `history` and `schema`; `judge` uses `load`;
/// `policy` uses `judge`; the UI uses everything).
#[test]
fn no_layer_reaches_up() {
    let ranks: &[(&str, u8)] = &[
        ("history", 1),
        ("schema", 1),
        ("diff", 2),
        ("rules", 3),
        ("load", 4),
        ("prove", 4),
        ("judge", 5),
        ("policy", 6),
        ("config", 7),
        ("report", 7),
        ("explore", 8),
        ("ui", 9),
    ];
    let rank = |m: &str| ranks.iter().find(|(n, _)| *n == m).map(|(_, r)| *r);
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut bad = Vec::new();
    for (path, text) in &files {
        let Some(module) = path
            .strip_prefix("src/")
            .and_then(|p| p.split(['/', '.']).next())
        else {
            continue;
        };
        let Some(mine) = rank(module) else { continue };
        for (other, theirs) in ranks {
            let used = [
                format!("crate::{other}::"),
                format!("crate::{other};"),
                format!("crate::{{{other}"),
            ]
            .iter()
            .any(|p| text.contains(p.as_str()));
            if *theirs > mine && used {
                bad.push(format!("{path} ({module}) uses {other}, a layer above it"));
            }
        }
    }
    assert!(bad.is_empty(), "upward imports:\n{}", bad.join("\n"));
}
