//! What a root reaches in one version, as the judge reads it: the types and services found by
//! following fields, map values, extensions of reached messages and RPC types from the root
//! (the walk of `diff::pair_from_root`), the entry messages of reached map fields, the
//! extensions of reached messages and the files that declare all of them. Two versions whose
//! closures are equal (and whose failed files among those files are the same) judge the same
//! way against any third in that root's scope: the [`super::Comparer`] compares such
//! versions once.

use std::collections::BTreeMap;

use crate::diff::Reach;
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
    /// The closure of what `reach` (of `content`, from the root) reaches.
    pub(super) fn of(content: &'a Content, reach: &Reach<'a>) -> Closure<'a> {
        let mut c = Closure {
            messages: BTreeMap::new(),
            enums: BTreeMap::new(),
            services: BTreeMap::new(),
            extensions: BTreeMap::new(),
            files: BTreeMap::new(),
        };
        for m in reach.messages() {
            c.message(content, m);
            // A map field's entry message too (the walk goes to its value type): the rules
            // compare entries with messages when a map becomes a message or back. What an
            // entry leads to is its value's type, reached already.
            for f in m.fields.values().filter(|f| f.map.is_some()) {
                if let Some(entry) = f.ty.type_name().and_then(|t| content.messages.get(t)) {
                    c.message(content, entry);
                }
            }
        }
        for e in reach.enums() {
            c.enums.insert(&e.full_name, e);
            c.file(content, &e.file);
        }
        for s in reach.services() {
            c.services.insert(&s.full_name, s);
            c.file(content, &s.file);
        }
        c
    }

    fn message(&mut self, content: &'a Content, m: &'a Message) {
        self.messages.insert(&m.full_name, m);
        self.file(content, &m.file);
        if let Some((k, x)) = content.extensions.get_key_value(&m.full_name) {
            self.extensions.insert(k, x);
            for e in x.values() {
                self.file(content, &e.file);
            }
        }
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
