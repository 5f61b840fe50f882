//! `protolapse log`: every version with its compile status, size, fingerprint and whether
//! its content changed. The JSON shape is a documented contract (docs/json.md).

use serde::Serialize;

use crate::history::{SkippedTag, VersionKind, format_date};
use crate::load::{Loaded, Project};
use crate::sanitize;
use crate::schema::graph::{RootMatch, build, resolve_root};
use crate::schema::{Diagnostic, Status, fingerprint};

#[derive(Serialize)]
pub struct LogJson<'a> {
    pub versions: Vec<VersionJson<'a>>,
    pub root: Option<&'a str>,
    pub skipped: &'a [SkippedTag],
}

#[derive(Serialize)]
pub struct VersionJson<'a> {
    pub name: &'a str,
    pub semver: Option<String>,
    pub commit: &'a str,
    pub date: String,
    pub status: Status,
    /// Files of the repository that compiled.
    pub files: usize,
    pub files_total: usize,
    pub messages: usize,
    pub enums: usize,
    pub services: usize,
    pub fingerprint: Option<&'a str>,
    /// Fingerprint of the closure of `--root` (None without a root, or when the root is
    /// not in this version).
    pub root_fingerprint: Option<String>,
    pub unchanged_since: Option<&'a str>,
    pub same_as: Option<&'a str>,
    pub kind: VersionKind,
    pub message: Option<&'a str>,
    pub proto_roots: &'a [String],
    pub diagnostics: &'a [Diagnostic],
}

/// The closure fingerprint of `root` in one version, if the root exists there.
pub fn root_fingerprint(v: &Loaded, root: &str) -> Option<String> {
    if v.compiled.status == Status::Failed {
        return None;
    }
    let content = &v.compiled.schema.content;
    match resolve_root(content, root) {
        RootMatch::Found(name) => {
            let g = build(content, &name);
            Some(fingerprint::of_types(content, g.names()))
        }
        _ => None,
    }
}

pub fn to_json<'a>(project: &'a Project, root: Option<&'a str>) -> LogJson<'a> {
    let versions = project
        .versions
        .iter()
        .map(|v| {
            let schema = &v.compiled.schema;
            VersionJson {
                name: &v.version.name,
                semver: v.version.semver.as_ref().map(|s| s.to_string()),
                commit: &v.version.commit,
                date: format_date(v.version.time, v.version.offset_minutes),
                status: v.compiled.status,
                files: v.compiled.files_ok,
                files_total: v.compiled.files_total,
                messages: schema.own_messages().count(),
                enums: schema
                    .content
                    .enums
                    .values()
                    .filter(|e| {
                        schema
                            .content
                            .files
                            .get(&e.file)
                            .is_some_and(|f| !f.external)
                    })
                    .count(),
                services: schema.content.services.len(),
                fingerprint: v.fingerprint(),
                root_fingerprint: root.and_then(|r| root_fingerprint(v, r)),
                unchanged_since: v.unchanged_since.as_deref(),
                same_as: v.same_as.as_deref(),
                kind: v.version.kind,
                message: v.version.message.as_deref(),
                proto_roots: &v.version.proto_roots,
                diagnostics: &v.compiled.diagnostics,
            }
        })
        .collect();
    LogJson {
        versions,
        root,
        skipped: &project.skipped,
    }
}

/// The text table.
pub fn to_text(project: &Project, root: Option<&str>) -> String {
    let json = to_json(project, root);
    let name_w = json
        .versions
        .iter()
        .map(|v| sanitize::line(v.name).chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let mut out = String::new();
    let fp_head = if root.is_some() {
        "ROOT FP"
    } else {
        "FINGERPRINT"
    };
    out.push_str(&format!(
        "{:<name_w$}  {:<10}  {:<7}  {:<14}  {:>5}  {:>5}  {:<12}  {}\n",
        "VERSION", "DATE", "COMMIT", "STATUS", "FILES", "MSGS", fp_head, "NOTES"
    ));
    for v in &json.versions {
        let status = match v.status {
            Status::Complete => "complete".to_string(),
            Status::Partial => format!("partial {}/{}", v.files, v.files_total),
            Status::Failed => "failed".to_string(),
        };
        let fp = if root.is_some() {
            v.root_fingerprint.as_deref().unwrap_or("-")
        } else {
            v.fingerprint.unwrap_or("-")
        };
        let mut notes = Vec::new();
        if let Some(since) = v.unchanged_since {
            notes.push(format!("unchanged since {}", sanitize::line(since)));
        } else if let Some(same) = v.same_as {
            notes.push(format!("same content as {}", sanitize::line(same)));
        }
        if root.is_some() && v.root_fingerprint.is_none() && v.status != Status::Failed {
            notes.push("root not in this version".into());
        }
        if let Some(d) = v.diagnostics.first() {
            let more = v.diagnostics.len() - 1;
            let more = if more > 0 {
                format!(" (+{more} more)")
            } else {
                String::new()
            };
            notes.push(format!("{}{more}", sanitize::line(&d.to_string())));
        }
        out.push_str(&format!(
            "{:<name_w$}  {:<10}  {:<7}  {:<14}  {:>5}  {:>5}  {:<12}  {}\n",
            sanitize::line(v.name),
            v.date,
            v.commit.get(..7).unwrap_or(v.commit),
            status,
            v.files,
            v.messages,
            fp.get(..12).unwrap_or(fp),
            notes.join("; ")
        ));
    }
    for s in json.skipped {
        out.push_str(&format!(
            "skipped tag {}: {}\n",
            sanitize::line(&s.name),
            sanitize::line(&s.reason)
        ));
    }
    let total = json.versions.len();
    let count = |s: Status| json.versions.iter().filter(|v| v.status == s).count();
    out.push_str(&format!(
        "{total} versions: {} complete, {} partial, {} failed; {} distinct schemas\n",
        count(Status::Complete),
        count(Status::Partial),
        count(Status::Failed),
        json.versions
            .iter()
            .filter(|v| v.status != Status::Failed && v.same_as.is_none())
            .count()
    ));
    out
}
