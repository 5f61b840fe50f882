//! The key table itself: every binding but the view keys, in the order the footer shows them.

use ratatui::crossterm::event::KeyCode;

use super::{Binding, Context::*, NAV, PANES};
use crate::ui::app::action::Command;
use crate::ui::app::key::{c, ctrl, k};

/// Every binding but the view keys.
pub(super) const TABLE: &[Binding] = &[
    // The finder takes text: only these keys are commands there.
    Binding {
        keys: &[k(KeyCode::Esc)],
        command: Command::Back,
        contexts: &[Finder],
        help: "close the finder",
        footer: Some("close"),
    },
    Binding {
        keys: &[k(KeyCode::Enter)],
        command: Command::Enter,
        contexts: &[Finder],
        help: "pick the highlighted name",
        footer: Some("pick"),
    },
    Binding {
        keys: &[k(KeyCode::Up), ctrl('p'), ctrl('k')],
        command: Command::Up,
        contexts: &[Finder],
        help: "previous match",
        footer: Some("move"),
    },
    Binding {
        keys: &[k(KeyCode::Down), ctrl('n'), ctrl('j')],
        command: Command::Down,
        contexts: &[Finder],
        help: "next match",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::PageUp)],
        command: Command::PageUp,
        contexts: &[Finder],
        help: "a page of matches up",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::PageDown)],
        command: Command::PageDown,
        contexts: &[Finder],
        help: "a page of matches down",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::Backspace)],
        command: Command::Erase,
        contexts: &[Finder],
        help: "erase a character (type to search)",
        footer: None,
    },
    Binding {
        keys: &[ctrl('u')],
        command: Command::Clear,
        contexts: &[Finder],
        help: "clear the query",
        footer: None,
    },
    // No name has a `?` in it: it opens the help from the finder too (closing the help
    // comes back to the finder). `q` is text there: Ctrl-C quits, and the footer says so.
    Binding {
        keys: &[c('?')],
        command: Command::Help,
        contexts: &[Finder],
        help: "the help (Esc there comes back here)",
        footer: Some("help"),
    },
    Binding {
        keys: &[ctrl('c')],
        command: Command::Quit,
        contexts: &[Finder],
        help: "quit (letters are the query here)",
        footer: Some("quit"),
    },
    Binding {
        keys: &[ctrl('c')],
        command: Command::Quit,
        contexts: &[Global, Help],
        help: "quit",
        footer: None,
    },
    // Everywhere else.
    Binding {
        keys: &[k(KeyCode::Esc), c('?')],
        command: Command::Back,
        contexts: &[Help],
        help: "close the help",
        footer: Some("close"),
    },
    Binding {
        keys: &[c('q')],
        command: Command::Quit,
        contexts: &[Global, Help],
        help: "quit",
        footer: Some("quit"),
    },
    Binding {
        keys: &[c('?')],
        command: Command::Help,
        contexts: &[Global],
        help: "this help",
        footer: Some("help"),
    },
    Binding {
        keys: &[k(KeyCode::Esc)],
        command: Command::Back,
        contexts: &[Global],
        help: "close, or back to the graph view",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::Up), c('k')],
        command: Command::Up,
        contexts: NAV,
        help: "move up",
        footer: Some("move"),
    },
    Binding {
        keys: &[k(KeyCode::Down), c('j')],
        command: Command::Down,
        contexts: NAV,
        help: "move down",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::PageUp), ctrl('b')],
        command: Command::PageUp,
        contexts: NAV,
        help: "a page up",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::PageDown), ctrl('f')],
        command: Command::PageDown,
        contexts: NAV,
        help: "a page down",
        footer: None,
    },
    // In the matrices Home and End go sideways, as in a spreadsheet (before the rows' Home
    // and End: the first match wins); `g` and `G` stay the top and bottom row everywhere.
    Binding {
        keys: &[k(KeyCode::Home), c('0')],
        command: Command::FirstColumn,
        contexts: &[History, Policy],
        help: "first column (g: the top row)",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::End), c('$')],
        command: Command::LastColumn,
        contexts: &[History, Policy],
        help: "last column (G: the bottom row)",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::Home), c('g')],
        command: Command::Home,
        contexts: NAV,
        help: "first (in the matrices g is the top row, Home the first column)",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::End), c('G')],
        command: Command::End,
        contexts: NAV,
        help: "last (in the matrices G is the bottom row, End the last column)",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::Tab)],
        command: Command::FocusNext,
        contexts: PANES,
        help: "next pane",
        footer: Some("pane"),
    },
    Binding {
        keys: &[k(KeyCode::BackTab)],
        command: Command::FocusPrev,
        contexts: PANES,
        help: "previous pane",
        footer: None,
    },
    // Type graph.
    Binding {
        keys: &[k(KeyCode::Enter), c(' ')],
        command: Command::Enter,
        contexts: &[Graph],
        help: "expand or collapse the node",
        footer: Some("expand"),
    },
    Binding {
        keys: &[k(KeyCode::Right), c('l')],
        command: Command::Right,
        contexts: &[Graph],
        help: "expand, or go to the first child",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::Left), c('h')],
        command: Command::Left,
        contexts: &[Graph],
        help: "collapse, or go to the parent; on the root, back to the versions",
        footer: None,
    },
    Binding {
        keys: &[c('e')],
        command: Command::ExpandAll,
        contexts: &[Graph],
        help: "expand everything below the node (each type once)",
        footer: Some("expand all"),
    },
    Binding {
        keys: &[c('c')],
        command: Command::CollapseAll,
        contexts: &[Graph],
        help: "collapse everything",
        footer: None,
    },
    Binding {
        keys: &[c('f')],
        command: Command::ToggleChanged,
        contexts: &[Graph],
        help: "show only the paths that changed (and expand them)",
        footer: Some("changed only"),
    },
    Binding {
        keys: &[c('n')],
        command: Command::NextChange,
        contexts: &[Graph],
        help: "next changed node (after the last: the first again)",
        footer: Some("next change"),
    },
    Binding {
        keys: &[c('N')],
        command: Command::PrevChange,
        contexts: &[Graph],
        help: "previous changed node (before the first: the last)",
        footer: None,
    },
    // Changes list.
    Binding {
        keys: &[k(KeyCode::Enter)],
        command: Command::Enter,
        contexts: &[Changes],
        help: "show the change's node in the graph",
        footer: Some("show in graph"),
    },
    // Detail pane.
    Binding {
        keys: &[k(KeyCode::Right), c(']'), c('l')],
        command: Command::NextRule,
        contexts: &[Detail],
        help: "the node's next change",
        footer: Some("next rule"),
    },
    Binding {
        keys: &[k(KeyCode::Left), c('['), c('h')],
        command: Command::PrevRule,
        contexts: &[Detail],
        help: "the node's previous change",
        footer: None,
    },
    // History and policy matrices.
    Binding {
        keys: &[k(KeyCode::Right), c('l')],
        command: Command::Right,
        contexts: &[History, Policy],
        help: "next column",
        footer: Some("columns"),
    },
    Binding {
        keys: &[k(KeyCode::Left), c('h')],
        command: Command::Left,
        contexts: &[History, Policy],
        help: "previous column",
        footer: None,
    },
    // Versions.
    Binding {
        keys: &[k(KeyCode::Enter), k(KeyCode::Right), c('l')],
        command: Command::Enter,
        contexts: &[Versions],
        help: "into the view's main pane (the graph)",
        footer: Some("open"),
    },
    Binding {
        keys: &[c('b')],
        command: Command::MarkBase,
        contexts: &[Global],
        help: "compare against the selected version (again: back to the previous relevant one)",
        footer: Some("base"),
    },
    // The finders, everywhere (the view keys come before them, from the views).
    Binding {
        keys: &[c('/')],
        command: Command::FindJump,
        contexts: &[Global],
        help: "find a type, field or version (tag, hash, subject) and go to it",
        footer: Some("find"),
    },
    Binding {
        keys: &[c('r')],
        command: Command::FindRoot,
        contexts: &[Global],
        help: "pick the root message or service",
        footer: Some("root"),
    },
];
