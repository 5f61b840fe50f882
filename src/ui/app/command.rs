//! What each command does, per pane and overlay (the finder's are in `find.rs`).

use crate::load::VersionId;
use crate::ui::app::action::Command;
use crate::ui::app::tree::Hop;
use crate::ui::app::{App, DetailNav, FindMode, Overlay, Pane};
use crate::ui::views::View;

impl App {
    pub(super) fn command(&mut self, cmd: Command) {
        if matches!(self.overlay, Overlay::Finder(_)) {
            self.finder_command(cmd);
            return;
        }
        if matches!(self.overlay, Overlay::Help { .. }) {
            let max = crate::ui::panes::help::max_scroll(self);
            if let Overlay::Help { scroll, .. } = &mut self.overlay {
                match cmd {
                    Command::Up => *scroll = scroll.saturating_sub(1),
                    Command::Down => *scroll = (*scroll + 1).min(max),
                    Command::PageUp => *scroll = scroll.saturating_sub(10),
                    Command::PageDown => *scroll = (*scroll + 10).min(max),
                    Command::Home => *scroll = 0,
                    Command::End => *scroll = max,
                    Command::Quit => self.quit = true,
                    _ => self.close_help(),
                }
            }
            return;
        }
        let page = self.page(self.focus) as isize;
        match cmd {
            Command::Quit => self.quit = true,
            Command::Help => {
                self.overlay = Overlay::Help {
                    scroll: 0,
                    finder: None,
                }
            }
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
                    // On the root, `h` goes back to the versions, as in lazygit.
                    Pane::Graph if !right && self.tree.row().is_none_or(|r| r.path.is_empty()) => {
                        self.focus = Pane::Versions;
                    }
                    Pane::Versions if right => self.enter(),
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
            Command::FirstColumn | Command::LastColumn => {
                let view = self.view;
                if let Some(nav) = view.matrix_nav(self) {
                    // The view's fit brings the last one back to the last column it has.
                    nav.col = if cmd == Command::FirstColumn {
                        0
                    } else {
                        usize::MAX / 2
                    };
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
                    let forward = cmd == Command::NextChange;
                    match self.tree.next_change(&c, forward) {
                        Hop::Moved => self.detail = DetailNav::default(),
                        Hop::Wrapped => {
                            self.detail = DetailNav::default();
                            self.status = Some(if forward {
                                "past the last change: back to the first".into()
                            } else {
                                "before the first change: on to the last".into()
                            });
                        }
                        Hop::Nowhere => {
                            self.status = Some(if c.changes.is_empty() {
                                "no changes in this pair".into()
                            } else {
                                "no change on a node of the graph (see the changes view, 2)".into()
                            })
                        }
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
            Command::MarkBase => self.mark_base(),
            Command::Erase | Command::Clear => {}
        }
    }

    /// `b`: marks the selected version as the base, or unmarks it; says why when it cannot.
    fn mark_base(&mut self) {
        let Some(v) = self.version(self.selected) else {
            self.status = Some("no version to mark yet".into());
            return;
        };
        let name = crate::sanitize::line(&v.version.name);
        if self.base == Some(self.selected) {
            self.base = None;
            self.status = Some("comparing each version with its previous relevant version".into());
        } else if v.schema().is_none() {
            self.status = Some(match v.status() {
                crate::schema::Status::Pending => {
                    format!("{name} is still compiling: press b again once it has")
                }
                _ => format!("{name} does not compile: it cannot be a base"),
            });
        } else {
            self.base = Some(self.selected);
            self.status = Some(format!(
                "base {name}: select another version to compare it with {name} (b on {name} again to unmark)"
            ));
        }
    }

    /// Closes the help: back to the finder it was opened from, if any.
    pub(super) fn close_help(&mut self) {
        self.overlay = match std::mem::replace(&mut self.overlay, Overlay::None) {
            Overlay::Help {
                finder: Some(f), ..
            } => Overlay::Finder(*f),
            _ => Overlay::None,
        };
    }

    pub(super) fn set_view(&mut self, v: View) {
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
    pub(super) fn step(&mut self, delta: isize) {
        match self.focus {
            Pane::Versions => {
                let n = self.versions.len();
                if n > 0 {
                    self.selected = VersionId::at(
                        self.selected
                            .index()
                            .saturating_add_signed(delta)
                            .min(n - 1),
                    );
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

    pub(super) fn enter(&mut self) {
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

    pub(super) fn show_change_in_graph(&mut self) {
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
}
