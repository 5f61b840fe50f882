//! The lifecycle of the members of one message (fields) or enum (values): each one's state
//! in every version, for the history matrix and the detail pane.

use std::collections::BTreeMap;

use crate::load::Loaded;
use crate::schema::Status;

use super::decl;

/// A member's state in one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Not there (and never was, or the container is absent).
    Absent,
    /// First appears here (or reappears).
    Added,
    /// There, as in the previous version.
    Present,
    /// There, but its declaration differs from the previous version.
    Changed,
    /// Marked deprecated here (and not before).
    Deprecated,
    /// Gone here, and its number is not reserved.
    Removed,
    /// Gone, its number reserved (here or later).
    Reserved,
    /// The version did not compile (or not the container's file).
    Unknown,
}

impl State {
    /// Whether the member exists in the version.
    pub fn present(self) -> bool {
        matches!(
            self,
            State::Added | State::Present | State::Changed | State::Deprecated
        )
    }
}

/// One member across versions.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub number: i64,
    /// Its latest name.
    pub name: String,
    pub states: Vec<State>,
    /// The declaration per version (when present).
    pub decls: Vec<Option<String>>,
}

/// The members of one message or enum across versions.
#[derive(Debug, Clone, PartialEq)]
pub struct Lifecycle {
    pub container: String,
    pub members: Vec<Member>,
    /// Per version: whether the container exists there.
    pub exists: Vec<bool>,
}

impl Lifecycle {
    pub fn member(&self, number: i64) -> Option<&Member> {
        self.members.iter().find(|m| m.number == number)
    }
}

/// Computes the lifecycle of the message or enum `container` over `versions`.
pub fn of(versions: &[Loaded], container: &str) -> Lifecycle {
    let n = versions.len();
    // Per version: member number -> (name, decl, deprecated, reserved numbers).
    type Snap = Option<(BTreeMap<i64, (String, String, bool)>, Vec<(i64, i64)>)>;
    let snaps: Vec<Snap> = versions
        .iter()
        .map(|v| {
            let c = &v.compiled.schema.content;
            let exists = c.messages.contains_key(container) || c.enums.contains_key(container);
            // A version that did not compile, or whose file of the container did not: unknown.
            if v.compiled.status == Status::Failed
                || v.compiled.status == Status::Partial && !exists
            {
                return None;
            }
            if let Some(m) = c.messages.get(container) {
                let fields = m
                    .fields
                    .values()
                    .map(|f| {
                        (
                            i64::from(f.number),
                            (f.name.clone(), decl::field(f), f.deprecated),
                        )
                    })
                    .collect();
                let res = m
                    .reserved_ranges
                    .iter()
                    .map(|(a, b)| (i64::from(*a), i64::from(*b)))
                    .collect();
                Some((fields, res))
            } else if let Some(e) = c.enums.get(container) {
                let mut values = BTreeMap::new();
                for v in &e.values {
                    values.entry(i64::from(v.number)).or_insert((
                        v.name.clone(),
                        decl::value(v),
                        v.deprecated,
                    ));
                }
                let res = e
                    .reserved_ranges
                    .iter()
                    .map(|(a, b)| (i64::from(*a), i64::from(*b)))
                    .collect();
                Some((values, res))
            } else {
                Some((BTreeMap::new(), Vec::new()))
            }
        })
        .collect();
    let exists: Vec<bool> = versions
        .iter()
        .map(|v| {
            let c = &v.compiled.schema.content;
            c.messages.contains_key(container) || c.enums.contains_key(container)
        })
        .collect();
    let mut numbers: BTreeMap<i64, String> = BTreeMap::new();
    for (fields, _) in snaps.iter().flatten() {
        for (num, (name, _, _)) in fields {
            numbers.insert(*num, name.clone());
        }
    }
    let members = numbers
        .into_iter()
        .map(|(number, name)| {
            let mut states = Vec::with_capacity(n);
            let mut decls = Vec::with_capacity(n);
            let mut prev: Option<(String, bool)> = None;
            let mut ever = false;
            for snap in &snaps {
                let Some((fields, reserved)) = snap else {
                    states.push(State::Unknown);
                    decls.push(None);
                    continue;
                };
                match fields.get(&number) {
                    Some((_, d, dep)) => {
                        let s = match &prev {
                            None => State::Added,
                            Some((_, pdep)) if *dep && !pdep => State::Deprecated,
                            Some((pd, _)) if pd != d => State::Changed,
                            Some(_) => State::Present,
                        };
                        states.push(s);
                        decls.push(Some(d.clone()));
                        prev = Some((d.clone(), *dep));
                        ever = true;
                    }
                    None => {
                        let res = reserved.iter().any(|(a, b)| (*a..=*b).contains(&number));
                        states.push(match (ever, res) {
                            (true, true) => State::Reserved,
                            (true, false) if prev.is_some() => State::Removed,
                            (true, false) => State::Absent,
                            (false, _) => State::Absent,
                        });
                        decls.push(None);
                        prev = None;
                    }
                }
            }
            Member {
                number,
                name,
                states,
                decls,
            }
        })
        .collect();
    Lifecycle {
        container: container.to_string(),
        members,
        exists,
    }
}
