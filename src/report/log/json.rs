//! The JSON of `protolapse log`, a documented contract (docs/json.md): every version with
//! its compile status, fingerprints, the bump against its previous relevant version, the
//! semver verdict, the policy result, hazards and package rules.

use serde::Serialize;

use crate::history::{SkippedTag, VersionKind, format_date};
use crate::judge::Counts;
use crate::judge::Scope;
use crate::load::VersionId;
use crate::load::{Loaded, Project};
use crate::policy::buffrs::PackageViolation;
use crate::policy::{Analysis, Hazard, PolicyResult, SemverVerdict};
use crate::rules::{Bump, Change};
use crate::schema::graph::build;
use crate::schema::{Diagnostic, HowCompiled, Status, fingerprint};

#[derive(Serialize)]
pub struct LogJson<'a> {
    pub versions: Vec<VersionJson<'a>>,
    pub root: Option<&'a str>,
    pub skipped: &'a [SkippedTag],
    /// The policy evaluated (`--policy`), its level and strictness.
    pub policy: Option<PolicyJson<'a>>,
    /// Every history-wide hazard, in the order they show.
    pub hazards: Vec<HazardJson<'a>>,
}

#[derive(Serialize)]
pub struct PolicyJson<'a> {
    pub name: &'a str,
    pub level: &'a str,
    pub strict: bool,
}

#[derive(Serialize)]
pub struct HazardJson<'a> {
    pub kind: &'a str,
    pub element: &'a str,
    pub number: Option<i64>,
    pub versions: &'a [String],
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<&'a str>,
}

impl<'a> HazardJson<'a> {
    fn of(h: &'a Hazard) -> HazardJson<'a> {
        HazardJson {
            kind: h.kind.as_str(),
            element: &h.element,
            number: h.number,
            versions: &h.versions,
            message: &h.message,
            ignored: h.ignored.as_deref(),
        }
    }
}

/// A policy result as the contract shows it.
#[derive(Serialize)]
pub struct VersionPolicyJson<'a> {
    pub name: &'a str,
    pub pass: bool,
    /// False when what decides the result was not read (a file did not compile) and no
    /// change that was read fails it: then `pass` is false too, and it is no failure.
    pub judged: bool,
    /// Why it is not judged (or not fully: a failure found stands).
    pub not_judged: Option<&'a str>,
    pub against: Option<&'a str>,
    pub first_violation: Option<&'a Change>,
    pub direction: Option<&'a str>,
    pub failed_against: &'a [String],
    pub warnings: usize,
    pub note: Option<&'a str>,
}

impl<'a> VersionPolicyJson<'a> {
    fn of(p: &'a PolicyResult) -> VersionPolicyJson<'a> {
        VersionPolicyJson {
            name: &p.name,
            pass: p.pass,
            judged: !p.unjudged(),
            not_judged: p.not_judged.as_deref(),
            against: p.against.as_deref(),
            first_violation: p.first_violation.as_ref().map(|v| &v.change),
            direction: p.first_violation.as_ref().map(|v| v.direction.as_str()),
            failed_against: &p.failed_against,
            warnings: p.warnings,
            note: p.note.as_deref(),
        }
    }
}

#[derive(Serialize)]
pub struct VersionJson<'a> {
    pub name: &'a str,
    /// The version number parsed from the name (`semver` before issue 4; see docs/json.md).
    pub version: Option<String>,
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
    /// How the version was compiled: files compiled by protox and by protoc, and the files
    /// that came from elsewhere than the proto roots (by origin).
    pub compiled_by: &'a HowCompiled,
    /// How imports were resolved in the tree (links followed, vendored copies, lookups).
    pub resolution: &'a [String],
    /// buf dependency modules and the commits `buf.lock` pins them at.
    pub dependencies: &'a [crate::history::DepPin],
    /// The version it is compared with (its previous relevant version that compiled).
    pub previous: Option<&'a str>,
    /// The bump of the version number from `previous`.
    pub bump: Option<Bump>,
    /// The bump the changes since `previous` require.
    pub required_bump: Option<Bump>,
    pub semver: SemverVerdict,
    pub semver_reason: &'a str,
    /// Why the version is not judged in the scope (it did not compile, its root is not in
    /// the files that compiled, or some of its changes are in a file that did not compile);
    /// None when it is judged.
    pub not_judged: Option<&'a str>,
    /// The changes since `previous`, by their worst verdict.
    pub changes: Counts,
    pub policy: Option<VersionPolicyJson<'a>>,
    pub hazards: Vec<HazardJson<'a>>,
    /// buffrs package rules this version breaks (with a `Proto.toml`).
    pub package: &'a [PackageViolation],
}

