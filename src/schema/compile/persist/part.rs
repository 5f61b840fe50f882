//! A file's part of a compiled set's model: cut out of a compiled set, and checked for
//! clashes when parts of files compiled apart are put together.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::super::super::model::{Content, Enum, Extension, File, FileDocs, Message, Service};
use super::super::Compiled;

/// A file's part of a compiled set's model.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Part {
    pub(super) file: File,
    pub(super) messages: Vec<Arc<Message>>,
    pub(super) enums: Vec<Arc<Enum>>,
    pub(super) services: Vec<Arc<Service>>,
    pub(super) extensions: Vec<Arc<Extension>>,
    pub(super) docs: Option<Arc<FileDocs>>,
    pub(super) digest: [u8; 32],
}

/// A file's part as it is written: borrowed from a compiled set, serialized exactly as
/// [`Part`] is read (no copy of the model is made to store it).
#[derive(Serialize)]
pub(super) struct PartRef<'a> {
    file: &'a File,
    messages: Vec<&'a Message>,
    enums: Vec<&'a Enum>,
    services: Vec<&'a Service>,
    extensions: Vec<&'a Extension>,
    docs: Option<&'a Arc<FileDocs>>,
    digest: [u8; 32],
}

/// A compiled set's model, cut into the parts of its files.
pub(super) fn split<'a>(
    compiled: &'a Compiled,
    digests: &HashMap<String, [u8; 32]>,
) -> HashMap<&'a str, PartRef<'a>> {
    let schema = &compiled.schema;
    let c: &Content = &schema.content;
    let mut parts: HashMap<&str, PartRef<'_>> = c
        .files
        .iter()
        .map(|(name, file)| {
            let part = PartRef {
                file,
                messages: Vec::new(),
                enums: Vec::new(),
                services: Vec::new(),
                extensions: Vec::new(),
                docs: schema.docs.get(name),
                digest: digests.get(name).copied().unwrap_or_default(),
            };
            (name.as_str(), part)
        })
        .collect();
    for m in c.messages.values() {
        if let Some(p) = parts.get_mut(m.file.as_str()) {
            p.messages.push(m);
        }
    }
    for e in c.enums.values() {
        if let Some(p) = parts.get_mut(e.file.as_str()) {
            p.enums.push(e);
        }
    }
    for s in c.services.values() {
        if let Some(p) = parts.get_mut(s.file.as_str()) {
            p.services.push(s);
        }
    }
    for x in c.all_extensions() {
        if let Some(p) = parts.get_mut(x.file.as_str()) {
            p.extensions.push(x);
        }
    }
    parts
}

/// Whether files that compiled apart would clash in one pool: a name declared by two files
/// (or declared by one and a package of another), or two extensions of one message with
/// one number. Names that only nest inside a declaration cannot clash between files.
pub(super) fn conflicts<'a>(parts: impl Iterator<Item = &'a Part>) -> bool {
    let mut packages: HashSet<&str> = HashSet::new();
    let mut symbols: HashSet<String> = HashSet::new();
    let mut numbers: HashSet<(&str, u32)> = HashSet::new();
    let mut clash = false;
    for part in parts {
        let package = part.file.package.as_str();
        let mut prefix = package;
        while !prefix.is_empty() {
            packages.insert(prefix);
            prefix = prefix.rsplit_once('.').map_or("", |(p, _)| p);
        }
        let scoped = |name: &str| match package {
            "" => name.to_string(),
            p => format!("{p}.{name}"),
        };
        let top = part
            .messages
            .iter()
            .filter(|m| m.parent.is_none())
            .map(|m| m.full_name.clone())
            .chain(
                part.enums
                    .iter()
                    .filter(|e| e.parent.is_none())
                    .flat_map(|e| {
                        std::iter::once(e.full_name.clone())
                            .chain(e.values.iter().map(|v| scoped(&v.name)))
                    }),
            )
            .chain(part.services.iter().map(|s| s.full_name.clone()))
            .chain(
                part.extensions
                    .iter()
                    .filter(|x| x.scope.is_none())
                    .map(|x| x.full_name.clone()),
            );
        for name in top {
            clash |= !symbols.insert(name);
        }
        for x in &part.extensions {
            clash |= !numbers.insert((x.extendee.as_str(), x.field.number));
        }
    }
    clash || symbols.iter().any(|s| packages.contains(s.as_str()))
}

#[cfg(test)]
mod tests {
    use super::super::super::SourceRef;
    use super::*;
    use crate::origin::Origin;

    #[test]
    fn a_part_reads_back_as_it_was_written() {
        let text = "syntax = \"proto2\";\npackage p;\nimport \"google/protobuf/descriptor.proto\";\n\
            extend google.protobuf.FieldOptions { optional string tag = 50000; }\n\
            message M { optional int32 a = 1 [default = 3, (tag) = \"x\"]; map<string, M> m = 2;\n\
            oneof o { string s = 3; } enum E { X = 0; } optional group G = 4 { optional int32 b = 5; } }\n\
            service S { rpc Call(M) returns (stream M); }\n";
        let mut cache = super::super::super::Cache::new();
        let (compiled, extra) = cache
            .compile_jobs(&[vec![SourceRef {
                path: "p.proto",
                blob: "b1",
                text: Ok(text),
                origin: Origin::Root,
            }]])
            .pop()
            .unwrap()
            .unwrap();
        assert!(
            compiled.diagnostics.is_empty(),
            "{:?}",
            compiled.diagnostics
        );
        for (name, part) in split(&compiled, &extra.digests) {
            let bytes = postcard::to_allocvec(&part).unwrap();
            let back: Part = postcard::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(&back.file, part.file, "{name}");
            // What was read (shared declarations) equals what was written (borrowed ones).
            fn same<T: PartialEq>(read: &[Arc<T>], written: &[&T]) -> bool {
                read.iter().map(Arc::as_ref).eq(written.iter().copied())
            }
            assert!(same(&back.messages, &part.messages), "{name}");
            assert!(same(&back.enums, &part.enums), "{name}");
            assert!(same(&back.services, &part.services), "{name}");
            assert!(
                back.extensions
                    .iter()
                    .map(|x| &**x)
                    .eq(part.extensions.iter().copied()),
                "{name}"
            );
            assert_eq!(back.docs.as_ref(), part.docs, "{name}");
            assert_eq!(back.digest, part.digest, "{name}");
        }
    }
}
