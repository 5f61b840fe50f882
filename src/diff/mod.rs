//! Diff: pair the declarations of two versions, old and new. Judges nothing: the rules do.
//!
//! Declarations are paired by full name, fields and enum values by number, methods by
//! name, extensions by extended message and number (an extension that kept its full name
//! under a new number, by name). Two scopes: the whole schema, or what is *reached from a
//! root*: start at the root (message or service), follow only fields, extensions of reached
//! messages (and RPC input/output types) whose number exists in both versions, and pair the
//! types found at the two ends of each such field even when their names differ (a renamed
//! or moved type is then compared structurally; its extensions are paired by number). Types
//! reached on one side only are paired with nothing (added or removed), and so are their
//! extensions. Cycles terminate.
//!
//! May import: `schema`.

mod from_root;
pub mod members;
mod structural;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

use foldhash::fast::FixedState;

use crate::schema::model::reads::Types;
use crate::schema::model::{Content, Enum, Extension, File, Message, Service};

pub use from_root::{Reach, pair_from_root, pair_reached};
pub use structural::same_shape;
use structural::{same_enums, same_messages};

use from_root::{node, push_nodes};

/// Two sides of one declaration; at least one is present.
#[derive(Debug)]
pub struct Pair<'a, T> {
    pub old: Option<&'a T>,
    pub new: Option<&'a T>,
}

// Two references: copyable whatever `T` is (a derive would ask `T: Copy`).
impl<T> Clone for Pair<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Pair<'_, T> {}

/// Everything paired between two versions.
#[derive(Debug, Clone)]
pub struct Pairing<'a> {
    pub old: &'a Content,
    pub new: &'a Content,
    /// The root, when the scope is "reached from a root".
    pub root: Option<String>,
    pub files: Vec<Pair<'a, File>>,
    pub messages: Vec<Pair<'a, Message>>,
    pub enums: Vec<Pair<'a, Enum>>,
    pub services: Vec<Pair<'a, Service>>,
    /// Extensions, by extended message and number.
    pub extensions: Vec<Pair<'a, Extension>>,
}

impl<'a> Pairing<'a> {
    /// Nothing paired yet, in the scope of what `root` reaches.
    fn rooted(root: &str, old: &'a Content, new: &'a Content) -> Pairing<'a> {
        Pairing {
            old,
            new,
            root: Some(root.to_string()),
            files: Vec::new(),
            messages: Vec::new(),
            enums: Vec::new(),
            services: Vec::new(),
            extensions: Vec::new(),
        }
    }
}

fn own_file(c: &Content, file: &str) -> bool {
    c.files.get(file).is_some_and(|f| !f.external)
}

/// A schema's own declarations (the repository's, map entries apart) in name order, listed
/// once for the many pairings a history makes of it (see [`pair_indexed`]).
pub struct Index<'a> {
    content: &'a Content,
    files: Vec<(&'a str, &'a File)>,
    messages: Vec<(&'a str, &'a Message)>,
    enums: Vec<(&'a str, &'a Enum)>,
    services: Vec<(&'a str, &'a Service)>,
    /// Own extensions by extended message, each in number order.
    extensions: Vec<(&'a str, Vec<&'a Extension>)>,
    /// Each own message's and enum's [shape key](ShapeKeys), worked out the first time a
    /// pairing with removed and added types needs them: once per schema, where a transitive
    /// policy pairs each schema with every other.
    shape_keys: OnceLock<ShapeKeys>,
}

/// What a renamed type keeps: its field (or value) numbers and names, hashed. Equal keys
/// are necessary for the same shape (`same_messages` and `same_enums` decide), so only
/// types of equal keys are compared. One schema's, by the declaration's address.
struct ShapeKeys {
    messages: HashMap<usize, u64, FixedState>,
    enums: HashMap<usize, u64, FixedState>,
}

fn address<T>(x: &T) -> usize {
    std::ptr::from_ref(x) as usize
}

fn message_shape(m: &Message) -> u64 {
    shape_hash(
        m.fields
            .iter()
            .map(|(n, f)| (i64::from(*n), f.name.as_str())),
    )
}

