//! Structural equality of two types across versions: the same fields (number, name, json
//! name, type, cardinality, presence, oneof) and, for message-typed fields, recursively the
//! same shape, whatever the types are called. Cycles are assumed equal while being compared.

use std::collections::BTreeSet;

use crate::schema::model::reads::Types;
use crate::schema::model::{Enum, FieldType, Message};

pub fn same_shape<'a>(old: Types<'a>, a: &'a str, new: Types<'a>, b: &'a str) -> bool {
    Walker::new(old, new).types(a, b)
}

/// [`same_shape`] of two messages at hand (no look-up of their names).
pub fn same_messages<'a>(old: Types<'a>, x: &'a Message, new: Types<'a>, y: &'a Message) -> bool {
    let mut w = Walker::new(old, new);
    w.assumed.insert((&x.full_name, &y.full_name));
    w.messages(x, y)
}

/// [`same_shape`] of two enums at hand.
pub fn same_enums(x: &Enum, y: &Enum) -> bool {
    x.closed == y.closed
        && x.values.len() == y.values.len()
        && x.values
            .iter()
            .zip(&y.values)
            .all(|(u, v)| u.name == v.name && u.number == v.number)
}

struct Walker<'a> {
    old: Types<'a>,
    new: Types<'a>,
    assumed: BTreeSet<(&'a str, &'a str)>,
}

impl<'a> Walker<'a> {
    fn new(old: Types<'a>, new: Types<'a>) -> Self {
        Walker {
            old,
            new,
            assumed: BTreeSet::new(),
        }
    }

    fn types(&mut self, a: &'a str, b: &'a str) -> bool {
        if !self.assumed.insert((a, b)) {
            return true;
        }
        match (self.old.message(a), self.new.message(b)) {
            (Some(x), Some(y)) => self.messages(x, y),
            (None, None) => match (self.old.enumeration(a), self.new.enumeration(b)) {
                (Some(x), Some(y)) => same_enums(x, y),
                _ => false,
            },
            _ => false,
        }
    }

    /// Every field alike in what needs no look-up first, so that most differences are
    /// found without one; then the types the fields name.
    fn messages(&mut self, x: &'a Message, y: &'a Message) -> bool {
        let kind = |a, b| !matches!(kinds(a, b), Kinds::Differ);
        let pairs = || x.fields.iter().zip(&y.fields);
        x.fields.len() == y.fields.len()
            && pairs().all(|((na, fa), (nb, fb))| {
                na == nb
                    && fa.name == fb.name
                    && fa.json_name == fb.json_name
                    && fa.cardinality == fb.cardinality
                    && fa.presence == fb.presence
                    && fa.oneof == fb.oneof
                    && fa.packed == fb.packed
                    && kind(&fa.ty, &fb.ty)
                    && match (&fa.map, &fb.map) {
                        (Some((ka, va)), Some((kb, vb))) => ka == kb && kind(va, vb),
                        (None, None) => true,
                        _ => false,
                    }
            })
            && pairs().all(|((_, fa), (_, fb))| {
                self.field_types(&fa.ty, &fb.ty)
                    && match (&fa.map, &fb.map) {
                        (Some((_, va)), Some((_, vb))) => self.field_types(va, vb),
                        _ => true,
                    }
            })
    }

    fn field_types(&mut self, a: &'a FieldType, b: &'a FieldType) -> bool {
        match kinds(a, b) {
            Kinds::Named(x, y) => self.types(x, y),
            Kinds::Same => true,
            Kinds::Differ => false,
        }
    }
}

/// Two field types before any look-up.
enum Kinds<'t> {
    /// Of other kinds, or two other scalars.
    Differ,
    /// One scalar.
    Same,
    /// Two messages, groups or enums: their names, to compare.
    Named(&'t str, &'t str),
}

fn kinds<'t>(a: &'t FieldType, b: &'t FieldType) -> Kinds<'t> {
    match (a, b) {
        (FieldType::Scalar(x), FieldType::Scalar(y)) if x == y => Kinds::Same,
        (FieldType::Message(x), FieldType::Message(y))
        | (FieldType::Group(x), FieldType::Group(y))
        | (FieldType::Enum(x), FieldType::Enum(y)) => Kinds::Named(x, y),
        _ => Kinds::Differ,
    }
}

#[cfg(test)]
mod tests {
    use crate::diff::pair_whole;
    use crate::schema::Content;

    fn content(package: &str, b: &str) -> Content {
        let text = format!(
            "syntax = \"proto3\"; package {package};\n\
             message A {{ B b = 1; repeated C c = 2; map<string, B> m = 3; E e = 4; }}\n\
             message B {{ {b} x = 1; }}\n\
             message C {{ string s = 1; A back = 2; }}\n\
             enum E {{ E_ZERO = 0; E_ONE = 1; }}\n"
        );
        let out = crate::schema::Cache::new().compile(&[crate::schema::SourceRef {
            path: "t.proto",
            blob: &text,
            text: Ok(&text),
            origin: crate::origin::Origin::Root,
        }]);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        out.schema.content.clone()
    }

    /// The types paired under another name, as "old -> new".
    fn renamed(old: &Content, new: &Content) -> Vec<String> {
        let p = pair_whole(old, new);
        let names = |o: &str, n: &str| (o != n).then(|| format!("{o} -> {n}"));
        let messages = p.messages.iter().filter_map(|x| match (x.old, x.new) {
            (Some(o), Some(n)) => names(&o.full_name, &n.full_name),
            _ => None,
        });
        let enums = p.enums.iter().filter_map(|x| match (x.old, x.new) {
            (Some(o), Some(n)) => names(&o.full_name, &n.full_name),
            _ => None,
        });
        messages.chain(enums).collect()
    }

    /// A package renamed: each type is paired with its namesake of the same shape, through
    /// message, map, repeated, enum and cyclic fields; a nested type that changed keeps
    /// those that hold it apart.
    #[test]
    fn renamed_types_pair_by_shape_through_the_types_they_hold() {
        let old = content("p", "int32");
        assert_eq!(
            renamed(&old, &content("q", "int32")),
            ["p.A -> q.A", "p.B -> q.B", "p.C -> q.C", "p.E -> q.E"]
        );
        // B's field changed type: B and A (which holds B) and C (which holds A) are new.
        assert_eq!(renamed(&old, &content("q", "int64")), ["p.E -> q.E"]);
    }
}
