//! The model's serde impls that are not derived: [`FieldType`] tagged in JSON (what people
//! read) and plain in the on-disk cache's binary format (which cannot read a tagged enum
//! back); [`Fields`] read back as the map it is written as.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::model::{Field, FieldType, Fields, Scalar};

/// Read back as it is written, a map by number (the on-disk cache).
impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Fields, D::Error> {
        let map = BTreeMap::<u32, Field>::deserialize(d)?;
        Ok(map.into_iter().collect())
    }
}

/// How [`FieldType`] is written: tagged for people, plain for the cache.
#[derive(Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "name")]
enum Tagged<'a> {
    Scalar(Scalar),
    Message(&'a str),
    Enum(&'a str),
    Group(&'a str),
}

#[derive(Serialize, Deserialize)]
enum Plain {
    Scalar(Scalar),
    Message(String),
    Enum(String),
    Group(String),
}

impl Serialize for FieldType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            match self {
                FieldType::Scalar(x) => Tagged::Scalar(*x),
                FieldType::Message(n) => Tagged::Message(n),
                FieldType::Enum(n) => Tagged::Enum(n),
                FieldType::Group(n) => Tagged::Group(n),
            }
            .serialize(s)
        } else {
            match self.clone() {
                FieldType::Scalar(x) => Plain::Scalar(x),
                FieldType::Message(n) => Plain::Message(n),
                FieldType::Enum(n) => Plain::Enum(n),
                FieldType::Group(n) => Plain::Group(n),
            }
            .serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for FieldType {
    /// The cache's plain form only (nothing reads the model back from JSON).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FieldType, D::Error> {
        Ok(match Plain::deserialize(d)? {
            Plain::Scalar(x) => FieldType::Scalar(x),
            Plain::Message(n) => FieldType::Message(n),
            Plain::Enum(n) => FieldType::Enum(n),
            Plain::Group(n) => FieldType::Group(n),
        })
    }
}
