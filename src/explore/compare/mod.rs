//! Two versions compared from a root, as a tree of paired nodes.
//!
//! The tree follows the pairing of `diff::pair_from_root`: from the root, children are the
//! fields of both sides paired by number (enum values by number, rpcs by name), and a
//! field's node expands into the pair of types at its two ends. A node present on one side
//! only is added or removed; removed nodes stay in the tree. A node whose type pair is
//! already an ancestor's is a cycle and does not expand.
//!
//! Every change that `rules::check` found is attached to the node it concerns: field and
//! value changes by (container, number) or (container, name), type-level changes (message
//! added, oneof renamed, reservation dropped, ...) to every node that expands into the type.
//! The worker builds a [`Comparison`] once; the UI then lays out rows from it cheaply.

mod index;
mod layout;
mod nodes;

pub use layout::MAX_DEPTH;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::judge::{Ignores, Scope, Side, judge};
use crate::load::Loaded;
use crate::rules::{Change, Severity};

use index::Index;
use nodes::Builder;

/// One step from a node to a child.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Field(u32),
    Value(i32),
    Method(String),
    Request,
    Response,
}

/// A node's place in the tree: the steps from the root.
pub type Path = Vec<Step>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Message,
    Enum,
    Service,
    Field,
    Value,
    Method,
    Request,
    Response,
}

/// Which versions have the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sides {
    Both,
    Old,
    New,
}

/// A (old, new) pair of full type names; either may be absent.
pub type TypePair = (Option<String>, Option<String>);

/// One node of the tree, the same wherever its type pair appears.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub step: Option<Step>,
    pub number: Option<i64>,
    /// Name in the new version (the old one if removed).
    pub name: String,
    /// The old name, when it differs.
    pub old_name: Option<String>,
    /// Short type text in the new version (the old one if removed).
    pub ty: String,
    /// The old short type text, when it differs.
    pub old_ty: Option<String>,
    pub sides: Sides,
    /// The types it expands into (message, enum or service), old and new.
    pub types: TypePair,
    /// The declaration that contains it (message, enum or service), old and new.
    pub container: TypePair,
    /// Full name of the element (new side, else old) and the old one when it differs.
    pub element: String,
    pub old_element: Option<String>,
    pub old_decl: Option<String>,
    pub new_decl: Option<String>,
    /// Indices into [`Comparison::changes`], worst first.
    pub changes: Vec<usize>,
    pub worst: Option<Severity>,
    /// The worst change anywhere below (through the types it expands into).
    pub below: Option<Severity>,
}

impl Node {
    pub fn expandable(&self) -> bool {
        self.types.0.is_some() || self.types.1.is_some()
    }

    /// The worst of its own changes and of those below.
    pub fn worst_here_or_below(&self) -> Option<Severity> {
        self.worst.max(self.below)
    }
}

/// One row of the laid-out tree.
#[derive(Debug, Clone)]
pub struct Row {
    pub node: Arc<Node>,
    pub path: Path,
    pub depth: usize,
    pub expanded: bool,
    /// Its type pair is an ancestor's: not expanded, to keep the tree finite.
    pub cycle: bool,
    /// At the depth limit ([`MAX_DEPTH`]): it has children, but the tree does not open it.
    pub cut: bool,
    /// The last of its siblings.
    pub last: bool,
    /// Per ancestor level (below the root): whether that ancestor has siblings after it.
    pub guides: Vec<bool>,
}

/// What the rows of a tree are laid out with.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layout {
    /// Only nodes with a change at or below them.
    pub changed_only: bool,
    /// At most this many rows (0: no limit).
    pub limit: usize,
}

