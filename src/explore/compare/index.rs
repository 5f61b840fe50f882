//! Which changes belong to which node: each change indexed by the type it is on and by the
//! member (number or name) it names, so that building a node looks its changes up.

use std::collections::{HashMap, HashSet};

use super::NodeKind;
use crate::rules::{Change, RuleId};
use crate::schema::model::Content;

/// A member of a type, as a change names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Member {
    Number(i64),
    Name(String),
}

pub(super) struct Index {
    types: HashMap<String, Vec<usize>>,
    members: HashMap<(String, Member), Vec<usize>>,
    /// Per change: whether some node has it.
    pub attached: Vec<bool>,
}

impl Index {
    pub(super) fn build(changes: &[Change], old: &Content, new: &Content) -> Index {
        let mut ix = Index {
            types: HashMap::new(),
            members: HashMap::new(),
            attached: vec![false; changes.len()],
        };
        let is_type = |n: &str| type_kind(old, n).is_some() || type_kind(new, n).is_some();
        // An extension's changes belong to its node under the message it extends.
        let extendee: HashMap<&str, &str> = [old, new]
            .iter()
            .flat_map(|c| c.extensions.values().flat_map(|m| m.values()))
            .map(|x| (x.full_name.as_str(), x.extendee.as_str()))
            .collect();
        // (declaration, member name) of both sides, built on first use: a scan of the
        // members per change was quadratic (100,000 oneofs renamed).
        let mut members: Option<HashSet<(&str, &str)>> = None;
        let mut has_member = |parent: &str, name: &str| {
            members
                .get_or_insert_with(|| {
                    let mut set = HashSet::new();
                    for c in [old, new] {
                        for m in c.messages.values() {
                            set.extend(
                                m.fields
                                    .values()
                                    .map(|f| (m.full_name.as_str(), f.name.as_str())),
                            );
                        }
                        for e in c.enums.values() {
                            set.extend(
                                e.values
                                    .iter()
                                    .map(|v| (e.full_name.as_str(), v.name.as_str())),
                            );
                        }
                        for (sn, sv) in &c.services {
                            set.extend(sv.methods.keys().map(|k| (sn.as_str(), k.as_str())));
                        }
                    }
                    set
                })
                .contains(&(parent, name))
        };
        for (i, ch) in changes.iter().enumerate() {
            if is_type(&ch.element) {
                ix.types.entry(ch.element.clone()).or_default().push(i);
                continue;
            }
            if let (Some(&e), Some(n)) = (extendee.get(ch.element.as_str()), ch.number) {
                ix.members
                    .entry((e.to_string(), Member::Number(n)))
                    .or_default()
                    .push(i);
                continue;
            }
            let Some((parent, last)) = ch.element.rsplit_once('.') else {
                continue;
            };
            if !is_type(parent) {
                continue;
            }
            match ch.number {
                Some(n) => {
                    ix.members
                        .entry((parent.to_string(), Member::Number(n)))
                        .or_default()
                        .push(i);
                    if matches!(
                        ch.rule,
                        RuleId::FIELD_NUMBER_CHANGED | RuleId::ENUM_VALUE_NUMBER_CHANGED
                    ) {
                        ix.members
                            .entry((parent.to_string(), Member::Name(last.to_string())))
                            .or_default()
                            .push(i);
                    }
                }
                None if has_member(parent, last) => ix
                    .members
                    .entry((parent.to_string(), Member::Name(last.to_string())))
                    .or_default()
                    .push(i),
                None => ix.types.entry(parent.to_string()).or_default().push(i),
            }
        }
        ix
    }

    pub(super) fn collect(
        &mut self,
        out: &mut Vec<usize>,
        keys: &[(Option<&str>, Member)],
        types: [Option<&str>; 2],
    ) {
        for (parent, m) in keys {
            if let Some(p) = parent
                && let Some(v) = self.members.get(&(p.to_string(), m.clone()))
            {
                out.extend(v);
            }
        }
        for t in types.into_iter().flatten() {
            if let Some(v) = self.types.get(t) {
                out.extend(v);
            }
        }
        out.sort_unstable();
        out.dedup();
        for &i in out.iter() {
            if let Some(a) = self.attached.get_mut(i) {
                *a = true;
            }
        }
    }
}

pub(super) fn type_kind(c: &Content, name: &str) -> Option<NodeKind> {
    if c.messages.contains_key(name) {
        Some(NodeKind::Message)
    } else if c.enums.contains_key(name) {
        Some(NodeKind::Enum)
    } else if c.services.contains_key(name) {
        Some(NodeKind::Service)
    } else {
        None
    }
}
