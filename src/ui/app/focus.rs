//! Where the user is: the focused pane, the overlay on top (help or finder), and the cursors
//! of the lists, the matrices and the detail pane.

use crate::ui::app::action::FoundSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Versions,
    Graph,
    Detail,
    Changes,
    Matrix,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindMode {
    Root,
    Jump,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finder {
    pub mode: FindMode,
    pub query: String,
    pub results: Option<FoundSet>,
    pub cursor: usize,
    pub scroll: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    None,
    /// The help, and the finder it was opened from (it comes back when the help closes).
    Help {
        scroll: usize,
        finder: Option<Box<Finder>>,
    },
    Finder(Finder),
}

/// A cursor and a scroll offset over a list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListNav {
    pub cursor: usize,
    pub scroll: usize,
}

impl ListNav {
    pub fn step(&mut self, delta: isize, len: usize) {
        if len == 0 {
            self.cursor = 0;
            return;
        }
        self.cursor = self.cursor.saturating_add_signed(delta).min(len - 1);
    }
}

/// A cell cursor over a matrix, with scroll offsets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatrixNav {
    pub row: usize,
    pub col: usize,
    pub row_scroll: usize,
    pub col_scroll: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DetailNav {
    /// Which of the node's changes is shown.
    pub rule: usize,
    pub scroll: usize,
}
