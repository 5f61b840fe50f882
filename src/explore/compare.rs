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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use crate::diff;
use crate::policy::{Ignores, change_files};
use crate::rules::{self, Change, Severity};
use crate::schema::Compiled;
use crate::schema::graph::type_text;
use crate::schema::model::{Content, EnumValue, Field, Method};

use super::decl;

/// One side of a comparison: a version and its compiled schema.
#[derive(Debug, Clone)]
pub struct Side {
    pub index: usize,
    pub name: String,
    pub compiled: Arc<Compiled>,
    /// Files of the version that did not compile (a partial version): changes in them are
    /// listed but not judged.
    pub failed_files: Arc<BTreeSet<String>>,
}

impl Side {
    /// The side of version `index` of a loaded history.
    pub fn of(loaded: &crate::load::Loaded, index: usize) -> Side {
        Side {
            index,
            name: loaded.version.name.clone(),
            compiled: loaded.compiled.clone(),
            failed_files: Arc::new(failed_files(loaded)),
        }
    }
}

/// The files of a partial version that did not compile.
pub fn failed_files(loaded: &crate::load::Loaded) -> BTreeSet<String> {
    crate::policy::failed_files(loaded)
        .into_iter()
        .map(str::to_string)
        .collect()
}

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

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Member {
    Number(i64),
    Name(String),
}

/// A comparison of two versions from a root.
#[derive(Debug)]
pub struct Comparison {
    pub root: String,
    pub old: Side,
    pub new: Side,
    /// True when there was nothing to compare with (the first version).
    pub first: bool,
    /// Every change, worst first (as `rules::check` sorts them).
    pub changes: Vec<Change>,
    /// Changes attached to no node (file-level changes).
    pub unattached: Vec<usize>,
    root_node: Arc<Node>,
    children: HashMap<TypePair, Vec<Arc<Node>>>,
}

fn type_kind(c: &Content, name: &str) -> Option<NodeKind> {
    if c.messages.contains_key(name) {
        Some(NodeKind::Message)
    } else if c.enums.contains_key(name) {
        Some(NodeKind::Enum)
    } else if c.services.contains_key(name) {
        Some(NodeKind::Service)
    } else {
        None
    }
}

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Short display type: `map<string, Leaf>`, `repeated Node`, `int32`.
fn short_type(f: &Field) -> String {
    let full = type_text(f);
    // Shorten every dotted name in the text to its last part.
    full.split_inclusive([' ', '<', ',', '>'])
        .map(|tok| {
            let (word, sep) = match tok.char_indices().last() {
                Some((i, ' ' | '<' | ',' | '>')) => (&tok[..i], &tok[i..]),
                _ => (tok, ""),
            };
            format!("{}{sep}", short(word))
        })
        .collect()
}

fn field_target(c: &Content, f: &Field) -> Option<String> {
    let t = match &f.map {
        Some((_, v)) => v.type_name(),
        None => f.ty.type_name(),
    }?;
    type_kind(c, t).map(|_| t.to_string())
}

