//! The finder: what its commands do, what picking a name does (a new root, or a jump to the
//! name's node in the graph, in a version that has it) or a version (selected).

use crate::explore::names::Kind;
use crate::load::VersionId;
use crate::ui::app::action::{Command, Found};
use crate::ui::app::{App, DetailNav, FindMode, ListNav, Overlay, Pane};
use crate::ui::views::View;
use crate::ui::widgets::layout;

impl App {
    pub(super) fn finder_command(&mut self, cmd: Command) {
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
            Command::Help => {
                let f = Box::new(f.clone());
                self.overlay = Overlay::Help {
                    scroll: 0,
                    finder: Some(f),
                };
                return;
            }
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
        if found.kind == Kind::Version {
            self.select_version(VersionId::at(found.first));
            return;
        }
        // Jump: to a version that has the name, then to its node.
        if !(found.first..=found.last).contains(&self.selected.index()) {
            self.selected = VersionId::at(found.last);
            self.base = None;
        }
        self.pending_jump = Some(found.name.clone());
        if self.current().is_some() {
            self.pending_jump = None;
            self.jump_in_tree(&found.name);
        }
    }

    /// Selects version `id` in the versions pane, as moving there would: the root, the view
    /// and the base marked (unless it is that version) stay.
    fn select_version(&mut self, id: VersionId) {
        if id.index() >= self.versions.len() {
            return;
        }
        self.selected = id;
        if self.base == Some(id) {
            self.base = None;
        }
        self.focus = Pane::Versions;
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
}

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}