/// A comparison of two versions from a root.
#[derive(Debug)]
pub struct Comparison {
    pub root: String,
    /// The two versions (the same one twice for the first version).
    pub old: Loaded,
    pub new: Loaded,
    /// True when there was nothing to compare with (the first version).
    pub first: bool,
    /// Every change, worst first (as `rules::check` sorts them).
    pub changes: Vec<Change>,
    /// Changes attached to no node (file-level changes).
    pub unattached: Vec<usize>,
    root_node: Arc<Node>,
    children: HashMap<TypePair, Vec<Arc<Node>>>,
}

impl Comparison {
    /// What it compares: (old version, unless it is the first; new version; root).
    pub fn key(
        &self,
    ) -> (
        Option<crate::load::VersionId>,
        crate::load::VersionId,
        String,
    ) {
        (
            (!self.first).then_some(self.old.id),
            self.new.id,
            self.root.clone(),
        )
    }

    /// Compares `old` with `new` from `root`. With `old` = `None` (the first version) the
    /// tree shows `new` alone and nothing is compared.
    /// Changes that `ignores` cover, or that sit in a file that did not compile on either
    /// side, are listed but count for nothing (as in `policy`).
    pub fn build(old: Option<Loaded>, new: Loaded, root: &str, ignores: &Ignores) -> Comparison {
        let first = old.is_none();
        let old = old.unwrap_or_else(|| new.clone());
        let (oc, nc) = (&old.compiled.schema.content, &new.compiled.schema.content);
        let changes = match (first, Side::of(&old), Side::of(&new)) {
            (false, Some(a), Some(b)) => judge(&a, &b, &Scope::Root(root.to_string()), ignores),
            _ => Vec::new(),
        };
        let mut b = Builder {
            old: oc,
            new: nc,
            changes: &changes,
            index: Index::build(&changes, oc, nc),
        };
        let root_node = b.root(root);
        // Every type pair reached, breadth first, with its children.
        let mut children: HashMap<TypePair, Vec<Node>> = HashMap::new();
        let mut methods: HashMap<(TypePair, String), Vec<Node>> = HashMap::new();
        let mut queue = VecDeque::from([root_node.types.clone()]);
        let mut order = Vec::new();
        while let Some(pair) = queue.pop_front() {
            if children.contains_key(&pair) {
                continue;
            }
            let kids = b.children(&pair, None);
            for k in &kids {
                if k.kind == NodeKind::Method {
                    let key = (pair.clone(), k.name.clone());
                    let rpc = b.children(&pair, Some(&k.name));
                    for r in &rpc {
                        if r.expandable() {
                            queue.push_back(r.types.clone());
                        }
                    }
                    methods.insert(key, rpc);
                } else if k.expandable() {
                    queue.push_back(k.types.clone());
                }
            }
            order.push(pair.clone());
            children.insert(pair, kids);
        }
        let below = worst_below(&order, &children, &methods);
        let below_of = |n: &Node| below.get(&n.types).copied().flatten();
        let mut out: HashMap<TypePair, Vec<Arc<Node>>> = HashMap::new();
        for (pair, kids) in children {
            let kids = kids
                .into_iter()
                .map(|mut k| {
                    k.below = if k.kind == NodeKind::Method {
                        methods
                            .get(&(pair.clone(), k.name.clone()))
                            .into_iter()
                            .flatten()
                            .map(|r| r.worst.max(below_of(r)))
                            .max()
                            .flatten()
                    } else {
                        below_of(&k)
                    };
                    Arc::new(k)
                })
                .collect();
            out.insert(pair, kids);
        }
        for ((pair, name), rpc) in methods {
            let key = (
                pair.0.as_ref().map(|p| format!("{p}/{name}")),
                pair.1.as_ref().map(|p| format!("{p}/{name}")),
            );
            let rpc = rpc
                .into_iter()
                .map(|mut r| {
                    r.below = below_of(&r);
                    Arc::new(r)
                })
                .collect();
            out.insert(key, rpc);
        }
        let mut root_node = root_node;
        root_node.below = below.get(&root_node.types).copied().flatten();
        let unattached = b
            .index
            .attached
            .iter()
            .enumerate()
            .filter(|(_, a)| !**a)
            .map(|(i, _)| i)
            .collect();
        Comparison {
            root: root.to_string(),
            old,
            new,
            first,
            changes,
            unattached,
            root_node: Arc::new(root_node),
            children: out,
        }
    }

