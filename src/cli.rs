//! The command line: parse arguments, load what a command needs, print its report.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use protolapse::config::Config;
use protolapse::history::{self, HistoryOptions};
use protolapse::load::{self, Loaded, Project};
use protolapse::policy::{Level, Policy, Pre1};
use protolapse::report;
use protolapse::schema::Status;
use protolapse::schema::graph::{self, RootMatch};

#[derive(Parser)]
#[command(
    name = "protolapse",
    version,
    about = "Explore how Protocol Buffers schemas evolve across a repository's git tags",
    after_help = "Start with: protolapse --demo (the terminal UI on the built-in demo history)"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    source: Source,
    /// Root message or service for the terminal UI (else `root` in protolapse.toml, else a
    /// finder opens).
    #[arg(long, value_name = "MSG")]
    root: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// List every version: date, commit, compile status, size, fingerprint, unchanged runs.
    Log {
        #[command(flatten)]
        source: Source,
        /// Judge only what this message or service reaches (and fingerprint its closure).
        #[arg(long)]
        root: Option<String>,
        #[command(flatten)]
        judge: Judge,
        #[arg(long, value_enum, default_value_t = LogFormat::Text)]
        format: LogFormat,
    },
    /// The CI gate: compare the working tree (or --rev) with the latest release and fail on
    /// a policy violation, a semver bump that is too small, or a broken package rule.
    /// Exit status: 0 pass, 1 violation found, 2 could not run.
    Check {
        #[command(flatten)]
        source: Source,
        /// The base to compare with: a version name, or `latest` (the latest release).
        /// Default: the previous relevant version of --version, else the latest release.
        #[arg(long, value_name = "VERSION")]
        against: Option<String>,
        /// The version about to be published (also checked: is its bump large enough?).
        /// Default: the version in a buffrs Proto.toml, if there is one.
        #[arg(long = "version", value_name = "X.Y.Z")]
        publish: Option<String>,
        /// Compare only what this message or service reaches.
        #[arg(long)]
        root: Option<String>,
        #[command(flatten)]
        judge: Judge,
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
    },
    /// The lifecycle of each field (or enum value) of a message (or enum) across versions.
    Blame {
        /// [REPO] MSG: the message or enum (full or unique short name), after an optional
        /// repository path.
        #[arg(value_name = "[REPO] MSG", required = true)]
        args: Vec<String>,
        #[command(flatten)]
        flags: Flags,
        #[arg(long, value_enum, default_value_t = LogFormat::Text)]
        format: LogFormat,
    },
    /// Print the type graph reached from a root message or service in one version.
    Graph {
        #[command(flatten)]
        source: Source,
        /// The version (tag name, `WORKTREE`, or a revision given with --rev).
        #[arg(long)]
        at: String,
        /// Root message or service: full name, or a unique short name.
        #[arg(long)]
        root: Option<String>,
        #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
        format: GraphFormat,
    },
    /// Every change between two versions, with its rule, verdict and required bump.
    Diff {
        /// [REPO] OLD NEW: the old and new versions (tags, `WORKTREE`, or revisions given
        /// with --rev), after an optional repository path.
        #[arg(value_name = "[REPO] OLD NEW", required = true)]
        args: Vec<String>,
        #[command(flatten)]
        flags: Flags,
        /// Compare only what is reached from this message or service.
        #[arg(long)]
        root: Option<String>,
        #[arg(long, value_enum, default_value_t = LogFormat::Text)]
        format: LogFormat,
    },
    /// Explain a rule: what changes, what readers see, how to do it safely, buf's rule.
    Explain {
        /// The rule id (FIELD_TYPE_CHANGED); case does not matter.
        #[arg(required_unless_present = "list")]
        rule: Option<String>,
        /// List every rule with a one-line summary.
        #[arg(long)]
        list: bool,
    },
    /// Load a whole history cold and print the time per phase and the peak memory, then the
    /// terminal UI's time to the first frame, to browsable, and per key press.
    Bench {
        #[command(flatten)]
        source: Source,
        /// Generate a synthetic history instead: N tags, M files, K files changed per tag.
        #[arg(long, value_name = "N,M,K")]
        synthetic: Option<String>,
        /// Root for the UI figures (default: protolapse.toml's, else the message or service
        /// of the newest version that reaches the most types).
        #[arg(long, value_name = "MSG")]
        root: Option<String>,
    },
}

#[derive(Args, Clone, Default)]
struct Source {
    /// The git repository (default: the current directory).
    #[arg(value_name = "REPO")]
    repo: Option<PathBuf>,
    #[command(flatten)]
    flags: Flags,
}

