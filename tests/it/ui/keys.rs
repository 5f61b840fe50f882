//! Keys pressed through the key table: the root finder's help and way out.

use super::{keys, press, text, unrooted};
use protolapse::ui::app::{FindMode, Overlay};
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

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
