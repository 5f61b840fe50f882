//! A message's fields: a sorted vector read like a map.

use serde::Serialize;

use super::Field;

/// A message's fields by number, in number order: a sorted vector with the reading side of a
/// `BTreeMap` (`get`, `contains_key`, `keys`, `values`, `iter`, `[&n]`) and the same JSON. A
/// map's node keeps room for eleven fields (about 2.5 KB) however few the message has: most
/// messages have a handful, and a 10 MB `.proto` of small messages held a gigabyte of empty
/// slots.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Fields(Vec<(u32, Field)>);

impl Fields {
    fn find(&self, number: u32) -> Result<usize, usize> {
        self.0.binary_search_by_key(&number, |(n, _)| *n)
    }

    pub fn get(&self, number: &u32) -> Option<&Field> {
        let i = self.find(*number).ok()?;
        self.0.get(i).map(|(_, f)| f)
    }

    pub fn contains_key(&self, number: &u32) -> bool {
        self.find(*number).is_ok()
    }

    /// Adds or replaces the field with this number; returns the one replaced.
    pub fn insert(&mut self, number: u32, field: Field) -> Option<Field> {
        match self.find(number) {
            Ok(i) => self
                .0
                .get_mut(i)
                .map(|slot| std::mem::replace(&mut slot.1, field)),
            Err(i) => {
                self.0.insert(i, (number, field));
                None
            }
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &u32> + ExactSizeIterator + Clone {
        self.0.iter().map(|(n, _)| n)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Field> + ExactSizeIterator + Clone {
        self.0.iter().map(|(_, f)| f)
    }

    pub fn iter(&self) -> FieldsIter<'_> {
        self.0.iter().map(|(n, f)| (n, f))
    }
}

/// `(number, field)` in number order.
pub type FieldsIter<'a> =
    std::iter::Map<std::slice::Iter<'a, (u32, Field)>, fn(&(u32, Field)) -> (&u32, &Field)>;

impl<'a> IntoIterator for &'a Fields {
    type Item = (&'a u32, &'a Field);
    type IntoIter = FieldsIter<'a>;
    fn into_iter(self) -> FieldsIter<'a> {
        self.iter()
    }
}

impl std::ops::Index<&u32> for Fields {
    type Output = Field;
    /// Panics when there is no such field, as a map does: for tests.
    #[allow(clippy::panic)]
    fn index(&self, number: &u32) -> &Field {
        match self.get(number) {
            Some(f) => f,
            None => panic!("no field {number}"),
        }
    }
}

impl FromIterator<(u32, Field)> for Fields {
    /// Sorted by number; of two fields with one number, the last is kept, as in a map. One
    /// sort, not an insertion per field: 100,000 fields declared in descending order would
    /// move the vector's tail 100,000 times.
    fn from_iter<I: IntoIterator<Item = (u32, Field)>>(iter: I) -> Fields {
        let mut all: Vec<(u32, Field)> = iter.into_iter().collect();
        // Stable: fields with one number stay in the order given, the last one last.
        all.sort_by_key(|(n, _)| *n);
        let mut out: Vec<(u32, Field)> = Vec::with_capacity(all.len());
        for (n, f) in all {
            match out.last_mut() {
                Some(last) if last.0 == n => last.1 = f,
                _ => out.push((n, f)),
            }
        }
        out.shrink_to_fit();
        Fields(out)
    }
}

impl std::fmt::Debug for Fields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Fields {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::Fields;
    use crate::schema::model::{Cardinality, Field, FieldType, Options, Presence, Scalar};

    fn field(number: u32, name: &str) -> Field {
        Field {
            number,
            name: name.into(),
            json_name: name.into(),
            ty: FieldType::Scalar(Scalar::Int32),
            cardinality: Cardinality::Optional,
            map: None,
            presence: Presence::Implicit,
            oneof: None,
            proto3_optional: false,
            default: None,
            packed: false,
            utf8_verified: false,
            deprecated: false,
            options: Options::new(),
        }
    }

    /// Fields reads as the map it replaced: in number order, the last of one number kept,
    /// and the same JSON.
    #[test]
    fn fields_read_and_serialize_as_a_map() {
        let input = [(3, field(3, "c")), (1, field(1, "a")), (3, field(3, "z"))];
        let fields: Fields = input.iter().cloned().collect();
        let map: BTreeMap<u32, Field> = input.iter().cloned().collect();
        assert_eq!(fields.keys().copied().collect::<Vec<_>>(), [1, 3]);
        assert_eq!(fields.get(&3).map(|f| f.name.as_str()), Some("z"));
        assert!(fields.contains_key(&1) && !fields.contains_key(&2));
        assert_eq!(fields.len(), map.len());
        assert!(fields.iter().eq(map.iter()));
        assert_eq!(
            serde_json::to_string(&fields).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
    }
}
