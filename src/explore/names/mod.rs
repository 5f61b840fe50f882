//! Every name of every version — messages, services, enums, fields, enum values, rpcs — with
//! the versions it appears in, and fuzzy search over them for the finders; and the versions
//! themselves, by name, commit id and message ([`versions`]).

mod versions;

use std::collections::HashMap;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::schema::Content;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Message,
    Service,
    Enum,
    Field,
    Value,
    Rpc,
    /// A version of the history (a tag, a commit, ...), not a name in it.
    Version,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Message => "message",
            Kind::Service => "service",
            Kind::Enum => "enum",
            Kind::Field => "field",
            Kind::Value => "value",
            Kind::Rpc => "rpc",
            Kind::Version => "version",
        }
    }

    /// Messages and services can be roots.
    pub fn is_root(self) -> bool {
        matches!(self, Kind::Message | Kind::Service)
    }
}

/// One name and where it appears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub kind: Kind,
    /// First and last version index it appears in, and in how many versions.
    pub first: usize,
    pub last: usize,
    pub count: usize,
}

/// A search result: the entry, its score, and the matched character positions in its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub entry: usize,
    pub score: i64,
    pub indices: Vec<usize>,
}

/// All names, added version by version; and the versions, added when the history opens.
#[derive(Debug, Default)]
pub struct Index {
    pub entries: Vec<Entry>,
    by_name: HashMap<(String, Kind), usize>,
    /// The versions as the finder searches them, with their entry (of kind `Version`: its
    /// name the text shown, `first` and `last` the version).
    searchable: Vec<(usize, versions::Searchable)>,
    /// Versions whose names are indexed.
    pub versions: usize,
}

impl Index {
    pub fn new() -> Index {
        Index::default()
    }

    /// Adds the versions of the history themselves (once, when it opens; the names of each
    /// come with [`Index::add`] as it compiles).
    pub fn add_versions(&mut self, history: &[crate::history::Version]) {
        for (i, v) in history.iter().enumerate() {
            let (text, s) = versions::Searchable::of(v);
            self.searchable.push((self.entries.len(), s));
            self.entries.push(Entry {
                name: text,
                kind: Kind::Version,
                first: i,
                last: i,
                count: 1,
            });
        }
    }

    /// Adds the names of version `version` (call in version order).
    pub fn add(&mut self, version: usize, content: &Content) {
        let own = |file: &str| content.files.get(file).is_some_and(|f| !f.external);
        let mut names: Vec<(String, Kind)> = Vec::new();
        for m in content.messages.values() {
            if m.map_entry || !own(&m.file) {
                continue;
            }
            names.push((m.full_name.clone(), Kind::Message));
            for f in m.fields.values() {
                names.push((format!("{}.{}", m.full_name, f.name), Kind::Field));
            }
        }
        for e in content.enums.values().filter(|e| own(&e.file)) {
            names.push((e.full_name.clone(), Kind::Enum));
            for v in &e.values {
                names.push((format!("{}.{}", e.full_name, v.name), Kind::Value));
            }
        }
        for s in content.services.values().filter(|s| own(&s.file)) {
            names.push((s.full_name.clone(), Kind::Service));
            for m in s.methods.keys() {
                names.push((format!("{}.{m}", s.full_name), Kind::Rpc));
            }
        }
        for key in names {
            match self.by_name.get(&key) {
                Some(&i) => {
                    if let Some(e) = self.entries.get_mut(i)
                        && e.last != version
                    {
                        e.last = version;
                        e.count += 1;
                    }
                }
                None => {
                    self.by_name.insert(key.clone(), self.entries.len());
                    self.entries.push(Entry {
                        name: key.0,
                        kind: key.1,
                        first: version,
                        last: version,
                        count: 1,
                    });
                }
            }
        }
        self.versions = self.versions.max(version + 1);
    }

