//! `graph`: the type graph a root reaches in one version.

use anyhow::{Result, anyhow};

use protolapse::judge::Scope;
use protolapse::report;
use protolapse::schema::graph;

use super::{Opened, compiled, find_version, pretty};

/// Output formats of `graph`.
pub enum GraphOut {
    Text,
    Dot,
    Mermaid,
    Json,
}

/// `protolapse graph [--at VERSION] --root MSG`; without `at`, the newest version.
pub fn graph(
    opened: &Opened,
    at: Option<&str>,
    root: Option<&str>,
    out: GraphOut,
) -> Result<String> {
    let version = match at {
        Some(at) => find_version(&opened.project, at)?,
        None => opened
            .project
            .versions
            .last()
            .ok_or_else(|| anyhow!("no version to show"))?,
    };
    let version = compiled(version, "")?;
    let root = root.ok_or_else(|| {
        anyhow!(
            "which root? pass --root MSG (a message or service), or set `root` in protolapse.toml"
        )
    })?;
    let scope = Scope::resolve(Some(root), [version], || version.name().to_string())?;
    let content = &version.compiled.schema.content;
    let g = graph::build(content, scope.root().unwrap_or(root));
    Ok(match out {
        GraphOut::Text => report::graph::to_text(content, &g),
        GraphOut::Dot => report::graph::to_dot(&g),
        GraphOut::Mermaid => report::graph::to_mermaid(&g),
        GraphOut::Json => pretty(&g)?,
    })
}
