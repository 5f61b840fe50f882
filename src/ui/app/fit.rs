//! Keeping every cursor and scroll offset inside its pane after each action, with the panes'
//! own geometry so that what is drawn and where the cursor is agree.

use ratatui::layout::Rect;

use crate::explore::compare::Path;
use crate::ui::app::{App, CompareKey, ListNav, Overlay, tree};
use crate::ui::views::View;
use crate::ui::widgets::layout;

/// What the detail pane is about: the view, the pair compared, the node or change, the rule.
pub(super) type DetailKey = (View, Option<CompareKey>, Path, usize, usize);

impl App {
    fn detail_key(&self) -> DetailKey {
        (
            self.view,
            self.compare_key(),
            self.tree.path.clone(),
            self.changes_nav.cursor,
            self.detail.rule,
        )
    }

    /// Clamps every cursor and scroll offset to what the panes can show.
    pub(super) fn fit(&mut self) {
        // New content in the detail pane starts at its top.
        let key = self.detail_key();
        if self.detail_of.as_ref() != Some(&key) {
            self.detail.scroll = 0;
            self.detail_of = Some(key);
        }
        let a = self.areas();
        let inner = |r: Option<Rect>, chrome: u16| {
            r.map(|r| r.height.saturating_sub(chrome) as usize)
                .unwrap_or(1)
        };
        let info = a
            .versions
            .filter(|r| crate::ui::panes::versions::has_info(r.height))
            .map(|_| crate::ui::panes::versions::INFO_HEIGHT)
            .unwrap_or(0);
        let vh = inner(a.versions, 2 + 1 + info);
        self.versions_nav.cursor = self
            .selected
            .index()
            .min(self.versions.len().saturating_sub(1));
        tree::fit(
            &mut self.versions_nav.scroll,
            self.versions_nav.cursor,
            self.versions.len(),
            vh,
        );
        let notice = crate::ui::panes::graph::notice(self).is_some() as u16;
        self.tree.fit(inner(a.graph, 2 + notice));
        if let Some(c) = self.current() {
            let n = c.changes.len();
            let (cur, mut scroll) = (
                self.changes_nav.cursor.min(n.saturating_sub(1)),
                self.changes_nav.scroll,
            );
            tree::fit(&mut scroll, cur, n, inner(a.changes, 3));
            self.changes_nav = ListNav {
                cursor: cur,
                scroll,
            };
        }
        if let Overlay::Finder(f) = &mut self.overlay {
            let n = f.results.as_ref().map(|r| r.items.len()).unwrap_or(0);
            let h = layout::popup(self.size).height.saturating_sub(5) as usize;
            tree::fit(&mut f.scroll, f.cursor, n, h);
        }
        if let Some(area) = a.matrix {
            self.view.fit_matrix(self, area);
        }
    }
}
