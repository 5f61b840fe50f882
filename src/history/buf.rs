//! Proto roots from `buf.yaml` (v1beta1 `build.roots`, v1 the file's folder, v2
//! `modules[].path`) and `buf.work.yaml` (`directories`), with their excludes.

use serde::Deserialize;

use super::{BUFFRS_MANIFEST, HistoryOptions, ReadProblem};

/// Proto roots and excluded folders, relative to the repository root.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Roots {
    pub roots: Vec<String>,
    pub excludes: Vec<String>,
}

#[derive(Deserialize, Default)]
struct BufYaml {
    #[serde(default)]
    version: Option<String>,
    /// Dependency modules (`buf.build/googleapis/googleapis`, maybe with `:ref`).
    #[serde(default)]
    deps: Vec<String>,
    #[serde(default)]
    build: Option<Build>,
    #[serde(default)]
    modules: Vec<Module>,
}

#[derive(Deserialize, Default)]
struct Build {
    #[serde(default)]
    roots: Vec<String>,
    #[serde(default)]
    excludes: Vec<String>,
}

#[derive(Deserialize)]
struct Module {
    path: String,
    #[serde(default)]
    excludes: Vec<String>,
}

#[derive(Deserialize)]
struct BufWork {
    #[serde(default)]
    directories: Vec<String>,
}

/// Normalizes `./a/b/` to `a/b`, and `` or `./` to `.`.
pub fn clean(path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    // An absolute path stays absolute: it is refused as leaving the repository, never read
    // as a folder of it (`/etc` is not `etc`).
    let lead = if path.starts_with('/') { "/" } else { "" };
    if parts.is_empty() {
        format!("{lead}.")
    } else {
        format!("{lead}{}", parts.join("/"))
    }
}

/// Joins a folder (relative to the repository root) and a path below it.
fn join(dir: &str, path: &str) -> String {
    if dir == "." {
        clean(path)
    } else {
        clean(&format!("{dir}/{path}"))
    }
}

