//! The terminal UI driven directly: `App::update` with actions, workers run inline, screens
//! rendered to a `TestBackend` and compared with `insta` snapshots (every view, on the demo
//! history, at fixed sizes), and colours checked cell by cell.

use std::sync::{OnceLock, RwLock};

use protolapse::explore::names::Index;
use protolapse::ui::app::{Action, App, Command, FindMode, Mouse, Overlay, Pane, Phase};
use protolapse::ui::runtime::loader::{self, LoadOptions, Source};
use protolapse::ui::runtime::worker::{Inbox, execute};
use protolapse::ui::views::View;
use protolapse::ui::widgets::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};

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
            app.update(execute(r, names));
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

/// The demo, loaded, at a size, with a root (or none: the finder opens).
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

macro_rules! snap {
    ($name:expr, $app:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, screen(&$app).backend());
        });
    };
}

fn index_of(app: &App, name: &str) -> usize {
    app.versions
        .iter()
        .position(|v| v.version.name == name)
        .unwrap()
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
    let (o, n) = (index_of(app, old), index_of(app, new));
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
    app
}

// ---- Snapshots of every view -------------------------------------------------------------

#[test]
fn snapshot_first_frame_before_anything_loaded() {
    let app = App::new(COLOR, Rect::new(0, 0, 80, 24), "demo", None);
    snap!("first_frame_80x24", app);
}

#[test]
fn snapshot_root_finder_at_start() {
    let mut app = demo(80, 24, None, COLOR);
    assert!(matches!(&app.overlay, Overlay::Finder(f) if f.mode == FindMode::Root));
    snap!("root_finder_80x24", app);
    for c in "flipa".chars() {
        act(&mut app, Action::Type(c));
    }
    snap!("root_finder_query_80x24", app);
}

#[test]
fn snapshot_graph_view() {
    let mut app = rich(120, 40, COLOR);
    go_to(&mut app, "physics.v1.Reading.milli_kelvin");
    snap!("graph_120x40", app);
    let mut partial = demo(120, 40, Some("FlightPath"), COLOR);
    pair(&mut partial, "v1.1.1", "v1.2.0");
    snap!("graph_partial_version_120x40", partial);
    let mut small = rich(80, 24, COLOR);
    go_to(&mut small, "physics.v1.FlightPath.passengers");
    snap!("graph_80x24", small);
    cmd(&mut small, Command::ToggleChanged);
    snap!("graph_changed_only_80x24", small);
}

#[test]
fn snapshot_service_root_expanded() {
    let mut app = demo(120, 40, Some("FlightService"), COLOR);
    let v = index_of(&app, "v0.2.0");
    app.selected = v;
    settle(&mut app);
    cmd(&mut app, Command::ExpandAll);
    snap!("graph_service_120x40", app);
}

#[test]
fn snapshot_changes_view() {
    let mut app = rich(120, 40, COLOR);
    cmd(&mut app, Command::View(View::Changes));
    cmd(&mut app, Command::Down);
    snap!("changes_120x40", app);
    let mut small = rich(80, 24, COLOR);
    cmd(&mut small, Command::View(View::Changes));
    snap!("changes_80x24", small);
}

#[test]
fn snapshot_history_view() {
    let mut app = rich(120, 40, COLOR);
    cmd(&mut app, Command::View(View::History));
    cmd(&mut app, Command::Down);
    cmd(&mut app, Command::Down);
    cmd(&mut app, Command::Down);
    snap!("history_120x40", app);
    let mut small = demo(80, 24, Some("FlightPath"), COLOR);
    cmd(&mut small, Command::View(View::History));
    snap!("history_80x24", small);
}

#[test]
fn snapshot_policy_view() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    cmd(&mut app, Command::View(View::Policy));
    let v = index_of(&app, "v1.1.0");
    app.policy_nav.row = v;
    cmd(&mut app, Command::Right);
    cmd(&mut app, Command::Right);
    cmd(&mut app, Command::Right);
    snap!("policy_120x40", app);
    let mut small = demo(80, 24, Some("FlightPath"), COLOR);
    cmd(&mut small, Command::View(View::Policy));
    snap!("policy_80x24", small);
}

#[test]
fn snapshot_help_and_jump_finder() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    cmd(&mut app, Command::Help);
    snap!("help_120x40", app);
    let mut small = demo(80, 24, Some("FlightPath"), COLOR);
    cmd(&mut small, Command::Help);
    cmd(&mut small, Command::PageDown);
    snap!("help_scrolled_80x24", small);
    cmd(&mut app, Command::Back);
    cmd(&mut app, Command::FindJump);
    for c in "sensor".chars() {
        act(&mut app, Action::Type(c));
    }
    snap!("jump_finder_120x40", app);
}

