//! The headless commands, from parsed arguments to printed text: `log`, `check`, `diff`,
//! `graph`, `blame`, `explain`. `cli` parses and dispatches (one `match`); each command here
//! opens what it needs, resolves its scope once (`judge::Scope`), and calls the library:
//! `judge` for a pair, `policy` for a history, `report` to render.

mod cache;
mod check;
mod explain;
mod graph;
mod history;
pub mod paint;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use protolapse::config::{Config, Given};
use protolapse::history as git_history;
use protolapse::load::{self, Loaded, Project, VersionId, needs};
use protolapse::sanitize;
use protolapse::schema::graph::closest;

pub use cache::cache;
pub use check::{CheckOut, check, open_check};
pub use explain::explain;
pub use graph::{GraphOut, graph};
pub use history::{blame, diff, log};

/// Where a command reads its history from.
pub struct Source<'a> {
    pub repo: Option<&'a Path>,
    pub demo: bool,
    pub given: Given,
}

/// A loaded history with its config (and the demo's folder, kept while it is used).
pub struct Opened {
    pub project: Project,
    pub config: Config,
    _demo: Option<tempfile::TempDir>,
}

impl Opened {
    /// Done with: the demo's folder is removed, but the history's models are left to the
    /// process's exit, which is about to come (freeing every declaration of every version
    /// one by one cost a twentieth of a warm `log`).
    pub fn leave(self) {
        let Opened {
            project,
            config,
            _demo,
        } = self;
        std::mem::forget(project);
        drop((config, _demo));
    }
}

/// Loads the history a command names and compiles every version: the demo, or a repository
/// with its config. With `worktree_always`, the working tree is a version even when it equals
/// HEAD.
pub fn open(source: &Source<'_>, worktree_always: bool) -> Result<Opened> {
    open_with(source, worktree_always, &[], None)
}

/// As [`open`], compiling only the versions named (`diff`, `graph --at`): the others stay
/// pending and are no part of the command's output. A name that is no tag but a git
/// revision (`main`, `HEAD~5`, a commit id) is loaded as a revision
/// (`HistoryOptions::wanted`); an unknown name is the error [`find_version`] gives.
pub fn open_only(source: &Source<'_>, names: &[&str]) -> Result<Opened> {
    open_with(
        source,
        false,
        names,
        Some(&|unread, _| {
            let ids = names
                .iter()
                .map(|n| find_version(&unread, n).map(|v| v.id))
                .collect::<Result<Vec<VersionId>>>()?;
            Ok(needs::compile_more(unread, &ids))
        }),
    )
}

/// As [`open`], compiling only the newest version (`graph` without `--at`): the last in
/// history order, the one the terminal UI selects first.
pub fn open_newest(source: &Source<'_>) -> Result<Opened> {
    open_with(
        source,
        false,
        &[],
        Some(&|unread, _| {
            let newest = needs::every(unread.versions.len()).pop();
            Ok(needs::compile_more(unread, &Vec::from_iter(newest)))
        }),
    )
}

/// How a command compiles what it needs, given the history with nothing compiled and the
/// config; None: every version.
type Compile<'a> = Option<&'a dyn Fn(Project, &Config) -> Result<Project>>;

/// `wanted`: the names the command refers to, loaded as revisions when they are no tag.
pub(crate) fn open_with(
    source: &Source<'_>,
    worktree_always: bool,
    wanted: &[&str],
    compile: Compile<'_>,
) -> Result<Opened> {
    let (path, demo) = if source.demo {
        let dir = git_history::demo::build()?;
        (dir.path().to_path_buf(), Some(dir))
    } else {
        let path = source
            .repo
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        (path, None)
    };
    let root = git_history::repo_root(&path)?;
    let config = Config::load(&root)?.unwrap_or_default();
    let mut opts = config.history_options(&source.given, worktree_always);
    opts.wanted = wanted.iter().map(|n| n.to_string()).collect();
    let project = match compile {
        None => load::load(&path, &opts, |_, _| {})?,
        Some(compile) => {
            let unread = needs::unread(git_history::load(&path, &opts)?);
            if let Some(e) = unread.no_protos() {
                bail!("{e}");
            }
            compile(unread, &config)?
        }
    };
    if let Some(e) = project.no_protos() {
        bail!("{e}");
    }
    if std::env::var_os(needs::DEBUG_VAR).is_some() {
        eprintln!("{}", needs::compiled_line(&project));
    }
    Ok(Opened {
        project,
        config,
        _demo: demo,
    })
}

/// The version named `name`, or an error that lists the names (and the closest ones).
pub fn find_version<'p>(project: &'p Project, name: &str) -> Result<&'p Loaded> {
    project.find(name).ok_or_else(|| {
        let names = project.names();
        let close = closest(&names, name, 3);
        let hint = if close.is_empty() {
            String::new()
        } else {
            format!("; did you mean {}?", close.join(", "))
        };
        anyhow!(
            "unknown version `{}`{hint}, and no git revision of that name\n  help: versions are {}; or name any revision (a branch, HEAD~1, a commit id)",
            sanitize::line(name),
            names
                .iter()
                .map(|n| sanitize::line(n))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Fails when `v` has no schema to read (it did not compile): `what` says what was wanted.
pub fn compiled<'v>(v: &'v Loaded, what: &str) -> Result<&'v Loaded> {
    if v.schema().is_none() {
        bail!(
            "version {} did not compile{what}: {}",
            sanitize::line(v.name()),
            v.first_diagnostic()
        );
    }
    Ok(v)
}

/// Writes to standard output; a closed pipe (`| head`) is not an error.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to standard output"),
    }
}

/// Pretty JSON with a final newline; bidi and C1 control characters from repository text are
/// escaped (`sanitize::json`), the value unchanged.
pub fn pretty(v: &impl serde::Serialize) -> Result<String> {
    let mut s = sanitize::json(serde_json::to_string_pretty(v)?);
    s.push('\n');
    Ok(s)
}
