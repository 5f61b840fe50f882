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

use super::super::model::{Content, Enum, Extension, Message, Service};
use super::super::normalize::FileDecls;
use super::Compiled;

/// The variants of one name compared with a new declaration, newest first, at most: a name
/// redefined in every version costs a bounded number of compares, not one per version.
const COMPARED: usize = 4;

/// The declarations held so far, by full name: the distinct variants of each, oldest first.
#[derive(Default)]
pub(super) struct Shared {
    messages: HashMap<String, Vec<Arc<Message>>>,
    enums: HashMap<String, Vec<Arc<Enum>>>,
    services: HashMap<String, Vec<Arc<Service>>>,
    extensions: HashMap<String, Vec<Arc<Extension>>>,
}

impl super::Cache {
    /// Shares the declarations of sets just compiled (in order) with those held. The held
    /// ones are taken out of their lock meanwhile: no lock is held across the parallel
    /// look-ups (the cache's parts take it as they are read).
    pub(super) fn share_fresh<'c>(&mut self, compiled: impl Iterator<Item = &'c mut Compiled>) {
        let mut contents: Vec<&mut Content> = compiled
            .filter_map(|c| Arc::get_mut(&mut c.schema))
            .map(|s| &mut s.content)
            .collect();
        if contents.is_empty() {
            let held = lock(&self.shared);
            self.normalized.settle(|decls| held.settle(decls));
            return;
        }
        let mut held = std::mem::take(&mut *lock(&self.shared));
        self.stats.decls_shared += held.share(&mut contents);
        // The normalizing memo's new entries hold what their sets held before sharing (those
        // of a set compiled in part, since: the cache's parts are shared as they are read).
        self.normalized.settle(|decls| held.settle(decls));
        *lock(&self.shared) = held;
    }
}

/// The shared declarations, locked: a holder that panicked left no half-made insert.
pub(super) fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Replaces each declaration of `contents` equal to one held by that one; holds the
    /// others. Returns how many were replaced. The sets are first looked up side by side
    /// against what was held before (comparing equal declarations is most of the cost);
    /// then, in order, what each did not find is looked up again, against what the sets
    /// before it in this call added as well, and held if still new: an equal declaration
    /// is held once, however many sets of a window bring it.
    pub(super) fn share(&mut self, contents: &mut [&mut Content]) -> usize {
        let held = &*self;
        let found: Vec<(usize, Missed)> =
            contents.par_iter_mut().map(|c| held.replace(c)).collect();
        let mut replaced = 0;
        for (c, (n, missed)) in contents.iter_mut().zip(found) {
            let (m, e, s) = (&mut self.messages, &mut self.enums, &mut self.services);
            replaced += n
                + again(m, c.messages.values_mut(), &missed.messages)
                + again(e, c.enums.values_mut(), &missed.enums)
                + again(s, c.services.values_mut(), &missed.services)
                + again(&mut self.extensions, extensions(c), &missed.extensions);
        }
        replaced
    }

    /// Replaces the declarations of `c` found held; returns how many, and the names of
    /// those not found.
    fn replace(&self, c: &mut Content) -> (usize, Missed) {
        let mut missed = Missed::default();
        let n = look_up(
            &self.messages,
            c.messages.values_mut(),
            &mut missed.messages,
        ) + look_up(&self.enums, c.enums.values_mut(), &mut missed.enums)
            + look_up(
                &self.services,
                c.services.values_mut(),
                &mut missed.services,
            )
            + look_up(&self.extensions, extensions(c), &mut missed.extensions);
        (n, missed)
    }

    /// [`Shared::share`] for the declarations of a file's part read from the on-disk cache,
    /// before any set holds them (the cache's memo of parts then holds the shared ones).
    pub(super) fn share_part(
        &mut self,
        messages: &mut [Arc<Message>],
        enums: &mut [Arc<Enum>],
        services: &mut [Arc<Service>],
        extensions: &mut [Arc<Extension>],
    ) -> usize {
        let (m, e, s) = (&mut self.messages, &mut self.enums, &mut self.services);
        let x = &mut self.extensions;
        count(messages.iter_mut().map(|d| one(m, d)))
            + count(enums.iter_mut().map(|d| one(e, d)))
            + count(services.iter_mut().map(|d| one(s, d)))
            + count(extensions.iter_mut().map(|d| one(x, d)))
    }
}