#[test]
fn snapshot_too_small_and_load_failure() {
    let app = demo(50, 12, Some("FlightPath"), COLOR);
    snap!("too_small_50x12", app);
    let mut failed = App::new(COLOR, Rect::new(0, 0, 80, 24), "/nowhere", None);
    act(
        &mut failed,
        Action::LoadFailed("no tags in /nowhere\n  help: tag a release".into()),
    );
    snap!("load_failed_80x24", failed);
}

// ---- App::update ------------------------------------------------------------------------

#[test]
fn moving_through_versions_compares_each_with_its_previous_relevant_version() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    assert_eq!(app.phase, Phase::Done);
    assert_eq!(app.root.as_deref(), Some("physics.v1.FlightPath"));
    let last = app.versions.len() - 1;
    assert_eq!(app.selected, last);
    assert!(app.current().is_some(), "the comparison arrived");
    act(&mut app, Action::Command(Command::FocusPrev));
    assert_eq!(app.focus, Pane::Versions);
    // v4.0.0 -> v3.0.1 -> v3.0.0 -> v2.2.0 -> v2.1.0 -> v2.0.0 -> v1.2.0 -> v1.1.1
    for _ in 0..7 {
        cmd(&mut app, Command::Up);
    }
    let v111 = index_of(&app, "v1.1.1");
    assert_eq!(app.selected, v111);
    let c = app.current().expect("compared");
    assert_eq!((c.old.name(), c.new.name()), ("v1.1.0", "v1.1.1"));
    assert!(text(&app).contains("v1.1.0 → v1.1.1"));
    // A marked base: any two versions.
    let v010 = index_of(&app, "v0.1.0");
    cmd(&mut app, Command::Home);
    assert_eq!(app.selected, v010);
    cmd(&mut app, Command::MarkBase);
    assert_eq!(app.base, Some(v010));
    cmd(&mut app, Command::End);
    let c = app.current().expect("compared");
    assert_eq!((c.old.name(), c.new.name()), ("v0.1.0", "v4.0.0"));
    cmd(&mut app, Command::Home);
    cmd(&mut app, Command::MarkBase);
    assert_eq!(app.base, None);
}

#[test]
fn the_cursor_stays_on_its_field_across_versions() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    go_to(&mut app, "physics.v1.FlightPath.passengers");
    let path = app.tree.path.clone();
    cmd(&mut app, Command::FocusPrev);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Up);
    assert_eq!(app.tree.path, path);
    assert_eq!(app.tree.row().unwrap().node.name, "passengers");
}

#[test]
fn graph_keys_expand_collapse_filter_and_find_changes() {
    let mut app = rich(120, 40, COLOR);
    assert_eq!(app.focus, Pane::Graph);
    // A new comparison opens the paths to what changed.
    assert!(app.tree.auto);
    assert!(app.tree.rows.iter().any(|r| r.node.name == "milli_kelvin"));
    cmd(&mut app, Command::CollapseAll);
    assert!(!app.tree.auto, "the user took over");
    let before = app.tree.rows.len();
    assert_eq!(before, 1 + 14, "the root and its fields");
    cmd(&mut app, Command::Down); // id
    cmd(&mut app, Command::Down); // waypoints
    cmd(&mut app, Command::Enter);
    assert!(app.tree.rows.len() > before, "expanded");
    cmd(&mut app, Command::Left);
    assert_eq!(app.tree.rows.len(), before, "collapsed");
    cmd(&mut app, Command::Home);
    cmd(&mut app, Command::ExpandAll);
    let all = app.tree.rows.len();
    assert!(all > before);
    cmd(&mut app, Command::ToggleChanged);
    assert!(app.tree.rows.len() < all);
    assert!(
        app.tree.rows[1..]
            .iter()
            .all(|r| r.node.worst_here_or_below().is_some())
    );
    cmd(&mut app, Command::ToggleChanged);
    cmd(&mut app, Command::CollapseAll);
    assert_eq!(app.tree.rows.len(), before);
    cmd(&mut app, Command::Home);
    cmd(&mut app, Command::NextChange);
    let r = app.tree.row().unwrap();
    assert!(!r.node.changes.is_empty());
    let first = app.tree.path.clone();
    cmd(&mut app, Command::NextChange);
    assert_ne!(app.tree.path, first);
    cmd(&mut app, Command::PrevChange);
    assert_eq!(app.tree.path, first);
}

