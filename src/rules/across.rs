//! [`Across`]: a rule's way into the rest of a schema — the declarations beyond the pair it
//! judges (a retyped field's old and new types, a renamed message's shape, a map's entry).
//! Reading through it is recorded, so that the findings of a pair that read nothing else
//! are known to depend on that pair alone and may be kept for every other pair of schemas
//! that holds the same two declarations (see [`super::units`]).

use std::cell::Cell;

use crate::schema::model::Content;

thread_local! {
    static READ: Cell<bool> = const { Cell::new(false) };
}

/// The schema beyond the pair; the only way a rule reads it.
#[derive(Clone, Copy)]
pub(super) struct Across<'a>(&'a Content);

impl<'a> Across<'a> {
    pub fn new(c: &'a Content) -> Self {
        Across(c)
    }

    /// The whole schema; the pair being judged now depends on more than itself.
    pub fn read(self) -> &'a Content {
        READ.set(true);
        self.0
    }
}

/// Runs `judge` and says whether it read the schema beyond its pair.
pub(super) fn reads_across<T>(judge: impl FnOnce() -> T) -> (T, bool) {
    let before = READ.replace(false);
    let out = judge();
    let read = READ.replace(before);
    (out, read)
}