fn enum_shape(e: &Enum) -> u64 {
    shape_hash(
        e.values
            .iter()
            .map(|v| (i64::from(v.number), v.name.as_str())),
    )
}

fn shape_hash<'s>(items: impl Iterator<Item = (i64, &'s str)>) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = FixedState::default().build_hasher();
    for item in items {
        item.hash(&mut h);
    }
    h.finish()
}

impl<'a> Index<'a> {
    pub fn of(c: &'a Content) -> Index<'a> {
        // Declarations in name order come a file at a time: the last file's answer is kept.
        let mut last: Option<(&str, bool)> = None;
        let mut own = |file: &'a str| match last {
            Some((f, own)) if f == file => own,
            _ => {
                let own = own_file(c, file);
                last = Some((file, own));
                own
            }
        };
        /// The declarations of `map` that `keep` accepts, in name order.
        fn listed<'a, T, V: std::borrow::Borrow<T>>(
            map: &'a BTreeMap<String, V>,
            mut keep: impl FnMut(&'a T) -> bool,
        ) -> Vec<(&'a str, &'a T)> {
            map.iter()
                .map(|(k, v)| (k.as_str(), v.borrow()))
                .filter(|(_, v)| keep(v))
                .collect()
        }
        let files = listed(&c.files, |f: &'a File| !f.external);
        let messages = listed(&c.messages, |m: &'a Message| !m.map_entry && own(&m.file));
        let enums = listed(&c.enums, |e: &'a Enum| own(&e.file));
        let services = listed(&c.services, |s: &'a Service| own(&s.file));
        let extensions = c
            .extensions
            .iter()
            .map(|(k, xs)| {
                let own: Vec<&Extension> =
                    xs.values().map(|x| &**x).filter(|x| own(&x.file)).collect();
                (k.as_str(), own)
            })
            .filter(|(_, xs)| !xs.is_empty())
            .collect();
        Index {
            content: c,
            files,
            messages,
            enums,
            services,
            extensions,
            shape_keys: OnceLock::new(),
        }
    }

    fn shape_keys(&self) -> &ShapeKeys {
        self.shape_keys.get_or_init(|| ShapeKeys {
            messages: self
                .messages
                .iter()
                .map(|(_, m)| (address(*m), message_shape(m)))
                .collect(),
            enums: self
                .enums
                .iter()
                .map(|(_, e)| (address(*e), enum_shape(e)))
                .collect(),
        })
    }

    /// The shape key of one of this schema's own messages.
    fn message_key(&self, m: &Message) -> u64 {
        let known = self.shape_keys().messages.get(&address(m));
        known.copied().unwrap_or_else(|| message_shape(m))
    }

    /// The shape key of one of this schema's own enums.
    fn enum_key(&self, e: &Enum) -> u64 {
        let known = self.shape_keys().enums.get(&address(e));
        known.copied().unwrap_or_else(|| enum_shape(e))
    }

    /// The own extensions of `extendee`, in number order.
    fn extensions_of(&self, extendee: &str) -> &[&'a Extension] {
        match self
            .extensions
            .binary_search_by(|(k, _)| (*k).cmp(extendee))
        {
            Ok(i) => &self.extensions[i].1,
            Err(_) => &[],
        }
    }
}

/// Two lists in name order, walked side by side: `each` gets each name's entries (one side
/// or both), with one comparison of names per step and none where `same` says both sides
/// hold one entry.
fn merge<'s, 'n, V>(
    xs: &'s [(&'n str, V)],
    ys: &'s [(&'n str, V)],
    same: impl Fn(&V, &V) -> bool,
    mut each: impl FnMut(Option<&'s (&'n str, V)>, Option<&'s (&'n str, V)>),
) {
    use std::cmp::Ordering;
    let (mut i, mut j) = (0, 0);
    loop {
        let order = match (xs.get(i), ys.get(j)) {
            (Some((_, x)), Some((_, y))) if same(x, y) => Ordering::Equal,
            (Some((x, _)), Some((y, _))) => x.cmp(y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        let (old, new) = match order {
            Ordering::Less => (xs.get(i), None),
            Ordering::Greater => (None, ys.get(j)),
            Ordering::Equal => (xs.get(i), ys.get(j)),
        };
        i += usize::from(old.is_some());
        j += usize::from(new.is_some());
        each(old, new);
    }
}

/// Declarations paired by name ([`merge`]; a declaration both share is one name).
fn by_name<'a, T>(xs: &[(&'a str, &'a T)], ys: &[(&'a str, &'a T)]) -> Vec<Pair<'a, T>> {
    let mut out = Vec::with_capacity(xs.len().max(ys.len()));
    let same = |x: &&T, y: &&T| std::ptr::eq(*x, *y);
    merge(xs, ys, same, |old, new| {
        out.push(Pair {
            old: old.map(|(_, v)| *v),
            new: new.map(|(_, v)| *v),
        });
    });
    out
}

/// Pairs by full name over the repository's own declarations (map entries are compared
/// through their map fields), then pairs a removed and an added type of the same shape as
/// one renamed type.
pub fn pair_whole<'a>(old: &'a Content, new: &'a Content) -> Pairing<'a> {
    pair_indexed(&Index::of(old), &Index::of(new))
}

/// [`pair_whole`] of two schemas listed before.
pub fn pair_indexed<'a>(a: &Index<'a>, b: &Index<'a>) -> Pairing<'a> {
    let (old, new) = (a.content, b.content);
    let files = by_name(&a.files, &b.files);
    let mut messages = by_name(&a.messages, &b.messages);
    let mut enums = by_name(&a.enums, &b.enums);
    let services = by_name(&a.services, &b.services);
    let renamed = join_renames(
        &mut messages,
        (|m| a.message_key(m), |m| b.message_key(m)),
        |x, y| same_messages(Types::of(old), x, Types::of(new), y),
    );
    join_renames(
        &mut enums,
        (|e| a.enum_key(e), |e| b.enum_key(e)),
        same_enums,
    );
    // Extensions of a message paired with another (renamed) pair by number across the two
    // names; the others (extended messages outside the repository, or on one side) by name.
    let mut extensions = Vec::new();
    let (mut done_old, mut done_new) = (BTreeSet::new(), BTreeSet::new());
    for (x, y) in renamed {
        let (x, y) = (x.full_name.as_str(), y.full_name.as_str());
        if old.extensions.contains_key(x) || new.extensions.contains_key(y) {
            let (xs, ys) = (a.extensions_of(x), b.extensions_of(y));
            extensions.extend(pair_extension_lists(xs, ys));
            done_old.insert(x);
            done_new.insert(y);
        }
    }
    // The other extendees by name (the lists are each version's own: never one).
    merge(
        &a.extensions,
        &b.extensions,
        |_, _| false,
        |x, y| {
            let x = x.filter(|(k, _)| !done_old.contains(k));
            let y = y.filter(|(k, _)| !done_new.contains(k));
            let (x, y) = (x.map_or(&[][..], |(_, v)| v), y.map_or(&[][..], |(_, v)| v));
            if !x.is_empty() || !y.is_empty() {
                extensions.extend(pair_extension_lists(x, y));
            }
        },
    );
    Pairing {
        old,
        new,
        root: None,
        files,
        messages,
        enums,
        services,
        extensions,
    }
}

/// The extensions of `a` (old) and of `b` (new) that `keep` accepts, paired by number; then
/// a removed and an added one with the same full name as one renumbered extension.
fn pair_extensions<'a>(
    old: &'a Content,
    a: Option<&str>,
    new: &'a Content,
    b: Option<&str>,
    keep: impl Fn(&Content, &Extension) -> bool,
) -> Vec<Pair<'a, Extension>> {
    // In number order; `keep` asked once per run of extensions from one file.
    let side = |c: &'a Content, x: Option<&str>| -> Vec<&'a Extension> {
        let mut out = Vec::new();
        let mut last: Option<(&str, bool)> = None;
        for e in x.into_iter().flat_map(|x| c.extensions_of(x)) {
            let kept = match last {
                Some((file, kept)) if file == e.file => kept,
                _ => keep(c, e),
            };
            last = Some((&e.file, kept));
            if kept {
                out.push(e);
            }
        }
        out
    };
    let (xa, xb) = (side(old, a), side(new, b));
    pair_extension_lists(&xa, &xb)
}

