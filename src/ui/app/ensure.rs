//! After each action, asking the workers for what the screen needs and does not have (each
//! request once).

use crate::policy::Settings;

use crate::ui::app::{App, FindMode, Overlay, Request};
use crate::ui::views::View;

impl App {
    /// Asks the workers for what the screen needs and does not have.
    pub(super) fn ensure(&mut self) {
        if let Some(key) = self.compare_key()
            && self.current().is_none()
            && self.asked_compare.as_ref() != Some(&key)
            && let Some(new) = self.side(key.1)
        {
            let old = key.0.and_then(|b| self.side(b));
            self.asked_compare = Some(key.clone());
            self.outbox.push(Request::Compare {
                key,
                old,
                new,
                ignores: self.settings.ignores.clone(),
            });
        }
        if let Some(p) = &self.project {
            let root = self.scope();
            let settings = Settings {
                scope: root.clone(),
                ..self.settings.clone()
            };
            // For a root, the policy view is computed ahead, from the moment the history has
            // loaded (with the analysis, from the same comparer), so that it is ready when
            // opened; the whole schema's (no root yet: the finder is open) only when the view
            // is.
            let have = self.matrix.as_ref().map(|m| m.scope.clone());
            let matrix = (self.view == View::Policy || root.root().is_some())
                && have.as_ref() != Some(&root)
                && self.asked_matrix.as_ref() != Some(&root);
            let have = self.facts.as_ref().map(|f| f.scope.clone());
            if have.as_ref() != Some(&root) && self.asked_facts.as_ref() != Some(&root) {
                self.asked_facts = Some(root.clone());
                if matrix {
                    self.asked_matrix = Some(root.clone());
                }
                self.outbox.push(Request::Facts {
                    project: p.clone(),
                    settings,
                    with_matrix: matrix,
                });
            } else if matrix {
                self.asked_matrix = Some(root.clone());
                self.outbox.push(Request::Matrix {
                    project: p.clone(),
                    settings,
                });
            }
            for container in self.wanted_lifecycles() {
                if !self.lifecycles.contains_key(&container)
                    && self.asked_life.insert(container.clone())
                {
                    self.outbox.push(Request::Lifecycle {
                        project: p.clone(),
                        container,
                    });
                }
            }
        }
        self.ensure_proof();
        if let Overlay::Finder(f) = &self.overlay {
            let want = (f.query.clone(), f.mode == FindMode::Root, self.indexed);
            if self.asked_find.as_ref() != Some(&want) {
                self.asked_find = Some(want);
                self.outbox.push(Request::Find {
                    query: f.query.clone(),
                    roots_only: f.mode == FindMode::Root,
                });
            }
        }
    }

    /// The lifecycles on screen: the container of the node under the cursor (detail pane)
    /// and the history view's message.
    fn wanted_lifecycles(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.view == View::Changes
            && let Some(c) = self.current()
            && let Some(ch) = c.changes.get(self.changes_nav.cursor)
            && let Some((parent, _)) = ch.element.rsplit_once('.')
        {
            out.push(parent.to_string());
        }
        if let Some(r) = self.tree.row() {
            let n = &r.node;
            if let Some(c) = n.container.1.clone().or(n.container.0.clone()) {
                out.push(c);
            }
        }
        if self.view == View::History
            && let Some(c) = self.history_container()
            && !out.contains(&c)
        {
            out.push(c);
        }
        out
    }

    /// The message the history view shows: the one that holds the node under the cursor, or
    /// the root when the cursor is on the root (or on a node of a service).
    pub fn history_container(&self) -> Option<String> {
        let cmp = self.current();
        let row = self.tree.row();
        if let (Some(cmp), Some(r)) = (cmp, row) {
            let content = &cmp.new.compiled.schema.content;
            let old = &cmp.old.compiled.schema.content;
            let is_msg = |n: &str| {
                content.messages.contains_key(n)
                    || old.messages.contains_key(n)
                    || content.enums.contains_key(n)
                    || old.enums.contains_key(n)
            };
            if let Some(c) = r.node.container.1.clone().or(r.node.container.0.clone())
                && is_msg(&c)
            {
                return Some(c);
            }
        }
        self.root.clone()
    }
}
