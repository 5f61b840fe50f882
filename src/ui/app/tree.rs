//! The type graph pane's state: which paths are expanded, the laid-out rows, the cursor.
//! The cursor is kept as a path, so it stays on the same field while the user moves through
//! versions (or on its nearest ancestor when the field is not there).

use std::collections::HashSet;

use crate::explore::compare::{Layout, Path};
use crate::explore::{Comparison, Row};

/// At most this many rows are laid out (a huge schema expanded everywhere stays responsive).
pub const ROW_LIMIT: usize = 20_000;
/// Expanding everything expands at most this many nodes.
pub const EXPAND_LIMIT: usize = 2_000;

/// Where `n` / `N` went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hop {
    Moved,
    /// Past the last change to the first (or before the first to the last).
    Wrapped,
    /// No node of the graph has a change.
    Nowhere,
}

#[derive(Debug, Clone)]
pub struct Tree {
    pub expanded: HashSet<Path>,
    pub rows: Vec<Row>,
    pub cursor: usize,
    pub scroll: usize,
    pub changed_only: bool,
    /// The path under the cursor (survives relayouts).
    pub path: Path,
    /// Until the user expands or collapses something, each new comparison opens the paths
    /// to what changed.
    pub auto: bool,
}

impl Default for Tree {
    fn default() -> Tree {
        Tree {
            expanded: HashSet::from([Vec::new()]),
            rows: Vec::new(),
            cursor: 0,
            scroll: 0,
            changed_only: false,
            path: Vec::new(),
            auto: true,
        }
    }
}

impl Tree {
    fn layout(&self) -> Layout {
        Layout {
            changed_only: self.changed_only,
            limit: ROW_LIMIT,
        }
    }

    /// At most this many paths are opened automatically.
    const AUTO_LIMIT: usize = 200;

    /// A new comparison: in auto mode, open the paths to what changed (and nothing else).
    pub fn set_comparison(&mut self, cmp: &Comparison) {
        if self.auto {
            self.expanded = HashSet::from([Vec::new()]);
            self.expanded
                .extend(cmp.expand_all(&[], true, Self::AUTO_LIMIT));
        }
        self.relayout(cmp);
    }

    /// Lays the rows out again and puts the cursor back on its path (or the nearest ancestor).
    pub fn relayout(&mut self, cmp: &Comparison) {
        self.rows = cmp.rows(&self.expanded, self.layout());
        let mut p = self.path.clone();
        loop {
            if let Some(i) = self.rows.iter().position(|r| r.path == p) {
                self.cursor = i;
                break;
            }
            if p.pop().is_none() {
                self.cursor = 0;
                break;
            }
        }
        self.sync_path();
    }

    fn sync_path(&mut self) {
        if let Some(r) = self.rows.get(self.cursor) {
            self.path = r.path.clone();
        }
    }

    pub fn row(&self) -> Option<&Row> {
        self.rows.get(self.cursor)
    }

    pub fn move_to(&mut self, i: usize) {
        if self.rows.is_empty() {
            return;
        }
        self.cursor = i.min(self.rows.len() - 1);
        self.sync_path();
    }

    pub fn move_by(&mut self, delta: isize) {
        let i = self.cursor.saturating_add_signed(delta);
        self.move_to(i);
    }

    /// Enter: expand or collapse the node under the cursor.
    pub fn toggle(&mut self, cmp: &Comparison) {
        let Some(r) = self.row() else { return };
        if r.cycle
            || r.cut
            || !(r.node.expandable() || r.node.kind == crate::explore::NodeKind::Method)
        {
            return;
        }
        let p = r.path.clone();
        if !self.expanded.remove(&p) {
            self.expanded.insert(p);
        }
        self.auto = false;
        self.relayout(cmp);
    }

    /// Right: expand, or step into the first child when expanded.
    pub fn right(&mut self, cmp: &Comparison) {
        let Some(r) = self.row() else { return };
        if r.expanded {
            if self
                .rows
                .get(self.cursor + 1)
                .is_some_and(|n| n.depth > r.depth)
            {
                self.move_by(1);
            }
        } else {
            self.toggle(cmp);
        }
    }

