//! What a root reaches in one version, as the judge reads it: the types and services found by
//! following fields, map values, extensions of reached messages and RPC types from the root
//! (the walk of `diff::pair_from_root`), the entry messages of reached map fields, the
//! extensions of reached messages and the files that declare all of them. Two versions whose
//! closures are equal (and whose failed files among those files are the same) judge the same
//! way against any third in that root's scope: the [`super::Comparer`] compares such
//! versions once.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::schema::graph::out_edges;
use crate::schema::model::{Content, Enum, Extension, File, Message, Service};

/// Everything of one version that a comparison from `root` reads (compared by value).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Closure<'a> {
    messages: BTreeMap<&'a str, &'a Message>,
    enums: BTreeMap<&'a str, &'a Enum>,
    services: BTreeMap<&'a str, &'a Service>,
    extensions: BTreeMap<&'a str, &'a BTreeMap<u32, std::sync::Arc<Extension>>>,
    files: BTreeMap<&'a str, Option<&'a File>>,
}

impl<'a> Closure<'a> {
    /// The closure of `root` in `content` (each name visited once: bounded by the schema).
    pub(super) fn of(content: &'a Content, root: &str) -> Closure<'a> {
        let mut c = Closure {
            messages: BTreeMap::new(),
            enums: BTreeMap::new(),
            services: BTreeMap::new(),
            extensions: BTreeMap::new(),
            files: BTreeMap::new(),
        };
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut queue = VecDeque::from([root.to_string()]);
        while let Some(name) = queue.pop_front() {
            if !seen.insert(name.clone()) {
                continue;
            }
            if let Some((k, m)) = content.messages.get_key_value(&name) {
                c.messages.insert(k, m);
                c.file(content, &m.file);
                // A map field's entry message too (the walk goes to its value type): the rules
                // compare entries with messages when a map becomes a message or back.
                queue.extend(
                    m.fields
                        .values()
                        .filter(|f| f.map.is_some())
                        .filter_map(|f| f.ty.type_name().map(str::to_string)),
                );
                if let Some((k, x)) = content.extensions.get_key_value(&name) {
                    c.extensions.insert(k, x);
                    for e in x.values() {
                        c.file(content, &e.file);
                    }
                }
            } else if let Some((k, e)) = content.enums.get_key_value(&name) {
                c.enums.insert(k, e);
                c.file(content, &e.file);
            } else if let Some((k, s)) = content.services.get_key_value(&name) {
                c.services.insert(k, s);
                c.file(content, &s.file);
            }
            queue.extend(out_edges(content, &name).into_iter().map(|e| e.to));
        }
        c
    }

    fn file(&mut self, content: &'a Content, name: &'a str) {
        self.files
            .entry(name)
            .or_insert_with(|| content.files.get(name));
    }

    /// The files that declare what the root reaches.
    pub(super) fn files(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.files.keys().copied()
    }
}
