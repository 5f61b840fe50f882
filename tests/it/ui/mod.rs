//! The terminal UI driven directly: `App::update` with actions, workers run inline. The parts:
//! `screens`, every view on the demo history rendered to a `TestBackend` at fixed sizes and
//! compared with `insta` snapshots; `update`, what actions, keys and the mouse do to the app;
//! `cells`, colours and sanitizing checked cell by cell; `keys`, the keys pressed through the
//! key table; `legend`, what the help says of every column, mark and policy; `proof`, the
//! detail pane's round trips and their worker. The demo's load and the helpers that drive
//! the app live here.

/// Asserts the screen of `$app` against the snapshot `$name`. The snapshots stay in
/// `tests/it/snapshots/`, one folder up from the file (insta resolves the path from the
/// file of the test).
macro_rules! snap {
    ($name:expr, $app:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, screen(&$app).backend());
        });
    };
}

mod cells;
mod finder;
mod keys;
mod legend;
mod proof;
mod screens;
mod update;
mod wide;

use std::sync::{OnceLock, RwLock};

use protolapse::explore::names::Index;
use protolapse::load::VersionId;
use protolapse::ui::app::{Action, App, Command, Pane};
use protolapse::ui::runtime::loader::{self, LoadOptions, Source};
use protolapse::ui::runtime::worker::{Inbox, execute};
use protolapse::ui::widgets::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

const COLOR: Theme = Theme { color: true };

/// The demo's load, recorded once: every action the loader sends, and the name index.
fn demo_load() -> &'static (Vec<Action>, RwLock<Index>) {
    static LOAD: OnceLock<(Vec<Action>, RwLock<Index>)> = OnceLock::new();
    LOAD.get_or_init(|| {
        let names = RwLock::new(Index::new());
        let inbox = Inbox::default();
        loader::run(
            &Source::Demo,
            &LoadOptions::default(),
            &names,
            &inbox,
            &|| {},
        )
        .expect("the demo loads");
        (inbox.drain(), names)
    })
}

/// Runs every request the app made, inline, until it asks for nothing more.
fn settle(app: &mut App) {
    let names = &demo_load().1;
    for _ in 0..50 {
        let reqs: Vec<_> = app.outbox.drain(..).collect();
        if reqs.is_empty() {
            return;
        }
        for r in reqs {
            for a in execute(r, names) {
                app.update(a);
            }
        }
    }
    panic!("the app keeps asking");
}

fn act(app: &mut App, a: Action) {
    app.update(a);
    settle(app);
}

fn cmd(app: &mut App, c: Command) {
    act(app, Action::Command(c));
}

/// The demo, loaded, at a size, with a root (or none: the root the demo names).
fn demo(w: u16, h: u16, root: Option<&str>, theme: Theme) -> App {
    let mut app = App::new(
        theme,
        Rect::new(0, 0, w, h),
        "demo",
        root.map(str::to_string),
    );
    for a in &demo_load().0 {
        act(&mut app, a.clone());
    }
    app
}

/// The demo's history as a repository that names no root (no `--root`, no `root` in its
/// protolapse.toml): the root finder opens.
fn unrooted(w: u16, h: u16) -> App {
    let mut app = App::new(COLOR, Rect::new(0, 0, w, h), "repo", None);
    for a in &demo_load().0 {
        let mut a = a.clone();
        if let Action::Opened(o) = &mut a {
            o.config_root = None;
        }
        act(&mut app, a);
    }
    app
}

/// A key press, through the key table, as the event loop sends it.
fn press(app: &mut App, code: KeyCode, mods: KeyModifiers) {
    let ev = Event::Key(KeyEvent::new(code, mods));
    if let Some(a) = protolapse::ui::runtime::event_loop::input_action(app, &ev) {
        act(app, a);
    }
}

/// Presses each character of `keys` (no modifiers).
fn keys(app: &mut App, keys: &str) {
    for ch in keys.chars() {
        press(app, KeyCode::Char(ch), KeyModifiers::NONE);
    }
}

fn screen(app: &App) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(app.size.width, app.size.height)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    t
}

fn text(app: &App) -> String {
    screen(app).backend().to_string()
}

fn buffer(app: &App) -> Buffer {
    screen(app).backend().buffer().clone()
}

fn index_of(app: &App, name: &str) -> VersionId {
    app.versions
        .iter()
        .find(|v| v.version.name == name)
        .unwrap()
        .id
}

/// Puts the graph cursor on a full name.
fn go_to(app: &mut App, name: &str) {
    app.show(name);
    settle(app);
    let r = app.tree.row().expect("a row");
    assert!(
        r.node.element == name || r.node.old_element.as_deref() == Some(name),
        "{name} not shown: {}",
        r.node.element
    );
}

/// Compares `old` with `new`, with the keys a user would press.
fn pair(app: &mut App, old: &str, new: &str) {
    let (o, n) = (index_of(app, old).index(), index_of(app, new).index());
    let keep = app.focus;
    while app.focus != Pane::Versions {
        cmd(app, Command::FocusNext);
    }
    cmd(app, Command::Home);
    for _ in 0..o {
        cmd(app, Command::Down);
    }
    cmd(app, Command::MarkBase);
    for _ in o..n {
        cmd(app, Command::Down);
    }
    while app.focus != keep {
        cmd(app, Command::FocusNext);
    }
    let c = app.current().expect("compared");
    assert_eq!((c.old.name(), c.new.name()), (old, new));
}

/// The demo with the richest pair, v1.1.1 -> v2.0.0, from FlightPath.
fn rich(w: u16, h: u16, theme: Theme) -> App {
    let mut app = demo(w, h, Some("FlightPath"), theme);
    pair(&mut app, "v1.1.1", "v2.0.0");
    // Into the graph, as a user would.
    cmd(&mut app, Command::Enter);
    assert_eq!(app.focus, Pane::Graph);
    app
}
