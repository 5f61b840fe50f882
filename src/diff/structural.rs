//! Structural equality of two types across versions: the same fields (number, name, json
//! name, type, cardinality, presence, oneof) and, for message-typed fields, recursively the
//! same shape, whatever the types are called. Cycles are assumed equal while being compared.

use std::collections::BTreeSet;

use crate::schema::model::{Content, FieldType};

pub fn same_shape(old: &Content, a: &str, new: &Content, b: &str) -> bool {
    Walker {
        old,
        new,
        assumed: BTreeSet::new(),
    }
    .types(a, b)
}

struct Walker<'a> {
    old: &'a Content,
    new: &'a Content,
    assumed: BTreeSet<(String, String)>,
}

impl Walker<'_> {
    fn types(&mut self, a: &str, b: &str) -> bool {
        if !self.assumed.insert((a.to_string(), b.to_string())) {
            return true;
        }
        match (self.old.messages.get(a), self.new.messages.get(b)) {
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
            (None, None) => match (self.old.enums.get(a), self.new.enums.get(b)) {
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

    fn field_types(&mut self, a: &FieldType, b: &FieldType) -> bool {
        match (a, b) {
            (FieldType::Scalar(x), FieldType::Scalar(y)) => x == y,
            (FieldType::Message(x), FieldType::Message(y))
            | (FieldType::Group(x), FieldType::Group(y))
            | (FieldType::Enum(x), FieldType::Enum(y)) => {
                let (x, y) = (x.clone(), y.clone());
                self.types(&x, &y)
            }
            _ => false,
        }
    }
}
