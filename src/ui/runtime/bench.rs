//! Responsiveness figures for `protolapse bench`: the real event loop, workers and loader,
//! drawing into an in-memory terminal. Time to the first frame, to a fully browsable history,
//! and per key press (the redraw, and until the background result is on screen).

use std::time::{Duration, Instant};

use anyhow::Result;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::schema::Status;
use crate::ui::app::action::{Action, Command};
use crate::ui::app::{App, Overlay, Pane, Phase};
use crate::ui::runtime::event_loop::{Options, Runtime};
use crate::ui::runtime::loader::{LoadOptions, Source};
use crate::ui::views::View;
use crate::ui::widgets::theme::Theme;

/// One kind of key press, measured.
#[derive(Debug, Clone)]
pub struct Press {
    pub what: &'static str,
    pub count: usize,
    /// Update + redraw right after the key, median and worst.
    pub redraw_median: Duration,
    pub redraw_max: Duration,
    /// Until the worker's result is drawn (zero when the key needs none), median and worst.
    pub settled_median: Duration,
    pub settled_max: Duration,
}

#[derive(Debug, Clone)]
pub struct Figures {
    pub first_frame: Duration,
    /// The selected version's graph drawn with its comparison (with a root; else the first
    /// version compiled), while the rest of the history may still compile.
    pub graph_visible: Duration,
    /// Every version compiled, the analysis and the comparison of the selected pair drawn.
    pub browsable: Duration,
    /// Every version loaded (the history is open).
    pub loaded: Duration,
    /// Since `loaded`: the analysis of the root's scope on screen (the versions pane's
    /// marks); the policy view's matrix for the root (computed ahead of opening the view)
    /// with every cell marked; and complete, each failing cell's first violation found.
    /// None if it did not arrive within the limit.
    pub analysis_ready: Option<Duration>,
    pub policy_marked: Option<Duration>,
    pub policy_ready: Option<Duration>,
    pub versions: usize,
    pub root: Option<String>,
    pub presses: Vec<Press>,
}

/// When, since the history loaded, the root's analysis arrived, and its policy matrix
/// (asked for as soon as the history is open) marked, then complete.
#[derive(Default)]
struct Arrivals {
    facts: Option<Duration>,
    marked: Option<Duration>,
    complete: Option<Duration>,
}

impl Arrivals {
    /// Notes what is on screen (`rt.on_screen()`) at `t`.
    fn note(&mut self, app: &App, t: Duration) {
        if app.facts.as_ref().is_some_and(|f| f.scope == app.scope()) {
            self.facts.get_or_insert(t);
        }
        if let Some(m) = app.matrix.as_ref().filter(|m| m.scope == app.scope()) {
            self.marked.get_or_insert(t);
            if m.complete {
                self.complete.get_or_insert(t);
            }
        }
    }
}

