//! What can happen to the app: a user command, a mouse event, a resize, or a result from a
//! background worker. [`crate::ui::App::update`] takes one at a time.

use std::sync::Arc;

use crate::explore::Comparison;
use crate::explore::facts::{Facts, PolicyMatrix};
use crate::explore::names::Kind;
use crate::history::Version;
use crate::load::{Loaded, Project, VersionId};
use crate::policy::{Lifecycle, Settings};
use crate::ui::views::View;

/// A user command (from the key table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Quit,
    Help,
    Back,
    Enter,
    FocusNext,
    FocusPrev,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Left,
    Right,
    /// The first and last column of a matrix.
    FirstColumn,
    LastColumn,
    ExpandAll,
    CollapseAll,
    ToggleChanged,
    NextChange,
    PrevChange,
    NextRule,
    PrevRule,
    MarkBase,
    FindRoot,
    FindJump,
    View(View),
    Erase,
    Clear,
}

/// What the loader found before compiling anything.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The versions, in order, without their files.
    pub versions: Vec<Version>,
    /// The root named in `protolapse.toml` (or by the demo), if any.
    pub config_root: Option<String>,
    /// The version to select at start (the demo names one), else the newest.
    pub selected: Option<VersionId>,
    /// How the history is judged (policy, level, ignores; the root is the UI's).
    pub settings: Settings,
    /// Tags seen but skipped, with why.
    pub skipped: usize,
}

/// One name the finder found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub name: String,
    pub kind: Kind,
    /// First and last version index it appears in, and how many versions have it.
    pub first: usize,
    pub last: usize,
    pub count: usize,
    /// Matched character positions in `name`.
    pub indices: Vec<usize>,
}

/// The finder's results for one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundSet {
    pub query: String,
    pub roots_only: bool,
    pub items: Vec<Found>,
    /// How many versions were indexed when the search ran.
    pub indexed: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mouse {
    Click,
    ScrollUp,
    ScrollDown,
}

#[derive(Debug, Clone)]
pub enum Action {
    Command(Command),
    /// A character typed into the finder.
    Type(char),
    Mouse {
        kind: Mouse,
        column: u16,
        row: u16,
    },
    Resize(u16, u16),
    // Results.
    Opened(Box<Opened>),
    Compiled(usize, Box<Loaded>),
    Indexed(usize),
    Loaded(Arc<Project>),
    LoadFailed(String),
    Compared(Arc<Comparison>),
    Facts(Arc<Facts>),
    Matrix(Arc<PolicyMatrix>),
    /// How far the policy matrix of a scope is, or that its computation stopped.
    MatrixProgress(MatrixProgress),
    Lifecycle(Arc<Lifecycle>),
    Found(FoundSet),
    /// The round trips of a change (`None`: the comparison has no such change).
    Proved(crate::ui::app::ProveKey, Option<Arc<crate::prove::Proof>>),
    /// A worker failed (a bug): shown as a status message.
    Failed(String),
}

/// The policy matrix being computed for a scope (the root it judges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatrixProgress {
    /// `done` of `total` distinct pairs of versions compared.
    Running {
        scope: crate::judge::Scope,
        done: usize,
        total: usize,
    },
    /// Stopped before the end: a newer request replaced it.
    Cancelled(crate::judge::Scope),
}