    /// The entries that match `query`, best first, at most `limit`; `roots_only` keeps
    /// messages and services. An empty query lists entries by name (the versions last,
    /// newest first). Versions match as [`versions`] says; among equals, newer first.
    pub fn search(&self, query: &str, roots_only: bool, limit: usize) -> Vec<Hit> {
        let keep = |e: &Entry| !roots_only || e.kind.is_root();
        let query = query.trim();
        if query.is_empty() {
            let mut all: Vec<usize> = (0..self.entries.len())
                .filter(|&i| self.entries.get(i).is_some_and(keep))
                .collect();
            all.sort_by(|&a, &b| {
                let (x, y) = (&self.entries[a], &self.entries[b]);
                let newest = match x.kind {
                    Kind::Version => y.first.cmp(&x.first),
                    _ => std::cmp::Ordering::Equal,
                };
                x.kind
                    .cmp(&y.kind)
                    .then(newest)
                    .then_with(|| x.name.cmp(&y.name))
            });
            return all
                .into_iter()
                .take(limit)
                .map(|entry| Hit {
                    entry,
                    score: 0,
                    indices: Vec::new(),
                })
                .collect();
        }
        let matcher = SkimMatcherV2::default().smart_case();
        let mut hits: Vec<Hit> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| keep(e) && e.kind != Kind::Version)
            .filter_map(|(i, e)| {
                matcher
                    .fuzzy_indices(&e.name, query)
                    .map(|(score, indices)| Hit {
                        entry: i,
                        score,
                        indices,
                    })
            })
            .collect();
        if !roots_only {
            hits.extend(self.searchable.iter().filter_map(|(i, s)| {
                s.matches(query, &matcher).map(|(score, indices)| Hit {
                    entry: *i,
                    score,
                    indices,
                })
            }));
        }
        hits.sort_by(|a, b| hit_order(&self.entries, a, b));
        hits.truncate(limit);
        hits
    }
}

/// The finder's order of hits, a total order (a sort panics on one that is not): the better
/// score first; among equal scores names before versions (as in the empty query's list),
/// versions newest first, then the shorter name. "Newest first" between versions only,
/// equal otherwise, was not transitive: aiplatform's 278 commits took the finder's thread
/// down.
fn hit_order(entries: &[Entry], a: &Hit, b: &Hit) -> std::cmp::Ordering {
    let version_order = |e: Option<&Entry>| match e {
        Some(e) if e.kind == Kind::Version => (true, std::cmp::Reverse(e.first)),
        _ => (false, std::cmp::Reverse(0)),
    };
    let (x, y) = (entries.get(a.entry), entries.get(b.entry));
    b.score
        .cmp(&a.score)
        .then_with(|| version_order(x).cmp(&version_order(y)))
        .then_with(|| name_of(x).len().cmp(&name_of(y).len()))
        .then_with(|| name_of(x).cmp(name_of(y)))
        .then_with(|| x.map(|e| e.kind).cmp(&y.map(|e| e.kind)))
        .then_with(|| a.entry.cmp(&b.entry))
}

fn name_of(e: Option<&Entry>) -> &str {
    e.map_or("", |e| e.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over names and versions of alike scores and lengths, every triple is ordered
    /// consistently (transitive and antisymmetric): what a sort needs not to panic.
    #[test]
    fn the_order_of_hits_is_total() {
        let mut entries = Vec::new();
        for k in 0..12 {
            let kind = if k % 2 == 0 {
                Kind::Version
            } else {
                Kind::Message
            };
            entries.push(Entry {
                name: "n".repeat(1 + (k * 7) % 4),
                kind,
                first: (k * 5) % 7,
                last: 0,
                count: 1,
            });
        }
        let hits: Vec<Hit> = (0..entries.len())
            .map(|entry| Hit {
                entry,
                score: (entry % 3) as i64,
                indices: Vec::new(),
            })
            .collect();
        let le = |a: &Hit, b: &Hit| hit_order(&entries, a, b).is_le();
        for a in &hits {
            for b in &hits {
                assert_eq!(
                    hit_order(&entries, a, b),
                    hit_order(&entries, b, a).reverse()
                );
                for c in &hits {
                    if le(a, b) && le(b, c) {
                        assert!(le(a, c), "{a:?} {b:?} {c:?}");
                    }
                }
            }
        }
    }
}