fn browsable(app: &App) -> bool {
    app.phase == Phase::Done
        && app.facts.is_some()
        && (app.root.is_none() || app.current().is_some())
        && app.indexed >= app.versions.len()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

struct Driver {
    rt: Runtime<TestBackend>,
}

impl Driver {
    /// Pumps events until `done` holds (at most `limit`).
    fn until(&mut self, limit: Duration, done: impl Fn(&App) -> bool) -> Result<()> {
        let start = Instant::now();
        while !(done(&self.rt.app) && self.rt.on_screen()) && start.elapsed() < limit {
            self.rt.pump(Duration::from_millis(5))?;
        }
        Ok(())
    }

    /// Presses `cmd` `n` times; `settled` says when its background result is on screen.
    fn press(
        &mut self,
        what: &'static str,
        cmd: Action,
        n: usize,
        settled: impl Fn(&App) -> bool,
    ) -> Result<Press> {
        let mut redraws = Vec::new();
        let mut settles = Vec::new();
        for _ in 0..n {
            let t = Instant::now();
            self.rt.apply(cmd.clone());
            self.rt.draw_key_press()?;
            redraws.push(t.elapsed());
            self.until(Duration::from_secs(120), &settled)?;
            settles.push(t.elapsed());
        }
        Ok(Press {
            what,
            count: n,
            redraw_median: median(redraws.clone()),
            redraw_max: redraws.iter().max().copied().unwrap_or_default(),
            settled_median: median(settles.clone()),
            settled_max: settles.iter().max().copied().unwrap_or_default(),
        })
    }
}

/// Runs the UI on a `width` × `height` in-memory terminal over `source`.
pub fn measure(
    source: Source,
    load: LoadOptions,
    root: Option<String>,
    width: u16,
    height: u16,
) -> Result<Figures> {
    let started = Instant::now();
    let terminal = Terminal::new(TestBackend::new(width, height))?;
    let rt = Runtime::start(
        terminal,
        Options {
            source,
            load,
            root: root.clone(),
        },
        Theme { color: true },
    )?;
    let first_frame = started.elapsed();
    let mut d = Driver { rt };
    let mut loaded = None;
    let mut graph_visible = None;
    let mut since = Arrivals::default();
    let limit = Duration::from_secs(600);
    let graph_shown = |a: &App| match &a.root {
        Some(_) => a.current().is_some(),
        None => a.versions.iter().any(|v| v.status() != Status::Pending),
    };
    while !(browsable(&d.rt.app) && d.rt.on_screen()) && started.elapsed() < limit {
        d.rt.pump(Duration::from_millis(1))?;
        if loaded.is_none() && d.rt.app.project.is_some() {
            loaded = Some(started.elapsed());
        }
        if let Some(l) = loaded
            && d.rt.on_screen()
        {
            since.note(&d.rt.app, started.elapsed().saturating_sub(l));
        }
        if graph_visible.is_none() && graph_shown(&d.rt.app) && d.rt.on_screen() {
            graph_visible = Some(started.elapsed());
        }
    }
    let browsable_at = started.elapsed();
    let loaded = loaded.unwrap_or(browsable_at);
    let graph_visible = graph_visible.unwrap_or(browsable_at);
    while since.complete.is_none() && started.elapsed() < limit {
        d.rt.pump(Duration::from_millis(1))?;
        if d.rt.on_screen() {
            since.note(&d.rt.app, started.elapsed().saturating_sub(loaded));
        }
    }
    let app = &d.rt.app;
    let versions = app.versions.len();
    let root = app.root.clone();
    let mut presses = Vec::new();
    let cmd = |c: Command| Action::Command(c);
    // The selected version's graph is drawn (or it has none: it did not compile).
    let current = |a: &App| a.current().is_some() || a.compare_key().is_none();
    let always = |_: &App| true;
    if root.is_some() {
        d.rt.app.focus = Pane::Graph;
        presses.push(d.press("graph: move down", cmd(Command::Down), 20, always)?);
        presses.push(d.press("graph: expand all", cmd(Command::ExpandAll), 1, always)?);
        presses.push(d.press("graph: page down", cmd(Command::PageDown), 10, always)?);
        presses.push(d.press(
            "graph: changed only",
            cmd(Command::ToggleChanged),
            2,
            always,
        )?);
        presses.push(d.press("detail: next rule", cmd(Command::NextRule), 5, always)?);
        d.rt.app.focus = Pane::Versions;
        let moves = versions.saturating_sub(1).min(10);
        presses.push(d.press(
            "versions: previous version",
            cmd(Command::Up),
            moves,
            current,
        )?);
        presses.push(d.press("versions: next version", cmd(Command::Down), moves, current)?);
        // Across a long history: a page, the oldest and back to the newest.
        presses.push(d.press("versions: page up", cmd(Command::PageUp), 5, current)?);
        presses.push(d.press("versions: oldest", cmd(Command::Home), 1, current)?);
        presses.push(d.press("versions: newest", cmd(Command::End), 1, current)?);
        presses.push(d.press(
            "view: changes",
            cmd(Command::View(View::Changes)),
            1,
            always,
        )?);
        presses.push(d.press(
            "view: history",
            cmd(Command::View(View::History)),
            1,
            |a: &App| {
                a.history_container()
                    .is_some_and(|c| a.lifecycles.contains_key(&c))
            },
        )?);
        // The matrices have a column per version: sideways, and to the last column.
        d.rt.app.focus = Pane::Matrix;
        presses.push(d.press("history: next column", cmd(Command::Right), 5, always)?);
        presses.push(d.press(
            "history: first column",
            cmd(Command::FirstColumn),
            1,
            always,
        )?);
        presses.push(d.press("history: last column", cmd(Command::LastColumn), 1, always)?);
        presses.push(d.press(
            "view: policy matrix",
            cmd(Command::View(View::Policy)),
            1,
            |a: &App| a.matrix.is_some(),
        )?);
        d.rt.app.focus = Pane::Matrix;
        presses.push(d.press("policy: next column", cmd(Command::Right), 5, always)?);
        presses.push(d.press("policy: first column", cmd(Command::FirstColumn), 1, always)?);
        presses.push(d.press("policy: last column", cmd(Command::LastColumn), 1, always)?);
        presses.push(d.press("policy: next row", cmd(Command::Down), 5, always)?);
        presses.push(d.press("view: graph", cmd(Command::View(View::Graph)), 1, always)?);
    }
    presses.push(d.press(
        "finder: open",
        cmd(Command::FindJump),
        1,
        |a: &App| matches!(&a.overlay, Overlay::Finder(f) if f.results.is_some()),
    )?);
    presses.push(d.type_text("finder: type a letter", "field")?);
    // A version by the words of its subject (or a tag's message), or by its name.
    let word =
        d.rt.app
            .versions
            .last()
            .and_then(|v| v.version.message.as_deref())
            .and_then(|m| m.split_whitespace().find(|w| w.len() >= 4))
            .unwrap_or("v1")
            .to_string();
    d.rt.app.overlay = Overlay::None;
    d.press(
        "finder: open",
        cmd(Command::FindJump),
        1,
        |a: &App| matches!(&a.overlay, Overlay::Finder(f) if f.results.is_some()),
    )?;
    presses.push(d.type_text("finder: type a version word", &word)?);
    Ok(Figures {
        first_frame,
        graph_visible,
        browsable: browsable_at,
        loaded,
        analysis_ready: since.facts,
        policy_marked: since.marked,
        policy_ready: since.complete,
        versions,
        root,
        presses,
    })
}

impl Driver {
    /// Types `text` into the open finder, one key press a character, each until its results
    /// are on screen.
    fn type_text(&mut self, what: &'static str, text: &str) -> Result<Press> {
        let mut typed: Vec<Press> = Vec::new();
        let mut want = String::new();
        for ch in text.chars() {
            want.push(ch);
            let want = want.clone();
            typed.push(self.press(what, Action::Type(ch), 1, move |a: &App| {
                matches!(&a.overlay, Overlay::Finder(f)
                if f.results.as_ref().is_some_and(|r| r.query == want))
            })?);
        }
        Ok(Press {
            what,
            count: typed.len(),
            redraw_median: median(typed.iter().map(|p| p.redraw_median).collect()),
            redraw_max: typed.iter().map(|p| p.redraw_max).max().unwrap_or_default(),
            settled_median: median(typed.iter().map(|p| p.settled_median).collect()),
            settled_max: typed
                .iter()
                .map(|p| p.settled_max)
                .max()
                .unwrap_or_default(),
        })
    }
}
