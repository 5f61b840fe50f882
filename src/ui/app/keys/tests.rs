//! The key table's own checks: keys per context, help and footer agree.

use super::*;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

fn press(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn keys_resolve_per_context() {
    assert_eq!(
        command(Graph, &press(KeyCode::Char('j'))),
        Some(Command::Down)
    );
    assert_eq!(
        command(Graph, &press(KeyCode::Char('q'))),
        Some(Command::Quit)
    );
    // In the finder, letters are text, not commands.
    for ch in ['q', 'j', 'k', 'g', 'G', 'h', 'l', 'e', 'f', 'n', '1', '/'] {
        let shifted = KeyEvent::new(KeyCode::Char(ch), KeyModifiers::SHIFT);
        assert_eq!(command(Finder, &press(KeyCode::Char(ch))), None, "{ch}");
        assert_eq!(command(Finder, &shifted), None, "{ch}");
    }
    assert_eq!(command(Finder, &press(KeyCode::Esc)), Some(Command::Back));
    // No name has a `?`: it is the help there too.
    assert_eq!(
        command(Finder, &press(KeyCode::Char('?'))),
        Some(Command::Help)
    );
    let shift_g = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
    assert_eq!(command(Versions, &shift_g), Some(Command::End));
    assert_eq!(
        command(Detail, &press(KeyCode::Char(']'))),
        Some(Command::NextRule)
    );
    assert_eq!(
        command(Graph, &press(KeyCode::Char('2'))),
        Some(Command::View(View::Changes))
    );
}

#[test]
fn every_binding_is_in_the_help_and_every_footer_item_is_a_binding() {
    let help = help();
    for b in BINDINGS.iter() {
        assert!(
            help.iter()
                .any(|(_, rows)| rows.iter().any(|(_, h)| *h == b.help)),
            "{} is not in the help",
            b.help
        );
    }
    for ctx in [
        Global, Versions, Graph, Detail, Changes, History, Policy, Finder, Help,
    ] {
        for (_, text) in footer(ctx) {
            assert!(text == "views" || BINDINGS.iter().any(|b| b.footer == Some(text)));
        }
    }
}