    pub fn root_node(&self) -> &Arc<Node> {
        &self.root_node
    }

    /// Whether the root exists in either version.
    pub fn root_found(&self) -> bool {
        self.root_node.types.0.is_some() || self.root_node.types.1.is_some()
    }

    /// The children of a node.
    pub fn children(&self, node: &Node) -> &[Arc<Node>] {
        let key = if node.kind == NodeKind::Method {
            (
                node.container
                    .0
                    .as_ref()
                    .map(|p| format!("{p}/{}", node.name)),
                node.container
                    .1
                    .as_ref()
                    .map(|p| format!("{p}/{}", node.name)),
            )
        } else {
            node.types.clone()
        };
        self.children.get(&key).map(Vec::as_slice).unwrap_or(&[])
    }

    pub(super) fn has_children(&self, node: &Node) -> bool {
        node.kind == NodeKind::Method || node.expandable()
    }

    /// The node at `path`, if it exists.
    pub fn node(&self, path: &[Step]) -> Option<&Arc<Node>> {
        let mut n = &self.root_node;
        for s in path {
            n = self
                .children(n)
                .iter()
                .find(|c| c.step.as_ref() == Some(s))?;
        }
        Some(n)
    }

    /// The worst change of the comparison (ignored ones apart).
    pub fn worst(&self) -> Option<Severity> {
        self.changes
            .iter()
            .filter(|c| c.ignored.is_none())
            .map(|c| c.verdict.worst())
            .max()
    }

    /// Changes per severity (safe, hazard, lossy, breaking), and the ignored ones.
    pub fn counts(&self) -> crate::judge::Counts {
        crate::judge::Counts::of(&self.changes)
    }
}

/// The worst change below each type pair: the worst of its children's own changes and of
/// what is below the types they expand into (through an rpc's request and response too).
/// Severities only grow, so the fixed point is found with a worklist over the reverse
/// edges: a pair is revisited only when a pair it expands into got worse, at most once per
/// severity — linear in the tree, where a sweep per level was quadratic on a long chain.
fn worst_below(
    order: &[TypePair],
    children: &HashMap<TypePair, Vec<Node>>,
    methods: &HashMap<(TypePair, String), Vec<Node>>,
) -> HashMap<TypePair, Option<Severity>> {
    let mut below: HashMap<TypePair, Option<Severity>> = HashMap::new();
    // Who expands into each pair, and each pair's own worst (its children's changes).
    let mut parents: HashMap<&TypePair, Vec<&TypePair>> = HashMap::new();
    let mut queue: VecDeque<&TypePair> = VecDeque::new();
    for pair in order {
        let mut w: Option<Severity> = None;
        for k in children.get(pair).into_iter().flatten() {
            w = w.max(k.worst);
            if k.kind == NodeKind::Method {
                for r in methods
                    .get(&(pair.clone(), k.name.clone()))
                    .into_iter()
                    .flatten()
                {
                    w = w.max(r.worst);
                    if r.expandable() {
                        parents.entry(&r.types).or_default().push(pair);
                    }
                }
            } else if k.expandable() {
                parents.entry(&k.types).or_default().push(pair);
            }
        }
        below.insert(pair.clone(), w);
        if w.is_some() {
            queue.push_back(pair);
        }
    }
    while let Some(pair) = queue.pop_front() {
        let w = below.get(pair).copied().flatten();
        for &p in parents.get(pair).into_iter().flatten() {
            let slot = below.entry(p.clone()).or_default();
            if w > *slot {
                *slot = w;
                queue.push_back(p);
            }
        }
    }
    below
}
