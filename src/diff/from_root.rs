//! [`pair_from_root`]: the pairing of what is reached from a root (see the module docs of
//! `diff`). A transitive policy in a root's scope pairs hundreds of versions this way, so the
//! walk borrows every name from the two contents and allocates nothing per type or edge.

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::schema::model::{Content, Enum, Extension, Field, Message, Service};

use super::{Pair, Pairing, pair_extension_lists};

/// A declaration found by full name, with the name as its content holds it (one string per
/// declaration: its address names it).
#[derive(Clone, Copy)]
pub(super) struct Node<'a> {
    name: &'a str,
    decl: Decl<'a>,
}

#[derive(Clone, Copy)]
enum Decl<'a> {
    Message(&'a Message),
    Enum(&'a Enum),
    Service(&'a Service),
}

/// What pairs two edges of the two versions: fields by number, extensions by number (apart
/// from fields), RPC edges by method name and direction. Ordered as a declaration lists its
/// edges (see [`edges`]), so that two lists pair in one pass.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum EdgeKey<'a> {
    Field(u32),
    Extension(u32),
    Rpc(&'a str, Dir),
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Dir {
    Input,
    Output,
}

/// The message, enum or service named `name` in `c`.
pub(super) fn node<'a>(c: &'a Content, name: &str) -> Option<Node<'a>> {
    if let Some((k, m)) = c.messages.get_key_value(name) {
        return Some(Node {
            name: k,
            decl: Decl::Message(m),
        });
    }
    if let Some((k, e)) = c.enums.get_key_value(name) {
        return Some(Node {
            name: k,
            decl: Decl::Enum(e),
        });
    }
    c.services.get_key_value(name).map(|(k, s)| Node {
        name: k,
        decl: Decl::Service(s),
    })
}

/// The type a field leads to: a map's value type, else its own type (scalars lead nowhere).
fn field_target(f: &Field) -> Option<&str> {
    match &f.map {
        Some((_, value)) => value.type_name(),
        None => f.ty.type_name(),
    }
}

/// The edges going out of `n`, as `schema::graph::out_edges` lists them (in [`EdgeKey`]
/// order): fields in number order, then the message's extensions in number order, or each
/// method's input and output, methods by name.
fn edges<'a>(c: &'a Content, n: Node<'a>) -> Vec<(EdgeKey<'a>, &'a str)> {
    let mut out = Vec::new();
    match n.decl {
        Decl::Message(m) => {
            for f in m.fields.values() {
                if let Some(t) = field_target(f) {
                    out.push((EdgeKey::Field(f.number), t));
                }
            }
            for e in c.extensions_of(n.name) {
                if let Some(t) = e.field.ty.type_name() {
                    out.push((EdgeKey::Extension(e.field.number), t));
                }
            }
        }
        Decl::Service(s) => {
            for m in s.methods.values() {
                out.push((EdgeKey::Rpc(&m.name, Dir::Input), m.input.as_str()));
                out.push((EdgeKey::Rpc(&m.name, Dir::Output), m.output.as_str()));
            }
        }
        Decl::Enum(_) => {}
    }
    out
}

/// What one version reaches from a root: its declarations numbered in the order first
/// reached (the root first), each with its edges to numbers (None: a name the version does
/// not declare) and its extensions. Worked out once per version, so that pairing two
/// versions is a walk over numbers (a transitive policy pairs each version with hundreds).
pub struct Reach<'a> {
    nodes: Vec<Reached<'a>>,
}

struct Reached<'a> {
    node: Node<'a>,
    edges: Vec<(EdgeKey<'a>, Option<u32>)>,
    extensions: Vec<&'a Extension>,
}

