//! Every key, in one table: it maps key presses to commands, and it writes the footer and the
//! `?` help screen, so the three never disagree.

use std::sync::LazyLock;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind};

use crate::ui::app::action::Command;
pub use crate::ui::app::key::Key;
use crate::ui::app::key::{c, ctrl, k};
use crate::ui::views::View;

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Global,
    Versions,
    Graph,
    Detail,
    Changes,
    History,
    Policy,
    Finder,
    Help,
}

impl Context {
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Versions => "Versions pane",
            Context::Graph => "Type graph pane",
            Context::Detail => "Detail pane",
            Context::Changes => "Changes view",
            Context::History => "History view",
            Context::Policy => "Policy view",
            Context::Finder => "Finder",
            Context::Help => "Help",
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub keys: &'static [Key],
    pub command: Command,
    /// Where it applies.
    pub contexts: &'static [Context],
    /// The help screen's description.
    pub help: &'static str,
    /// The footer's short label, when it is shown there.
    pub footer: Option<&'static str>,
}

use Context::*;

const NAV: &[Context] = &[Versions, Graph, Detail, Changes, History, Policy, Help];
const PANES: &[Context] = &[Versions, Graph, Detail, Changes];

/// The table, with each view's key (`1` for the first of [`View::ALL`]) before the finders.
/// Order matters: the first match wins, and the footer shows bindings in order.
pub static BINDINGS: LazyLock<Vec<Binding>> = LazyLock::new(|| {
    let mut all = TABLE.to_vec();
    let at = all
        .iter()
        .position(|b| b.command == Command::FindJump)
        .unwrap_or(all.len());
    let views = View::ALL.iter().zip(&VIEW_KEYS).map(|(v, key)| Binding {
        keys: std::slice::from_ref(key),
        command: Command::View(*v),
        contexts: &[Global],
        help: v.help(),
        footer: None,
    });
    all.splice(at..at, views);
    all
});

/// The view keys, in the order of [`View::ALL`].
static VIEW_KEYS: [Key; 9] = [
    c('1'),
    c('2'),
    c('3'),
    c('4'),
    c('5'),
    c('6'),
    c('7'),
    c('8'),
    c('9'),
];

/// Every binding but the view keys.
const TABLE: &[Binding] = &[
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
    Binding {
        keys: &[ctrl('c')],
        command: Command::Quit,
        contexts: &[Global, Finder, Help],
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
    Binding {
        keys: &[k(KeyCode::Home), c('g')],
        command: Command::Home,
        contexts: NAV,
        help: "first",
        footer: None,
    },
    Binding {
        keys: &[k(KeyCode::End), c('G')],
        command: Command::End,
        contexts: NAV,
        help: "last",
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
        help: "collapse, or go to the parent",
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
        help: "next changed node",
        footer: Some("next change"),
    },
    Binding {
        keys: &[c('N')],
        command: Command::PrevChange,
        contexts: &[Graph],
        help: "previous changed node",
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
        keys: &[c('b')],
        command: Command::MarkBase,
        contexts: &[Versions],
        help: "compare against this version (again: back to the previous relevant one)",
        footer: Some("base"),
    },
    // The finders, everywhere (the view keys come before them, from the views).
    Binding {
        keys: &[c('/')],
        command: Command::FindJump,
        contexts: &[Global],
        help: "find a type or field in any version and jump to it",
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

/// The command a key press means in `ctx`, if any (key releases are ignored).
pub fn command(ctx: Context, ev: &KeyEvent) -> Option<Command> {
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    BINDINGS
        .iter()
        .filter(|b| applies(b, ctx))
        .find(|b| b.keys.iter().any(|key| key.matches(ev)))
        .map(|b| b.command)
}

/// The keys of a binding, as shown: `↑ k`.
pub fn label(b: &Binding) -> String {
    b.keys
        .iter()
        .map(|k| k.label())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The footer hints for `ctx`: (keys, label), in table order; the view keys as one item.
pub fn footer(ctx: Context) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for b in BINDINGS.iter() {
        let Some(text) = b.footer else { continue };
        if !applies(b, ctx) || out.iter().any(|(_, t)| *t == text) {
            continue;
        }
        // Movement: the first key of each direction reads better than every alias.
        let keys = match b.command {
            Command::Up => "↑↓".to_string(),
            _ => b.keys.first().map(|k| k.label()).unwrap_or_default(),
        };
        out.push((keys, text));
    }
    if ctx != Finder && ctx != Help {
        out.push((format!("1-{}", View::ALL.len()), "views"));
    }
    out
}

/// Whether a binding works in `ctx`: its own contexts, and the global ones except in the
/// pop-ups (the finder takes text; the help closes on any other key).
fn applies(b: &Binding, ctx: Context) -> bool {
    b.contexts.contains(&ctx) || !matches!(ctx, Finder | Help) && b.contexts.contains(&Global)
}

/// The help screen: per context, (keys, description).
pub fn help() -> Vec<(Context, Vec<(String, &'static str)>)> {
    let order = [
        Global, Versions, Graph, Detail, Changes, History, Policy, Finder, Help,
    ];
    order
        .iter()
        .map(|ctx| {
            let rows = BINDINGS
                .iter()
                .filter(|b| {
                    let shared = b.contexts == NAV || b.contexts == PANES;
                    if *ctx == Global {
                        b.contexts.first() == Some(&Global) || shared
                    } else {
                        b.contexts.first() == Some(ctx) && !shared
                    }
                })
                .map(|b| (label(b), b.help))
                .collect();
            (*ctx, rows)
        })
        .filter(|(_, rows): &(Context, Vec<_>)| !rows.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyModifiers;

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
        for ch in [
            'q', 'j', 'k', 'g', 'G', 'h', 'l', 'e', 'f', 'n', '1', '/', '?',
        ] {
            let shifted = KeyEvent::new(KeyCode::Char(ch), KeyModifiers::SHIFT);
            assert_eq!(command(Finder, &press(KeyCode::Char(ch))), None, "{ch}");
            assert_eq!(command(Finder, &shifted), None, "{ch}");
        }
        assert_eq!(command(Finder, &press(KeyCode::Esc)), Some(Command::Back));
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
}
