//! `App::update`: what actions, keys and the mouse do to the app, checked on its state and on
//! the text of the screen: comparing versions, the graph's keys, the detail pane, the finders,
//! the history view, resizing, failures, and the key table behind the help and the footer.

use super::{COLOR, act, cmd, demo, go_to, index_of, rich, text, unrooted};
use protolapse::load::VersionId;
use protolapse::ui::app::{Action, App, Command, Mouse, Overlay, Pane, Phase};
use protolapse::ui::views::View;

#[test]
fn moving_through_versions_compares_each_with_its_previous_relevant_version() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    assert_eq!(app.phase, Phase::Done);
    assert_eq!(app.root.as_deref(), Some("physics.v1.FlightPath"));
    // The demo opens on the version it names, in Versions.
    assert_eq!(app.selected, index_of(&app, "v2.0.0"));
    assert!(app.current().is_some(), "the comparison arrived");
    assert_eq!(app.focus, Pane::Versions, "focus starts in Versions");
    cmd(&mut app, Command::End);
    let last = app.versions.len() - 1;
    assert_eq!(app.selected, VersionId::at(last));
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
    while app.focus != Pane::Versions {
        cmd(&mut app, Command::FocusNext);
    }
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
    let mut app = unrooted(120, 40);
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

/// A short root that names two types in the newest version is never resolved through an
/// older version where it is unique, at any step of the load (the older one compiles
/// first): the terminal UI follows every command's rule, and says where it is ambiguous.
#[test]
fn an_ambiguous_root_is_never_resolved_through_an_older_version() {
    use crate::common::m_in_two_packages;
    use protolapse::explore::names::Index;
    use protolapse::ui::runtime::loader::{self, LoadOptions, Source};
    use protolapse::ui::runtime::worker::Inbox;
    use std::sync::RwLock;
    let r = m_in_two_packages();
    let (names, inbox) = (RwLock::new(Index::new()), Inbox::default());
    let source = Source::Repo(r.path().to_path_buf());
    loader::run(&source, &LoadOptions::default(), &names, &inbox, &|| {}).expect("loads");
    let size = ratatui::layout::Rect::new(0, 0, 120, 40);
    let mut app = App::new(COLOR, size, "repo", Some("M".into()));
    let actions = inbox.drain();
    assert!(actions.len() >= 4, "opened, two compiled, loaded");
    for a in actions {
        app.update(a);
        assert_eq!(app.root, None);
    }
    let status = app.status.as_deref().unwrap_or("");
    assert!(
        status.contains("root `M` is ambiguous in v2.0.0: a.M, b.M"),
        "{status}"
    );
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
    assert_eq!(app.selected, VersionId::at(2));
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
    assert_eq!(app.history_nav.col, app.selected.index());
    cmd(&mut app, Command::Left);
    assert_eq!(app.history_nav.col, app.selected.index() - 1);
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

#[test]
fn the_policy_view_never_shows_another_roots_results() {
    use protolapse::ui::app::{MatrixProgress, Request};
    use protolapse::ui::runtime::worker::{Progress, execute, execute_with};
    let names = &super::demo_load().1;
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    // Computed ahead, once the analysis arrived: ready before the view opens.
    assert!(app.matrix.as_ref().is_some_and(|m| m.scope == app.scope()));
    cmd(&mut app, Command::View(View::Policy));
    let before = text(&app);
    assert!(
        before.contains("reached from physics.v1.FlightPath"),
        "{before}"
    );
    assert!(
        before.contains("BACK_TR") && before.contains('✓'),
        "{before}"
    );
    // A new root: its analysis and matrix are asked for, not computed yet.
    app.set_root("physics.v1.FlightService".into());
    app.update(Action::Resize(120, 40));
    let asked: Vec<Request> = app.outbox.drain(..).collect();
    let screen = text(&app);
    assert!(
        screen.contains("reached from physics.v1.FlightService"),
        "{screen}"
    );
    assert!(!screen.contains("FlightPath"), "{screen}");
    assert!(!screen.contains('✓') && !screen.contains('✗'), "{screen}");
    // One request for both, worked out on one comparer: the analysis and the matrix.
    let [facts] = asked
        .iter()
        .filter(|r| matches!(r, Request::Facts { .. } | Request::Matrix { .. }))
        .collect::<Vec<_>>()[..]
    else {
        panic!("one request for the analysis and the matrix: {asked:?}");
    };
    assert!(matches!(
        facts,
        Request::Facts {
            with_matrix: true,
            ..
        }
    ));
    // Every action the request sends, the last one included, with the work wanted or not.
    let run = |wanted: bool| {
        let reports = std::sync::Mutex::new(Vec::new());
        let report = |a: Action| reports.lock().unwrap().push(a);
        let progress = Progress {
            report: &report,
            wanted: &|| wanted,
        };
        let last = execute_with(facts.clone(), names, &progress);
        let mut done = reports.into_inner().unwrap();
        done.extend(last);
        done
    };
    let done = run(true);
    // In order: progress, the matrix with its cells marked, the analysis, the matrix with
    // the first violations of its failing cells.
    let kind = |a: &Action| match a {
        Action::MatrixProgress(MatrixProgress::Running { .. }) => "running",
        Action::Matrix(m) if m.complete => "complete",
        Action::Matrix(_) => "marked",
        Action::Facts(_) => "facts",
        _ => "other",
    };
    let mut kinds: Vec<&str> = done.iter().map(kind).collect();
    kinds.dedup();
    assert_eq!(kinds, ["running", "marked", "facts", "complete"]);
    let take = |k: &str| done.iter().find(|a| kind(a) == k).cloned().expect(k);
    // The analysis arrives, then the old root's matrix (a computation that was under way):
    // the old columns stay off the screen.
    app.update(take("facts"));
    let stale = Request::Matrix {
        project: app.project.clone().expect("loaded"),
        settings: protolapse::policy::Settings {
            scope: protolapse::judge::Scope::Root("physics.v1.FlightPath".into()),
            ..app.settings.clone()
        },
    };
    for a in execute(stale, names) {
        app.update(a);
    }
    app.outbox.clear();
    let screen = text(&app);
    assert!(
        screen.contains("reached from physics.v1.FlightService"),
        "{screen}"
    );
    assert!(!screen.contains("BACK_TR"), "{screen}");
    assert!(screen.contains("evaluating every policy"), "{screen}");
    // The new root's matrix, with its progress on screen on the way.
    app.update(take("running"));
    let screen = text(&app);
    assert!(
        screen.contains("distinct pairs of versions compared"),
        "{screen}"
    );
    // Its marks, then why a failing cell fails.
    let matrix = |k: &str| match take(k) {
        Action::Matrix(m) => m,
        _ => unreachable!("{k} is a matrix"),
    };
    let marked = matrix("marked");
    let failing = marked.columns.iter().enumerate().find_map(|(c, col)| {
        let row = col
            .results
            .iter()
            .position(|m| *m == Some(protolapse::explore::facts::Mark::Fail))?;
        Some((c, row))
    });
    let (col, row) = failing.expect("a policy fails some version from FlightService");
    app.update(Action::Matrix(marked.clone()));
    app.policy_nav.row = row;
    app.policy_nav.col = col + 1;
    let screen = text(&app);
    assert!(
        screen.contains("BACK_TR") && screen.contains('✓'),
        "{screen}"
    );
    assert!(!screen.contains("evaluating"), "{screen}");
    assert!(
        screen.contains("finding the first change that fails it"),
        "{screen}"
    );
    app.update(take("complete"));
    let screen = text(&app);
    assert!(!screen.contains("finding the first change"), "{screen}");
    let complete = matrix("complete");
    let reason = complete.columns[col].reasons[row]
        .clone()
        .expect("a reason");
    let shown: String = reason.chars().take(30).collect();
    assert!(screen.contains(&shown), "{shown} in {screen}");
    // The marks are the complete matrix's.
    let marks = |m: &protolapse::explore::facts::PolicyMatrix| {
        m.columns
            .iter()
            .map(|c| c.results.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(marks(&marked), marks(&complete));
    // A computation no longer wanted stops and says so; the analysis is still answered.
    let done = run(false);
    assert!(
        done.iter()
            .any(|a| matches!(a, Action::MatrixProgress(MatrixProgress::Cancelled(_))))
    );
    assert!(done.iter().any(|a| matches!(a, Action::Facts(_))));
    assert!(!done.iter().any(|a| matches!(a, Action::Matrix(_))));
}
