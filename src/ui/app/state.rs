//! The app's state and its one entry point, [`App::update`]. No thread and no terminal here:
//! slow work is asked for by pushing a [`Request`] to `outbox` (the event loop hands it to a
//! worker; tests run it inline), and results come back as actions.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use ratatui::layout::Rect;

use crate::explore::Comparison;
use crate::explore::compare::Side;
use crate::explore::facts::{self, Facts, PolicyMatrix};
use crate::history::Version;
use crate::load::Project;
use crate::policy::{Lifecycle, Settings};
use crate::schema::graph::{RootMatch, resolve_root};
use crate::schema::{Compiled, Status};

use crate::ui::app::action::Action;
use crate::ui::app::keys::Context;
use crate::ui::app::tree::Tree;
use crate::ui::app::{
    CompareKey, DetailNav, FindMode, Finder, ListNav, MatrixNav, Overlay, Pane, Request,
};
use crate::ui::views::View;
use crate::ui::widgets::layout::Areas;
use crate::ui::widgets::theme::Theme;

/// One version as the UI knows it: its header at once, its schema once compiled.
#[derive(Debug, Clone)]
pub struct VersionEntry {
    pub version: Version,
    pub compiled: Option<Arc<Compiled>>,
    pub unchanged_since: Option<String>,
    /// Files that did not compile (a partial version).
    pub failed_files: Arc<BTreeSet<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Reading the repository.
    Reading,
    /// Compiling: `done` of `total` versions.
    Compiling {
        done: usize,
        total: usize,
    },
    Done,
    Failed(String),
}

#[derive(Debug)]
pub struct App {
    pub theme: Theme,
    pub size: Rect,
    /// What is explored: a path, or "demo".
    pub source: String,
    pub phase: Phase,
    pub versions: Vec<VersionEntry>,
    pub skipped: usize,
    pub project: Option<Arc<Project>>,
    pub facts: Option<Arc<Facts>>,
    pub matrix: Option<Arc<PolicyMatrix>>,
    /// How the history is judged (from protolapse.toml); its root is `root`.
    pub settings: Settings,
    pub root: Option<String>,
    /// The root asked for (`--root`, config) until it resolves.
    pub root_wanted: Option<String>,
    pub selected: usize,
    pub base: Option<usize>,
    pub versions_nav: ListNav,
    pub comparison: Option<Arc<Comparison>>,
    pub tree: Tree,
    pub detail: DetailNav,
    pub changes_nav: ListNav,
    pub history_nav: MatrixNav,
    /// The field number the history view should put its cursor on, once it has the rows.
    pub history_focus: Option<i64>,
    pub policy_nav: MatrixNav,
    pub lifecycles: HashMap<String, Arc<Lifecycle>>,
    pub view: View,
    pub focus: Pane,
    pub overlay: Overlay,
    /// Versions whose names the finder can search.
    pub indexed: usize,
    /// A one-line message for the footer, until the next key.
    pub status: Option<String>,
    /// A name to jump to once the comparison it needs arrives.
    pub pending_jump: Option<String>,
    pub outbox: Vec<Request>,
    pub quit: bool,
    pub(super) asked_compare: Option<CompareKey>,
    pub(super) asked_facts: Option<Option<String>>,
    pub(super) asked_matrix: Option<Option<String>>,
    pub(super) asked_life: HashSet<String>,
    pub(super) asked_find: Option<(String, bool, usize)>,
}

impl App {
    pub fn new(theme: Theme, size: Rect, source: &str, root: Option<String>) -> App {
        App {
            theme,
            size,
            source: crate::sanitize::line(source),
            phase: Phase::Reading,
            versions: Vec::new(),
            skipped: 0,
            project: None,
            facts: None,
            matrix: None,
            settings: Settings::default(),
            root: None,
            root_wanted: root,
            selected: 0,
            base: None,
            versions_nav: ListNav::default(),
            comparison: None,
            tree: Tree::default(),
            detail: DetailNav::default(),
            changes_nav: ListNav::default(),
            history_nav: MatrixNav::default(),
            history_focus: None,
            policy_nav: MatrixNav::default(),
            lifecycles: HashMap::new(),
            view: View::Graph,
            focus: Pane::Graph,
            overlay: Overlay::None,
            indexed: 0,
            status: None,
            pending_jump: None,
            outbox: Vec::new(),
            quit: false,
            asked_compare: None,
            asked_facts: None,
            asked_matrix: None,
            asked_life: HashSet::new(),
            asked_find: None,
        }
    }

    /// The panes of the current view.
    pub fn areas(&self) -> Areas {
        self.view.areas(self.size, self.versions_width())
    }

