//! The command line: the arguments (clap), and the one dispatch from a parsed command to
//! its function in `commands` (or the terminal UI).

mod args;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::CommandFactory;

use protolapse::config::{Config, Given};
use protolapse::history;
use protolapse::judge::Scope;
use protolapse::policy::{Level, Policy, Pre1, Settings};

use crate::commands::{self, CheckOut, GraphOut, Opened, print};
pub use args::Cli;
use args::{CacheAction, CheckFormat, Command, Global, GraphFormat, Judge, LogFormat};

/// Parses the command line (exiting with clap's message and status 2 on a usage error).
/// A repeatable shared flag given both before and after the subcommand (`--rev a log --rev
/// b`) keeps every value: clap keeps only the subcommand's.
pub fn parse() -> Cli {
    use clap::Parser;
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut cli = Cli::parse_from(&argv);
    let Some(name) = cli.command.as_ref().and_then(|_| {
        Cli::command()
            .get_matches_from(&argv)
            .subcommand_name()
            .map(str::to_string)
    }) else {
        return cli;
    };
    // The words before the subcommand, parsed alone: the values given there.
    let before = argv
        .iter()
        .enumerate()
        .filter(|(_, a)| a.to_str() == Some(name.as_str()))
        .find_map(|(i, _)| {
            Cli::try_parse_from(argv.get(..i)?)
                .ok()
                .filter(|c| c.command.is_none() && c.repo.is_none())
        });
    if let Some(before) = before {
        let g = &mut cli.global;
        for (all, early) in [
            (&mut g.revs, before.global.revs),
            (&mut g.proto_paths, before.global.proto_paths),
            (&mut g.paths, before.global.paths),
        ] {
            if !early.is_empty() && *all != early {
                let late = std::mem::replace(all, early);
                all.extend(late);
            }
        }
    }
    cli
}

/// Runs the command and returns the exit status; errors (status 2) are printed by `main`.
pub fn run(cli: Cli) -> Result<i32> {
    protolapse::schema::store::configure(!cli.global.no_cache, |why| {
        eprintln!("warning: {}", protolapse::sanitize::line(why));
    });
    let result = dispatch(cli);
    // What the run keeps for the next is written before it exits.
    protolapse::schema::store::finish();
    result.map(|passed| if passed { 0 } else { 1 })
}

