//! Structural equality of two types across versions: the same fields (number, name, json
//! name, type, cardinality, presence, oneof) and, for message-typed fields, recursively the
//! same shape, whatever the types are called. Cycles are assumed equal while being compared.

use std::collections::BTreeSet;

use crate::schema::model::FieldType;
use crate::schema::model::reads::Types;

pub fn same_shape<'a>(old: Types<'a>, a: &'a str, new: Types<'a>, b: &'a str) -> bool {
    Walker {
        old,
        new,
        assumed: BTreeSet::new(),
    }
    .types(a, b)
}

struct Walker<'a> {
    old: Types<'a>,
    new: Types<'a>,
    assumed: BTreeSet<(&'a str, &'a str)>,
}

impl<'a> Walker<'a> {
    fn types(&mut self, a: &'a str, b: &'a str) -> bool {
        if !self.assumed.insert((a, b)) {
            return true;
        }
        match (self.old.message(a), self.new.message(b)) {
            (Some(x), Some(y)) => {
                x.fields.len() == y.fields.len()
                    && x.fields.iter().zip(&y.fields).all(|((na, fa), (nb, fb))| {
                        na == nb
                            && fa.name == fb.name
                            && fa.json_name == fb.json_name
                            && fa.cardinality == fb.cardinality
                            && fa.presence == fb.presence
                            && fa.oneof == fb.oneof
                            && fa.packed == fb.packed
                            && self.field_types(&fa.ty, &fb.ty)
                            && match (&fa.map, &fb.map) {
                                (Some((ka, va)), Some((kb, vb))) => {
                                    ka == kb && self.field_types(va, vb)
                                }
                                (None, None) => true,
                                _ => false,
                            }
                    })
            }
            (None, None) => match (self.old.enumeration(a), self.new.enumeration(b)) {
                (Some(x), Some(y)) => {
                    x.closed == y.closed
                        && x.values.len() == y.values.len()
                        && x.values
                            .iter()
                            .zip(&y.values)
                            .all(|(u, v)| u.name == v.name && u.number == v.number)
                }
                _ => false,
            },
            _ => false,
        }
    }

    fn field_types(&mut self, a: &'a FieldType, b: &'a FieldType) -> bool {
        match (a, b) {
            (FieldType::Scalar(x), FieldType::Scalar(y)) => x == y,
            (FieldType::Message(x), FieldType::Message(y))
            | (FieldType::Group(x), FieldType::Group(y))
            | (FieldType::Enum(x), FieldType::Enum(y)) => self.types(x, y),
            _ => false,
        }
    }
}
