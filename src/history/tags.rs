//! Which tags become versions: the tags a glob (or, without one, semver) selects, each peeled
//! to its commit and its annotated message, and what to say when none is selected.

use std::path::Path;

use git2::{ObjectType, Oid, Repository};

use super::order::{parse_tag_version, tag_prefix};
use super::{HistoryError, HistoryOptions, SkippedTag};

/// A selected tag, peeled to its commit.
pub(super) struct Tag {
    pub name: String,
    /// The version the tag names (after the glob's prefix), if it is semver.
    pub semver: Option<semver::Version>,
    pub commit: Oid,
    /// The first annotated tag's message, if any.
    pub message: Option<String>,
}

/// The repository's tags, as `opts` selects them.
#[derive(Default)]
pub(super) struct Tags {
    pub selected: Vec<Tag>,
    /// Selected tags that do not lead to a commit, and why.
    pub skipped: Vec<SkippedTag>,
    /// Every tag name seen, selected or not, for the message when nothing is selected.
    pub seen: Vec<String>,
}

/// Lists the tags of `repo` (whose top folder is `root`) and peels the selected ones.
pub(super) fn list(
    repo: &Repository,
    root: &Path,
    opts: &HistoryOptions,
) -> Result<Tags, HistoryError> {
    let git_err = |e: git2::Error| HistoryError::Git {
        path: root.to_path_buf(),
        message: e.message().to_string(),
    };
    let prefix = opts.tags.as_deref().map(tag_prefix).unwrap_or("");
    let pattern = match &opts.tags {
        Some(g) => Some(glob::Pattern::new(g).map_err(|e| HistoryError::BadGlob {
            glob: g.clone(),
            message: e.to_string(),
        })?),
        None => None,
    };

    let mut tags = Tags {
        selected: Vec::new(),
        skipped: Vec::new(),
        seen: Vec::new(),
    };
    for reference in repo.references_glob("refs/tags/*").map_err(git_err)? {
        let Ok(reference) = reference else { continue };
        let Some(name) = reference
            .name()
            .ok()
            .and_then(|n| n.strip_prefix("refs/tags/"))
        else {
            continue;
        };
        let name = name.to_string();
        tags.seen.push(name.clone());
        let selected = match &pattern {
            Some(p) => p.matches(&name),
            None => parse_tag_version(&name, "").is_some(),
        };
        if !selected {
            continue;
        }
        let Some(target) = reference.target() else {
            continue;
        };
        match peel_tag(repo, target) {
            Ok((commit, message)) => tags.selected.push(Tag {
                semver: parse_tag_version(&name, prefix),
                name,
                commit,
                message,
            }),
            Err(reason) => tags.skipped.push(SkippedTag { name, reason }),
        }
    }
    Ok(tags)
}

/// Follows a tag (possibly a chain of annotated tags) to its commit; returns the first
/// annotated tag's message. A tag on a tree or blob is an error with the reason.
fn peel_tag(repo: &Repository, target: Oid) -> Result<(Oid, Option<String>), String> {
    let mut object = repo
        .find_object(target, None)
        .map_err(|e| format!("cannot read the tagged object: {}", e.message()))?;
    let mut message = None;
    for _ in 0..64 {
        match object.kind() {
            Some(ObjectType::Tag) => {
                let tag = object
                    .as_tag()
                    .ok_or_else(|| "cannot read the annotated tag".to_string())?;
                if message.is_none() {
                    message = tag
                        .message()
                        .ok()
                        .flatten()
                        .map(|m| m.trim_end().to_string());
                }
                object = tag
                    .target()
                    .map_err(|e| format!("cannot read the tag's target: {}", e.message()))?;
            }
            Some(ObjectType::Commit) => return Ok((object.id(), message)),
            Some(ObjectType::Tree) => return Err("the tag points to a tree, not a commit".into()),
            Some(ObjectType::Blob) => return Err("the tag points to a blob, not a commit".into()),
            _ => return Err("the tag points to an object of unknown kind".into()),
        }
    }
    Err("the tag is a chain of more than 64 tags".into())
}

/// The error when nothing was selected: what the selection was, the tags that were there
/// (`seen`), and how to select others.
pub(super) fn none_selected(seen: &[String], opts: &HistoryOptions, root: &Path) -> HistoryError {
    let shown: Vec<&str> = seen.iter().take(8).map(String::as_str).collect();
    let what = match &opts.tags {
        Some(g) => format!("no tag matches `{g}`"),
        None => "no tag is a semver version (like v1.2.3 or 1.2.3)".to_string(),
    };
    let seen_text = if seen.is_empty() {
        "the repository has no tags".to_string()
    } else {
        format!(
            "{} tags seen: {}{}",
            seen.len(),
            shown.join(", "),
            if seen.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        )
    };
    HistoryError::NoVersions(format!(
        "no versions to load from {}: {what} ({seen_text})\n  help: select tags with --tags GLOB (for example --tags 'physics/v*'), or add a revision with --rev REV",
        root.display()
    ))
}
