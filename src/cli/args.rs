//! The arguments, as clap parses them: the commands, and the flags every command shares
//! (global: given before or after the subcommand, defined once here).

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "protolapse",
    version,
    about = "Explore how Protocol Buffers schemas evolve across a repository's git tags",
    after_help = "Start with: protolapse --demo (the terminal UI on the built-in demo history)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The git repository for the terminal UI (default: the current directory).
    #[arg(value_name = "REPO")]
    pub repo: Option<PathBuf>,
    #[command(flatten)]
    pub global: Global,
}

/// The flags every command shares; each may be given before or after the subcommand.
#[derive(Args, Clone, Default)]
pub struct Global {
    /// Use the built-in demo history instead of a repository.
    #[arg(long, global = true)]
    pub demo: bool,
    /// Select tags by glob; its literal prefix is stripped before semver parsing
    /// (`--tags 'physics/v*'`).
    #[arg(long, value_name = "GLOB", global = true)]
    pub tags: Option<String>,
    /// Also load this revision (tag, branch, `HEAD~5`, commit) as a version; may be repeated.
    #[arg(long = "rev", value_name = "REV", global = true)]
    pub revs: Vec<String>,
    /// Proto root, relative to the repository root; may be repeated.
    #[arg(short = 'I', long = "proto-path", value_name = "DIR", global = true)]
    pub proto_paths: Vec<String>,
    /// Root message or service (full or unique short name): judge, compare or print only
    /// what it reaches. Default: `root` in protolapse.toml (the terminal UI: else a finder).
    #[arg(long, value_name = "MSG", global = true)]
    pub root: Option<String>,
    /// Colour in the text of `check` and `diff`: `auto` (on a terminal, unless NO_COLOR is
    /// set; CLICOLOR_FORCE forces it), `always` or `never`. The terminal UI follows NO_COLOR.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
    /// Versions from commits instead of tags: every commit of RANGE (default: HEAD; `A..B`;
    /// first parents only) that changed a .proto file in scope, oldest first, named by short
    /// hash (or the tag on it). A range takes `=`: `--commits=v1.0.0..main`.
    #[arg(long, value_name = "RANGE", num_args = 0..=1, require_equals = true,
          default_missing_value = "HEAD", global = true)]
    pub commits: Option<String>,
    /// Limit the schema to the files under this folder and what they import; may be
    /// repeated. Default: `path` in protolapse.toml, else every file.
    #[arg(long = "path", value_name = "DIR", global = true)]
    pub paths: Vec<String>,
    /// Neither read nor write the on-disk cache of compiled schemas (see `protolapse cache`).
    #[arg(long, global = true)]
    pub no_cache: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// List every version: date, commit, compile status, size, fingerprint, unchanged runs.
    Log {
        /// The git repository (default: the current directory).
        #[arg(value_name = "REPO")]
        repo: Option<PathBuf>,
        #[command(flatten)]
        judge: Judge,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LogFormat::Text)]
        format: LogFormat,
    },
    /// The CI gate: compare the working tree (or --rev) with the latest release and fail on
    /// a policy violation, a semver bump that is too small, or a broken package rule.
    /// Exit status: 0 pass, 1 violation found, 2 could not run.
    Check {
        /// The git repository (default: the current directory).
        #[arg(value_name = "REPO")]
        repo: Option<PathBuf>,
        /// The base to compare with: a tag, `latest` (the latest release), or any git
        /// revision (`main`, `origin/main`, `HEAD~1`, a commit id).
        /// Default: the previous relevant version of --version, else the latest release.
        #[arg(long, value_name = "REV")]
        against: Option<String>,
        /// The version about to be published (also checked: is its bump large enough?).
        /// Default: the version in a buffrs Proto.toml, if there is one.
        #[arg(long = "version", value_name = "X.Y.Z")]
        publish: Option<String>,
        #[command(flatten)]
        judge: Judge,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
        #[command(flatten)]
        prove: Prove,
    },
    /// The lifecycle of each field (or enum value) of a message (or enum) across versions.
    #[command(override_usage = "protolapse blame [OPTIONS] [REPO] <MSG>")]
    Blame {
        /// [REPO] MSG: the message or enum (full or unique short name), after an optional
        /// repository path.
        #[arg(value_name = "[REPO] MSG", required = true)]
        args: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LogFormat::Text)]
        format: LogFormat,
    },
    /// Print the type graph reached from a root message or service in one version.
    Graph {
        /// The git repository (default: the current directory).
        #[arg(value_name = "REPO")]
        repo: Option<PathBuf>,
        /// The version: a tag, `WORKTREE`, or any git revision (a branch, `HEAD~5`, a commit
        /// id). Default: the newest version (the working tree when it differs from HEAD, else
        /// the last --rev, else the greatest tag).
        #[arg(long, value_name = "REV")]
        at: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
        format: GraphFormat,
    },
    /// Every change between two versions, with its rule, verdict and required bump.
    #[command(override_usage = "protolapse diff [OPTIONS] [REPO] <OLD> <NEW>")]
    Diff {
        /// [REPO] OLD NEW: the old and new versions (tags, `WORKTREE`, or any git revision:
        /// a branch, `HEAD~5`, a commit id), after an optional repository path.
        #[arg(value_name = "[REPO] OLD NEW", required = true)]
        args: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LogFormat::Text)]
        format: LogFormat,
        #[command(flatten)]
        prove: Prove,
    },
    /// Explain a rule (what changes, what readers see, how to do it safely, buf's rule), or
    /// any other code `check` prints (SEMVER_TOO_SMALL, HAZARD_NUMBER_REUSED, ...).
    Explain {
        /// The rule id or code (FIELD_TYPE_CHANGED, SEMVER_TOO_SMALL); case does not matter.
        #[arg(required_unless_present = "list", value_name = "RULE")]
        rule: Option<String>,
        /// List every rule and code with a one-line summary.
        #[arg(long)]
        list: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LogFormat::Text)]
        format: LogFormat,
    },
    /// Load a whole history cold and print the time per phase and the peak memory, then the
    /// terminal UI's time to the first frame, to browsable, and per key press. Its root
    /// (--root) defaults to protolapse.toml's, else the message or service of the newest
    /// version that reaches the most types.
    Bench {
        /// The git repository (default: the current directory).
        #[arg(value_name = "REPO")]
        repo: Option<PathBuf>,
        /// Generate a synthetic history instead: N tags, M files, K files changed per tag.
        #[arg(long, value_name = "N,M,K")]
        synthetic: Option<String>,
    },
    /// Print a shell completion script: `protolapse completions bash >
    /// ~/.local/share/bash-completion/completions/protolapse` (zsh: a `_protolapse` file in
    /// $fpath; fish: ~/.config/fish/completions/protolapse.fish).
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `protolapse man > protolapse.1; man ./protolapse.1`.
    Man,
    /// The on-disk cache of compiled schemas: where it is and how large; `clear` empties it.
    Cache {
        #[command(subcommand)]
        action: Option<CacheAction>,
    },
}