impl<'a> Reach<'a> {
    pub fn of(c: &'a Content, root: &str) -> Reach<'a> {
        let mut nodes: Vec<Reached<'a>> = Vec::new();
        let mut number: HashMap<usize, u32> = HashMap::new();
        let mut add = |n: Node<'a>, nodes: &mut Vec<Reached<'a>>| -> u32 {
            *number.entry(n.name.as_ptr() as usize).or_insert_with(|| {
                nodes.push(Reached {
                    node: n,
                    edges: Vec::new(),
                    extensions: c.extensions_of(n.name).collect(),
                });
                (nodes.len() - 1) as u32
            })
        };
        if let Some(n) = node(c, root) {
            add(n, &mut nodes);
        }
        let mut i = 0;
        while let Some(n) = nodes.get(i).map(|r| r.node) {
            let out: Vec<(EdgeKey<'a>, Option<u32>)> = edges(c, n)
                .into_iter()
                .map(|(key, to)| (key, node(c, to).map(|t| add(t, &mut nodes))))
                .collect();
            if let Some(r) = nodes.get_mut(i) {
                r.edges = out;
            }
            i += 1;
        }
        Reach { nodes }
    }

    /// The names of what is reached (messages, enums and services), in the order first
    /// reached.
    pub fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.nodes.iter().map(|r| r.node.name)
    }

    /// The messages reached, in the order first reached.
    pub fn messages(&self) -> impl Iterator<Item = &'a Message> + '_ {
        self.nodes.iter().filter_map(|r| match r.node.decl {
            Decl::Message(m) => Some(m),
            _ => None,
        })
    }

    /// The enums reached.
    pub fn enums(&self) -> impl Iterator<Item = &'a Enum> + '_ {
        self.nodes.iter().filter_map(|r| match r.node.decl {
            Decl::Enum(e) => Some(e),
            _ => None,
        })
    }

    /// The services reached.
    pub fn services(&self) -> impl Iterator<Item = &'a Service> + '_ {
        self.nodes.iter().filter_map(|r| match r.node.decl {
            Decl::Service(s) => Some(s),
            _ => None,
        })
    }

    /// The files that declare what is reached, and its extensions.
    pub fn files(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.nodes.iter().flat_map(|r| {
            let own = match r.node.decl {
                Decl::Message(m) => m.file.as_str(),
                Decl::Enum(e) => e.file.as_str(),
                Decl::Service(s) => s.file.as_str(),
            };
            std::iter::once(own).chain(r.extensions.iter().map(|x| x.file.as_str()))
        })
    }

    fn get(&self, i: Option<u32>) -> Option<&Reached<'a>> {
        self.nodes.get(i? as usize)
    }

    fn root(&self) -> Option<u32> {
        (!self.nodes.is_empty()).then_some(0)
    }
}

/// Adds the pair of two nodes: as messages when either is one, else as enums, else as
/// services (the other side dropped when it is of another kind).
pub(super) fn push_nodes<'a>(p: &mut Pairing<'a>, a: Option<Node<'a>>, b: Option<Node<'a>>) {
    macro_rules! kind {
        ($variant:ident) => {{
            let pick = |n: Option<Node<'a>>| match n.map(|n| n.decl) {
                Some(Decl::$variant(x)) => Some(x),
                _ => None,
            };
            Pair {
                old: pick(a),
                new: pick(b),
            }
        }};
    }
    let m = kind!(Message);
    if m.old.is_some() || m.new.is_some() {
        // A map entry is compared through its field; but a message changed into or out of
        // a map entry is still a type pair.
        if !(m.old.is_some_and(|x| x.map_entry) && m.new.is_some_and(|x| x.map_entry)) {
            p.messages.push(m);
        }
        return;
    }
    let e = kind!(Enum);
    if e.old.is_some() || e.new.is_some() {
        p.enums.push(e);
        return;
    }
    let s = kind!(Service);
    if s.old.is_some() || s.new.is_some() {
        p.services.push(s);
    }
}

/// Pairs what is reached from `root` in both versions (see the module docs). The root must
/// be a message or service full name in at least one version.
pub fn pair_from_root<'a>(old: &'a Content, new: &'a Content, root: &str) -> Pairing<'a> {
    pair_reached(old, new, root, &Reach::of(old, root), &Reach::of(new, root))
}

