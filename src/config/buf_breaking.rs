//! A `buf.yaml` `breaking:` section (v1beta1, v1, v2; in v2 top-level or per module under
//! `modules:`), mapped once onto protolapse's own settings: `use` to a [`Level`] (FILE and
//! PACKAGE: `source`; WIRE_JSON: `json`; WIRE: `wire`; single rule ids: `source`, with every
//! other rule ignored), `except`, `ignore`, `ignore_only` and `ignore_unstable_packages` to
//! [`IgnoreRule`]s. A buf rule id names protolapse's rules through the rule table's nearest
//! buf rule (`rules::Rule::buf`), widened by [`FAMILIES`] for buf ids no rule names. Read from
//! the working tree (its `buf.yaml`, and those of a `buf.work.yaml`'s directories), like
//! `protolapse.toml`, whose keys win (see `Config::settings`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::ConfigError;
use super::buf_rules::{BUF_RULES, CATEGORIES, FAMILIES, file_option};
use crate::judge::IgnoreRule;
use crate::rules::{Level, RULES, RuleId};

pub const FILE_NAME: &str = "buf.yaml";

/// What a `buf.yaml` says about breaking changes, mapped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BufBreaking {
    /// The level `use` maps to; None when the file has no `breaking:` section.
    pub level: Option<Level>,
    pub ignores: Vec<IgnoreRule>,
    /// One line for the reports: `buf.yaml breaking (use: WIRE; except: 1; ignore: 2)`.
    pub summary: String,
}

/// The protolapse rules a buf rule id names: those whose nearest buf rule is it or one of
/// its family. Empty for a buf rule protolapse has no counterpart for.
pub fn rules_for(buf_id: &str) -> Vec<RuleId> {
    let family: &[&str] = FAMILIES
        .iter()
        .find(|f| f.contains(&buf_id))
        .copied()
        .unwrap_or(&[]);
    RULES
        .iter()
        .filter(|r| {
            !r.buf.is_empty()
                && (r.buf == buf_id
                    || family.contains(&r.buf)
                    || (file_option(buf_id) && file_option(r.buf)))
        })
        .map(|r| r.id)
        .collect()
}

/// The level a category maps to.
fn category_level(c: &str) -> Option<Level> {
    match c {
        "FILE" | "PACKAGE" => Some(Level::Source),
        "WIRE_JSON" => Some(Level::Json),
        "WIRE" | "CSR" => Some(Level::Wire),
        _ => None,
    }
}

/// Strictness, to pick one level for several categories: source, then json, then wire.
fn rank(l: Level) -> u8 {
    match l {
        Level::Wire => 0,
        Level::Json => 1,
        Level::Source => 2,
    }
}

#[derive(Deserialize, Default)]
struct Doc {
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    breaking: Option<serde_norway::Value>,
    #[serde(default)]
    modules: Vec<Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    breaking: Option<serde_norway::Value>,
}

/// The `breaking:` keys buf takes.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct Section {
    #[serde(default, rename = "use")]
    use_: Option<Vec<String>>,
    #[serde(default)]
    except: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    ignore_only: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    ignore_unstable_packages: bool,
    /// v2: turn off buf's built-in rules (for plugins); protolapse has only built-in rules.
    #[serde(default)]
    disable_builtin: bool,
}

/// The breaking configuration of the working tree at `root`: its `buf.yaml`, and the
/// `buf.yaml` of each `buf.work.yaml` directory (v1 workspaces), merged. None: no `buf.yaml`.
/// A file protolapse refuses to read (a link out of the repository, a device, too large) or
/// that is no YAML at all is skipped, as the history layer skips it, and the summary says
/// so; a malformed `breaking:` section is an error naming the file and the key.
pub fn load(root: &Path) -> Result<Option<BufBreaking>, ConfigError> {
    use crate::small_file::{Refused, read};
    let mut files = vec![FILE_NAME.to_string()];
    if let Ok(text) = read(root, "buf.work.yaml")
        && let Ok(dirs) = crate::history::parse_buf_work(&text)
    {
        files.extend(
            dirs.iter()
                .filter(|d| *d != "." && crate::config::check_proto_path(d).is_ok())
                .map(|d| format!("{d}/{FILE_NAME}")),
        );
    }
    let skipped = |file: &str, why: String| BufBreaking {
        summary: format!("{file} {why}: its breaking section is not used"),
        ..BufBreaking::default()
    };
    let mut found = Vec::new();
    for file in &files {
        match read(root, file) {
            Err(Refused::NotFound) => {}
            Err(e) => found.push(skipped(file, format!("not read ({e})"))),
            Ok(text) => match parse(file, &text).map_err(|message| ConfigError {
                path: root.join(file),
                message,
            })? {
                Some(b) => found.push(b),
                None => found.push(skipped(file, "does not parse".into())),
            },
        }
    }
    Ok((!found.is_empty()).then(|| merge(found, "files")))
}