#[derive(Subcommand, Clone, Copy)]
pub enum CacheAction {
    /// Remove every entry.
    Clear,
}

/// How a history is judged (each overrides protolapse.toml).
#[derive(Args, Clone, Default)]
pub struct Judge {
    /// Compatibility policy: ALLOW_ANY, DENY_ALL, BACKWARD, BACKWARD_TRANSITIVE,
    /// BACKWARD_TILL(v), FORWARD, FORWARD_TRANSITIVE, FORWARD_TILL(v),
    /// BACKWARD_TILL(x)_AND_FORWARD_TILL(y), FULL, FULL_TRANSITIVE (see docs/policies.md).
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<String>,
    /// The level a policy judges: wire (binary encoding), json (ProtoJSON) or source (both,
    /// and code generated from the schema).
    #[arg(long, value_name = "LEVEL", ignore_case = true,
          value_parser = PossibleValuesParser::new(["wire", "json", "source"]))]
    pub level: Option<String>,
    /// Hazard and lossy changes fail instead of warning.
    #[arg(long, overrides_with = "no_strict")]
    pub strict: bool,
    /// Hazard and lossy changes warn (overrides `strict = true` in protolapse.toml).
    #[arg(long = "no-strict")]
    pub no_strict: bool,
    /// Versions below 1.0.0: `cargo` (0.x: a minor bump may break) or `strict`.
    #[arg(long, value_name = "CONVENTION", ignore_case = true,
          value_parser = PossibleValuesParser::new(["cargo", "strict"]))]
    pub pre1: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Github,
    Sarif,
    Junit,
}

/// `--prove[=samples]`, shared by `diff` and `check`.
#[derive(Args, Clone, Copy, Default)]
pub struct Prove {
    /// Prove each change by round trips: samples written with one version's schema and
    /// read with the other's, on the wire and in ProtoJSON, beside the rule's verdict;
    /// exit 1 when a sample contradicts a safe verdict. `--prove=samples` prints the
    /// samples too (JSON always has them).
    #[arg(long, value_enum, value_name = "SHOW", num_args = 0..=1, require_equals = true, default_missing_value = "cells")]
    pub prove: Option<ProveShow>,
}

impl Prove {
    /// None: no proof; Some(true): the samples printed too.
    pub fn samples(self) -> Option<bool> {
        self.prove.map(|p| p == ProveShow::Samples)
    }
}

/// What `--prove` prints: the observed cells, or the samples behind them too.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProveShow {
    Cells,
    Samples,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum GraphFormat {
    Text,
    Dot,
    Mermaid,
    Json,
}

#[derive(Clone, Copy, Default, ValueEnum)]
pub enum ColorWhen {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    pub fn choice(self) -> anstream::ColorChoice {
        match self {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        }
    }
}