#[test]
fn the_detail_pane_switches_between_a_nodes_changes() {
    let mut app = rich(120, 40, COLOR);
    go_to(&mut app, "physics.v1.Reading.milli_kelvin");
    let n = app.tree.row().unwrap().node.changes.len();
    assert!(n >= 2);
    cmd(&mut app, Command::FocusNext);
    assert_eq!(app.focus, Pane::Detail);
    let shown = |app: &App| {
        let c = app.current().unwrap();
        let i = app.tree.row().unwrap().node.changes[app.detail.rule];
        c.changes[i].rule
    };
    let first = shown(&app);
    assert!(text(&app).contains(first.as_str()));
    cmd(&mut app, Command::NextRule);
    assert_ne!(shown(&app), first);
    assert!(text(&app).contains(shown(&app).as_str()));
    cmd(&mut app, Command::PageDown);
    assert!(app.detail.scroll > 0, "the rule page scrolls");
}

#[test]
fn enter_on_a_change_shows_its_node_in_the_graph() {
    let mut app = rich(120, 40, COLOR);
    cmd(&mut app, Command::View(View::Changes));
    assert_eq!(app.focus, Pane::Changes);
    cmd(&mut app, Command::Down);
    let i = app.changes_nav.cursor;
    cmd(&mut app, Command::Enter);
    assert_eq!(app.view, View::Graph);
    let node = &app.tree.row().unwrap().node;
    assert!(node.changes.contains(&i));
    assert_eq!(node.changes[app.detail.rule], i);
    cmd(&mut app, Command::View(View::Changes));
    cmd(&mut app, Command::Back);
    assert_eq!(app.view, View::Graph);
}

#[test]
fn the_root_finder_picks_the_root() {
    let mut app = demo(120, 40, None, COLOR);
    assert!(app.root.is_none());
    for c in "flightserv".chars() {
        act(&mut app, Action::Type(c));
    }
    let Overlay::Finder(f) = &app.overlay else {
        panic!("finder")
    };
    let items = &f.results.as_ref().unwrap().items;
    assert_eq!(items[0].name, "physics.v1.FlightService");
    assert!(!items[0].indices.is_empty());
    cmd(&mut app, Command::Enter);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.root.as_deref(), Some("physics.v1.FlightService"));
    assert!(app.current().is_some());
}

#[test]
fn jumping_to_a_name_outside_the_root_moves_the_root() {
    let mut app = demo(120, 40, Some("GetFlightRequest"), COLOR);
    cmd(&mut app, Command::FindJump);
    for c in "Temperature.sensor_id".chars() {
        act(&mut app, Action::Type(c));
    }
    cmd(&mut app, Command::Enter);
    assert_eq!(app.root.as_deref(), Some("physics.v1.Temperature"));
    let r = app.tree.row().unwrap();
    assert_eq!(r.node.element, "physics.v1.Temperature.sensor_id");
    assert!(app.status.as_deref().unwrap_or("").contains("not reached"));
}

#[test]
fn an_unknown_root_opens_the_finder_with_it() {
    let app = demo(120, 40, Some("Temprature"), COLOR);
    let Overlay::Finder(f) = &app.overlay else {
        panic!("finder")
    };
    assert_eq!(f.query, "Temprature");
    assert!(app.status.as_deref().unwrap_or("").contains("Temprature"));
}

#[test]
fn mouse_clicks_select_and_the_wheel_scrolls() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    let a = app.areas();
    let versions = a.versions.unwrap();
    // The third version row (below the border and the header).
    act(
        &mut app,
        Action::Mouse {
            kind: Mouse::Click,
            column: versions.x + 3,
            row: versions.y + 2 + 2,
        },
    );
    assert_eq!(app.focus, Pane::Versions);
    assert_eq!(app.selected, 2);
    let graph = app.areas().graph.unwrap();
    act(
        &mut app,
        Action::Mouse {
            kind: Mouse::ScrollDown,
            column: graph.x + 5,
            row: graph.y + 3,
        },
    );
    assert_eq!(app.tree.cursor, 3);
    // A click on a tab switches the view.
    let tab = View::Changes;
    let (_, r) = protolapse::ui::views::tabs(app.areas().top)
        .into_iter()
        .find(|(v, _)| *v == tab)
        .unwrap();
    act(
        &mut app,
        Action::Mouse {
            kind: Mouse::Click,
            column: r.x + 1,
            row: r.y,
        },
    );
    assert_eq!(app.view, tab);
}

#[test]
fn resizing_and_quitting() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    act(&mut app, Action::Resize(40, 10));
    assert!(app.areas().too_small);
    assert!(text(&app).contains("60×16"), "{}", text(&app));
    act(&mut app, Action::Resize(100, 30));
    assert!(!app.areas().too_small);
    assert!(!app.quit);
    cmd(&mut app, Command::Quit);
    assert!(app.quit);
}

