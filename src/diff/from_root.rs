//! [`pair_from_root`]: the pairing of what is reached from a root (see the module docs of
//! `diff`). A transitive policy in a root's scope pairs hundreds of versions this way, so the
//! walk borrows every name from the two contents and allocates nothing per type or edge.

use std::collections::VecDeque;

use foldhash::{HashSet, HashSetExt};

use crate::schema::model::{Content, Enum, Extension, Field, Message, Service};

use super::{Pair, Pairing, pair_extensions};

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
/// from fields), RPC edges by method name and direction (input true).
#[derive(Clone, Copy)]
enum EdgeKey<'a> {
    Field(u32),
    Extension(u32),
    Rpc(&'a str, bool),
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

/// A name's identity in its content (see [`Node`]); 0 for none.
fn id(n: Option<Node<'_>>) -> usize {
    n.map_or(0, |n| n.name.as_ptr() as usize)
}

/// The type a field leads to: a map's value type, else its own type (scalars lead nowhere).
fn field_target(f: &Field) -> Option<&str> {
    match &f.map {
        Some((_, value)) => value.type_name(),
        None => f.ty.type_name(),
    }
}

/// The edges going out of `n`, as `schema::graph::out_edges` lists them: fields in number
/// order, then the message's extensions in number order, or each method's input and output.
fn edges<'a>(c: &'a Content, n: Node<'a>, out: &mut Vec<(EdgeKey<'a>, &'a str)>) {
    out.clear();
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
                out.push((EdgeKey::Rpc(&m.name, true), &m.input));
                out.push((EdgeKey::Rpc(&m.name, false), &m.output));
            }
        }
        Decl::Enum(_) => {}
    }
}

/// Where the edge of `key` leads from `n` in `c`, if `n` has one.
fn edge<'a>(c: &'a Content, n: Option<Node<'a>>, key: EdgeKey<'_>) -> Option<&'a str> {
    match (n?.decl, key) {
        (Decl::Message(m), EdgeKey::Field(k)) => field_target(m.fields.get(&k)?),
        (Decl::Message(_), EdgeKey::Extension(k)) => {
            c.extensions.get(n?.name)?.get(&k)?.field.ty.type_name()
        }
        (Decl::Service(s), EdgeKey::Rpc(method, input)) => {
            let m = s.methods.get(method)?;
            Some(if input { &m.input } else { &m.output })
        }
        _ => None,
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
    let mut p = Pairing {
        old,
        new,
        root: Some(root.to_string()),
        files: Vec::new(),
        messages: Vec::new(),
        enums: Vec::new(),
        services: Vec::new(),
        extensions: Vec::new(),
    };
    let mut seen_pairs = HashSet::new();
    let mut reached_old = HashSet::new();
    let mut reached_new = HashSet::new();
    let mut queue = VecDeque::new();
    queue.push_back((node(old, root), node(new, root)));
    // Types hanging off a field that exists on one side only.
    let mut one_sided_old: Vec<&'a str> = Vec::new();
    let mut one_sided_new: Vec<&'a str> = Vec::new();
    // Extension pairs pushed, by (old, new) full name: a message reached through two paths
    // (paired with two types) must not report its extensions twice.
    let mut seen_extensions = HashSet::new();
    let mut push_extensions = |p: &mut Pairing<'a>, a: Option<Node<'a>>, b: Option<Node<'a>>| {
        let name = |n: Option<Node<'a>>| n.map(|n| n.name);
        p.extensions.extend(
            pair_extensions(old, name(a), new, name(b), |_, _| true)
                .into_iter()
                .filter(|x| seen_extensions.insert(ext_key(x))),
        );
    };
    let (mut ea, mut eb) = (Vec::new(), Vec::new());
    while let Some((a, b)) = queue.pop_front() {
        if a.is_none() && b.is_none() || !seen_pairs.insert((id(a), id(b))) {
            continue;
        }
        reached_old.extend(a.map(|n| id(Some(n))));
        reached_new.extend(b.map(|n| id(Some(n))));
        push_nodes(&mut p, a, b);
        push_extensions(&mut p, a, b);
        ea.clear();
        eb.clear();
        if let Some(a) = a {
            edges(old, a, &mut ea);
        }
        if let Some(b) = b {
            edges(new, b, &mut eb);
        }
        for &(key, to) in &ea {
            match edge(new, b, key) {
                Some(other) => queue.push_back((node(old, to), node(new, other))),
                None => one_sided_old.push(to),
            }
        }
        for &(key, to) in &eb {
            if edge(old, a, key).is_none() {
                one_sided_new.push(to);
            }
        }
    }
    // Types reached on one side only: added or removed, with what they reach in turn.
    for (content, start, reached, is_old) in [
        (old, one_sided_old, &reached_old, true),
        (new, one_sided_new, &reached_new, false),
    ] {
        let mut stack = start;
        let mut seen = reached.clone();
        let mut out = Vec::new();
        while let Some(n) = stack.pop() {
            let Some(n) = node(content, n) else { continue };
            if !seen.insert(id(Some(n))) {
                continue;
            }
            let (a, b) = if is_old { (Some(n), None) } else { (None, Some(n)) };
            push_nodes(&mut p, a, b);
            push_extensions(&mut p, a, b);
            edges(content, n, &mut out);
            stack.extend(out.iter().map(|&(_, to)| to));
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