enum Item<'a> {
    Field(&'a Field),
    Value(&'a EnumValue),
    Method(&'a Method),
    Request(&'a Method),
    Response(&'a Method),
}

/// The children of one side of a node, keyed by step.
fn side_children<'a>(
    c: &'a Content,
    method: Option<&'a Method>,
    ty: Option<&str>,
) -> Vec<(Step, Item<'a>)> {
    if let Some(m) = method {
        return vec![
            (Step::Request, Item::Request(m)),
            (Step::Response, Item::Response(m)),
        ];
    }
    let Some(ty) = ty else { return Vec::new() };
    if let Some(m) = c.messages.get(ty) {
        m.fields
            .values()
            .map(|f| (Step::Field(f.number), Item::Field(f)))
            .collect()
    } else if let Some(e) = c.enums.get(ty) {
        let mut seen = HashSet::new();
        e.values
            .iter()
            .filter(|v| seen.insert(v.number))
            .map(|v| (Step::Value(v.number), Item::Value(v)))
            .collect()
    } else if let Some(s) = c.services.get(ty) {
        s.methods
            .values()
            .map(|m| (Step::Method(m.name.clone()), Item::Method(m)))
            .collect()
    } else {
        Vec::new()
    }
}

struct Index {
    types: HashMap<String, Vec<usize>>,
    members: HashMap<(String, Member), Vec<usize>>,
    attached: Vec<bool>,
}

impl Index {
    fn build(changes: &[Change], old: &Content, new: &Content) -> Index {
        let mut ix = Index {
            types: HashMap::new(),
            members: HashMap::new(),
            attached: vec![false; changes.len()],
        };
        let is_type = |n: &str| type_kind(old, n).is_some() || type_kind(new, n).is_some();
        let has_member = |parent: &str, name: &str| {
            [old, new].iter().any(|c| {
                c.messages
                    .get(parent)
                    .is_some_and(|m| m.fields.values().any(|f| f.name == name))
                    || c.enums
                        .get(parent)
                        .is_some_and(|e| e.values.iter().any(|v| v.name == name))
                    || c.services
                        .get(parent)
                        .is_some_and(|s| s.methods.contains_key(name))
            })
        };
        for (i, ch) in changes.iter().enumerate() {
            if is_type(&ch.element) {
                ix.types.entry(ch.element.clone()).or_default().push(i);
                continue;
            }
            let Some((parent, last)) = ch.element.rsplit_once('.') else {
                continue;
            };
            if !is_type(parent) {
                continue;
            }
            match ch.number {
                Some(n) => {
                    ix.members
                        .entry((parent.to_string(), Member::Number(n)))
                        .or_default()
                        .push(i);
                    if ch.rule.ends_with("_NUMBER_CHANGED") {
                        ix.members
                            .entry((parent.to_string(), Member::Name(last.to_string())))
                            .or_default()
                            .push(i);
                    }
                }
                None if has_member(parent, last) => ix
                    .members
                    .entry((parent.to_string(), Member::Name(last.to_string())))
                    .or_default()
                    .push(i),
                None => ix.types.entry(parent.to_string()).or_default().push(i),
            }
        }
        ix
    }

    fn collect(
        &mut self,
        out: &mut Vec<usize>,
        keys: &[(Option<&str>, Member)],
        types: [Option<&str>; 2],
    ) {
        for (parent, m) in keys {
            if let Some(p) = parent
                && let Some(v) = self.members.get(&(p.to_string(), m.clone()))
            {
                out.extend(v);
            }
        }
        for t in types.into_iter().flatten() {
            if let Some(v) = self.types.get(t) {
                out.extend(v);
            }
        }
        out.sort_unstable();
        out.dedup();
        for &i in out.iter() {
            if let Some(a) = self.attached.get_mut(i) {
                *a = true;
            }
        }
    }
}

/// What the builder needs to make nodes.
struct Builder<'a> {
    old: &'a Content,
    new: &'a Content,
    changes: &'a [Change],
    index: Index,
}

impl Builder<'_> {
    fn worst(&self, ids: &[usize]) -> Option<Severity> {
        ids.iter()
            .filter_map(|&i| self.changes.get(i))
            .filter(|c| c.ignored.is_none())
            .map(|c| c.verdict.worst())
            .max()
    }

    fn root(&mut self, root: &str) -> Node {
        let (o, n) = (
            type_kind(self.old, root).map(|_| root.to_string()),
            type_kind(self.new, root).map(|_| root.to_string()),
        );
        let kind = type_kind(self.new, root)
            .or_else(|| type_kind(self.old, root))
            .unwrap_or(NodeKind::Message);
        let sides = match (&o, &n) {
            (Some(_), None) => Sides::Old,
            (None, Some(_)) => Sides::New,
            _ => Sides::Both,
        };
        let mut changes = Vec::new();
        self.index
            .collect(&mut changes, &[], [o.as_deref(), n.as_deref()]);
        let decl_of = |c: &Content| c.messages.get(root).map(decl::message);
        Node {
            kind,
            step: None,
            number: None,
            name: short(root).to_string(),
            old_name: None,
            ty: match kind {
                NodeKind::Service => "service".into(),
                NodeKind::Enum => "enum".into(),
                _ => "message".into(),
            },
            old_ty: None,
            sides,
            worst: self.worst(&changes),
            changes,
            below: None,
            container: (None, None),
            element: root.to_string(),
            old_element: None,
            old_decl: o.as_ref().and_then(|_| decl_of(self.old)),
            new_decl: n.as_ref().and_then(|_| decl_of(self.new)),
            types: (o, n),
        }
    }

    /// The children of a node that expands into `types` (or of rpc `method`).
    fn children(&mut self, types: &TypePair, method: Option<&str>) -> Vec<Node> {
        let (old, new) = (self.old, self.new);
        fn lookup<'c>(c: &'c Content, svc: &Option<String>, m: &str) -> Option<&'c Method> {
            svc.as_ref()
                .and_then(|s| c.services.get(s))
                .and_then(|s| s.methods.get(m))
        }
        let (a, b) = if let Some(m) = method {
            (
                lookup(old, &types.0, m)
                    .map(|m| side_children(old, Some(m), None))
                    .unwrap_or_default(),
                lookup(new, &types.1, m)
                    .map(|m| side_children(new, Some(m), None))
                    .unwrap_or_default(),
            )
        } else {
            (
                side_children(old, None, types.0.as_deref()),
                side_children(new, None, types.1.as_deref()),
            )
        };
        let mut merged: BTreeMap<Step, (Option<Item<'_>>, Option<Item<'_>>)> = BTreeMap::new();
        for (s, it) in a {
            merged.entry(s).or_insert((None, None)).0 = Some(it);
        }
        for (s, it) in b {
            merged.entry(s).or_insert((None, None)).1 = Some(it);
        }
        merged
            .into_iter()
            .filter_map(|(step, (a, b))| self.node(types, method, step, a, b))
            .collect()
    }

    fn node(
        &mut self,
        parent: &TypePair,
        method: Option<&str>,
        step: Step,
        a: Option<Item<'_>>,
        b: Option<Item<'_>>,
    ) -> Option<Node> {
        let (old, new) = (self.old, self.new);
        let sides = match (&a, &b) {
            (Some(_), None) => Sides::Old,
            (None, Some(_)) => Sides::New,
            _ => Sides::Both,
        };
        let pa = parent.0.as_deref();
        let pb = parent.1.as_deref();
        struct One {
            kind: NodeKind,
            number: Option<i64>,
            name: String,
            ty: String,
            target: Option<String>,
            decl: String,
        }
        let one = |it: &Item<'_>, c: &Content| -> One {
            match it {
                Item::Field(f) => One {
                    kind: NodeKind::Field,
                    number: Some(i64::from(f.number)),
                    name: f.name.clone(),
                    ty: short_type(f),
                    target: field_target(c, f),
                    decl: decl::field(f),
                },
                Item::Value(v) => One {
                    kind: NodeKind::Value,
                    number: Some(i64::from(v.number)),
                    name: v.name.clone(),
                    ty: String::new(),
                    target: None,
                    decl: decl::value(v),
                },
                Item::Method(m) => {
                    let stream = |s: bool| if s { "stream " } else { "" };
                    One {
                        kind: NodeKind::Method,
                        number: None,
                        name: m.name.clone(),
                        ty: format!(
                            "{}{} → {}{}",
                            stream(m.client_streaming),
                            short(&m.input),
                            stream(m.server_streaming),
                            short(&m.output)
                        ),
                        target: None,
                        decl: decl::method(m),
                    }
                }
                Item::Request(m) => One {
                    kind: NodeKind::Request,
                    number: None,
                    name: "request".into(),
                    ty: format!(
                        "{}{}",
                        if m.client_streaming { "stream " } else { "" },
                        short(&m.input)
                    ),
                    target: type_kind(c, &m.input).map(|_| m.input.clone()),
                    decl: decl::method(m),
                },
                Item::Response(m) => One {
                    kind: NodeKind::Response,
                    number: None,
                    name: "response".into(),
                    ty: format!(
                        "{}{}",
                        if m.server_streaming { "stream " } else { "" },
                        short(&m.output)
                    ),
                    target: type_kind(c, &m.output).map(|_| m.output.clone()),
                    decl: decl::method(m),
                },
            }
        };
        let oa = a.as_ref().map(|it| one(it, old));
        let ob = b.as_ref().map(|it| one(it, new));
        let main = ob.as_ref().or(oa.as_ref())?;
        let kind = main.kind;
        let number = main.number;
        let name = main.name.clone();
        let ty = main.ty.clone();
        let old_name = oa
            .as_ref()
            .filter(|o| o.name != name)
            .map(|o| o.name.clone());
        let old_ty = oa.as_ref().filter(|o| o.ty != ty).map(|o| o.ty.clone());
        let types = (
            oa.as_ref().and_then(|o| o.target.clone()),
            ob.as_ref().and_then(|o| o.target.clone()),
        );
        let elem = |p: Option<&str>, o: &Option<One>| match (p, o) {
            (Some(p), Some(o)) if matches!(o.kind, NodeKind::Request | NodeKind::Response) => {
                Some(format!("{p}.{}", method.unwrap_or_default()))
            }
            (Some(p), Some(o)) => Some(format!("{p}.{}", o.name)),
            _ => None,
        };
        let new_el = elem(pb, &ob);
        let old_el = elem(pa, &oa);
        let element = new_el.clone().or(old_el.clone()).unwrap_or_default();
        let old_element = old_el.filter(|o| Some(o) != new_el.as_ref());
        // Changes: the member's own, then those of the types it expands into.
        let mut keys: Vec<(Option<&str>, Member)> = Vec::new();
        let names = [
            oa.as_ref().map(|o| o.name.as_str()),
            ob.as_ref().map(|o| o.name.as_str()),
        ];
        match kind {
            NodeKind::Field | NodeKind::Value => {
                if let Some(n) = number {
                    keys.push((pa, Member::Number(n)));
                    keys.push((pb, Member::Number(n)));
                }
                keys.push((pa, Member::Name(names[0].unwrap_or_default().to_string())));
                keys.push((pb, Member::Name(names[1].unwrap_or_default().to_string())));
            }
            NodeKind::Method => {
                keys.push((pa, Member::Name(name.clone())));
                keys.push((pb, Member::Name(name.clone())));
            }
            _ => {}
        }
        let mut changes = Vec::new();
        self.index.collect(
            &mut changes,
            &keys,
            [types.0.as_deref(), types.1.as_deref()],
        );
        Some(Node {
            kind,
            step: Some(step),
            number,
            name,
            old_name,
            ty,
            old_ty,
            sides,
            container: parent.clone(),
            element,
            old_element,
            old_decl: oa.map(|o| o.decl),
            new_decl: ob.map(|o| o.decl),
            worst: self.worst(&changes),
            changes,
            below: None,
            types,
        })
    }
}

