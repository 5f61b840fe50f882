//! What a mouse event does: in a pop-up, on a tab, or on a pane (each view says what a click
//! on its matrix does).

use crate::load::VersionId;
use crate::ui::app::action::{Command, Mouse};
use crate::ui::app::{App, DetailNav, Overlay, Pane};
use crate::ui::views::tabs;
use crate::ui::widgets::layout;

impl App {
    pub(super) fn mouse(&mut self, kind: Mouse, column: u16, row: u16) {
        let pos = ratatui::layout::Position { x: column, y: row };
        if let Overlay::Finder(f) = &mut self.overlay {
            let pop = layout::popup(self.size);
            let list_top = pop.y + 3;
            let n = f.results.as_ref().map(|r| r.items.len()).unwrap_or(0);
            match kind {
                Mouse::ScrollUp => f.cursor = f.cursor.saturating_sub(3),
                Mouse::ScrollDown => f.cursor = (f.cursor + 3).min(n.saturating_sub(1)),
                Mouse::Click if pop.contains(pos) && row >= list_top => {
                    let i = f.scroll + (row - list_top) as usize;
                    if i < n {
                        if i == f.cursor {
                            self.finder_command(Command::Enter);
                        } else {
                            f.cursor = i;
                        }
                    }
                }
                Mouse::Click => {}
            }
            return;
        }
        let help_max = crate::ui::panes::help::max_scroll(self);
        if let Overlay::Help { scroll, .. } = &mut self.overlay {
            match kind {
                Mouse::ScrollUp => *scroll = scroll.saturating_sub(3),
                Mouse::ScrollDown => *scroll = (*scroll + 3).min(help_max),
                Mouse::Click => self.close_help(),
            }
            return;
        }
        let a = self.areas();
        if a.top.contains(pos) && kind == Mouse::Click {
            for (v, r) in tabs(a.top) {
                if r.contains(pos) {
                    self.set_view(v);
                }
            }
            return;
        }
        let panes = [
            (Pane::Versions, a.versions),
            (Pane::Graph, a.graph),
            (Pane::Changes, a.changes),
            (Pane::Detail, a.detail),
            (Pane::Matrix, a.matrix),
        ];
        let Some((pane, rect)) = panes
            .iter()
            .find_map(|(p, r)| r.filter(|r| r.contains(pos)).map(|r| (*p, r)))
        else {
            return;
        };
        match kind {
            Mouse::ScrollUp | Mouse::ScrollDown => {
                let d = if kind == Mouse::ScrollUp { -3 } else { 3 };
                let keep = self.focus;
                self.focus = pane;
                self.step(d);
                self.focus = keep;
            }
            Mouse::Click => {
                self.focus = pane;
                let top = rect.y + 1;
                match pane {
                    Pane::Versions => {
                        let first = top + 1;
                        if row >= first {
                            let i = self.versions_nav.scroll + (row - first) as usize;
                            if i < self.versions.len() {
                                self.selected = VersionId::at(i);
                            }
                        }
                    }
                    Pane::Graph
                        if row >= top + crate::ui::panes::graph::notice(self).is_some() as u16 =>
                    {
                        let first = top + crate::ui::panes::graph::notice(self).is_some() as u16;
                        let i = self.tree.scroll + (row - first) as usize;
                        if i < self.tree.rows.len() {
                            if i == self.tree.cursor {
                                self.enter();
                            } else {
                                self.tree.move_to(i);
                                self.detail = DetailNav::default();
                            }
                        }
                    }
                    Pane::Changes if row > top => {
                        let i = self.changes_nav.scroll + (row - top - 1) as usize;
                        let n = self.current().map(|c| c.changes.len()).unwrap_or(0);
                        if i < n {
                            if i == self.changes_nav.cursor {
                                self.show_change_in_graph();
                            } else {
                                self.changes_nav.cursor = i;
                                self.detail = DetailNav::default();
                            }
                        }
                    }
                    Pane::Matrix if row > top => {
                        self.view.click_matrix(self, rect, column, row, top)
                    }
                    _ => {}
                }
            }
        }
    }
}
