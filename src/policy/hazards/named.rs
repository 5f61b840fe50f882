//! What the walk asks of a version's content, by name. Each container's story asks every
//! content of the history for its name: over a whole schema (protobuf's 384 tags: thousands
//! of names, seventy contents) the B-tree lookups, comparing long shared prefixes, were half
//! of the walk. So each distinct content is hashed by name once, side by side ([`Index`]);
//! with a root (a few names) the contents are asked directly.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::{Extensions, own_enum, own_message};
use crate::load::Loaded;
use crate::schema::model::{Content, Enum, Message};

/// A content's messages, enums and extended messages by name, each with whether it is the
/// repository's own (for an extended message: whether one of its extensions is).
pub(super) struct Named<'a> {
    messages: foldhash::HashMap<&'a str, (&'a Arc<Message>, bool)>,
    enums: foldhash::HashMap<&'a str, (&'a Arc<Enum>, bool)>,
    extensions: foldhash::HashMap<&'a str, (&'a Extensions, bool)>,
}

impl<'a> Named<'a> {
    fn of(c: &'a Content) -> Self {
        Named {
            messages: c
                .messages
                .iter()
                .map(|(n, m)| (n.as_str(), (m, own_message(c, m))))
                .collect(),
            enums: c
                .enums
                .iter()
                .map(|(n, e)| (n.as_str(), (e, own_enum(c, e))))
                .collect(),
            extensions: c
                .extensions
                .iter()
                .map(|(n, x)| (n.as_str(), (x, has_own(c, n))))
                .collect(),
        }
    }
}

/// Some extension of `extendee` is declared in a file of the repository.
pub(super) fn has_own(content: &Content, extendee: &str) -> bool {
    content.extensions.get(extendee).is_some_and(|exts| {
        exts.values()
            .any(|x| content.files.get(&x.file).is_some_and(|f| !f.external))
    })
}

/// Each distinct content of the history hashed by name (none when `hashed` is false), and
/// which of them each version holds.
pub(super) struct Index<'a> {
    named: Vec<Named<'a>>,
    of_version: Vec<Option<usize>>,
}

impl<'a> Index<'a> {
    pub(super) fn new(versions: &'a [Loaded], hashed: bool) -> Self {
        if !hashed {
            return Index {
                named: Vec::new(),
                of_version: Vec::new(),
            };
        }
        let mut slot: HashMap<*const Content, usize> = HashMap::new();
        let mut distinct: Vec<&'a Content> = Vec::new();
        let of_version = versions
            .iter()
            .map(|v| {
                let content = &v.schema()?.content;
                let at = slot.entry(std::ptr::from_ref(content)).or_insert_with(|| {
                    distinct.push(content);
                    distinct.len() - 1
                });
                Some(*at)
            })
            .collect();
        let named = distinct.par_iter().map(|c| Named::of(c)).collect();
        Index { named, of_version }
    }

    /// How to ask the content of version `i`.
    pub(super) fn look(&self, i: usize, content: &'a Content) -> Look<'_, 'a> {
        match self.of_version.get(i).copied().flatten() {
            Some(at) if let Some(named) = self.named.get(at) => Look::Hashed(named),
            _ => Look::Direct(content),
        }
    }
}

/// One content, asked by name: hashed, or directly.
pub(super) enum Look<'i, 'a> {
    Hashed(&'i Named<'a>),
    Direct(&'a Content),
}

impl<'a> Look<'_, 'a> {
    /// The message of this name, and whether it is the repository's own.
    pub(super) fn message(&self, name: &str) -> Option<(&'a Arc<Message>, bool)> {
        match self {
            Look::Hashed(n) => n.messages.get(name).copied(),
            Look::Direct(c) => {
                let m = c.messages.get(name)?;
                Some((m, own_message(c, m)))
            }
        }
    }

    /// The enum of this name, and whether it is the repository's own.
    pub(super) fn enumeration(&self, name: &str) -> Option<(&'a Arc<Enum>, bool)> {
        match self {
            Look::Hashed(n) => n.enums.get(name).copied(),
            Look::Direct(c) => {
                let e = c.enums.get(name)?;
                Some((e, own_enum(c, e)))
            }
        }
    }

    /// The extensions of the message `extendee`, and whether one of them is the
    /// repository's own.
    pub(super) fn extensions(&self, extendee: &str) -> Option<(&'a Extensions, bool)> {
        match self {
            Look::Hashed(n) => n.extensions.get(extendee).copied(),
            Look::Direct(c) => {
                let (name, x) = c.extensions.get_key_value(extendee)?;
                Some((x, has_own(c, name)))
            }
        }
    }
}