/// The one dispatch: each command, from its arguments to printed output. Ok(false) when a
/// check found a violation.
fn dispatch(cli: Cli) -> Result<bool> {
    let g = cli.global;
    let colour = commands::paint::enabled(g.color.choice());
    let Some(command) = cli.command else {
        return tui(cli.repo, g).map(|()| true);
    };
    if let Some(word) = &cli.repo {
        // A word before the subcommand is the terminal UI's repository: the subcommand
        // would run somewhere else, silently.
        let word = protolapse::sanitize::line(&word.display().to_string());
        match g.commits {
            // `--commits A..B log`: clap took the range for it.
            Some(_) => bail!(
                "`{word}` before the subcommand is no repository for it
  help: a range takes `=`: --commits={word}"
            ),
            None => bail!(
                "`{word}` before the subcommand is no repository for it
  help: the repository goes after the subcommand: protolapse log {word}, protolapse diff {word} OLD NEW"
            ),
        }
    }
    match command {
        Command::Log {
            repo,
            judge,
            format,
        } => {
            let opened = commands::open(&g.source(repo.as_deref())?, false)?;
            let settings = judge.settings(&opened, g.root)?;
            print(&commands::log(
                &opened,
                &settings,
                format == LogFormat::Json,
            )?)?;
            opened.leave();
        }
        Command::Check {
            repo,
            against,
            publish,
            judge,
            format,
            prove,
        } => {
            let opened = commands::open_check(
                &g.source(repo.as_deref())?,
                &g.revs,
                against.as_deref(),
                publish.as_deref(),
                g.root.as_deref(),
            )?;
            let settings = judge.settings(&opened, g.root.clone())?;
            let out = match format {
                CheckFormat::Text => CheckOut::Text,
                CheckFormat::Json => CheckOut::Json,
                CheckFormat::Github => CheckOut::Github,
                CheckFormat::Sarif => CheckOut::Sarif,
                CheckFormat::Junit => CheckOut::Junit,
            };
            let text_out = matches!(out, CheckOut::Text);
            let (text, pass) = commands::check(
                &opened,
                &g.revs,
                against.as_deref(),
                publish.as_deref(),
                &settings,
                out,
                prove.samples(),
            )?;
            print(&commands::paint::check(&text, text_out && colour))?;
            opened.leave();
            return Ok(pass);
        }
        Command::Blame { args, format } => {
            let (repo, name) = match &args[..] {
                [m] => (None, m.clone()),
                [r, m] => (Some(PathBuf::from(r)), m.clone()),
                _ => bail!(
                    "blame takes [REPO] MSG (a message or enum, after an optional repository), not {} values\n  help: protolapse blame physics.v1.Temperature",
                    args.len()
                ),
            };
            let opened = commands::open(&g.source(repo.as_deref())?, false)?;
            print(&commands::blame(&opened, &name, format == LogFormat::Json)?)?;
            opened.leave();
        }
        Command::Graph { repo, at, format } => {
            let source = g.source(repo.as_deref())?;
            let opened = match &at {
                Some(at) => commands::open_only(&source, &[at])?,
                None => commands::open_newest(&source)?,
            };
            let root = g.root.clone().or_else(|| opened.config.root.clone());
            let out = match format {
                GraphFormat::Text => GraphOut::Text,
                GraphFormat::Dot => GraphOut::Dot,
                GraphFormat::Mermaid => GraphOut::Mermaid,
                GraphFormat::Json => GraphOut::Json,
            };
            print(&commands::graph(
                &opened,
                at.as_deref(),
                root.as_deref(),
                out,
            )?)?;
        }
        Command::Diff {
            args,
            format,
            prove,
        } => {
            let (repo, old, new) = match &args[..] {
                [o, n] => (None, o.clone(), n.clone()),
                [r, o, n] => (Some(PathBuf::from(r)), o.clone(), n.clone()),
                _ => bail!(
                    "diff takes [REPO] OLD NEW (two versions, after an optional repository), not {} values\n  help: protolapse diff v1.0.0 v2.0.0, or protolapse diff path/to/repo v1.0.0 v2.0.0",
                    args.len()
                ),
            };
            let opened = commands::open_only(&g.source(repo.as_deref())?, &[&old, &new])?;
            let settings = opened.config.settings().map_err(|e| anyhow!(e))?;
            let root = g.root.clone().or_else(|| opened.config.root.clone());
            let (text, passed) = commands::diff(
                &opened,
                &old,
                &new,
                root.as_deref(),
                &settings.ignores,
                format == LogFormat::Json,
                prove.samples(),
            )?;
            print(&commands::paint::diff(
                &text,
                format == LogFormat::Text && colour,
            ))?;
            return Ok(passed);
        }
        Command::Cache { action } => {
            print(&commands::cache(
                g.no_cache,
                matches!(action, Some(CacheAction::Clear)),
            )?)?;
        }
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "protolapse", &mut out);
            print(&String::from_utf8_lossy(&out))?;
        }
        Command::Man => print(&man_page()?)?,
        Command::Explain { rule, list, format } => {
            print(&commands::explain(
                rule.as_deref(),
                list,
                format == LogFormat::Json,
            )?)?;
        }
        Command::Bench { repo, synthetic } => {
            let source = g.source(repo.as_deref())?;
            crate::bench::run(
                source.repo,
                source.demo,
                synthetic.as_deref(),
                &Config::default().history_options(&source.given, false),
                g.root.clone(),
            )?
        }
    }
    Ok(true)
}