/// Two lists of extensions in number order, paired by number; then a removed and an added
/// one with the same full name as one renumbered extension.
fn pair_extension_lists<'a>(
    xa: &[&'a Extension],
    xb: &[&'a Extension],
) -> Vec<Pair<'a, Extension>> {
    let mut pairs = Vec::with_capacity(xa.len().max(xb.len()));
    let (mut i, mut j) = (0, 0);
    while i < xa.len() || j < xb.len() {
        let (ea, eb) = (xa.get(i).copied(), xb.get(j).copied());
        let pair = match (ea, eb) {
            (Some(x), Some(y)) if x.field.number == y.field.number => Pair {
                old: Some(x),
                new: Some(y),
            },
            (Some(x), Some(y)) if x.field.number < y.field.number => Pair {
                old: Some(x),
                new: None,
            },
            (Some(x), None) => Pair {
                old: Some(x),
                new: None,
            },
            _ => Pair { old: None, new: eb },
        };
        i += usize::from(pair.old.is_some());
        j += usize::from(pair.new.is_some());
        pairs.push(pair);
    }
    if pairs.iter().any(|p| p.new.is_none()) && pairs.iter().any(|p| p.old.is_none()) {
        let name = |x: &'a Extension| x.full_name.as_str();
        join_renames(&mut pairs, (name, name), |_, _| true);
    }
    pairs
}

