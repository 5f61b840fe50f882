//! The app's state and its one entry point, [`App::update`]. No thread and no terminal here:
//! slow work is asked for by pushing a [`Request`] to `outbox` (the event loop hands it to a
//! worker; tests run it inline), and results come back as actions.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ratatui::layout::Rect;

use crate::explore::Comparison;
use crate::explore::facts::{Facts, PolicyMatrix};
use crate::judge::{Scope, ScopeError};
use crate::load::{Loaded, Project, VersionId, lineage};
use crate::policy::{Lifecycle, Settings};
use crate::schema::Compiled;

use crate::ui::app::action::{Action, MatrixProgress};
use crate::ui::app::fit::DetailKey;
use crate::ui::app::keys::Context;
use crate::ui::app::tree::Tree;
use crate::ui::app::{
    CompareKey, DetailNav, FindMode, Finder, ListNav, MatrixNav, Overlay, Pane, ProveKey, Request,
};
use crate::ui::views::View;
use crate::ui::widgets::layout::Areas;
use crate::ui::widgets::theme::Theme;

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
    /// Every version, in history order: pending until the loader has compiled it.
    pub versions: Vec<Loaded>,
    /// The longest version name, in characters (worked out once, when the history opens: a
    /// frame draws no more than it shows of a long history).
    pub name_chars: usize,
    pub skipped: usize,
    pub project: Option<Arc<Project>>,
    pub facts: Option<Arc<Facts>>,
    pub matrix: Option<Arc<PolicyMatrix>>,
    /// How far the policy matrix being computed is (for the scope it names).
    pub matrix_progress: Option<MatrixProgress>,
    /// How the history is judged (from protolapse.toml); its root is `root`.
    pub settings: Settings,
    pub root: Option<String>,
    /// The root asked for (`--root`, config) until it resolves.
    pub root_wanted: Option<String>,
    /// The version on screen, and the one marked as the base (`b`), if any.
    pub selected: VersionId,
    pub base: Option<VersionId>,
    pub versions_nav: ListNav,
    pub comparison: Option<Arc<Comparison>>,
    pub tree: Tree,
    pub detail: DetailNav,
    /// What the detail pane showed at the last action: when it changes, the pane scrolls
    /// back to the top.
    pub(super) detail_of: Option<DetailKey>,
    pub changes_nav: ListNav,
    pub history_nav: MatrixNav,
    /// The field number the history view should put its cursor on, once it has the rows.
    pub history_focus: Option<i64>,
    pub policy_nav: MatrixNav,
    pub lifecycles: HashMap<String, Arc<Lifecycle>>,
    /// The round trips of changes, per pair and change (`None`: no such change).
    pub proofs: HashMap<ProveKey, Option<Arc<crate::prove::Proof>>>,
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
    pub(super) asked_facts: Option<Scope>,
    pub(super) asked_matrix: Option<Scope>,
    pub(super) asked_life: HashSet<String>,
    pub(super) asked_find: Option<(String, bool, usize)>,
    pub(super) asked_prove: Option<ProveKey>,
}