#[derive(Args, Clone, Default)]
struct Flags {
    /// Use the built-in demo history instead of a repository.
    #[arg(long)]
    demo: bool,
    /// Select tags by glob; its literal prefix is stripped before semver parsing
    /// (`--tags 'physics/v*'`).
    #[arg(long, value_name = "GLOB")]
    tags: Option<String>,
    /// Also load this revision (branch, commit) as a version; may be repeated.
    #[arg(long = "rev", value_name = "REV")]
    revs: Vec<String>,
    /// Proto root, relative to the repository root; may be repeated.
    #[arg(short = 'I', long = "proto-path", value_name = "DIR")]
    proto_paths: Vec<String>,
}

/// How a history is judged (each overrides protolapse.toml).
#[derive(Args, Clone, Default)]
struct Judge {
    /// Compatibility policy: ALLOW_ANY, DENY_ALL, BACKWARD, BACKWARD_TRANSITIVE,
    /// BACKWARD_TILL(v), FORWARD, FORWARD_TRANSITIVE, FORWARD_TILL(v),
    /// BACKWARD_TILL(x)_AND_FORWARD_TILL(y), FULL, FULL_TRANSITIVE (see docs/policies.md).
    #[arg(long, value_name = "POLICY")]
    policy: Option<String>,
    /// The level a policy judges: wire (binary encoding) or json (ProtoJSON).
    #[arg(long, value_name = "wire|json")]
    level: Option<String>,
    /// Hazard and lossy changes fail instead of warning.
    #[arg(long, overrides_with = "no_strict")]
    strict: bool,
    /// Hazard and lossy changes warn (overrides `strict = true` in protolapse.toml).
    #[arg(long = "no-strict")]
    no_strict: bool,
    /// Versions below 1.0.0: `cargo` (0.x: a minor bump may break) or `strict`.
    #[arg(long, value_name = "cargo|strict")]
    pre1: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
    Github,
    Sarif,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum GraphFormat {
    Text,
    Dot,
    Mermaid,
    Json,
}

/// Runs the command and returns the exit status; errors (status 2) are printed by `main`.
pub fn run(cli: Cli) -> Result<i32> {
    run_command(cli).map(|passed| if passed { 0 } else { 1 })
}

/// Ok(false) when a check found a violation.
fn run_command(cli: Cli) -> Result<bool> {
    match cli.command {
        None => tui(cli.source, cli.root).map(|()| true),
        Some(Command::Log {
            source,
            root,
            judge,
            format,
        }) => {
            let (project, config, _demo) = open(&source)?;
            let root = root.or(config.root.clone());
            if let Some(root) = &root {
                check_root_somewhere(&project, root)?;
            }
            crate::commands::log(
                &project,
                root.as_deref(),
                &judge.settings(&config)?,
                format == LogFormat::Json,
            )
            .and_then(|t| print(&t))
            .map(|_| true)
        }
        Some(Command::Check {
            source,
            against,
            publish,
            root,
            judge,
            format,
        }) => {
            let (project, config, _demo) = open_with(&source, true)?;
            let settings = judge.settings(&config)?;
            let root = root.or(config.root.clone());
            let (text, pass) = crate::commands::check(
                &project,
                &source.flags.revs,
                against.as_deref(),
                publish.as_deref(),
                root.as_deref(),
                settings,
                match format {
                    CheckFormat::Text => crate::commands::CheckOut::Text,
                    CheckFormat::Json => crate::commands::CheckOut::Json,
                    CheckFormat::Github => crate::commands::CheckOut::Github,
                    CheckFormat::Sarif => crate::commands::CheckOut::Sarif,
                },
            )?;
            print(&text)?;
            Ok(pass)
        }
        Some(Command::Blame {
            args,
            flags,
            format,
        }) => {
            let (repo, name) = match &args[..] {
                [m] => (None, m.clone()),
                [r, m] => (Some(PathBuf::from(r)), m.clone()),
                _ => bail!(
                    "blame takes [REPO] MSG (a message or enum, after an optional repository), not {} values\n  help: protolapse blame physics.v1.Temperature",
                    args.len()
                ),
            };
            let (project, _config, _demo) = open(&Source { repo, flags })?;
            let text = crate::commands::blame(&project, &name, format == LogFormat::Json)?;
            print(&text).map(|_| true)
        }
        Some(Command::Graph {
            source,
            at,
            root,
            format,
        }) => {
            let (project, config, _demo) = open(&source)?;
            let version = find_version(&project, &at)?;
            let root = root.or(config.root).ok_or_else(|| {
                anyhow!("which root? pass --root MSG (a message or service), or set `root` in protolapse.toml")
            })?;
            if version.compiled.status == Status::Failed {
                let first = version
                    .compiled
                    .diagnostics
                    .first()
                    .map(|d| d.to_string())
                    .unwrap_or_default();
                bail!(
                    "version {} did not compile: {}",
                    protolapse::sanitize::line(&version.version.name),
                    protolapse::sanitize::line(&first)
                );
            }
            let content = &version.compiled.schema.content;
            let name = resolve(content, &root, &version.version.name)?;
            let g = graph::build(content, &name);
            let text = match format {
                GraphFormat::Text => report::graph::to_text(content, &g),
                GraphFormat::Dot => report::graph::to_dot(&g),
                GraphFormat::Mermaid => report::graph::to_mermaid(&g),
                GraphFormat::Json => {
                    let mut s = serde_json::to_string_pretty(&g)?;
                    s.push('\n');
                    s
                }
            };
            print(&text).map(|_| true)
        }
        Some(Command::Diff {
            args,
            flags,
            root,
            format,
        }) => {
            let (repo, old, new) = match &args[..] {
                [o, n] => (None, o.clone(), n.clone()),
                [r, o, n] => (Some(PathBuf::from(r)), o.clone(), n.clone()),
                _ => bail!(
                    "diff takes [REPO] OLD NEW (two versions, after an optional repository), not {} values\n  help: protolapse diff v1.0.0 v2.0.0, or protolapse diff path/to/repo v1.0.0 v2.0.0",
                    args.len()
                ),
            };
            let (project, config, _demo) = open(&Source { repo, flags })?;
            let a = find_version(&project, &old)?;
            let b = find_version(&project, &new)?;
            for v in [a, b] {
                if v.compiled.status == Status::Failed {
                    bail!(
                        "version {} did not compile, so it cannot be compared: {}",
                        protolapse::sanitize::line(&v.version.name),
                        v.compiled
                            .diagnostics
                            .first()
                            .map(|d| protolapse::sanitize::line(&d.to_string()))
                            .unwrap_or_default()
                    );
                }
            }
            let root = match root.or(config.root.clone()) {
                Some(r) => Some(match graph::resolve_root(&b.compiled.schema.content, &r) {
                    RootMatch::Found(n) => n,
                    _ => resolve(&a.compiled.schema.content, &r, &a.version.name)?,
                }),
                None => None,
            };
            let ignores = config
                .ignores()
                .map_err(|e| anyhow!("{}: {e}", protolapse::config::FILE_NAME))?;
            let text =
                crate::commands::diff(&project, a, b, root, ignores, format == LogFormat::Json)?;
            print(&text).map(|_| true)
        }
        Some(Command::Explain { rule, list }) => {
            use protolapse::rules::RULES;
            if list {
                return print(&report::explain::list()).map(|_| true);
            }
            let given = rule.unwrap_or_default();
            let id = given.to_uppercase().replace('-', "_");
            match given.parse().ok().and_then(report::explain::explain) {
                Some(text) => print(&text).map(|_| true),
                None => {
                    let ids: Vec<&str> = RULES.iter().map(|r| r.id.as_str()).collect();
                    let close = graph::closest(&ids, &id, 3);
                    bail!(
                        "unknown rule `{}`{}\n  help: `protolapse explain --list` lists them all",
                        protolapse::sanitize::line(&given),
                        if close.is_empty() {
                            String::new()
                        } else {
                            format!("; did you mean {}?", close.join(", "))
                        }
                    )
                }
            }
        }
        Some(Command::Bench {
            source,
            synthetic,
            root,
        }) => crate::bench::run(
            source.repo.as_deref(),
            source.flags.demo,
            synthetic.as_deref(),
            &options(&source, &Config::default(), false),
            root,
        )
        .map(|_| true),
    }
}

/// `protolapse [REPO]` and `protolapse --demo`: the terminal UI.
fn tui(source: Source, root: Option<String>) -> Result<()> {
    use protolapse::ui;
    use std::io::IsTerminal;
    let src = if source.flags.demo {
        ui::Source::Demo
    } else {
        let path = source.repo.clone().unwrap_or_else(|| PathBuf::from("."));
        // Fail before taking over the terminal when there is no repository at all.
        history::repo_root(&path)?;
        ui::Source::Repo(path)
    };
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        bail!(
            "the terminal UI needs a terminal\n  help: for output to a file or a pipe use the headless commands: protolapse log, diff, graph (see --help)"
        );
    }
    ui::run(ui::runtime::Options {
        source: src,
        load: ui::LoadOptions {
            tags: source.flags.tags.clone(),
            revs: source.flags.revs.clone(),
            proto_paths: source.flags.proto_paths.clone(),
        },
        root,
    })
}

fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to standard output"),
    }
}

fn options(source: &Source, config: &Config, worktree_always: bool) -> HistoryOptions {
    HistoryOptions {
        tags: source.flags.tags.clone().or_else(|| config.tags.clone()),
        revs: source.flags.revs.clone(),
        proto_paths: if source.flags.proto_paths.is_empty() {
            config.proto_paths.clone()
        } else {
            source.flags.proto_paths.clone()
        },
        worktree: true,
        worktree_always,
    }
}

/// Loads the history a command names: the demo, or a repository with its config.
fn open(source: &Source) -> Result<(Project, Config, Option<tempfile::TempDir>)> {
    open_with(source, false)
}

/// [`open`]; with `worktree_always`, the working tree is a version even when clean.
fn open_with(
    source: &Source,
    worktree_always: bool,
) -> Result<(Project, Config, Option<tempfile::TempDir>)> {
    let (path, demo) = if source.flags.demo {
        let dir = history::demo::build()?;
        (dir.path().to_path_buf(), Some(dir))
    } else {
        let path = source.repo.clone().unwrap_or_else(|| PathBuf::from("."));
        (path, None)
    };
    let root = history::repo_root(&path)?;
    let config = Config::load(&root)?.unwrap_or_default();
    let project = load::load(&path, &options(source, &config, worktree_always), |_, _| {})?;
    if let Some(e) = project.no_protos() {
        bail!("{e}");
    }
    Ok((project, config, demo))
}