/// The closure fingerprint of the scope's root in one version, if the root exists there.
pub fn root_fingerprint(v: &Loaded, scope: &Scope) -> Option<String> {
    let content = &v.schema()?.content;
    let root = scope.root().filter(|_| scope.present_in(content))?;
    let g = build(content, root);
    Some(fingerprint::of_types(content, g.names()))
}

/// [`root_fingerprint`] of every version, once per compiled schema (versions with one file
/// set share it), on every core.
fn root_fingerprints(project: &Project, scope: &Scope) -> Vec<Option<String>> {
    use rayon::prelude::*;
    use std::collections::HashMap;
    if scope.root().is_none() {
        return vec![None; project.versions.len()];
    }
    let address = |v: &Loaded| {
        let schema = std::sync::Arc::as_ptr(&v.compiled.schema) as usize;
        (schema, v.schema().is_some())
    };
    let mut first: HashMap<(usize, bool), &Loaded> = HashMap::new();
    for v in &project.versions {
        first.entry(address(v)).or_insert(v);
    }
    let distinct: Vec<((usize, bool), &Loaded)> = first.into_iter().collect();
    let of: HashMap<(usize, bool), Option<String>> = distinct
        .par_iter()
        .map(|&(a, v)| (a, root_fingerprint(v, scope)))
        .collect();
    project
        .versions
        .iter()
        .map(|v| of.get(&address(v)).cloned().flatten())
        .collect()
}

fn name_of(project: &Project, id: Option<VersionId>) -> Option<&str> {
    project.get(id?).map(Loaded::name)
}

pub fn to_json<'a>(
    project: &'a Project,
    analysis: &'a Analysis,
    policy: Option<PolicyJson<'a>>,
) -> LogJson<'a> {
    let root = analysis.scope.root();
    let roots = root_fingerprints(project, &analysis.scope);
    let versions = project
        .versions
        .iter()
        .zip(&analysis.versions)
        .zip(roots)
        .map(|((v, r), root_fingerprint)| {
            let schema = &v.compiled.schema;
            VersionJson {
                name: &v.version.name,
                version: v.version.semver.as_ref().map(|s| s.to_string()),
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
                root_fingerprint,
                unchanged_since: name_of(project, v.unchanged_since),
                same_as: name_of(project, v.same_as),
                kind: v.version.kind,
                message: v.version.message.as_deref(),
                proto_roots: &v.version.proto_roots,
                diagnostics: &v.compiled.diagnostics,
                compiled_by: &v.compiled.how,
                resolution: &v.version.resolution,
                dependencies: &v.version.dependencies,
                previous: r
                    .previous
                    .and_then(|p| project.get(p))
                    .map(|p| p.version.name.as_str()),
                bump: r.semver.bump,
                required_bump: r.semver.required,
                semver: r.semver.verdict,
                semver_reason: &r.semver.reason,
                not_judged: r.not_judged.as_deref(),
                changes: r.counts,
                policy: r.policy.as_ref().map(VersionPolicyJson::of),
                hazards: r
                    .hazards
                    .iter()
                    .filter_map(|&k| analysis.hazards.get(k))
                    .map(HazardJson::of)
                    .collect(),
                package: &r.package,
            }
        })
        .collect();
    LogJson {
        versions,
        root,
        skipped: &project.skipped,
        policy,
        hazards: analysis.hazards.iter().map(HazardJson::of).collect(),
    }
}
