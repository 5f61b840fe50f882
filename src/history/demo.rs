//! The built-in demo history, and writing snapshot histories into a new git repository (for
//! `--demo`, tests and the benchmark). Only ever writes into a folder it is given.

use std::path::Path;

use git2::{IndexAddOption, Repository, Signature, Time};
use serde::Deserialize;

use super::HistoryError;

include!(concat!(env!("OUT_DIR"), "/demo_files.rs"));

/// One tagged commit: the whole tree as (path, text).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Empty: a commit with no tag.
    pub tag: String,
    /// The annotated tag's message; `None` makes a lightweight tag. Without a tag: the
    /// commit's message.
    pub message: Option<String>,
    pub files: Vec<(String, String)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoIndex {
    /// The root the terminal UI opens on, and the version it selects.
    root: Option<String>,
    open: Option<String>,
    version: Vec<DemoVersion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DemoVersion {
    tag: String,
    message: String,
}

fn index() -> Result<DemoIndex, HistoryError> {
    let index = DEMO_FILES
        .iter()
        .find(|(p, _)| *p == "history.toml")
        .ok_or_else(|| HistoryError::Demo("assets/demo/history.toml is missing".into()))?;
    toml::from_str(index.1).map_err(|e| HistoryError::Demo(format!("history.toml: {e}")))
}

/// Where the terminal UI opens the demo (`root` and `open` in `assets/demo/history.toml`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Start {
    pub root: Option<String>,
    /// The version selected at start (else the newest).
    pub version: Option<String>,
}

pub fn start() -> Result<Start, HistoryError> {
    let i = index()?;
    Ok(Start {
        root: i.root,
        version: i.open,
    })
}

/// The demo's snapshots, from `assets/demo/history.toml` and one folder per tag.
pub fn snapshots() -> Result<Vec<Snapshot>, HistoryError> {
    index()?
        .version
        .into_iter()
        .map(|v| {
            let prefix = format!("{}/", v.tag);
            let files: Vec<(String, String)> = DEMO_FILES
                .iter()
                .filter_map(|(p, text)| {
                    p.strip_prefix(&prefix)
                        .map(|rel| (rel.to_string(), text.to_string()))
                })
                .collect();
            if files.is_empty() {
                return Err(HistoryError::Demo(format!(
                    "history.toml names {} but assets/demo/{} has no files",
                    v.tag, v.tag
                )));
            }
            Ok(Snapshot {
                tag: v.tag,
                message: Some(v.message),
                files,
            })
        })
        .collect()
}

/// Builds the demo repository in a new temporary folder (removed when dropped).
pub fn build() -> Result<tempfile::TempDir, HistoryError> {
    let dir = crate::scratch::folder(crate::scratch::Kind::Demo)
        .map_err(|e| HistoryError::Demo(format!("cannot create a temporary folder: {e}")))?;
    write_repo(dir.path(), &snapshots()?, 1_704_067_200, 30 * 86_400)?;
    Ok(dir)
}

/// Writes `snapshots` into a new repository at `dir`, one commit and tag each (no tag for a
/// snapshot whose tag is empty), with a pinned author and commit times `start + i * step`
/// (seconds, UTC).
pub fn write_repo(
    dir: &Path,
    snapshots: &[Snapshot],
    start: i64,
    step: i64,
) -> Result<(), HistoryError> {
    let err = |e: git2::Error| HistoryError::Demo(e.message().to_string());
    let io = |e: std::io::Error| HistoryError::Demo(e.to_string());
    let repo = Repository::init(dir).map_err(err)?;
    let mut parent: Option<git2::Oid> = None;
    for (i, snap) in snapshots.iter().enumerate() {
        // Replace the work tree with the snapshot.
        for entry in std::fs::read_dir(dir).map_err(io)?.flatten() {
            if entry.file_name() == ".git" {
                continue;
            }
            let p = entry.path();
            if p.is_dir() {
                std::fs::remove_dir_all(&p).map_err(io)?;
            } else {
                std::fs::remove_file(&p).map_err(io)?;
            }
        }
        for (path, text) in &snap.files {
            let full = dir.join(path);
            if let Some(parent) = full.parent() {
                std::fs::create_dir_all(parent).map_err(io)?;
            }
            std::fs::write(&full, text).map_err(io)?;
        }
        let mut index = repo.index().map_err(err)?;
        index.clear().map_err(err)?;
        index
            .add_all(["*"], IndexAddOption::FORCE, None)
            .map_err(err)?;
        index.write().map_err(err)?;
        let tree_id = index.write_tree().map_err(err)?;
        let tree = repo.find_tree(tree_id).map_err(err)?;
        let when = Time::new(start + step * i as i64, 0);
        let sig = Signature::new("protolapse demo", "demo@example.invalid", &when).map_err(err)?;
        let parents: Vec<git2::Commit<'_>> = match parent {
            Some(p) => vec![repo.find_commit(p).map_err(err)?],
            None => Vec::new(),
        };
        let parent_refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        let commit = repo
            .commit(
                Some("HEAD"),
                &sig,
                &sig,
                &match (&snap.message, snap.tag.is_empty()) {
                    (Some(m), true) => m.clone(),
                    _ => format!("release {}", snap.tag),
                },
                &tree,
                &parent_refs,
            )
            .map_err(err)?;
        parent = Some(commit);
        let object = repo.find_object(commit, None).map_err(err)?;
        if snap.tag.is_empty() {
            continue;
        }
        match &snap.message {
            Some(message) => repo.tag(&snap.tag, &object, &sig, message, false),
            None => repo.tag_lightweight(&snap.tag, &object, false),
        }
        .map_err(err)?;
    }
    Ok(())
}