    /// Left: collapse, or go to the parent.
    pub fn left(&mut self, cmp: &Comparison) {
        let Some(r) = self.row() else { return };
        if r.expanded {
            self.toggle(cmp);
        } else if let Some(parent) = r.path.len().checked_sub(1).map(|n| r.path[..n].to_vec())
            && let Some(i) = self.rows.iter().position(|x| x.path == parent)
        {
            self.move_to(i);
        }
    }

    pub fn expand_all(&mut self, cmp: &Comparison) {
        self.auto = false;
        let from = self.path.clone();
        for p in cmp.expand_all(&from, self.changed_only, EXPAND_LIMIT) {
            self.expanded.insert(p);
        }
        self.relayout(cmp);
    }

    pub fn collapse_all(&mut self, cmp: &Comparison) {
        self.auto = false;
        self.expanded = HashSet::from([Vec::new()]);
        self.path.truncate(1);
        self.relayout(cmp);
    }

    /// Shows only changed paths and expands them, or shows everything again.
    pub fn toggle_changed(&mut self, cmp: &Comparison) {
        self.changed_only = !self.changed_only;
        if self.changed_only {
            for p in cmp.expand_all(&[], true, EXPAND_LIMIT) {
                self.expanded.insert(p);
            }
        }
        self.relayout(cmp);
    }

    /// Expands the ancestors of `path` and puts the cursor on it.
    pub fn reveal(&mut self, cmp: &Comparison, path: &[crate::explore::Step]) {
        for n in 0..path.len() {
            self.expanded.insert(path[..n].to_vec());
        }
        self.path = path.to_vec();
        if self.changed_only
            && cmp
                .node(path)
                .is_some_and(|n| n.worst_here_or_below().is_none())
        {
            self.changed_only = false;
        }
        self.relayout(cmp);
    }

    /// The next (or previous) node with a change of its own, in tree order, expanding what it
    /// takes to show it; past the last (or before the first), round to the other end.
    pub fn next_change(&mut self, cmp: &Comparison, forward: bool) -> Hop {
        // Lay out the tree of changed paths, with the current expansions too.
        let mut all = self.expanded.clone();
        all.extend(cmp.expand_all(&[], true, EXPAND_LIMIT));
        let rows = cmp.rows(&all, self.layout());
        let here = rows.iter().position(|r| r.path == self.path);
        let hit = |r: &Row| !r.node.changes.is_empty();
        let found = match (forward, here) {
            (true, Some(h)) => rows.iter().skip(h + 1).find(|r| hit(r)),
            (true, None) => rows.iter().find(|r| hit(r)),
            (false, Some(h)) => rows.iter().take(h).rev().find(|r| hit(r)),
            (false, None) => rows.iter().rev().find(|r| hit(r)),
        };
        // Past the end, round to the other end.
        let (found, hop) = match found {
            Some(r) => (Some(r), Hop::Moved),
            None if forward => (rows.iter().find(|r| hit(r)), Hop::Wrapped),
            None => (rows.iter().rev().find(|r| hit(r)), Hop::Wrapped),
        };
        match found.map(|r| r.path.clone()) {
            Some(p) => {
                self.reveal(cmp, &p);
                hop
            }
            None => Hop::Nowhere,
        }
    }

    /// Keeps the cursor inside a viewport of `height` rows.
    pub fn fit(&mut self, height: usize) {
        fit(&mut self.scroll, self.cursor, self.rows.len(), height);
    }
}

/// Scrolls so that `cursor` is visible in a viewport of `height` rows out of `len`.
pub fn fit(scroll: &mut usize, cursor: usize, len: usize, height: usize) {
    let height = height.max(1);
    if cursor < *scroll {
        *scroll = cursor;
    } else if cursor >= *scroll + height {
        *scroll = cursor + 1 - height;
    }
    let max = len.saturating_sub(height);
    if *scroll > max {
        *scroll = max;
    }
}
