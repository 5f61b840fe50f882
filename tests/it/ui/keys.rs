//! The keys as a lazygit user guesses them, pressed through the key table: focus and Tab,
//! `l`/Enter and `h` between the versions and the graph, `b` anywhere, `n` round the changes,
//! the detail back at its top, the root finder's way out.

use super::{COLOR, demo, go_to, keys, press, rich, text, unrooted};
use protolapse::ui::app::{FindMode, Overlay, Pane};
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

/// The keys a lazygit user guesses: Versions first, Tab round the panes, `l`/Enter into the
/// graph and `h` back, `b` from any pane, `n` round past the last change.
#[test]
fn lazygit_keys_move_between_panes_mark_a_base_and_wrap() {
    let mut app = demo(120, 40, None, COLOR);
    assert_eq!(app.focus, Pane::Versions);
    press(&mut app, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(app.focus, Pane::Graph);
    press(&mut app, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(app.focus, Pane::Detail);
    press(&mut app, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(app.focus, Pane::Versions);
    keys(&mut app, "l");
    assert_eq!(app.focus, Pane::Graph);
    // `h` walks up the tree, then from the root back to the versions.
    keys(&mut app, "g");
    keys(&mut app, "h");
    assert_eq!(app.focus, Pane::Versions);
    assert!(
        app.tree.expanded.contains(&Vec::new()),
        "the root stays open"
    );
    press(&mut app, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(app.focus, Pane::Graph);
    // `b` from the graph marks the selected version; from the Detail pane, unmarks it.
    keys(&mut app, "b");
    assert_eq!(app.base, Some(app.selected));
    assert!(app.status.as_deref().unwrap_or("").contains("base v2.0.0"));
    press(&mut app, KeyCode::Tab, KeyModifiers::NONE);
    keys(&mut app, "b");
    assert_eq!(app.base, None);
    // A version that does not compile cannot be a base: `b` says why.
    if let Some(broken) = app
        .versions
        .iter()
        .find(|v| v.schema().is_none())
        .map(|v| v.id)
    {
        app.selected = broken;
        keys(&mut app, "b");
        assert_eq!(app.base, None);
        assert!(
            app.status
                .as_deref()
                .unwrap_or("")
                .contains("does not compile")
        );
    }
    // `n` past the last change comes back to the first, and says so.
    let mut app = rich(120, 40, COLOR);
    keys(&mut app, "gn");
    let mut seen = 1;
    let mut last = app.tree.path.clone();
    loop {
        keys(&mut app, "n");
        if app.status.is_some() {
            break;
        }
        last = app.tree.path.clone();
        seen += 1;
        assert!(seen < 200, "n never wraps");
    }
    assert!(seen > 1);
    assert!(
        app.status
            .as_deref()
            .unwrap_or("")
            .contains("back to the first")
    );
    assert!(!app.tree.row().unwrap().node.changes.is_empty());
    assert_ne!(app.tree.path, last);
    // And back: before the first, the last.
    keys(&mut app, "N");
    assert!(
        app.status
            .as_deref()
            .unwrap_or("")
            .contains("on to the last")
    );
    assert_eq!(app.tree.path, last);
}

/// The detail pane starts at its top whenever it shows something else, a new pair included.
#[test]
fn the_detail_pane_scrolls_back_to_the_top_on_new_content() {
    let mut app = rich(80, 24, COLOR);
    go_to(&mut app, "physics.v1.FlightPath.passengers");
    press(&mut app, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(app.focus, Pane::Detail);
    keys(&mut app, "jjj");
    assert!(app.detail.scroll > 0, "the detail scrolls at 80x24");
    // Another pair, same node: the top of its detail.
    press(&mut app, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(app.focus, Pane::Versions);
    keys(&mut app, "j");
    let c = app.current().expect("compared");
    assert_eq!((c.old.name(), c.new.name()), ("v1.1.1", "v2.1.0"));
    assert_eq!(app.tree.row().unwrap().node.name, "passengers");
    assert_eq!(app.detail.scroll, 0);
}

#[test]
fn the_root_finder_at_start_has_help_and_a_way_out() {
    let mut app = unrooted(80, 24);
    assert!(matches!(&app.overlay, Overlay::Finder(f) if f.mode == FindMode::Root));
    let footer = text(&app).lines().last().unwrap_or("").to_string();
    assert!(
        footer.contains("Esc close") && footer.contains("Ctrl-c quit"),
        "{footer}"
    );
    // `?` opens the help over the finder; leaving the help comes back to the finder, query kept.
    keys(&mut app, "fli?");
    assert!(matches!(&app.overlay, Overlay::Help { .. }));
    assert!(text(&app).contains("Keys"));
    press(&mut app, KeyCode::Esc, KeyModifiers::NONE);
    assert!(matches!(&app.overlay, Overlay::Finder(f) if f.query == "fli"));
    // `q` is text here; Ctrl-C quits.
    keys(&mut app, "q");
    assert!(!app.quit);
    press(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.quit);
    // Esc leaves the finder and says how to come back.
    let mut app = unrooted(80, 24);
    press(&mut app, KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(app.overlay, Overlay::None);
    assert!(app.status.as_deref().unwrap_or("").contains("press r"));
}