    /// The key context: the overlay, else the focused pane.
    pub fn context(&self) -> Context {
        match &self.overlay {
            Overlay::Finder(_) => Context::Finder,
            Overlay::Help { .. } => Context::Help,
            Overlay::None => match self.focus {
                Pane::Versions => Context::Versions,
                Pane::Detail => Context::Detail,
                _ => self.view.context(),
            },
        }
    }

    /// The version compared with the selected one: the marked base, else the previous
    /// relevant version.
    pub fn base_index(&self) -> Option<usize> {
        self.base.or_else(|| self.previous(self.selected))
    }

    /// The previous relevant version of `i` (from the analysis when there is one).
    pub fn previous(&self, i: usize) -> Option<usize> {
        if let Some(f) = &self.facts
            && let Some(v) = f.versions.get(i)
        {
            return v.previous;
        }
        let headers: Vec<facts::Header<'_>> = self
            .versions
            .iter()
            .map(|v| facts::Header {
                version: &v.version,
                status: v.compiled.as_ref().map(|c| c.status),
                failed_files: &v.failed_files,
            })
            .collect();
        facts::previous_while_loading(&headers, i)
    }

    pub fn compiled(&self, i: usize) -> Option<&Arc<Compiled>> {
        self.versions.get(i).and_then(|v| v.compiled.as_ref())
    }

    pub(super) fn side(&self, i: usize) -> Option<Side> {
        let v = self.versions.get(i)?;
        let c = v.compiled.as_ref()?;
        (c.status != Status::Failed).then(|| Side {
            index: i,
            name: v.version.name.clone(),
            compiled: c.clone(),
            failed_files: v.failed_files.clone(),
        })
    }

    /// The comparison the screen should show now.
    pub fn compare_key(&self) -> Option<CompareKey> {
        let root = self.root.clone()?;
        self.side(self.selected)?;
        let base = self.base_index();
        if let Some(b) = base {
            self.side(b)?;
        }
        Some((base, self.selected, root))
    }

    /// The comparison on screen, if it is the one wanted.
    pub fn current(&self) -> Option<&Arc<Comparison>> {
        let c = self.comparison.as_ref()?;
        let key = self.compare_key()?;
        let have = (
            (!c.first).then_some(c.old.index),
            c.new.index,
            c.root.clone(),
        );
        (have == key).then_some(c)
    }

    /// Handles one action, then asks for whatever the screen now needs.
    pub fn update(&mut self, action: Action) {
        match action {
            Action::Command(cmd) => {
                self.status = None;
                self.command(cmd);
            }
            Action::Type(ch) => {
                if let Overlay::Finder(f) = &mut self.overlay {
                    f.query.push(ch);
                    f.cursor = 0;
                    f.scroll = 0;
                }
            }
            Action::Mouse { kind, column, row } => self.mouse(kind, column, row),
            Action::Resize(w, h) => self.size = Rect::new(0, 0, w, h),
            Action::Opened(o) => self.opened(*o),
            Action::Compiled(i, loaded) => self.compiled_one(i, *loaded),
            Action::Indexed(n) => self.indexed = self.indexed.max(n),
            Action::Loaded(p) => self.loaded(p),
            Action::LoadFailed(e) => {
                self.phase = Phase::Failed(crate::sanitize::text(&e).into_owned())
            }
            Action::Compared(c) => self.compared(c),
            Action::Facts(f) => {
                if self.asked_facts.as_ref() == Some(&f.root) {
                    self.asked_facts = None;
                }
                if f.root == self.root {
                    self.facts = Some(f);
                }
            }
            Action::Matrix(m) => {
                if self.asked_matrix.as_ref() == Some(&m.root) {
                    self.asked_matrix = None;
                }
                if m.root == self.root {
                    self.matrix = Some(m);
                }
            }
            Action::Lifecycle(l) => {
                self.asked_life.remove(&l.element);
                self.lifecycles.insert(l.element.clone(), l);
            }
            Action::Failed(e) => self.status = Some(crate::sanitize::line(&e)),
            Action::Found(set) => {
                if let Overlay::Finder(f) = &mut self.overlay
                    && f.query == set.query
                {
                    let len = set.items.len();
                    f.results = Some(set);
                    f.cursor = f.cursor.min(len.saturating_sub(1));
                }
            }
        }
        self.ensure();
        self.fit();
    }