fn find_version<'p>(project: &'p Project, name: &str) -> Result<&'p Loaded> {
    project.find(name).ok_or_else(|| {
        let names = project.names();
        let close = graph::closest(&names, name, 3);
        let hint = if close.is_empty() {
            String::new()
        } else {
            format!("; did you mean {}?", close.join(", "))
        };
        anyhow!(
            "unknown version `{}`{hint}\n  help: versions are {}; add a revision with --rev REV",
            protolapse::sanitize::line(name),
            names
                .iter()
                .map(|n| protolapse::sanitize::line(n))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

fn resolve(content: &protolapse::schema::Content, root: &str, at: &str) -> Result<String> {
    match graph::resolve_root(content, root) {
        RootMatch::Found(name) => Ok(name),
        RootMatch::Ambiguous(names) => bail!(
            "root `{}` is ambiguous in {}: {}\n  help: pass the full name",
            protolapse::sanitize::line(root),
            protolapse::sanitize::line(at),
            names.join(", ")
        ),
        RootMatch::Unknown(close) => {
            let hint = if close.is_empty() {
                String::new()
            } else {
                format!("; closest: {}", close.join(", "))
            };
            bail!(
                "unknown root `{}` in {}{hint}\n  help: a root is a message or service name, full (pkg.Msg) or short (Msg)",
                protolapse::sanitize::line(root),
                protolapse::sanitize::line(at)
            )
        }
    }
}

/// A root for `log` must exist in at least one version.
fn check_root_somewhere(project: &Project, root: &str) -> Result<()> {
    let mut last_err = None;
    for v in project.versions.iter().rev() {
        if v.compiled.status == Status::Failed {
            continue;
        }
        match resolve(&v.compiled.schema.content, root, &v.version.name) {
            Ok(_) => return Ok(()),
            Err(e) => last_err = last_err.or(Some(e)),
        }
    }
    Err(last_err.unwrap_or_else(|| anyhow!("no version compiled, so no root can be found")))
}

impl Judge {
    /// Flags over the config file.
    fn settings(&self, config: &Config) -> Result<protolapse::policy::Settings> {
        let file = protolapse::config::FILE_NAME;
        let policy = match &self.policy {
            Some(p) => Some(p.parse::<Policy>().map_err(|e| anyhow!("--policy: {e}"))?),
            None => config.policy().map_err(|e| anyhow!("{file}: {e}"))?,
        };
        let level = match &self.level {
            Some(l) => l.parse::<Level>().map_err(|e| anyhow!("--level: {e}"))?,
            None => config.level.unwrap_or_default(),
        };
        let pre1 = match &self.pre1 {
            Some(p) => p.parse::<Pre1>().map_err(|e| anyhow!("--pre1: {e}"))?,
            None => config.pre1.unwrap_or_default(),
        };
        Ok(protolapse::policy::Settings {
            root: None,
            policy,
            level,
            strict: if self.no_strict {
                false
            } else {
                self.strict || config.strict.unwrap_or(false)
            },
            pre1,
            ignores: config.ignores().map_err(|e| anyhow!("{file}: {e}"))?,
        })
    }
}