#[test]
fn every_key_in_the_help_and_footer_comes_from_the_table() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    let footer = text(&app).lines().last().unwrap_or("").to_string();
    for (keys, label) in protolapse::ui::app::keys::footer(app.context())
        .iter()
        .take(4)
    {
        assert!(
            footer.contains(keys.as_str()) && footer.contains(label),
            "{footer}"
        );
    }
    cmd(&mut app, Command::Help);
    let help = text(&app);
    assert!(help.contains("expand or collapse the node"));
    assert!(help.contains("quit"));
}

// ---- Colours and sanitizing -------------------------------------------------------------

fn find_cell(buf: &Buffer, text: &str) -> Option<(u16, u16)> {
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        if let Some(pos) = line.find(text) {
            let x = line[..pos].chars().count() as u16;
            return Some((x, y));
        }
    }
    None
}

#[test]
fn verdicts_are_coloured_by_severity_and_removed_fields_are_struck() {
    let mut app = rich(120, 40, COLOR);
    go_to(&mut app, "physics.v1.Temperature.label");
    let buf = buffer(&app);
    // passengers: uint32 -> sint32, breaking: red.
    let (x, y) = find_cell(&buf, "passengers").unwrap();
    assert_eq!(buf[(x, y)].fg, Color::Red);
    let line: String = (0..buf.area.width)
        .map(|i| buf[(i, y)].symbol().to_string())
        .collect();
    let bx = line
        .find("breaking")
        .map(|p| line[..p].chars().count() as u16)
        .unwrap();
    assert_eq!(buf[(bx, y)].fg, Color::Red);
    // A removed field: dim and struck through.
    let (x, y) = find_cell(&buf, "label").unwrap();
    assert!(buf[(x, y)].modifier.contains(Modifier::CROSSED_OUT));
    assert_eq!(buf[(x, y)].fg, Color::DarkGray);
    // The summary counts use the same colours.
    let (x, y) = find_cell(&buf, "breaking ·")
        .or_else(|| find_cell(&buf, " breaking"))
        .unwrap();
    assert_eq!(buf[(x, y)].fg, Color::Red);
}

#[test]
fn every_severity_has_its_colour() {
    use protolapse::rules::Severity;
    assert_eq!(COLOR.severity(Severity::Safe).fg, Some(Color::Green));
    assert_eq!(COLOR.severity(Severity::Hazard).fg, Some(Color::Yellow));
    assert_eq!(COLOR.severity(Severity::Lossy).fg, Some(Color::Magenta));
    assert_eq!(COLOR.severity(Severity::Breaking).fg, Some(Color::Red));
    // The changes view paints each row's verdict with it, whatever the pair.
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    cmd(&mut app, Command::View(View::Changes));
    let mut seen = std::collections::BTreeSet::new();
    let names: Vec<String> = app
        .versions
        .iter()
        .map(|v| v.version.name.clone())
        .collect();
    for w in names.windows(2) {
        pair(&mut app, &w[0], &w[1]);
        let buf = buffer(&app);
        for (word, color) in [
            ("safe", Color::Green),
            ("hazard", Color::Yellow),
            ("lossy", Color::Magenta),
            ("breaking", Color::Red),
        ] {
            if let Some((x, y)) = find_cell(&buf, &format!("  {word} ")) {
                assert_eq!(buf[(x + 2, y)].fg, color, "{word} in {w:?}");
                seen.insert(word);
            }
        }
    }
    assert_eq!(
        seen.len(),
        4,
        "every severity shows somewhere in the demo: {seen:?}"
    );
}

#[test]
fn no_color_leaves_only_modifiers() {
    let mut app = rich(120, 40, Theme { color: false });
    go_to(&mut app, "physics.v1.Temperature.label");
    for view in [View::Graph, View::Changes, View::History, View::Policy] {
        cmd(&mut app, Command::View(view));
        let buf = buffer(&app);
        for cell in buf.content() {
            assert_eq!(cell.fg, Color::Reset, "{view:?}: {cell:?}");
            assert_eq!(cell.bg, Color::Reset, "{view:?}: {cell:?}");
        }
    }
    // The selection still shows, reversed.
    cmd(&mut app, Command::View(View::Graph));
    let buf = buffer(&app);
    assert!(
        buf.content()
            .iter()
            .any(|c| c.modifier.contains(Modifier::REVERSED))
    );
}

