//! Wide tables and long names (issue 15, items 7 and 8): the history and policy matrices
//! scroll sideways, say which columns are hidden on either side and jump to the first and
//! last column; names keep the part that differs.

use super::{COLOR, cmd, demo, keys, press, screen, text};
use protolapse::ui::app::Command;
use protolapse::ui::views::View;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

/// A whole screen, beside the other screens' snapshots.
fn snap(name: &str, app: &protolapse::ui::App) {
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, screen(app).backend());
    });
}

/// Every policy column can be reached at 80×24, the marks say what is hidden, and
/// `$`/End, `0`/Home jump to the last and the first column.
#[test]
fn the_policy_matrix_scrolls_sideways_at_80x24() {
    let mut app = demo(80, 24, Some("FlightPath"), COLOR);
    cmd(&mut app, Command::View(View::Policy));
    let first = text(&app);
    assert!(
        first.contains("SEMVER") && !first.contains("FULL_TR"),
        "{first}"
    );
    assert!(first.contains("columns 1–5 of 9 · 4 more ▸"), "{first}");
    // Each column, one `l` at a time, is on screen under the cursor.
    let names = [
        "SEMVER",
        "ALLOW_ANY",
        "DENY_ALL",
        "BACKWARD",
        "BACK_TR",
        "FORWARD",
        "FWD_TR",
        "FULL",
        "FULL_TR",
    ];
    for (i, name) in names.iter().enumerate() {
        assert_eq!(app.policy_nav.col, i);
        assert!(text(&app).contains(name), "{name}: {}", text(&app));
        keys(&mut app, "l");
    }
    keys(&mut app, "0");
    assert_eq!((app.policy_nav.col, app.policy_nav.col_scroll), (0, 0));
    keys(&mut app, "$");
    assert_eq!(app.policy_nav.col, 8);
    let last = text(&app);
    assert!(
        last.contains("FULL_TR") && !last.contains("SEMVER "),
        "{last}"
    );
    assert!(last.contains("◂ 4 more · columns 5–9 of 9"), "{last}");
    snap("policy_last_column_80x24", &app);
    press(&mut app, KeyCode::Home, KeyModifiers::NONE);
    assert_eq!(app.policy_nav.col, 0);
    press(&mut app, KeyCode::End, KeyModifiers::NONE);
    assert_eq!(app.policy_nav.col, 8);
    // `g`/`G` stay the top and bottom row.
    keys(&mut app, "G");
    assert_eq!(
        (app.policy_nav.row, app.policy_nav.col),
        (app.versions.len() - 1, 8)
    );
    keys(&mut app, "g");
    assert_eq!((app.policy_nav.row, app.policy_nav.col), (0, 8));
}

/// The history matrix marks the versions hidden on either side and jumps to either end.
#[test]
fn the_history_matrix_marks_hidden_versions_and_jumps_to_either_end() {
    let mut app = demo(80, 24, Some("FlightPath"), COLOR);
    cmd(&mut app, Command::View(View::History));
    let s = text(&app);
    assert!(s.contains("◂v0.2.1") && s.contains("▸│"), "{s}");
    assert!(
        s.contains("◂ 2 more · versions 3–10 of 15 · 5 more ▸"),
        "{s}"
    );
    keys(&mut app, "$");
    let s = text(&app);
    assert_eq!(app.history_nav.col, app.versions.len() - 1);
    assert!(s.contains("v4.0.0") && !s.contains("v0.2.1"), "{s}");
    assert!(s.contains("versions 8–15 of 15 ┘"), "{s}");
    keys(&mut app, "0");
    let s = text(&app);
    assert_eq!(app.history_nav.col, 0);
    assert!(
        s.contains("v0.1.0") && s.contains("versions 1–8 of 15 · 7 more ▸"),
        "{s}"
    );
}

/// At 80×24 a changed type keeps both its sides in the graph, and the changes list keeps the
/// tail of each element path (the field), not the package every row shares.
#[test]
fn names_keep_the_part_that_differs_at_80x24() {
    let mut app = demo(80, 24, Some("FlightPath"), COLOR);
    let s = text(&app);
    let row = s
        .lines()
        .find(|l| l.contains(" outside "))
        .unwrap_or_default();
    assert!(
        row.contains("→ Reading") && row.contains("perature"),
        "{row:?}"
    );
    let row = s.lines().find(|l| l.contains("sint64")).unwrap_or_default();
    assert!(row.contains("float → sint64"), "{s}");
    cmd(&mut app, Command::View(View::Changes));
    let s = text(&app);
    for field in ["…passengers", "…checksum", "…milli_kelvin"] {
        assert!(s.contains(field), "{field}: {s}");
    }
    assert!(!s.contains("FlightP│"), "{s}");
}

/// The demo from its first frame to every view and out, by keys through the event handler
/// (the path the terminal takes, without one): graph, detail, changes and back to the graph
/// from a change, history and policy to their last column, the finders, the help, quit.
#[test]
fn the_demo_from_start_to_every_view_and_quit_by_keys() {
    let mut app = demo(80, 24, None, COLOR);
    let none = KeyModifiers::NONE;
    assert!(text(&app).contains("root FlightPath"), "{}", text(&app));
    press(&mut app, KeyCode::Tab, none);
    press(&mut app, KeyCode::Tab, none);
    assert!(text(&app).contains("Detail"));
    keys(&mut app, "2");
    assert!(text(&app).contains("VERDICT"), "{}", text(&app));
    press(&mut app, KeyCode::Enter, none);
    assert_eq!(
        app.view,
        View::Graph,
        "Enter on a change shows it in the graph"
    );
    keys(&mut app, "3");
    assert!(text(&app).contains("History · physics.v1.FlightPath"));
    keys(&mut app, "$");
    assert!(text(&app).contains("v4.0.0"), "{}", text(&app));
    keys(&mut app, "4");
    keys(&mut app, "$");
    assert!(text(&app).contains("FULL_TR"), "{}", text(&app));
    keys(&mut app, "0");
    assert!(text(&app).contains("SEMVER: BUMP"), "{}", text(&app));
    keys(&mut app, "/");
    assert!(text(&app).contains("Find"), "{}", text(&app));
    press(&mut app, KeyCode::Esc, none);
    keys(&mut app, "r");
    assert!(text(&app).contains("Pick the root"), "{}", text(&app));
    press(&mut app, KeyCode::Esc, none);
    keys(&mut app, "?");
    assert!(text(&app).contains("Keys · Esc closes"), "{}", text(&app));
    press(&mut app, KeyCode::Esc, none);
    keys(&mut app, "1");
    assert_eq!(app.view, View::Graph);
    assert!(!app.quit);
    keys(&mut app, "q");
    assert!(app.quit);
}

/// A root too long for the policy matrix's title keeps its tail there (the history's title
/// does the same; the demo's names fit it at every size the UI draws).
#[test]
fn a_long_root_in_a_title_keeps_its_tail() {
    let mut app = demo(64, 24, Some("FlightPath"), COLOR);
    cmd(&mut app, Command::View(View::Policy));
    let s = text(&app);
    assert!(s.contains("reached from …v1.FlightPath ─"), "{s}");
    cmd(&mut app, Command::View(View::History));
    let s = text(&app);
    assert!(
        s.contains("History · physics.v1.FlightPath × versions"),
        "{s}"
    );
}