/// Several sections (modules, or the files of a workspace) as one: the strictest level,
/// every exception, the summaries side by side.
fn merge(parts: Vec<BufBreaking>, what: &str) -> BufBreaking {
    let mut out = BufBreaking::default();
    let mut summaries: Vec<String> = Vec::new();
    for part in parts {
        if let Some(level) = part.level
            && out.level.is_none_or(|l| rank(level) > rank(l))
        {
            out.level = Some(level);
        }
        for i in part.ignores {
            if !out.ignores.contains(&i) {
                out.ignores.push(i);
            }
        }
        if !summaries.contains(&part.summary) {
            summaries.push(part.summary);
        }
    }
    out.summary = summaries.join("; ");
    if summaries.len() > 1 && out.level.is_some() {
        out.summary.push_str(&format!(
            " ({what} differ: the strictest level, every exception)"
        ));
    }
    out
}

/// Reads the breaking configuration of one `buf.yaml` (`file`, its path in the repository).
/// `Ok(None)`: the YAML does not parse at all (the history layer reports the file as a
/// problem of the version; nothing is guessed here). An error names the key.
pub fn parse(file: &str, text: &str) -> Result<Option<BufBreaking>, String> {
    let Ok(doc) = serde_norway::from_str::<Doc>(text) else {
        return Ok(None);
    };
    let v2 = doc.version.as_deref() == Some("v2");
    // (key, section, module folder to strip from its paths)
    let mut sections: Vec<(String, Section, String)> = Vec::new();
    let read = |key: &str, v: &serde_norway::Value| -> Result<Section, String> {
        serde_norway::from_value::<Section>(v.clone())
            .map_err(|e| format!("key `{key}`: {}", e.to_string().trim()))
    };
    let top = doc
        .breaking
        .as_ref()
        .filter(|v| !v.is_null())
        .map(|v| read("breaking", v))
        .transpose()?;
    if v2 && !doc.modules.is_empty() {
        for (i, m) in doc.modules.iter().enumerate() {
            let dir = crate::history::clean_path(m.path.as_deref().unwrap_or("."));
            match m.breaking.as_ref().filter(|v| !v.is_null()) {
                Some(v) => {
                    let key = format!("modules[{i}].breaking");
                    sections.push((key.clone(), read(&key, v)?, dir));
                }
                None => {
                    if let Some(t) = &top {
                        sections.push(("breaking".into(), t.clone(), dir));
                    }
                }
            }
        }
    } else if let Some(t) = top {
        sections.push(("breaking".into(), t, ".".into()));
    }
    if sections.is_empty() {
        return Ok(Some(BufBreaking {
            summary: format!(
                "{file} has no breaking section: protolapse's default level (not buf's implicit FILE)"
            ),
            ..BufBreaking::default()
        }));
    }
    let mut parts = Vec::new();
    for (key, s, dir) in &sections {
        let (level, ignores, summary) = map(file, key, s, dir, v2)?;
        parts.push(BufBreaking {
            level: Some(level),
            ignores,
            summary: format!("{file} {summary}"),
        });
    }
    Ok(Some(merge(parts, "modules")))
}

/// A `use` or `except` entry, checked: a category or a buf rule id.
fn check_id(key: &str, id: &str) -> Result<(), String> {
    if CATEGORIES.contains(&id) || BUF_RULES.contains(&id) {
        return Ok(());
    }
    // A category first: `WIR` is WIRE, not FIELD_WIRE_COMPATIBLE_TYPE.
    let mut close = crate::schema::graph::closest(CATEGORIES, id, 2);
    if close.is_empty() {
        close = crate::schema::graph::closest(BUF_RULES, id, 2);
    }
    Err(format!(
        "key `{key}`: `{}` is no buf category (FILE, PACKAGE, WIRE_JSON, WIRE) nor buf breaking rule{}",
        crate::sanitize::line(id),
        if close.is_empty() {
            String::new()
        } else {
            format!("; did you mean {}?", close.join(", "))
        }
    ))
}