#[test]
fn repository_text_is_sanitized() {
    use protolapse::history::demo::{Snapshot, write_repo};
    let dir = tempfile::tempdir().unwrap();
    let proto = "syntax = \"proto3\";\npackage p;\n// Evil \u{1b}[2J comment \u{7}\nmessage M {\n  // field \u{1b}]0;title\u{7}\n  int32 a = 1;\n}\n";
    let proto2 = proto.replace("int32 a = 1;", "int64 a = 1;");
    let snaps = vec![
        Snapshot {
            tag: "v1.0.0".into(),
            message: Some("first \u{1b}[31mred\u{1b}[0m release".into()),
            files: vec![("p.proto".into(), proto.to_string())],
        },
        Snapshot {
            tag: "v2.0.0".into(),
            message: Some("second \u{1b}[2J".into()),
            files: vec![("p.proto".into(), proto2)],
        },
    ];
    write_repo(dir.path(), &snaps, 1_700_000_000, 86_400).unwrap();
    let names = RwLock::new(Index::new());
    let inbox = Inbox::default();
    loader::run(
        &Source::Repo(dir.path().to_path_buf()),
        &LoadOptions::default(),
        &names,
        &inbox,
        &|| {},
    )
    .unwrap();
    let mut app = App::new(
        COLOR,
        Rect::new(0, 0, 120, 40),
        "evil \u{1b}[2J",
        Some("M".into()),
    );
    for a in inbox.drain() {
        app.update(a);
        for _ in 0..20 {
            let reqs: Vec<_> = app.outbox.drain(..).collect();
            for r in reqs {
                app.update(execute(r, &names));
            }
        }
    }
    cmd_local(&mut app, &names);
    for view in [View::Graph, View::Changes, View::History, View::Policy] {
        app.update(Action::Command(Command::View(view)));
        for _ in 0..20 {
            let reqs: Vec<_> = app.outbox.drain(..).collect();
            for r in reqs {
                app.update(execute(r, &names));
            }
        }
        let buf = buffer(&app);
        for cell in buf.content() {
            assert!(
                !cell.symbol().chars().any(|c| c.is_control()),
                "{view:?}: a control character reached the screen: {:?}",
                cell.symbol()
            );
        }
        if view == View::Graph {
            let t = text(&app);
            assert!(t.contains("\\u{1b}"), "escapes are shown escaped:\n{t}");
        }
    }
}

/// Moves the cursor onto the field so the detail pane shows its comment.
fn cmd_local(app: &mut App, names: &RwLock<Index>) {
    app.update(Action::Command(Command::Down));
    for _ in 0..20 {
        let reqs: Vec<_> = app.outbox.drain(..).collect();
        for r in reqs {
            app.update(execute(r, names));
        }
    }
}

#[test]
fn the_history_view_opens_on_the_field_under_the_cursor_and_clicks_pick_cells() {
    let mut app = rich(120, 40, COLOR);
    go_to(&mut app, "physics.v1.FlightPath.passengers");
    cmd(&mut app, Command::View(View::History));
    let container = app.history_container().unwrap();
    assert_eq!(container, "physics.v1.FlightPath");
    let l = app
        .lifecycles
        .get(&container)
        .expect("the lifecycle arrived")
        .clone();
    assert_eq!(l.rows[app.history_nav.row].number, 6);
    assert_eq!(app.history_nav.col, app.selected);
    cmd(&mut app, Command::Left);
    assert_eq!(app.history_nav.col, app.selected - 1);
    assert!(
        text(&app).contains("passengers in v1.2.0"),
        "{}",
        text(&app)
    );
    // A click on the first version's cell of the first row.
    let area = app.areas().matrix.unwrap();
    let (label, _, _, _) = {
        let l = app.lifecycles.get(&container).unwrap().clone();
        let cell = app
            .versions
            .iter()
            .map(|v| v.version.name.len())
            .max()
            .unwrap()
            .clamp(3, 9)
            + 1;
        let num_w = l
            .rows
            .iter()
            .map(|m| m.number.to_string().len())
            .max()
            .unwrap();
        let name_w = l
            .rows
            .iter()
            .map(|m| m.names.last().unwrap().len())
            .max()
            .unwrap()
            .min(28);
        (num_w + 1 + name_w + 2, cell, 0, 0)
    };
    act(
        &mut app,
        Action::Mouse {
            kind: Mouse::Click,
            column: area.x + 1 + label as u16 + 1,
            row: area.y + 2,
        },
    );
    assert_eq!((app.history_nav.row, app.history_nav.col), (0, 0));
}

#[test]
fn a_failing_worker_is_a_status_message_not_a_hang() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    act(
        &mut app,
        Action::Failed("internal error in the compare worker: boom".into()),
    );
    assert!(text(&app).contains("internal error in the compare worker"));
}