impl App {
    pub fn new(theme: Theme, size: Rect, source: &str, root: Option<String>) -> App {
        App {
            theme,
            size,
            source: crate::sanitize::line(source),
            phase: Phase::Reading,
            versions: Vec::new(),
            name_chars: 0,
            skipped: 0,
            project: None,
            facts: None,
            matrix: None,
            matrix_progress: None,
            settings: Settings::default(),
            root: None,
            root_wanted: root,
            selected: VersionId::default(),
            base: None,
            versions_nav: ListNav::default(),
            comparison: None,
            tree: Tree::default(),
            detail: DetailNav::default(),
            detail_of: None,
            changes_nav: ListNav::default(),
            history_nav: MatrixNav::default(),
            history_focus: None,
            policy_nav: MatrixNav::default(),
            lifecycles: HashMap::new(),
            proofs: HashMap::new(),
            view: View::Graph,
            // Where a lazygit user starts: the list on the left (Enter or `l` opens the graph).
            focus: Pane::Versions,
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
            asked_prove: None,
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

    /// What the analysis and the policy matrix judge: what the root reaches.
    pub fn scope(&self) -> Scope {
        Scope::of(self.root.clone())
    }

    /// The version compared with the selected one: the marked base, else the previous
    /// relevant version.
    pub fn base_index(&self) -> Option<VersionId> {
        self.base.or_else(|| self.previous(self.selected))
    }

    /// The version with this id, once the history is open.
    pub fn version(&self, id: VersionId) -> Option<&Loaded> {
        self.versions.get(id.index())
    }

    /// The previous relevant version of `i` (`load::lineage` decides, with what has compiled
    /// so far; once the whole history has, the same answer as the analysis).
    pub fn previous(&self, id: VersionId) -> Option<VersionId> {
        lineage::previous_to_compare(&self.versions, id)
    }

    /// The compiled schema of version `i`, once compiled.
    pub fn compiled(&self, i: usize) -> Option<&Arc<Compiled>> {
        self.versions
            .get(i)
            .map(|v| &v.compiled)
            .filter(|c| c.status != crate::schema::Status::Pending)
    }

    /// Version `i` as one side of a comparison, when it has a schema.
    pub(super) fn side(&self, id: VersionId) -> Option<Box<Loaded>> {
        let v = self.version(id).filter(|v| v.schema().is_some())?;
        Some(Box::new(v.clone()))
    }

    fn comparable(&self, id: VersionId) -> Option<VersionId> {
        self.version(id)?.schema().map(|_| id)
    }

    /// The comparison the screen should show now.
    pub fn compare_key(&self) -> Option<CompareKey> {
        let root = self.root.clone()?;
        let new = self.comparable(self.selected)?;
        let base = match self.base_index() {
            Some(b) => Some(self.comparable(b)?),
            None => None,
        };
        Some((base, new, root))
    }

    /// The comparison on screen, if it is the one wanted.
    pub fn current(&self) -> Option<&Arc<Comparison>> {
        let c = self.comparison.as_ref()?;
        let key = self.compare_key()?;
        (c.key() == key).then_some(c)
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
                if self.asked_facts.as_ref() == Some(&f.scope) {
                    self.asked_facts = None;
                }
                if f.scope == self.scope() {
                    self.facts = Some(f);
                }
            }
            Action::Matrix(m) => {
                if self.asked_matrix.as_ref() == Some(&m.scope) {
                    self.asked_matrix = None;
                }
                if m.scope == self.scope() {
                    self.matrix_progress = None;
                    self.matrix = Some(m);
                }
            }
            Action::MatrixProgress(p) => match p {
                MatrixProgress::Running { ref scope, .. } => {
                    if *scope == self.scope() {
                        self.matrix_progress = Some(p);
                    }
                }
                // Asked again by `ensure` if this scope is still the one on screen.
                MatrixProgress::Cancelled(scope) => {
                    if self.asked_matrix.as_ref() == Some(&scope) {
                        self.asked_matrix = None;
                    }
                }
            },
            Action::Lifecycle(l) => {
                self.asked_life.remove(&l.element);
                self.lifecycles.insert(l.element.clone(), l);
            }
            Action::Proved(key, proof) => self.proved(key, proof),
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
            .enumerate()
            .map(|(i, version)| Loaded::pending(VersionId::at(i), version))
            .collect();
        self.name_chars = self
            .versions
            .iter()
            .map(|v| v.version.name.chars().count())
            .max()
            .unwrap_or(0);
        self.skipped = o.skipped;
        self.settings = o.settings;
        self.phase = Phase::Compiling {
            done: 0,
            total: self.versions.len(),
        };
        let newest = VersionId::at(self.versions.len().saturating_sub(1));
        self.selected = o
            .selected
            .filter(|s| s.index() < self.versions.len())
            .unwrap_or(newest);
        self.versions_nav.cursor = self.selected.index();
        if self.root_wanted.is_none() {
            self.root_wanted = o.config_root;
        }
        if self.root_wanted.is_none() && self.root.is_none() {
            self.open_finder(FindMode::Root);
        }
    }

    fn compiled_one(&mut self, i: usize, loaded: crate::load::Loaded) {
        // Counted, not taken from `i`: the newest version compiles first.
        if let Phase::Compiling { done, total } = &mut self.phase {
            *done = (*done + 1).min(*total);
        }
        if let Some(v) = self.versions.get_mut(i) {
            *v = loaded;
        }
        self.try_root(false);
    }

    fn loaded(&mut self, p: Arc<Project>) {
        // The project is the truth: fill what the stream may have missed.
        for (i, l) in p.versions.iter().enumerate() {
            if let Some(v) = self.versions.get_mut(i)
                && v.status() == crate::schema::Status::Pending
            {
                *v = l.clone();
            }
        }
        self.project = Some(p);
        self.phase = Phase::Done;
        self.try_root(true);
    }

    /// Resolves the wanted root against the compiled versions, newest first, as every
    /// command does: while the load goes on, only down to the newest version not compiled
    /// yet (a name unique in an older version may be ambiguous, or another type, in a newer
    /// one). At the end of the load, an unknown root opens the finder with it as the query.
    fn try_root(&mut self, last_chance: bool) {
        let Some(want) = self.root_wanted.clone() else {
            return;
        };
        let resolved = if last_chance {
            Scope::in_history(Some(&want), &self.versions)
        } else {
            let compiled = self.versions.iter().rev();
            let compiled = compiled.take_while(|v| v.status() != crate::schema::Status::Pending);
            Scope::resolve(Some(&want), compiled, String::new)
        };
        let error = match resolved {
            Ok(Scope::Root(name)) => {
                self.root_wanted = None;
                self.set_root(name);
                return;
            }
            Ok(Scope::Whole) => return,
            Err(e) => e,
        };
        if last_chance {
            self.root_wanted = None;
            self.status = Some(match error {
                ScopeError::Ambiguous { root, place, names } => {
                    format!(
                        "root `{root}` is ambiguous in {place}: {}",
                        names.join(", ")
                    )
                }
                ScopeError::Unknown { root, .. } => {
                    format!("no message or service `{root}` in any version: pick a root")
                }
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
        let key = c.key();
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