/// One section: its level, its ignores, its summary.
fn map(
    file: &str,
    key: &str,
    s: &Section,
    dir: &str,
    v2: bool,
) -> Result<(Level, Vec<IgnoreRule>, String), String> {
    let mut ignores = Vec::new();
    let because = |what: String| Some(format!("{file} {key}.{what}"));
    let used: Vec<String> = s.use_.clone().unwrap_or_else(|| vec!["FILE".into()]);
    for id in &used {
        check_id(&format!("{key}.use"), id)?;
    }
    for id in &s.except {
        check_id(&format!("{key}.except"), id)?;
    }
    // Categories left after `except`, and single rules.
    let cats: Vec<&str> = used
        .iter()
        .map(String::as_str)
        .filter(|c| CATEGORIES.contains(c) && !s.except.iter().any(|e| e == c))
        .collect();
    let singles: Vec<&str> = used
        .iter()
        .map(String::as_str)
        .filter(|c| !CATEGORIES.contains(c))
        .collect();
    let level = cats
        .iter()
        .filter_map(|c| category_level(c))
        .max_by_key(|l| rank(*l))
        .unwrap_or(Level::Source);
    if cats.is_empty() && !singles.is_empty() {
        // Only the named rules count: every other rule is accepted.
        let kept: Vec<RuleId> = singles.iter().flat_map(|id| rules_for(id)).collect();
        for r in RuleId::ALL.iter().filter(|r| !kept.contains(r)) {
            ignores.push(IgnoreRule {
                rule: Some(r.as_str().to_string()),
                reason: because(format!("use: not among {}", singles.join(", "))),
                ..IgnoreRule::default()
            });
        }
    } else if cats.is_empty() {
        return Err(format!(
            "key `{key}`: `except` removes every category `use` names, so nothing would be checked"
        ));
    }
    for id in s
        .except
        .iter()
        .filter(|e| !CATEGORIES.contains(&e.as_str()))
    {
        for r in rules_for(id) {
            ignores.push(IgnoreRule {
                rule: Some(r.as_str().to_string()),
                reason: because(format!("except {id}")),
                ..IgnoreRule::default()
            });
        }
    }
    for p in &s.ignore {
        for path in path_globs(&format!("{key}.ignore"), p, dir, v2)? {
            ignores.push(IgnoreRule {
                path: Some(path),
                reason: because(format!("ignore {p}")),
                ..IgnoreRule::default()
            });
        }
    }
    for (id, paths) in &s.ignore_only {
        let at = format!("{key}.ignore_only");
        check_id(&at, id)?;
        // A category ignores every rule under the paths; a rule id its counterparts.
        let rules: Vec<Option<String>> = if CATEGORIES.contains(&id.as_str()) {
            vec![None]
        } else {
            rules_for(id)
                .into_iter()
                .map(|r| Some(r.as_str().to_string()))
                .collect()
        };
        for p in paths {
            for path in path_globs(&format!("{at}.{id}"), p, dir, v2)? {
                for rule in &rules {
                    ignores.push(IgnoreRule {
                        rule: rule.clone(),
                        path: Some(path.clone()),
                        reason: because(format!("ignore_only {id}: {p}")),
                        ..IgnoreRule::default()
                    });
                }
            }
        }
    }
    if s.ignore_unstable_packages {
        ignores.push(IgnoreRule {
            unstable_package: true,
            reason: because("ignore_unstable_packages".into()),
            ..IgnoreRule::default()
        });
    }
    let mut summary = format!("{key} (use: {}", used.join(", "));
    for (name, n) in [
        ("except", s.except.len()),
        ("ignore", s.ignore.len()),
        ("ignore_only", s.ignore_only.len()),
    ] {
        if n > 0 {
            summary.push_str(&format!("; {name}: {n}"));
        }
    }
    if s.ignore_unstable_packages {
        summary.push_str("; ignore_unstable_packages");
    }
    if s.disable_builtin {
        summary.push_str("; disable_builtin has no effect: protolapse's rules are built in");
    }
    summary.push(')');
    Ok((level, ignores, summary))
}

/// The globs over import paths that an ignored buf path (a file or a folder) covers. In v2
/// paths are relative to the `buf.yaml`'s folder, so the module's folder is taken off; in
/// v1 they are relative to the module root already.
fn path_globs(key: &str, path: &str, dir: &str, v2: bool) -> Result<Vec<glob::Pattern>, String> {
    crate::config::check_proto_path(path).map_err(|e| format!("key `{key}`: {e}"))?;
    let clean = crate::history::clean_path(path);
    let rel = if v2 && dir != "." {
        if clean == dir {
            ".".to_string()
        } else {
            clean
                .strip_prefix(&format!("{dir}/"))
                .map(str::to_string)
                .unwrap_or(clean)
        }
    } else {
        clean
    };
    let pattern =
        |g: &str| glob::Pattern::new(g).map_err(|e| format!("key `{key}`: bad path `{path}`: {e}"));
    if rel == "." {
        return Ok(vec![pattern("**")?]);
    }
    let escaped = glob::Pattern::escape(&rel);
    Ok(vec![pattern(&escaped)?, pattern(&format!("{escaped}/**"))?])
}

#[cfg(test)]
mod tests;