/// `protolapse man`: the page of the command (clap_mangen), a section per subcommand with
/// its synopsis and own options (the shared ones are on the page once), and the exit status.
fn man_page() -> Result<String> {
    let mut cmd = Cli::command();
    cmd.build();
    let mut out = Vec::new();
    let err = |e: std::io::Error| anyhow!("cannot render the man page: {e}");
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(&mut out).map_err(err)?;
    man.render_name_section(&mut out).map_err(err)?;
    man.render_synopsis_section(&mut out).map_err(err)?;
    man.render_description_section(&mut out).map_err(err)?;
    man.render_options_section(&mut out).map_err(err)?;
    man.render_subcommands_section(&mut out).map_err(err)?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let title = format!("protolapse {}", sub.get_name()).to_uppercase();
        out.extend(format!(".SH \"{title}\"\n").as_bytes());
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            out.extend(format!("{}\n", roff_text(&about.to_string())).as_bytes());
        }
        let own = sub
            .clone()
            .mut_args(|a| if a.is_global_set() { a.hide(true) } else { a });
        let man = clap_mangen::Man::new(own);
        man.render_synopsis_section(&mut out).map_err(err)?;
        man.render_options_section(&mut out).map_err(err)?;
    }
    man.render_extra_section(&mut out).map_err(err)?;
    out.extend(
        b".SH \"EXIT STATUS\"\n0: success (check: passed); 1: check found a violation; 2: could not run (a usage error, a repository that cannot be read).\n",
    );
    man.render_version_section(&mut out).map_err(err)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Text for a roff paragraph: backslashes escaped, no line starting with a control character.
fn roff_text(text: &str) -> String {
    text.replace('\\', "\\e")
        .lines()
        .map(|l| match l.starts_with(['.', '\'']) {
            true => format!("\\&{l}"),
            false => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `protolapse [REPO]` and `protolapse --demo`: the terminal UI.
fn tui(repo: Option<PathBuf>, g: Global) -> Result<()> {
    use protolapse::ui;
    use std::io::IsTerminal;
    if let Some(word) = repo.as_deref() {
        not_a_subcommand(word);
    }
    let source = g.source(repo.as_deref())?;
    let src = if source.demo {
        ui::Source::Demo
    } else {
        let path = repo.clone().unwrap_or_else(|| PathBuf::from("."));
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
        load: source.given,
        root: g.root,
    })
}

/// The terminal UI's REPO is the first word when it is no subcommand: a word that names no
/// file and is close to a subcommand's name is a typo of it (`protolapse lgo`), reported as
/// clap reports an unknown subcommand (status 2).
fn not_a_subcommand(word: &Path) {
    if word.exists() {
        return;
    }
    let Some(given) = word.to_str() else { return };
    let cmd = Cli::command();
    let names: Vec<&str> = cmd
        .get_subcommands()
        .map(|c| c.get_name())
        .filter(|n| *n != "help")
        .collect();
    // clap's measure and threshold for "did you mean" (when no more than half the word
    // differs), and one edit or swap for short words (`lgo`), which it misses.
    let half = given.chars().count() / 2;
    let best = names
        .iter()
        .map(|n| (strsim::osa_distance(n, given), strsim::jaro(n, given), *n))
        .filter(|(edits, score, _)| *edits <= 1 || (*score > 0.7 && *edits <= half))
        .min_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)))
        .map(|(_, _, n)| n.to_string());
    if let Some(name) = best {
        let mut cmd = cmd;
        cmd.error(
            clap::error::ErrorKind::InvalidSubcommand,
            format!(
                "unrecognized subcommand '{}'\n\n  tip: a similar subcommand exists: '{name}'\n  tip: to open the terminal UI on a repository, pass a path that exists",
                protolapse::sanitize::line(given)
            ),
        )
        .exit();
    }
}

impl Global {
    /// Where a command reads its history from: the demo, or REPO (default: the current
    /// directory), with the flags' values checked (`Given::check`: an error names the flag).
    fn source<'a>(&self, repo: Option<&'a Path>) -> Result<commands::Source<'a>> {
        if self.demo
            && let Some(path) = repo
        {
            bail!(
                "--demo reads the built-in demo history, so it takes no repository (`{}` given)\n  help: leave out either --demo or the path",
                protolapse::sanitize::line(&path.display().to_string())
            );
        }
        let given = Given {
            tags: self.tags.clone(),
            revs: self.revs.clone(),
            proto_paths: self.proto_paths.clone(),
            commits: self.commits.clone(),
            paths: self.paths.clone(),
        };
        given.check().map_err(|e| anyhow!(e))?;
        Ok(commands::Source {
            repo,
            demo: self.demo,
            given,
        })
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
            s.origin.push_str("; level from --level");
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
