//! Snapshots of every view: the demo history rendered to a `TestBackend` at fixed sizes and
//! compared with `insta` snapshots under `tests/it/snapshots/`.

use super::{COLOR, act, cmd, demo, go_to, index_of, pair, rich, screen, settle, unrooted};
use protolapse::ui::app::{Action, App, Command, FindMode, Overlay};
use protolapse::ui::views::View;
use ratatui::layout::Rect;

#[test]
fn snapshot_first_frame_before_anything_loaded() {
    let app = App::new(COLOR, Rect::new(0, 0, 80, 24), "demo", None);
    snap!("first_frame_80x24", app);
}

/// `protolapse --demo` opens on the graph of the root the demo names, its newest pair
/// compared: the versions, the changed paths opened, the detail of the first.
#[test]
fn snapshot_the_demo_opens_on_its_root() {
    let app = demo(120, 35, None, COLOR);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.root.as_deref(), Some("physics.v1.FlightPath"));
    assert!(app.current().is_some_and(|c| !c.changes.is_empty()));
    snap!("demo_start_120x35", app);
    let small = demo(80, 24, None, COLOR);
    assert_eq!(small.overlay, Overlay::None);
    snap!("demo_start_80x24", small);
}

#[test]
fn snapshot_root_finder_at_start() {
    let mut app = unrooted(80, 24);
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
    app.policy_nav.row = v.index();
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

/// The help's legend: the versions columns, every mark, the policies by name.
#[test]
fn snapshot_help_legend() {
    let mut app = demo(120, 40, None, COLOR);
    cmd(&mut app, Command::Help);
    cmd(&mut app, Command::End);
    snap!("help_legend_120x40", app);
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