impl Shared {
    /// Replaces each declaration of a file's memo entry (see `normalize::Memo`) by the equal
    /// one held, if any: the set that made the entry has just been shared.
    fn settle(&self, decls: &mut FileDecls) {
        for d in &mut decls.messages {
            find(&self.messages, d);
        }
        for d in &mut decls.enums {
            find(&self.enums, d);
        }
        for d in &mut decls.services {
            find(&self.services, d);
        }
    }
}

/// The declarations of a set not found held, by their place in the set's order.
#[derive(Default)]
struct Missed {
    messages: Vec<usize>,
    enums: Vec<usize>,
    services: Vec<usize>,
    extensions: Vec<usize>,
}

/// The extensions of `c`, in its order (by extendee, then number).
fn extensions(c: &mut Content) -> impl Iterator<Item = &mut Arc<Extension>> {
    c.extensions.values_mut().flat_map(|m| m.values_mut())
}

/// How a declaration was found among those held.
enum Found {
    /// It is one held.
    Same,
    /// It was replaced by an equal one held.
    Replaced,
    /// None held is equal to it.
    New,
}

/// `decl` replaced by an equal one among the newest variants held of its name.
fn find<T: Named>(held: &HashMap<String, Vec<Arc<T>>>, decl: &mut Arc<T>) -> Found {
    let same = held.get(decl.full_name()).and_then(|variants| {
        variants
            .iter()
            .rev()
            .take(COMPARED)
            .find(|v| Arc::ptr_eq(v, decl) || ***v == **decl)
    });
    match same {
        Some(v) if Arc::ptr_eq(v, decl) => Found::Same,
        Some(v) => {
            *decl = v.clone();
            Found::Replaced
        }
        None => Found::New,
    }
}

/// `decl` replaced by an equal one held (true), or held as the newest variant of its name.
fn one<T: Named>(held: &mut HashMap<String, Vec<Arc<T>>>, decl: &mut Arc<T>) -> bool {
    match find(held, decl) {
        Found::Replaced => true,
        Found::Same => false,
        Found::New => {
            match held.get_mut(decl.full_name()) {
                Some(variants) => variants.push(decl.clone()),
                None => {
                    held.insert(decl.full_name().to_string(), vec![decl.clone()]);
                }
            }
            false
        }
    }
}

/// The declarations found held replaced; the places of the others in `missed`.
fn look_up<'a, T: Named + 'a>(
    held: &HashMap<String, Vec<Arc<T>>>,
    decls: impl Iterator<Item = &'a mut Arc<T>>,
    missed: &mut Vec<usize>,
) -> usize {
    let mut replaced = 0;
    for (i, decl) in decls.enumerate() {
        match find(held, decl) {
            Found::Replaced => replaced += 1,
            Found::Same => {}
            Found::New => missed.push(i),
        }
    }
    replaced
}

/// The declarations at the places `missed` (ascending) looked up again, and held when
/// still new.
fn again<'a, T: Named + 'a>(
    held: &mut HashMap<String, Vec<Arc<T>>>,
    decls: impl Iterator<Item = &'a mut Arc<T>>,
    missed: &[usize],
) -> usize {
    let mut replaced = 0;
    let mut missed = missed.iter().peekable();
    for (i, d) in decls.enumerate() {
        if missed.next_if_eq(&&i).is_some() {
            replaced += usize::from(one(held, d));
        }
    }
    replaced
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

impl Named for Extension {
    fn full_name(&self) -> &str {
        &self.full_name
    }
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

    /// Sets shared in one call (a window) hold one value of a declaration that is new to
    /// all of them, and each set's values are still its own.
    #[test]
    fn sets_of_one_window_share_what_is_new_to_them() {
        let mut shared = Shared::default();
        let mut first = content(&[("A", "false")]);
        let mut second = content(&[("A", "false"), ("C", "x")]);
        let mut third = content(&[("A", "false"), ("C", "x")]);
        let mut fourth = content(&[("A", "true"), ("C", "y")]);
        shared.share(&mut [&mut first]);
        let replaced = shared.share(&mut [&mut second, &mut third, &mut fourth]);
        // A in the second and the third (held before), C in the third (from the second).
        assert_eq!(replaced, 3);
        assert!(Arc::ptr_eq(&second.messages["C"], &third.messages["C"]));
        assert!(Arc::ptr_eq(&first.messages["A"], &third.messages["A"]));
        assert!(!Arc::ptr_eq(&third.messages["C"], &fourth.messages["C"]));
        assert_eq!(fourth, content(&[("A", "true"), ("C", "y")]));
        // One variant of C per value.
        assert_eq!(shared.messages["C"].len(), 2);
    }
}
