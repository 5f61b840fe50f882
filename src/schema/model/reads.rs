//! [`Types`]: a schema's messages and enums looked up by full name, each look-up recorded
//! while a [`recording`] runs on the thread. The judge's rules reach beyond the pair of
//! declarations they judge only through it (a retyped field's types, a renamed message's
//! shape, a map's entry), so that what a pair's verdicts depend on is known: the two
//! declarations, and the declarations each recorded name found. Where those are the same
//! declarations (versions share the declarations that did not change), the verdicts are the
//! same (see `judge::units`).

use std::cell::RefCell;
use std::sync::Arc;

use super::{Content, Enum, Message};

/// One look-up: in which schema (by address), of which kind, by which name, and what it
/// found (by address; 0 for nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    pub content: usize,
    pub kind: Kind,
    pub name: Box<str>,
    pub found: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Message,
    Enum,
}

thread_local! {
    static LOG: RefCell<Option<Vec<Read>>> = const { RefCell::new(None) };
}

/// The types of one schema, by full name.
#[derive(Clone, Copy)]
pub struct Types<'a>(&'a Content);

fn address<T>(x: Option<&Arc<T>>) -> usize {
    x.map_or(0, |x| Arc::as_ptr(x) as usize)
}

impl<'a> Types<'a> {
    pub fn of(c: &'a Content) -> Self {
        Types(c)
    }

    /// The schema's address: what a [`Read`] names it by.
    pub fn address(self) -> usize {
        std::ptr::from_ref(self.0) as usize
    }

    pub fn message(self, name: &str) -> Option<&'a Message> {
        let found = self.0.messages.get(name);
        self.record(Kind::Message, name, address(found));
        found.map(Arc::as_ref)
    }

    pub fn enumeration(self, name: &str) -> Option<&'a Enum> {
        let found = self.0.enums.get(name);
        self.record(Kind::Enum, name, address(found));
        found.map(Arc::as_ref)
    }

    fn record(self, kind: Kind, name: &str, found: usize) {
        LOG.with_borrow_mut(|log| {
            if let Some(log) = log {
                log.push(Read {
                    content: self.address(),
                    kind,
                    name: name.into(),
                    found,
                });
            }
        });
    }

    /// Whether `read` (made in a schema like this one) finds the same here.
    pub fn finds_again(self, read: &Read) -> bool {
        let found = match read.kind {
            Kind::Message => address(self.0.messages.get(&*read.name)),
            Kind::Enum => address(self.0.enums.get(&*read.name)),
        };
        found == read.found
    }
}

/// Adds `reads`, made before, to the recording running on this thread (if any): what a
/// result kept from them depends on.
pub fn replay(reads: &[Read]) {
    LOG.with_borrow_mut(|log| {
        if let Some(log) = log {
            log.extend_from_slice(reads);
        }
    });
}

/// Runs `f`, and gives the look-ups it made through [`Types`] on this thread, in order.
pub fn recording<T>(f: impl FnOnce() -> T) -> (T, Vec<Read>) {
    let outer = LOG.replace(Some(Vec::new()));
    let out = f();
    let mut reads = LOG.replace(outer).unwrap_or_default();
    // A recording around this one sees these look-ups too.
    LOG.with_borrow_mut(|log| {
        if let Some(log) = log {
            log.extend(reads.iter().cloned());
        }
    });
    reads.sort_unstable_by(|a, b| {
        (a.content, a.kind as u8, &a.name).cmp(&(b.content, b.kind as u8, &b.name))
    });
    reads.dedup();
    (out, reads)
}
