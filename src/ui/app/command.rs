//! What each command and mouse event does, per pane and overlay.

use crate::ui::app::action::{Command, Found, Mouse};
use crate::ui::app::state::{App, DetailNav, FindMode, ListNav, Overlay, Pane};
use crate::ui::views::{View, tabs};
use crate::ui::widgets::layout;

impl App {
    pub(super) fn command(&mut self, cmd: Command) {
        if matches!(self.overlay, Overlay::Finder(_)) {
            self.finder_command(cmd);
            return;
        }
        if matches!(self.overlay, Overlay::Help { .. }) {
            let max = crate::ui::panes::help::max_scroll(self);
            if let Overlay::Help { scroll } = &mut self.overlay {
                match cmd {
                    Command::Up => *scroll = scroll.saturating_sub(1),
                    Command::Down => *scroll = (*scroll + 1).min(max),
                    Command::PageUp => *scroll = scroll.saturating_sub(10),
                    Command::PageDown => *scroll = (*scroll + 10).min(max),
                    Command::Home => *scroll = 0,
                    Command::End => *scroll = max,
                    Command::Quit => self.quit = true,
                    _ => self.overlay = Overlay::None,
                }
            }
            return;
        }
        let page = self.page(self.focus) as isize;
        match cmd {
            Command::Quit => self.quit = true,
            Command::Help => self.overlay = Overlay::Help { scroll: 0 },
            Command::Back => {
                if self.view != View::Graph {
                    self.set_view(View::Graph);
                }
            }
            Command::FindRoot => self.open_finder(FindMode::Root),
            Command::FindJump => self.open_finder(FindMode::Jump),
            Command::View(v) => self.set_view(v),
            Command::FocusNext | Command::FocusPrev => {
                let order = self.view.panes();
                let i = order.iter().position(|p| *p == self.focus).unwrap_or(0);
                let n = order.len();
                let j = if cmd == Command::FocusNext {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.focus = order[j];
            }
            Command::Up => self.step(-1),
            Command::Down => self.step(1),
            Command::PageUp => self.step(-page),
            Command::PageDown => self.step(page),
            Command::Home => self.step(isize::MIN / 2),
            Command::End => self.step(isize::MAX / 2),
            Command::Enter => self.enter(),
            Command::Left | Command::Right => {
                let right = cmd == Command::Right;
                match self.focus {
                    Pane::Graph => {
                        if let Some(c) = self.current().cloned() {
                            if right {
                                self.tree.right(&c);
                            } else {
                                self.tree.left(&c);
                            }
                            self.detail = DetailNav::default();
                        }
                    }
                    Pane::Matrix => {
                        let view = self.view;
                        if let Some(nav) = view.matrix_nav(self) {
                            nav.col = if right {
                                nav.col + 1
                            } else {
                                nav.col.saturating_sub(1)
                            };
                        }
                    }
                    _ => {}
                }
            }
            Command::ExpandAll | Command::CollapseAll | Command::ToggleChanged => {
                if let Some(c) = self.current().cloned() {
                    match cmd {
                        Command::ExpandAll => self.tree.expand_all(&c),
                        Command::CollapseAll => self.tree.collapse_all(&c),
                        _ => self.tree.toggle_changed(&c),
                    }
                }
            }
            Command::NextChange | Command::PrevChange => {
                if let Some(c) = self.current().cloned() {
                    if self.tree.next_change(&c, cmd == Command::NextChange) {
                        self.detail = DetailNav::default();
                    } else {
                        self.status = Some(if c.changes.is_empty() {
                            "no changes in this pair".into()
                        } else if cmd == Command::NextChange {
                            "no further change below (PgUp / g to go back up)".into()
                        } else {
                            "no earlier change".into()
                        });
                    }
                }
            }
            Command::NextRule | Command::PrevRule => {
                let n = self.tree.row().map(|r| r.node.changes.len()).unwrap_or(0);
                if n > 0 && self.view == View::Graph {
                    self.detail.rule = if cmd == Command::NextRule {
                        (self.detail.rule + 1) % n
                    } else {
                        (self.detail.rule + n - 1) % n
                    };
                    self.detail.scroll = 0;
                }
            }
            Command::MarkBase => {
                if self.base == Some(self.selected) {
                    self.base = None;
                    self.status =
                        Some("comparing each version with its previous relevant version".into());
                } else {
                    self.base = Some(self.selected);
                    let name = self
                        .versions
                        .get(self.selected)
                        .map(|v| v.version.name.clone())
                        .unwrap_or_default();
                    self.status = Some(format!(
                        "base {}: move to another version to compare it with {} (b on it again to unmark)",
                        crate::sanitize::line(&name),
                        crate::sanitize::line(&name)
                    ));
                }
            }
            Command::Erase | Command::Clear => {}
        }
    }

    fn set_view(&mut self, v: View) {
        if v != self.view {
            v.open(self);
        }
        self.view = v;
        self.focus = v.main_pane();
    }

    /// A page of the focused pane, in rows.
    fn page(&self, pane: Pane) -> usize {
        let a = self.areas();
        let r = match pane {
            Pane::Versions => a.versions,
            Pane::Graph => a.graph,
            Pane::Detail => a.detail,
            Pane::Changes => a.changes,
            Pane::Matrix => a.matrix,
        };
        r.map(|r| r.height.saturating_sub(3) as usize)
            .unwrap_or(1)
            .max(1)
    }

    /// Moves the cursor of the focused pane.
    fn step(&mut self, delta: isize) {
        match self.focus {
            Pane::Versions => {
                let n = self.versions.len();
                if n > 0 {
                    self.selected = self.selected.saturating_add_signed(delta).min(n - 1);
                }
            }
            Pane::Graph => {
                let before = self.tree.cursor;
                self.tree.move_by(delta);
                if self.tree.cursor != before {
                    self.detail = DetailNav::default();
                }
            }
            Pane::Detail => {
                self.detail.scroll = self.detail.scroll.saturating_add_signed(delta);
                let max = self.detail_lines().saturating_sub(self.detail_height());
                self.detail.scroll = self.detail.scroll.min(max);
            }
            Pane::Changes => {
                let n = self.current().map(|c| c.changes.len()).unwrap_or(0);
                self.changes_nav.step(delta, n);
                self.detail = DetailNav::default();
            }
            Pane::Matrix => {
                let view = self.view;
                if let Some(nav) = view.matrix_nav(self) {
                    nav.row = nav.row.saturating_add_signed(delta);
                }
            }
        }
    }

    fn enter(&mut self) {
        match self.focus {
            Pane::Graph => {
                if let Some(c) = self.current().cloned() {
                    self.tree.toggle(&c);
                }
            }
            Pane::Versions => self.focus = self.view.main_pane(),
            Pane::Changes => self.show_change_in_graph(),
            _ => {}
        }
    }

    fn show_change_in_graph(&mut self) {
        let Some(c) = self.current().cloned() else {
            return;
        };
        let i = self.changes_nav.cursor;
        match c.path_of_change(i) {
            Some(p) => {
                self.tree.reveal(&c, &p);
                self.set_view(View::Graph);
                let rule = self
                    .tree
                    .row()
                    .and_then(|r| r.node.changes.iter().position(|&x| x == i));
                self.detail = DetailNav {
                    rule: rule.unwrap_or(0),
                    scroll: 0,
                };
            }
            None => {
                self.status = Some("this change concerns a file, not a node of the graph".into());
            }
        }
    }

    fn finder_command(&mut self, cmd: Command) {
        let Overlay::Finder(f) = &mut self.overlay else {
            return;
        };
        let n = f.results.as_ref().map(|r| r.items.len()).unwrap_or(0);
        let page = layout::popup(self.size).height.saturating_sub(5).max(1) as isize;
        let mut nav = ListNav {
            cursor: f.cursor,
            scroll: f.scroll,
        };
        match cmd {
            Command::Quit => self.quit = true,
            Command::Back => {
                if self.root.is_none() && f.mode == FindMode::Root {
                    self.status = Some("no root yet: press r to pick one".into());
                }
                self.overlay = Overlay::None;
                return;
            }
            Command::Up => nav.step(-1, n),
            Command::Down => nav.step(1, n),
            Command::PageUp => nav.step(-page, n),
            Command::PageDown => nav.step(page, n),
            Command::Erase => {
                f.query.pop();
                nav = ListNav::default();
            }
            Command::Clear => {
                f.query.clear();
                nav = ListNav::default();
            }
            Command::Enter => {
                let pick = f
                    .results
                    .as_ref()
                    .and_then(|r| r.items.get(f.cursor))
                    .cloned();
                let mode = f.mode;
                if let Some(found) = pick {
                    self.overlay = Overlay::None;
                    self.pick(mode, found);
                }
                return;
            }
            _ => {}
        }
        f.cursor = nav.cursor;
        f.scroll = nav.scroll;
    }

    fn pick(&mut self, mode: FindMode, found: Found) {
        if mode == FindMode::Root {
            self.set_root(found.name);
            self.set_view(self.view);
            return;
        }
        // Jump: to a version that has the name, then to its node.
        if !(found.first..=found.last).contains(&self.selected) {
            self.selected = found.last;
            self.base = None;
        }
        self.pending_jump = Some(found.name.clone());
        if self.current().is_some() {
            self.pending_jump = None;
            self.jump_in_tree(&found.name);
        }
    }

    /// Shows `name` (a type, field, value or rpc) in the graph view, as a jump would.
    pub fn show(&mut self, name: &str) {
        self.jump_in_tree(name);
        self.update(crate::ui::app::action::Action::Resize(
            self.size.width,
            self.size.height,
        ));
    }

    /// Puts the cursor on `name` in the graph; when the root does not reach it, makes the
    /// message that holds it the root (once) and tries again when that comparison arrives.
    pub(super) fn jump_in_tree(&mut self, name: &str) {
        let Some(c) = self.current().cloned() else {
            self.pending_jump = Some(name.to_string());
            return;
        };
        if let Some(p) = c.path_to(name) {
            self.tree.reveal(&c, &p);
            self.set_view(View::Graph);
            self.detail = DetailNav::default();
            return;
        }
        let content = &c.new.compiled.schema.content;
        let is_root = |n: &str| {
            content.messages.get(n).is_some_and(|m| !m.map_entry)
                || content.services.contains_key(n)
        };
        // The nearest enclosing message or service.
        let mut holder = Some(name);
        while let Some(h) = holder {
            if is_root(h) {
                break;
            }
            holder = h.rsplit_once('.').map(|(p, _)| p);
        }
        match holder {
            Some(h) if self.root.as_deref() != Some(h) => {
                let old_root = self.root.clone().unwrap_or_default();
                self.status = Some(format!(
                    "{} is not reached from {}: the root is now {}",
                    crate::sanitize::line(name),
                    crate::sanitize::line(short(&old_root)),
                    crate::sanitize::line(short(h))
                ));
                let h = h.to_string();
                self.set_root(h);
                self.pending_jump = Some(name.to_string());
            }
            _ => {
                self.status = Some(format!(
                    "{} is not in the graph of {} in this version",
                    crate::sanitize::line(name),
                    crate::sanitize::line(short(self.root.as_deref().unwrap_or("")))
                ));
            }
        }
    }

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
        if let Overlay::Help { scroll } = &mut self.overlay {
            match kind {
                Mouse::ScrollUp => *scroll = scroll.saturating_sub(3),
                Mouse::ScrollDown => *scroll = (*scroll + 3).min(help_max),
                Mouse::Click => self.overlay = Overlay::None,
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
                                self.selected = i;
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

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}
