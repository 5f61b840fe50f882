//! Every key, in one table: it maps key presses to commands, and it writes the footer and the
//! `?` help screen, so the three never disagree.

use std::sync::LazyLock;

use ratatui::crossterm::event::{KeyEvent, KeyEventKind};

use crate::ui::app::action::Command;
pub use crate::ui::app::key::Key;
use crate::ui::app::key::c;
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
use table::TABLE;

mod table;

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
mod tests;
