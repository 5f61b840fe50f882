//! Colours and sanitizing, checked cell by cell: verdicts coloured by severity, removed fields
//! struck, no colour but modifiers without colour, and no control character from the
//! repository's text ever reaching the screen.

use std::sync::RwLock;

use super::{COLOR, buffer, cmd, demo, go_to, pair, rich, text};
use protolapse::explore::names::Index;
use protolapse::ui::app::{Action, App, Command};
use protolapse::ui::runtime::loader::{self, LoadOptions, Source};
use protolapse::ui::runtime::worker::{Inbox, execute};
use protolapse::ui::views::View;
use protolapse::ui::widgets::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};

pub(super) fn find_cell(buf: &Buffer, text: &str) -> Option<(u16, u16)> {
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
                for a in execute(r, &names) {
                    app.update(a);
                }
            }
        }
    }
    cmd_local(&mut app, &names);
    for view in [View::Graph, View::Changes, View::History, View::Policy] {
        app.update(Action::Command(Command::View(view)));
        for _ in 0..20 {
            let reqs: Vec<_> = app.outbox.drain(..).collect();
            for r in reqs {
                for a in execute(r, &names) {
                    app.update(a);
                }
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
            for a in execute(r, names) {
                app.update(a);
            }
        }
    }
}

/// The demo's v1.2.0 did not compile FlightPath's file: from FlightPath, nothing of it was
/// read. Its semver and policy marks are ⊘ (never a green ✓), with the words "not judged"
/// in the versions pane's info, the graph's title and its banner alike.
#[test]
fn a_version_whose_root_was_not_read_is_marked_not_judged_never_green() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    pair(&mut app, "v1.1.1", "v1.2.0");
    let buf = buffer(&app);
    let (x, y) = find_cell(&buf, "v1.2.0  2024").unwrap();
    let row: String = (x..buf.area.width)
        .map(|i| buf[(i, y)].symbol().to_string())
        .collect();
    // Neither a mark nor a need that was not read: no ✓, no "none".
    assert!(row.contains("minor       ⊘"), "{row}");
    assert!(!row.contains('✓') && !row.contains("none"), "{row}");
    let (mx, my) = find_cell(&buf, "⊘").unwrap();
    assert_eq!(my, y);
    assert_ne!(buf[(mx, my)].fg, Color::Green);
    let screen = text(&app);
    assert!(screen.contains("semver: not judged"), "{screen}");
    assert!(screen.contains("0 changes · 5 not judged"), "{screen}");
    assert!(screen.contains("its changes not"), "{screen}");

    // The policy matrix: every column of the row, not a ✓ among them.
    cmd(&mut app, Command::View(View::Policy));
    let buf = buffer(&app);
    let (x, y) = find_cell(&buf, "● v1.2.0").unwrap();
    let row: String = (x..buf.area.width)
        .map(|i| buf[(i, y)].symbol().to_string())
        .collect();
    assert!(!row.contains('✓') && row.matches('⊘').count() >= 9, "{row}");
}