    fn opened(&mut self, o: crate::ui::app::action::Opened) {
        self.versions = o
            .versions
            .into_iter()
            .map(|version| VersionEntry {
                version,
                compiled: None,
                unchanged_since: None,
                failed_files: Arc::default(),
            })
            .collect();
        self.skipped = o.skipped;
        self.settings = o.settings;
        self.phase = Phase::Compiling {
            done: 0,
            total: self.versions.len(),
        };
        self.selected = self.versions.len().saturating_sub(1);
        self.versions_nav.cursor = self.selected;
        if self.root_wanted.is_none() {
            self.root_wanted = o.config_root;
        }
        if self.root_wanted.is_none() && self.root.is_none() {
            self.open_finder(FindMode::Root);
        }
    }

    fn compiled_one(&mut self, i: usize, loaded: crate::load::Loaded) {
        if let Phase::Compiling { done, .. } = &mut self.phase {
            *done = (*done).max(i + 1);
        }
        if let Some(v) = self.versions.get_mut(i) {
            v.compiled = Some(loaded.compiled.clone());
            v.unchanged_since = loaded.unchanged_since.clone();
            v.failed_files = Arc::new(crate::explore::compare::failed_files(&loaded));
        }
        self.try_root(false);
    }

    fn loaded(&mut self, p: Arc<Project>) {
        // The project is the truth: fill what the stream may have missed.
        for (i, l) in p.versions.iter().enumerate() {
            if let Some(v) = self.versions.get_mut(i)
                && v.compiled.is_none()
            {
                v.compiled = Some(l.compiled.clone());
                v.unchanged_since = l.unchanged_since.clone();
                v.failed_files = Arc::new(crate::explore::compare::failed_files(l));
            }
        }
        self.project = Some(p);
        self.phase = Phase::Done;
        self.try_root(true);
    }

    /// Resolves the wanted root against the compiled versions, newest first; at the end of the
    /// load, an unknown root opens the finder with it as the query.
    fn try_root(&mut self, last_chance: bool) {
        let Some(want) = self.root_wanted.clone() else {
            return;
        };
        let mut best: Option<RootMatch> = None;
        for v in self.versions.iter().rev() {
            let Some(c) = &v.compiled else { continue };
            if c.status == Status::Failed {
                continue;
            }
            match resolve_root(&c.schema.content, &want) {
                RootMatch::Found(name) => {
                    self.root_wanted = None;
                    self.set_root(name);
                    return;
                }
                other => {
                    if best.is_none() {
                        best = Some(other);
                    }
                }
            }
        }
        if last_chance {
            self.root_wanted = None;
            self.status = Some(match best {
                Some(RootMatch::Ambiguous(names)) => format!(
                    "root `{}` is ambiguous: {}",
                    crate::sanitize::line(&want),
                    crate::sanitize::line(&names.join(", "))
                ),
                _ => format!(
                    "no message or service `{}` in any version: pick a root",
                    crate::sanitize::line(&want)
                ),
            });
            self.open_finder(FindMode::Root);
            if let Overlay::Finder(f) = &mut self.overlay {
                f.query = want.rsplit('.').next().unwrap_or(&want).to_string();
            }
        }
    }

    pub fn set_root(&mut self, name: String) {
        if self.root.as_deref() != Some(name.as_str()) {
            self.root = Some(name);
            self.tree = Tree {
                changed_only: self.tree.changed_only,
                ..Tree::default()
            };
            self.detail = DetailNav::default();
            self.changes_nav = ListNav::default();
            self.history_nav = MatrixNav::default();
        }
    }

    fn compared(&mut self, c: Arc<Comparison>) {
        let key = (
            (!c.first).then_some(c.old.index),
            c.new.index,
            c.root.clone(),
        );
        if self.asked_compare.as_ref() == Some(&key) {
            self.asked_compare = None;
        }
        if Some(&key) != self.compare_key().as_ref() {
            return;
        }
        let same_node = self.tree.path.clone();
        self.tree.set_comparison(&c);
        if self.tree.path != same_node {
            self.detail = DetailNav::default();
        }
        self.changes_nav.cursor = self
            .changes_nav
            .cursor
            .min(c.changes.len().saturating_sub(1));
        self.comparison = Some(c);
        if let Some(name) = self.pending_jump.take() {
            self.jump_in_tree(&name);
        }
    }

    pub fn open_finder(&mut self, mode: FindMode) {
        self.overlay = Overlay::Finder(Finder {
            mode,
            query: String::new(),
            results: None,
            cursor: 0,
            scroll: 0,
        });
    }

    /// The lines of the detail pane for the current width (for scrolling).
    pub fn detail_height(&self) -> usize {
        self.areas()
            .detail
            .map(|r| r.height.saturating_sub(2) as usize)
            .unwrap_or(1)
    }
}
