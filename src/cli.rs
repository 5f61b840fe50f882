//! The command line: the arguments (clap), and the one dispatch from a parsed command to
//! its function in `commands` (or the terminal UI).

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use protolapse::config::{Config, Given};
use protolapse::history;
use protolapse::judge::Scope;
use protolapse::policy::{Level, Policy, Pre1, Settings};

use crate::commands::{self, CheckOut, GraphOut, Opened, print};

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
    /// Neither read nor write the on-disk cache of compiled schemas (see `protolapse cache`).
    #[arg(long, global = true)]
    no_cache: bool,
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
    /// The on-disk cache of compiled schemas: where it is and how large; `clear` empties it.
    Cache {
        #[command(subcommand)]
        action: Option<CacheAction>,
    },
}

#[derive(Subcommand, Clone, Copy)]
enum CacheAction {
    /// Remove every entry.
    Clear,
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
    protolapse::schema::store::configure(!cli.no_cache, |why| {
        eprintln!("warning: {}", protolapse::sanitize::line(why));
    });
    dispatch(cli).map(|passed| if passed { 0 } else { 1 })
}

/// The one dispatch: each command, from its arguments to printed output. Ok(false) when a
/// check found a violation.
fn dispatch(cli: Cli) -> Result<bool> {
    let Some(command) = cli.command else {
        return tui(cli.source, cli.root).map(|()| true);
    };
    match command {
        Command::Log {
            source,
            root,
            judge,
            format,
        } => {
            let opened = commands::open(&source.read()?, false)?;
            let settings = judge.settings(&opened, root)?;
            print(&commands::log(
                &opened,
                &settings,
                format == LogFormat::Json,
            )?)?;
        }
        Command::Check {
            source,
            against,
            publish,
            root,
            judge,
            format,
        } => {
            let opened = commands::open_check(
                &source.read()?,
                &source.flags.revs,
                against.as_deref(),
                publish.as_deref(),
                root.as_deref(),
            )?;
            let settings = judge.settings(&opened, root)?;
            let out = match format {
                CheckFormat::Text => CheckOut::Text,
                CheckFormat::Json => CheckOut::Json,
                CheckFormat::Github => CheckOut::Github,
                CheckFormat::Sarif => CheckOut::Sarif,
            };
            let (text, pass) = commands::check(
                &opened,
                &source.flags.revs,
                against.as_deref(),
                publish.as_deref(),
                &settings,
                out,
            )?;
            print(&text)?;
            return Ok(pass);
        }
        Command::Blame {
            args,
            flags,
            format,
        } => {
            let (repo, name) = match &args[..] {
                [m] => (None, m.clone()),
                [r, m] => (Some(PathBuf::from(r)), m.clone()),
                _ => bail!(
                    "blame takes [REPO] MSG (a message or enum, after an optional repository), not {} values\n  help: protolapse blame physics.v1.Temperature",
                    args.len()
                ),
            };
            let opened = commands::open(&Source { repo, flags }.read()?, false)?;
            print(&commands::blame(&opened, &name, format == LogFormat::Json)?)?;
        }
        Command::Graph {
            source,
            at,
            root,
            format,
        } => {
            let opened = commands::open_only(&source.read()?, &[&at])?;
            let root = root.or_else(|| opened.config.root.clone());
            let out = match format {
                GraphFormat::Text => GraphOut::Text,
                GraphFormat::Dot => GraphOut::Dot,
                GraphFormat::Mermaid => GraphOut::Mermaid,
                GraphFormat::Json => GraphOut::Json,
            };
            print(&commands::graph(&opened, &at, root.as_deref(), out)?)?;
        }
        Command::Diff {
            args,
            flags,
            root,
            format,
        } => {
            let (repo, old, new) = match &args[..] {
                [o, n] => (None, o.clone(), n.clone()),
                [r, o, n] => (Some(PathBuf::from(r)), o.clone(), n.clone()),
                _ => bail!(
                    "diff takes [REPO] OLD NEW (two versions, after an optional repository), not {} values\n  help: protolapse diff v1.0.0 v2.0.0, or protolapse diff path/to/repo v1.0.0 v2.0.0",
                    args.len()
                ),
            };
            let opened = commands::open_only(&Source { repo, flags }.read()?, &[&old, &new])?;
            let settings = opened.config.settings().map_err(|e| anyhow!(e))?;
            let root = root.or_else(|| opened.config.root.clone());
            let text = commands::diff(
                &opened,
                &old,
                &new,
                root.as_deref(),
                &settings.ignores,
                format == LogFormat::Json,
            )?;
            print(&text)?;
        }
        Command::Cache { action } => {
            print(&commands::cache(
                cli.no_cache,
                matches!(action, Some(CacheAction::Clear)),
            )?)?;
        }
        Command::Explain { rule, list } => {
            print(&commands::explain(rule.as_deref(), list)?)?;
        }
        Command::Bench {
            source,
            synthetic,
            root,
        } => crate::bench::run(
            source.repo.as_deref(),
            source.flags.demo,
            synthetic.as_deref(),
            &Config::default().history_options(&source.flags.given()?, false),
            root,
        )?,
    }
    Ok(true)
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
    // The UI runs in a child process: however it ends, even by a stack overflow, this one
    // restores the terminal and exits with its status.
    if let Some(code) =
        ui::runtime::supervise::in_child().context("cannot start the terminal UI")?
    {
        std::process::exit(code);
    }
    // The cache opens now, so that a warning about it is not drawn over the UI.
    let _ = protolapse::schema::store::global();
    ui::run(ui::runtime::Options {
        source: src,
        load: source.flags.given()?,
        root,
    })
}

impl Source {
    fn read(&self) -> Result<commands::Source<'_>> {
        Ok(commands::Source {
            repo: self.repo.as_deref(),
            demo: self.flags.demo,
            given: self.flags.given()?,
        })
    }
}

impl Flags {
    /// The flags' values, checked (`Given::check`): an error names the flag.
    fn given(&self) -> Result<Given> {
        let given = Given {
            tags: self.tags.clone(),
            revs: self.revs.clone(),
            proto_paths: self.proto_paths.clone(),
        };
        given.check().map_err(|e| anyhow!(e))?;
        Ok(given)
    }
}

impl Judge {
    /// protolapse.toml's settings (`Config::settings`), each flag given over its key, in the
    /// scope of `root` (the flag, else the config's), resolved in the newest version that
    /// has it.
    fn settings(&self, opened: &Opened, root: Option<String>) -> Result<Settings> {
        let config = &opened.config;
        let mut s = config.settings().map_err(|e| anyhow!(e))?;
        if let Some(p) = &self.policy {
            s.policy = Some(p.parse::<Policy>().map_err(|e| anyhow!("--policy: {e}"))?);
        }
        if let Some(l) = &self.level {
            s.level = l.parse::<Level>().map_err(|e| anyhow!("--level: {e}"))?;
        }
        if let Some(p) = &self.pre1 {
            s.pre1 = p.parse::<Pre1>().map_err(|e| anyhow!("--pre1: {e}"))?;
        }
        if self.no_strict {
            s.strict = false;
        } else if self.strict {
            s.strict = true;
        }
        let root = root.or_else(|| config.root.clone());
        s.scope = Scope::in_history(root.as_deref(), &opened.project.versions)?;
        Ok(s)
    }
}