impl Comparison {
    /// Compares `old` with `new` from `root`. With `old` = `None` (the first version) the
    /// tree shows `new` alone and nothing is compared.
    /// Changes that `ignores` cover, or that sit in a file that did not compile on either
    /// side, are listed but count for nothing (as in `policy`).
    pub fn build(old: Option<Side>, new: Side, root: &str, ignores: &Ignores) -> Comparison {
        let first = old.is_none();
        let old = old.unwrap_or_else(|| new.clone());
        let (oc, nc) = (&old.compiled.schema.content, &new.compiled.schema.content);
        let mut changes = if first {
            Vec::new()
        } else {
            let pairing = diff::pair_from_root(oc, nc, root);
            rules::check(&pairing, &old.compiled.schema, &new.compiled.schema)
        };
        ignores.apply(&mut changes, &new.compiled.schema, true);
        for side in [&new, &old] {
            for c in changes.iter_mut().filter(|c| c.ignored.is_none()) {
                if let Some(f) = change_files(c)
                    .into_iter()
                    .find(|f| side.failed_files.contains(*f))
                {
                    c.ignored = Some(format!("not judged: {f} did not compile in {}", side.name));
                }
            }
        }
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
        // Worst change below each pair: a fixed point (cycles converge; severities only grow).
        let mut below: HashMap<TypePair, Option<Severity>> = HashMap::new();
        loop {
            let mut changed = false;
            for pair in &order {
                let mut w: Option<Severity> = None;
                for k in children.get(pair).into_iter().flatten() {
                    w = w.max(k.worst);
                    if k.kind == NodeKind::Method {
                        for r in methods
                            .get(&(pair.clone(), k.name.clone()))
                            .into_iter()
                            .flatten()
                        {
                            w = w.max(r.worst).max(below.get(&r.types).copied().flatten());
                        }
                    } else if k.expandable() {
                        w = w.max(below.get(&k.types).copied().flatten());
                    }
                }
                if below.get(pair).copied().flatten() != w {
                    below.insert(pair.clone(), w);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
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

    fn has_children(&self, node: &Node) -> bool {
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

    /// Lays out the rows of the tree: the root, then the children of every expanded path.
    pub fn rows(&self, expanded: &HashSet<Path>, layout: Layout) -> Vec<Row> {
        let mut rows = Vec::new();
        if !self.root_found() {
            return rows;
        }
        let root_expanded = expanded.contains(&Vec::new());
        rows.push(Row {
            node: self.root_node.clone(),
            path: Vec::new(),
            depth: 0,
            expanded: root_expanded,
            cycle: false,
            last: true,
            guides: Vec::new(),
        });
        if root_expanded {
            let mut ancestors = vec![self.root_node.types.clone()];
            let mut path = Vec::new();
            let mut guides = Vec::new();
            self.walk(
                &self.root_node,
                expanded,
                layout,
                &mut ancestors,
                &mut path,
                &mut guides,
                &mut rows,
            );
        }
        rows
    }

    #[allow(clippy::too_many_arguments)] // one recursive walk and its accumulators
    fn walk(
        &self,
        node: &Node,
        expanded: &HashSet<Path>,
        layout: Layout,
        ancestors: &mut Vec<TypePair>,
        path: &mut Path,
        guides: &mut Vec<bool>,
        rows: &mut Vec<Row>,
    ) {
        let kids: Vec<&Arc<Node>> = self
            .children(node)
            .iter()
            .filter(|k| !layout.changed_only || k.worst_here_or_below().is_some())
            .collect();
        let count = kids.len();
        for (i, k) in kids.into_iter().enumerate() {
            if layout.limit > 0 && rows.len() >= layout.limit {
                return;
            }
            let Some(step) = k.step.clone() else { continue };
            path.push(step);
            let cycle = k.expandable() && ancestors.contains(&k.types);
            let open = !cycle && self.has_children(k) && expanded.contains(path);
            let last = i + 1 == count;
            rows.push(Row {
                node: k.clone(),
                path: path.clone(),
                depth: path.len(),
                expanded: open,
                cycle,
                last,
                guides: guides.clone(),
            });
            if open {
                ancestors.push(k.types.clone());
                guides.push(!last);
                self.walk(k, expanded, layout, ancestors, path, guides, rows);
                guides.pop();
                ancestors.pop();
            }
            path.pop();
        }
    }

    /// Paths to expand so that every node below `from` is shown, each type pair expanded at
    /// its first occurrence only (later ones stay collapsed), at most `limit` paths; with
    /// `changed_only`, only nodes with a change below them.
    pub fn expand_all(&self, from: &[Step], changed_only: bool, limit: usize) -> Vec<Path> {
        let mut out = Vec::new();
        let Some(start) = self.node(from) else {
            return out;
        };
        let mut seen: HashSet<TypePair> = HashSet::new();
        // Ancestors of `from` count as seen (a cycle back to them is not expanded).
        let mut n = &self.root_node;
        seen.insert(n.types.clone());
        for s in from {
            match self.children(n).iter().find(|c| c.step.as_ref() == Some(s)) {
                Some(c) => {
                    n = c;
                    seen.insert(c.types.clone());
                }
                None => break,
            }
        }
        let mut queue = VecDeque::from([(from.to_vec(), start.clone())]);
        while let Some((path, node)) = queue.pop_front() {
            if out.len() >= limit {
                break;
            }
            out.push(path.clone());
            for k in self.children(&node) {
                if !self.has_children(k) || changed_only && k.below.is_none() {
                    continue;
                }
                if k.kind != NodeKind::Method && !seen.insert(k.types.clone()) {
                    continue;
                }
                let Some(step) = k.step.clone() else { continue };
                let mut p = path.clone();
                p.push(step);
                queue.push_back((p, k.clone()));
            }
        }
        out
    }

    /// The shortest path to the first node that `hit` accepts, breadth first, never through
    /// a cycle.
    pub fn find(&self, hit: impl Fn(&Node) -> bool) -> Option<Path> {
        if !self.root_found() {
            return None;
        }
        if hit(&self.root_node) {
            return Some(Vec::new());
        }
        let mut seen: HashSet<TypePair> = HashSet::from([self.root_node.types.clone()]);
        let mut queue = VecDeque::from([(Vec::new(), self.root_node.clone())]);
        while let Some((path, node)) = queue.pop_front() {
            for k in self.children(&node) {
                let Some(step) = k.step.clone() else { continue };
                let mut p = path.clone();
                p.push(step);
                if hit(k) {
                    return Some(p);
                }
                if k.kind == NodeKind::Method || k.expandable() && seen.insert(k.types.clone()) {
                    queue.push_back((p, k.clone()));
                }
            }
        }
        None
    }

    /// The path of a full name: a type the tree expands into, or a field, value or rpc.
    pub fn path_to(&self, name: &str) -> Option<Path> {
        self.find(|n| {
            n.element == name
                || n.old_element.as_deref() == Some(name)
                || n.types.0.as_deref() == Some(name)
                || n.types.1.as_deref() == Some(name)
        })
    }

    /// The path of the first node a change is attached to.
    pub fn path_of_change(&self, change: usize) -> Option<Path> {
        self.find(|n| n.changes.contains(&change))
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
    pub fn counts(&self) -> ([usize; 4], usize) {
        let mut out = [0; 4];
        let mut ignored = 0;
        for c in &self.changes {
            if c.ignored.is_some() {
                ignored += 1;
            } else {
                out[c.verdict.worst() as usize] += 1;
            }
        }
        (out, ignored)
    }
}