/// Replaces a removed `a` and an added `b` with `same(a, b)` by one pair, each `a` at most
/// once, in name order. Only declarations with equal keys (a necessary condition for
/// `same`; `keys`: of the old side's, of the new side's) are compared, so that histories
/// with hundreds of removals stay fast. Returns the pairs it joined.
fn join_renames<'a, T, K: Ord>(
    pairs: &mut Vec<Pair<'a, T>>,
    keys: (impl Fn(&'a T) -> K, impl Fn(&'a T) -> K),
    same: impl Fn(&T, &T) -> bool,
) -> Vec<(&'a T, &'a T)> {
    let (old_key, new_key) = keys;
    let removed: Vec<usize> = (0..pairs.len())
        .filter(|&i| pairs[i].new.is_none())
        .collect();
    if removed.is_empty() || pairs.iter().all(|p| p.old.is_some()) {
        return Vec::new();
    }
    let mut added: BTreeMap<K, Vec<usize>> = BTreeMap::new();
    for i in (0..pairs.len()).filter(|&i| pairs[i].old.is_none()) {
        if let Some(new) = pairs[i].new {
            added.entry(new_key(new)).or_default().push(i);
        }
    }
    let mut drop = BTreeSet::new();
    let mut joined = Vec::new();
    for r in removed {
        let Some(old) = pairs[r].old else { continue };
        let Some(candidates) = added.get_mut(&old_key(old)) else {
            continue;
        };
        if let Some(pos) = candidates
            .iter()
            .position(|&a| pairs[a].new.is_some_and(|new| same(old, new)))
        {
            let a = candidates.remove(pos);
            pairs[r].new = pairs[a].new;
            joined.extend(pairs[a].new.map(|new| (old, new)));
            drop.insert(a);
        }
    }
    let mut i = 0;
    pairs.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
    joined
}

/// Pairs one message, enum or service by full name (no renames, nothing it reaches), and the
/// extensions of that message: the pairing of a single declaration's own changes, for its
/// lifecycle.
pub fn pair_one<'a>(old: &'a Content, new: &'a Content, name: &str) -> Pairing<'a> {
    let mut p = Pairing::rooted(name, old, new);
    push_nodes(&mut p, node(old, name), node(new, name));
    p.extensions = pair_extensions(old, Some(name), new, Some(name), |_, _| true);
    p
}