/// Reads a `buf.yaml` found in folder `dir`. Errors name the problem; the caller says where.
pub fn parse_buf_yaml(dir: &str, text: &str) -> Result<Roots, String> {
    let doc: BufYaml = serde_norway::from_str(text).map_err(|e| e.to_string())?;
    let version = doc.version.as_deref().unwrap_or("v1");
    let mut out = Roots::default();
    match version {
        "v2" => {
            if doc.modules.is_empty() {
                out.roots.push(dir.to_string());
            }
            for m in &doc.modules {
                out.roots.push(join(dir, &m.path));
                // v2 excludes are relative to the buf.yaml's folder, like the paths.
                out.excludes.extend(m.excludes.iter().map(|e| join(dir, e)));
            }
        }
        _ => {
            let build = doc.build.unwrap_or_default();
            if build.roots.is_empty() {
                out.roots.push(dir.to_string());
                out.excludes
                    .extend(build.excludes.iter().map(|e| join(dir, e)));
            } else {
                for r in &build.roots {
                    out.roots.push(join(dir, r));
                }
                // v1beta1 excludes are relative to a root.
                for r in &build.roots {
                    for e in &build.excludes {
                        out.excludes.push(join(&join(dir, r), e));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// A dependency module of a version, with the commit `buf.lock` pins it at (empty when only
/// `buf.yaml` names it, unpinned).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct DepPin {
    /// `buf.build/googleapis/googleapis`.
    pub module: String,
    pub commit: String,
}

/// `buf.lock`, v1 (`remote`/`owner`/`repository`) and v2 (`name`) alike.
#[derive(Deserialize, Default)]
struct BufLock {
    #[serde(default)]
    deps: Vec<LockDep>,
}

#[derive(Deserialize, Default)]
struct LockDep {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    remote: Option<String>,
    #[serde(default)]
    owner: Option<String>,
    #[serde(default)]
    repository: Option<String>,
    #[serde(default)]
    commit: Option<String>,
}

/// The dependencies of a version: the pins of its `buf.lock` files (at the root, and in each
/// `buf.work.yaml` directory), else the modules its `buf.yaml` files name, unpinned. Read
/// with `read` (a path relative to the repository root -> its text); sorted, one per module.
/// A `buf.lock` that does not parse is a problem of the version (not fatal: only its pins
/// are unknown), never silently no pins.
pub fn dependency_pins(
    mut read: impl FnMut(&str) -> Option<String>,
) -> (Vec<DepPin>, Vec<ReadProblem>) {
    let mut problems = Vec::new();
    let mut dirs = vec![".".to_string()];
    if let Some(text) = read("buf.work.yaml")
        && let Ok(more) = parse_buf_work(&text)
    {
        // Never a folder outside the repository (`../x`, `/etc`).
        dirs.extend(
            more.into_iter()
                .filter(|d| !d.starts_with('/') && !d.split('/').any(|p| p == "..")),
        );
    }
    let at = |dir: &str, file: &str| {
        if dir == "." {
            file.to_string()
        } else {
            format!("{dir}/{file}")
        }
    };
    let mut out: Vec<DepPin> = Vec::new();
    for dir in &dirs {
        let path = at(dir, "buf.lock");
        let Some(text) = read(&path) else {
            continue;
        };
        let lock = match serde_norway::from_str::<BufLock>(&text) {
            Ok(lock) => lock,
            Err(e) => {
                problems.push(ReadProblem {
                    message: format!(
                        "cannot be read: {}; the dependency pins of this version are unknown, so changes of its dependencies are not tracked (fix the file, e.g. with `buf dep update`)",
                        one_line(&e.to_string())
                    ),
                    path,
                    fatal: false,
                });
                continue;
            }
        };
        for d in lock.deps {
            let module = match (d.name, d.remote, d.owner, d.repository) {
                (Some(name), ..) => name,
                (None, Some(remote), Some(owner), Some(repo)) => format!("{remote}/{owner}/{repo}"),
                _ => continue,
            };
            out.push(DepPin {
                module,
                commit: d.commit.unwrap_or_default(),
            });
        }
    }
    if out.is_empty() {
        for dir in &dirs {
            let Some(doc) =
                read(&at(dir, "buf.yaml")).and_then(|t| serde_norway::from_str::<BufYaml>(&t).ok())
            else {
                continue;
            };
            for d in doc.deps {
                let module = d.split(':').next().unwrap_or(&d).to_string();
                out.push(DepPin {
                    module,
                    commit: String::new(),
                });
            }
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.module == b.module);
    (out, problems)
}

/// Reads a `buf.work.yaml`: its directories are module folders.
pub fn parse_buf_work(text: &str) -> Result<Vec<String>, String> {
    let doc: BufWork = serde_norway::from_str(text).map_err(|e| e.to_string())?;
    Ok(doc.directories.iter().map(|d| clean(d)).collect())
}

/// The proto roots given by `-I` or `protolapse.toml`, if any.
pub fn given_roots(opts: &HistoryOptions) -> Option<(Roots, String)> {
    (!opts.proto_paths.is_empty()).then(|| {
        (
            Roots {
                roots: opts.proto_paths.iter().map(|p| clean(p)).collect(),
                excludes: Vec::new(),
            },
            "--proto-path".into(),
        )
    })
}

/// Roots from `buf.work.yaml` or `buf.yaml`, read with `read` (a path relative to the
/// repository root -> its text), else the repository root. A buf file that does not parse
/// is an error naming it (buf itself would not build such a version): its roots are not
/// guessed.
pub fn roots_from_buf_files(
    mut read: impl FnMut(&str) -> Option<String>,
) -> Result<(Roots, String), ReadProblem> {
    let malformed = |path: &str, e: String| ReadProblem {
        path: path.to_string(),
        message: format!(
            "cannot be read: {}; its proto roots are unknown, so this version is not compiled (fix the file, or give the roots with -I or proto_paths in protolapse.toml)",
            one_line(&e)
        ),
        fatal: true,
    };
    if let Some(text) = read("buf.work.yaml") {
        let dirs = parse_buf_work(&text).map_err(|e| malformed("buf.work.yaml", e))?;
        let mut all = Roots::default();
        for dir in dirs {
            let path = format!("{dir}/buf.yaml");
            match read(&path).map(|t| parse_buf_yaml(&dir, &t)) {
                Some(Ok(r)) => {
                    all.roots.extend(r.roots);
                    all.excludes.extend(r.excludes);
                }
                Some(Err(e)) => return Err(malformed(&path, e)),
                None => all.roots.push(dir),
            }
        }
        if !all.roots.is_empty() {
            return Ok((all, "buf.work.yaml".into()));
        }
    }
    if let Some(text) = read("buf.yaml") {
        let r = parse_buf_yaml(".", &text).map_err(|e| malformed("buf.yaml", e))?;
        return Ok((r, "buf.yaml".into()));
    }
    // A buffrs package keeps its protos under `proto/`.
    if read(BUFFRS_MANIFEST).is_some() {
        return Ok((
            Roots {
                roots: vec!["proto".into()],
                excludes: Vec::new(),
            },
            BUFFRS_MANIFEST.into(),
        ));
    }
    Ok((
        Roots {
            roots: vec![".".into()],
            excludes: Vec::new(),
        },
        "repository root".into(),
    ))
}

/// A parser's message on one line, at most 300 characters.
fn one_line(text: &str) -> String {
    let line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if line.chars().count() > 300 {
        line.chars().take(300).collect::<String>() + "..."
    } else {
        line
    }
}

/// Whether `repo_path` is below one of the excluded folders.
pub fn excluded(repo_path: &str, excludes: &[String]) -> bool {
    excludes.iter().any(|e| {
        repo_path
            .strip_prefix(e.as_str())
            .is_some_and(|rest| rest.starts_with('/'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_is_the_folder_with_excludes() {
        let r = parse_buf_yaml(".", "version: v1\nbuild:\n  excludes: [tests]\n").unwrap();
        assert_eq!(r.roots, ["."]);
        assert_eq!(r.excludes, ["tests"]);
    }

    #[test]
    fn v1beta1_roots() {
        let r = parse_buf_yaml(
            ".",
            "version: v1beta1\nbuild:\n  roots: [proto, ./vendor/]\n  excludes: [x]\n",
        )
        .unwrap();
        assert_eq!(r.roots, ["proto", "vendor"]);
        assert_eq!(r.excludes, ["proto/x", "vendor/x"]);
    }

    #[test]
    fn v2_modules() {
        let r = parse_buf_yaml(
            ".",
            "version: v2\nmodules:\n  - path: proto\n    excludes: [proto/internal]\n  - path: api\n",
        )
        .unwrap();
        assert_eq!(r.roots, ["proto", "api"]);
        assert_eq!(r.excludes, ["proto/internal"]);
    }

    #[test]
    fn bad_yaml_is_an_error() {
        assert!(parse_buf_yaml(".", "version: [").is_err());
        assert_eq!(
            parse_buf_work("version: v1\ndirectories: [a, b/]\n").unwrap(),
            ["a", "b"]
        );
    }
}

#[cfg(test)]
mod pin_tests {
    use super::*;

    #[test]
    fn buf_lock_pins_are_read_in_both_versions() {
        let v1 = "version: v1\ndeps:\n  - remote: buf.build\n    owner: googleapis\n    repository: googleapis\n    commit: 62f35d8aed1149c291d606d958a7ce32\n";
        let v2 = "version: v2\ndeps:\n  - name: buf.build/bufbuild/protovalidate\n    commit: b983156c5e994cc9892e0ce3e64e17e0\n    digest: b5:abc\n";
        for (lock, module, commit) in [
            (
                v1,
                "buf.build/googleapis/googleapis",
                "62f35d8aed1149c291d606d958a7ce32",
            ),
            (
                v2,
                "buf.build/bufbuild/protovalidate",
                "b983156c5e994cc9892e0ce3e64e17e0",
            ),
        ] {
            let (pins, problems) = dependency_pins(|p| (p == "buf.lock").then(|| lock.to_string()));
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!(
                pins,
                [DepPin {
                    module: module.into(),
                    commit: commit.into()
                }]
            );
        }
        // Without a lock, buf.yaml's deps, unpinned.
        let (pins, _) = dependency_pins(|p| {
            (p == "buf.yaml").then(|| {
                "version: v2\ndeps:\n  - buf.build/googleapis/googleapis:main\n".to_string()
            })
        });
        assert_eq!(pins[0].module, "buf.build/googleapis/googleapis");
        assert_eq!(pins[0].commit, "");
        assert_eq!(dependency_pins(|_| None), (vec![], vec![]));
        // A buf.work.yaml directory never leads outside the repository.
        let read = |p: &str| match p {
            "buf.work.yaml" => Some("version: v1\ndirectories: [../outside, ok]\n".to_string()),
            "ok/buf.lock" => Some(v2.to_string()),
            other => panic!("read {other}"),
        };
        let read = |p: &str| {
            if p == "buf.lock" || p == "buf.yaml" || p == "ok/buf.yaml" {
                None
            } else {
                read(p)
            }
        };
        assert_eq!(dependency_pins(read).0.len(), 1);
    }

    #[test]
    fn a_malformed_buf_lock_is_a_problem_not_silence() {
        let (pins, problems) = dependency_pins(|p| match p {
            "buf.lock" => Some("version: v2\ndeps: {name: [\n".to_string()),
            "buf.yaml" => Some("version: v2\ndeps: [buf.build/acme/x]\n".to_string()),
            _ => None,
        });
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert_eq!(p.path, "buf.lock");
        assert!(!p.fatal);
        assert!(p.message.starts_with("cannot be read: "), "{}", p.message);
        assert!(!p.message.contains('\n'), "{}", p.message);
        // buf.yaml's deps still say what the version depends on, unpinned.
        assert_eq!(pins.len(), 1);
        assert_eq!(pins[0].commit, "");
    }
}