/// [`pair_from_root`], with what each version reaches from `root` worked out before.
pub fn pair_reached<'a>(
    old: &'a Content,
    new: &'a Content,
    root: &str,
    ra: &Reach<'a>,
    rb: &Reach<'a>,
) -> Pairing<'a> {
    let mut p = Pairing::rooted(root, old, new);
    let mut seen_pairs = HashSet::new();
    let mut reached_old = vec![false; ra.nodes.len()];
    let mut reached_new = vec![false; rb.nodes.len()];
    let mut queue = VecDeque::new();
    queue.push_back((ra.root(), rb.root()));
    // Types hanging off a field that exists on one side only.
    let mut one_sided_old: Vec<u32> = Vec::new();
    let mut one_sided_new: Vec<u32> = Vec::new();
    // Extension pairs pushed, by (old, new) full name: a message reached through two paths
    // (paired with two types) must not report its extensions twice.
    let mut seen_extensions = HashSet::new();
    let mut push = |p: &mut Pairing<'a>, a: Option<&Reached<'a>>, b: Option<&Reached<'a>>| {
        push_nodes(p, a.map(|r| r.node), b.map(|r| r.node));
        let none: &[&'a Extension] = &[];
        let (xa, xb) = (
            a.map_or(none, |r| &r.extensions),
            b.map_or(none, |r| &r.extensions),
        );
        if !xa.is_empty() || !xb.is_empty() {
            p.extensions.extend(
                pair_extension_lists(xa, xb)
                    .into_iter()
                    .filter(|x| seen_extensions.insert(ext_key(x))),
            );
        }
    };
    while let Some((a, b)) = queue.pop_front() {
        let key = (a.unwrap_or(u32::MAX), b.unwrap_or(u32::MAX));
        if a.is_none() && b.is_none() || !seen_pairs.insert(key) {
            continue;
        }
        let (na, nb) = (ra.get(a), rb.get(b));
        for (reached, i) in [(&mut reached_old, a), (&mut reached_new, b)] {
            if let Some(r) = i.and_then(|i| reached.get_mut(i as usize)) {
                *r = true;
            }
        }
        push(&mut p, na, nb);
        // Both lists in key order, each key at most once: paired in one pass.
        let none: &[(EdgeKey<'a>, Option<u32>)] = &[];
        let (ea, eb) = (na.map_or(none, |r| &r.edges), nb.map_or(none, |r| &r.edges));
        let (mut i, mut j) = (0, 0);
        while i < ea.len() || j < eb.len() {
            match (ea.get(i), eb.get(j)) {
                (Some(&(ka, ta)), Some(&(kb, tb))) if ka == kb => {
                    queue.push_back((ta, tb));
                    i += 1;
                    j += 1;
                }
                (Some(&(ka, ta)), Some(&(kb, _))) if ka < kb => {
                    one_sided_old.extend(ta);
                    i += 1;
                }
                (Some(&(_, ta)), None) => {
                    one_sided_old.extend(ta);
                    i += 1;
                }
                (_, Some(&(_, tb))) => {
                    one_sided_new.extend(tb);
                    j += 1;
                }
                (None, None) => break,
            }
        }
    }
    // Types reached on one side only: added or removed, with what they reach in turn.
    for (reach, start, reached, is_old) in [
        (ra, one_sided_old, &reached_old, true),
        (rb, one_sided_new, &reached_new, false),
    ] {
        let mut stack = start;
        let mut seen = reached.clone();
        while let Some(n) = stack.pop() {
            let Some(r) = reach.get(Some(n)) else {
                continue;
            };
            match seen.get_mut(n as usize) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            let (a, b) = if is_old {
                (Some(r), None)
            } else {
                (None, Some(r))
            };
            push(&mut p, a, b);
            stack.extend(r.edges.iter().filter_map(|&(_, to)| to));
        }
    }
    p
}

/// The full names of a pair of extensions, for de-duplication.
fn ext_key<'a>(x: &Pair<'a, Extension>) -> (Option<&'a str>, Option<&'a str>) {
    (
        x.old.map(|e| e.full_name.as_str()),
        x.new.map(|e| e.full_name.as_str()),
    )
}
