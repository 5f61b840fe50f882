//! Declarations shared between the file sets of one history. A set compiled on its own
//! (without the on-disk cache, or one whose compile gave diagnostics) builds every
//! declaration anew; a commit history of one API has hundreds of sets that each change one
//! file, so each declaration equal to one an earlier set holds is replaced by that one's
//! `Arc`: a version then costs its maps, not a copy of the schema (aiplatform's 278 commit
//! versions: see docs/performance.md). Value equality decides, so nothing a version says
//! changes; an unchanged declaration also compares by pointer in the judge.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;

use super::super::model::{Content, Enum, Message, Service};

/// The variants of one name compared with a new declaration, newest first, at most: a name
/// redefined in every version costs a bounded number of compares, not one per version.
const COMPARED: usize = 4;

/// The declarations held so far, by full name: the distinct variants of each, oldest first.
#[derive(Default)]
pub(super) struct Shared {
    messages: HashMap<String, Vec<Arc<Message>>>,
    enums: HashMap<String, Vec<Arc<Enum>>>,
    services: HashMap<String, Vec<Arc<Service>>>,
}

/// The shared declarations, locked: a holder that panicked left no half-made insert.
pub(super) fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Replaces each declaration of `contents` equal to one held by that one; holds the
    /// others. Returns how many were replaced. The sets are looked up side by side
    /// (comparing equal declarations is most of the cost), then their new declarations
    /// held: two sets of one call do not share what neither found held.
    pub(super) fn share(&mut self, contents: &mut [&mut Content]) -> usize {
        let held = &*self;
        let found: Vec<(usize, New)> = contents.par_iter_mut().map(|c| held.replace(c)).collect();
        let mut replaced = 0;
        for (n, new) in found {
            replaced += n;
            hold(&mut self.messages, new.messages);
            hold(&mut self.enums, new.enums);
            hold(&mut self.services, new.services);
        }
        replaced
    }

    /// Replaces the declarations of `c` found held; returns how many, and the others.
    fn replace(&self, c: &mut Content) -> (usize, New) {
        let mut new = New::default();
        let (m, e, s) = (&mut new.messages, &mut new.enums, &mut new.services);
        let n = count(c.messages.values_mut().map(|d| find(&self.messages, d, m)))
            + count(c.enums.values_mut().map(|d| find(&self.enums, d, e)))
            + count(c.services.values_mut().map(|d| find(&self.services, d, s)));
        (n, new)
    }

    /// [`Shared::share`] for the declarations of a file's part read from the on-disk cache,
    /// before any set holds them (the cache's memo of parts then holds the shared ones).
    pub(super) fn share_part(
        &mut self,
        messages: &mut [Arc<Message>],
        enums: &mut [Arc<Enum>],
        services: &mut [Arc<Service>],
    ) -> usize {
        let (m, e, s) = (&mut self.messages, &mut self.enums, &mut self.services);
        count(messages.iter_mut().map(|d| one(m, d)))
            + count(enums.iter_mut().map(|d| one(e, d)))
            + count(services.iter_mut().map(|d| one(s, d)))
    }
}

/// The declarations of a set not found held.
#[derive(Default)]
struct New {
    messages: Vec<Arc<Message>>,
    enums: Vec<Arc<Enum>>,
    services: Vec<Arc<Service>>,
}

/// `decl` replaced by an equal one held (true); else, unless it is one held, it is new.
fn find<T: Named>(
    held: &HashMap<String, Vec<Arc<T>>>,
    decl: &mut Arc<T>,
    new: &mut Vec<Arc<T>>,
) -> bool {
    let same = held.get(decl.full_name()).and_then(|variants| {
        variants
            .iter()
            .rev()
            .take(COMPARED)
            .find(|v| Arc::ptr_eq(v, decl) || ***v == **decl)
    });
    match same {
        Some(v) if Arc::ptr_eq(v, decl) => false,
        Some(v) => {
            *decl = v.clone();
            true
        }
        None => {
            new.push(decl.clone());
            false
        }
    }
}

/// Holds `new` declarations as the newest variants of their names.
fn hold<T: Named>(held: &mut HashMap<String, Vec<Arc<T>>>, new: Vec<Arc<T>>) {
    for d in new {
        match held.get_mut(d.full_name()) {
            Some(variants) => variants.push(d),
            None => {
                held.insert(d.full_name().to_string(), vec![d]);
            }
        }
    }
}

fn count(replaced: impl Iterator<Item = bool>) -> usize {
    replaced.filter(|r| *r).count()
}

/// A declaration's full name, which the variants are held by.
trait Named: PartialEq {
    fn full_name(&self) -> &str;
}

impl Named for Message {
    fn full_name(&self) -> &str {
        &self.full_name
    }
}

impl Named for Enum {
    fn full_name(&self) -> &str {
        &self.full_name
    }
}

impl Named for Service {
    fn full_name(&self) -> &str {
        &self.full_name
    }
}

/// `decl` replaced by an equal one held (true), or held as a new variant of its name.
fn one<T: Named>(held: &mut HashMap<String, Vec<Arc<T>>>, decl: &mut Arc<T>) -> bool {
    let mut new = Vec::new();
    let replaced = find(held, decl, &mut new);
    hold(held, new);
    replaced
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(names: &[(&str, &str)]) -> Content {
        let mut c = Content::default();
        for (name, option) in names {
            let m = Message {
                options: [("deprecated".to_string(), option.to_string())].into(),
                ..Message::empty(name, "a.proto")
            };
            c.messages.insert(name.to_string(), Arc::new(m));
        }
        c
    }

    #[test]
    fn equal_declarations_become_one_and_different_ones_stay_apart() {
        let mut shared = Shared::default();
        let mut first = content(&[("A", "false"), ("B", "false")]);
        let mut second = content(&[("A", "false"), ("B", "true")]);
        let mut third = content(&[("A", "false"), ("B", "false")]);
        assert_eq!(shared.share(&mut [&mut first]), 0);
        assert_eq!(shared.share(&mut [&mut second]), 1);
        assert_eq!(shared.share(&mut [&mut third]), 2);
        assert!(Arc::ptr_eq(&first.messages["A"], &second.messages["A"]));
        assert!(Arc::ptr_eq(&first.messages["A"], &third.messages["A"]));
        assert!(!Arc::ptr_eq(&first.messages["B"], &second.messages["B"]));
        assert_eq!(second.messages["B"].options["deprecated"], "true");
        assert!(Arc::ptr_eq(&first.messages["B"], &third.messages["B"]));
        // Values never change: each content equals what it was built as.
        assert_eq!(second, content(&[("A", "false"), ("B", "true")]));
    }
}
