//! One key: a code and the modifiers it needs, how it is written in the footer and the help,
//! and which key presses it matches.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key: a code and the modifiers it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

pub const fn k(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

pub const fn c(ch: char) -> Key {
    k(KeyCode::Char(ch))
}

pub const fn ctrl(ch: char) -> Key {
    Key {
        code: KeyCode::Char(ch),
        mods: KeyModifiers::CONTROL,
    }
}

impl Key {
    /// How the key is written in the footer and the help screen.
    pub fn label(self) -> String {
        let base = match self.code {
            KeyCode::Up => "↑".to_string(),
            KeyCode::Down => "↓".to_string(),
            KeyCode::Left => "←".to_string(),
            KeyCode::Right => "→".to_string(),
            KeyCode::PageUp => "PgUp".to_string(),
            KeyCode::PageDown => "PgDn".to_string(),
            KeyCode::Home => "Home".to_string(),
            KeyCode::End => "End".to_string(),
            KeyCode::Enter => "Enter".to_string(),
            KeyCode::Esc => "Esc".to_string(),
            KeyCode::Tab => "Tab".to_string(),
            KeyCode::BackTab => "Shift-Tab".to_string(),
            KeyCode::Backspace => "Backspace".to_string(),
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(ch) => ch.to_string(),
            other => format!("{other:?}"),
        };
        if self.mods.contains(KeyModifiers::CONTROL) {
            format!("Ctrl-{base}")
        } else {
            base
        }
    }

    pub fn matches(self, ev: &KeyEvent) -> bool {
        if ev.code != self.code {
            return false;
        }
        // Shift is part of the character for letters and symbols (`G`, `?`).
        let mods = ev.modifiers - KeyModifiers::SHIFT;
        let want = self.mods - KeyModifiers::SHIFT;
        mods == want
    }
}
