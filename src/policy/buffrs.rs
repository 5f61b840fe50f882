//! buffrs packages (seed 002): when a version has a `Proto.toml`, its package rules apply —
//! a `lib` package declares no services (and so no rpcs), and every proto package of the
//! package's own files is the manifest's package name or below it (`physics`,
//! `physics.units`; dashes in the name read as underscores). The manifest's version is the
//! version `check` judges.

use serde::Serialize;

use crate::load::Loaded;
use crate::schema::Status;

/// buffrs package types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PackageType {
    Lib,
    Api,
    Impl,
}

/// The parts of a `Proto.toml` that protolapse reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub name: String,
    pub version: semver::Version,
    pub kind: PackageType,
}

/// Reads a `Proto.toml`; Ok(None) for a manifest without a `[package]` (a consumer-only or
/// workspace manifest).
pub fn parse(text: &str) -> Result<Option<Manifest>, String> {
    let value: toml::Table = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let Some(package) = value.get("package") else {
        return Ok(None);
    };
    let package = package
        .as_table()
        .ok_or("`package` must be a table ([package])")?;
    let get = |key: &str| -> Result<&str, String> {
        package
            .get(key)
            .ok_or_else(|| format!("[package] has no `{key}`"))?
            .as_str()
            .ok_or_else(|| format!("[package] `{key}` must be a string"))
    };
    let name = get("name")?.to_string();
    let version = get("version")?;
    let version = semver::Version::parse(version)
        .map_err(|e| format!("[package] version `{version}` is not semver: {e}"))?;
    let kind = match get("type")? {
        "lib" => PackageType::Lib,
        "api" => PackageType::Api,
        "impl" => PackageType::Impl,
        other => {
            return Err(format!(
                "[package] type `{other}` is not a buffrs package type (lib, api, impl)"
            ));
        }
    };
    Ok(Some(Manifest {
        name,
        version,
        kind,
    }))
}

/// A package rule a version breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackageViolation {
    /// `BUFFRS_MANIFEST_INVALID`, `BUFFRS_LIB_HAS_SERVICE` or `BUFFRS_PACKAGE_MISMATCH`.
    pub rule: &'static str,
    pub element: String,
    /// `file:line`, when known.
    pub location: Option<String>,
    pub message: String,
}

/// The package rules on one version whose manifest text is `text`.
pub fn check_text(text: &str, v: &Loaded) -> Vec<PackageViolation> {
    match parse(text) {
        Ok(Some(m)) => check(&m, v),
        Ok(None) => Vec::new(),
        Err(message) => vec![PackageViolation {
            rule: super::codes::BUFFRS_MANIFEST_INVALID,
            element: crate::history::BUFFRS_MANIFEST.to_string(),
            location: None,
            message: format!(
                "{}: {message}; help: see https://helsing-ai.github.io/buffrs (the manifest format)",
                crate::history::BUFFRS_MANIFEST
            ),
        }],
    }
}

/// The package rules on one version.
pub fn check(m: &Manifest, v: &Loaded) -> Vec<PackageViolation> {
    if v.compiled.status == Status::Failed {
        return Vec::new();
    }
    let schema = &v.compiled.schema;
    let own = |file: &str| {
        schema
            .content
            .files
            .get(file)
            .is_some_and(|f| !f.external && !f.name.starts_with("vendor/"))
    };
    let loc = |element: &str| {
        schema
            .doc(element)
            .map(|d| format!("{}:{}", d.file, d.line))
    };
    let mut out = Vec::new();
    if m.kind == PackageType::Lib {
        for s in schema.content.services.values().filter(|s| own(&s.file)) {
            out.push(PackageViolation {
                rule: super::codes::BUFFRS_LIB_HAS_SERVICE,
                element: s.full_name.clone(),
                location: loc(&s.full_name),
                message: format!(
                    "`{}` is a lib package, which declares no services or rpcs; service `{}` ({} rpcs) belongs in an api package: set type = \"api\" in Proto.toml, or move it",
                    m.name,
                    s.name,
                    s.methods.len()
                ),
            });
        }
    }
    let expected = m.name.replace('-', "_");
    for f in schema.content.files.values().filter(|f| own(&f.name)) {
        let ok = f.package == expected
            || f.package.starts_with(&format!("{expected}."))
            || f.package == m.name;
        if !ok {
            out.push(PackageViolation {
                rule: super::codes::BUFFRS_PACKAGE_MISMATCH,
                element: f.name.clone(),
                location: loc(&f.name),
                message: format!(
                    "{} declares package `{}`, but the buffrs package is `{}`: declare `package {expected};` or a package below it (`{expected}.…`)",
                    f.name,
                    if f.package.is_empty() {
                        "(none)"
                    } else {
                        &f.package
                    },
                    m.name
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_parse() {
        let m = parse("edition = \"0.12\"\n[package]\ntype = \"lib\"\nname = \"physics\"\nversion = \"1.2.0\"\n\n[dependencies]\n")
            .unwrap()
            .unwrap();
        assert_eq!(m.name, "physics");
        assert_eq!(m.kind, PackageType::Lib);
        assert_eq!(m.version, semver::Version::new(1, 2, 0));
        assert_eq!(parse("[dependencies]\n").unwrap(), None);
        let err =
            parse("[package]\ntype = \"lib\"\nname = \"x\"\nversion = \"1.2\"\n").unwrap_err();
        assert!(err.contains("not semver"), "{err}");
        let err = parse("[package]\ntype = \"library\"\nname = \"x\"\nversion = \"1.2.0\"\n")
            .unwrap_err();
        assert!(err.contains("library"), "{err}");
    }
}
