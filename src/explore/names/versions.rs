//! The versions, for the finder: each by its name (a tag, or a commit's short hash), by a
//! prefix of its commit id, and by the words of its message (a commit's subject, a tag's
//! message). What a version shows in the finder is worked out once, when the history opens;
//! a search is then one pass over short, lowercased texts, as cheap per version as the fuzzy
//! match of a name.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::history::{Version, VersionKind};

/// Of a message, the characters kept to show and search (a subject is one line; a tag's
/// message may be long).
const MESSAGE_CHARS: usize = 240;

/// A hash prefix ranks above any name or word match.
const HASH_SCORE: i64 = 1_000_000;

/// One version as the finder searches it (what it shows is its entry's name).
#[derive(Debug, Clone)]
pub(super) struct Searchable {
    /// The text shown, a lowercased character for each of its characters, the short
    /// commit id blanked (it is matched by prefix only: `add` is no word of `3add9f1`).
    lower: Vec<char>,
    /// The full commit id, lowercased (empty: none).
    commit: String,
    /// Where the short commit id starts in the text, in characters, and how long it is.
    hash_at: Option<(usize, usize)>,
    /// A tag's or a revision's name, matched fuzzily (not a short hash: any hex query
    /// would match one).
    fuzzy_name: Option<String>,
}

/// A version's short commit id, as the history names commits.
fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

impl Searchable {
    /// What the finder shows of `v` — its name, its short commit id unless the name is that,
    /// and its message, sanitized, on one line — and how it is searched.
    pub fn of(v: &Version) -> (String, Searchable) {
        let name = crate::sanitize::line(&v.name);
        let commit = v.commit.to_ascii_lowercase();
        let mut text = name.clone();
        let named_by_hash = !commit.is_empty() && commit.starts_with(&name.to_ascii_lowercase());
        let hash_at = if commit.is_empty() {
            None
        } else if named_by_hash {
            Some((0, name.chars().count()))
        } else {
            let s = short(&commit);
            let at = text.chars().count() + 1;
            text.push(' ');
            text.push_str(s);
            Some((at, s.chars().count()))
        };
        if let Some(m) = &v.message {
            let m: String = crate::sanitize::line(m.trim())
                .chars()
                .take(MESSAGE_CHARS)
                .collect();
            if !m.is_empty() {
                text.push_str(" · ");
                text.push_str(&m);
            }
        }
        let hash = hash_at.map_or(0..0, |(at, len)| at..at + len);
        let lower = text
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if hash.contains(&i) {
                    '\0'
                } else {
                    c.to_lowercase().next().unwrap_or(c)
                }
            })
            .collect();
        let fuzzy_name = (v.kind != VersionKind::Commit || !named_by_hash).then_some(name);
        let s = Searchable {
            lower,
            commit,
            hash_at,
            fuzzy_name,
        };
        (text, s)
    }

    /// How well `query` (trimmed, not empty) finds this version, and the characters of its
    /// text it matched; None when it does not.
    pub fn matches(&self, query: &str, matcher: &SkimMatcherV2) -> Option<(i64, Vec<usize>)> {
        // A prefix of the commit id.
        if crate::history::is_commit_prefix(&self.commit, query) {
            let (at, len) = self.hash_at.unwrap_or((0, 0));
            let shown = query.len().min(len);
            return Some((HASH_SCORE + query.len() as i64, (at..at + shown).collect()));
        }
        // Every word somewhere in the name or the message.
        let words = self.words(query);
        // The name, fuzzily (a tag: `v1.2` finds `v1.2.0`).
        let name = self
            .fuzzy_name
            .as_ref()
            .and_then(|n| matcher.fuzzy_indices(n, query));
        match (words, name) {
            (Some(a), Some(b)) => Some(if a.0 >= b.0 { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    /// Each word of `query` found in the text, case-insensitively: a score (longer words and
    /// words found at the start of a word count more) and the characters found.
    fn words(&self, query: &str) -> Option<(i64, Vec<usize>)> {
        let mut score = 0;
        let mut indices = Vec::new();
        let mut any = false;
        for word in query.split_whitespace() {
            let w: Vec<char> = word
                .chars()
                .map(|c| c.to_lowercase().next().unwrap_or(c))
                .collect();
            let at = find(&self.lower, &w)?;
            any = true;
            let start = at == 0 || !self.lower.get(at - 1).is_some_and(|c| c.is_alphanumeric());
            score += 16 * w.len() as i64 + if start { 8 } else { 0 };
            indices.extend(at..at + w.len());
        }
        if !any {
            return None;
        }
        indices.sort_unstable();
        indices.dedup();
        Some((score, indices))
    }
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[char], needle: &[char]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(name: &str, kind: VersionKind, commit: &str, message: Option<&str>) -> Version {
        Version {
            message: message.map(str::to_string),
            ..Version::bare(name, kind, commit.into())
        }
    }

    const ID: &str = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";

    #[test]
    fn a_commit_is_found_by_its_hash_prefix_and_the_words_of_its_subject() {
        let m = SkimMatcherV2::default().smart_case();
        let v = version(
            "0a1b2c3",
            VersionKind::Commit,
            ID,
            Some("Money gets\x1b[31m nanos"),
        );
        let (text, s) = Searchable::of(&v);
        assert_eq!(text, "0a1b2c3 · Money gets\\u{1b}[31m nanos");
        let (score, at) = s.matches("0A1B2c3d4", &m).unwrap();
        assert!(score >= HASH_SCORE);
        assert_eq!(at, (0..7).collect::<Vec<_>>());
        // Too short to be a hash; not a prefix.
        assert_eq!(s.matches("0a1", &m), None);
        assert_eq!(s.matches("1b2c3d", &m), None);
        let (_, at) = s.matches("nanos money", &m).unwrap();
        assert_eq!(at.len(), 10);
        assert_eq!(s.matches("money cents", &m), None);
        // The short hash is not matched fuzzily.
        assert_eq!(s.matches("0123", &m), None);
    }

    #[test]
    fn a_tag_is_found_by_its_name_its_message_and_its_commit() {
        let m = SkimMatcherV2::default().smart_case();
        let v = version("v1.2.0", VersionKind::Tag, ID, Some("Second\nrelease"));
        let (text, s) = Searchable::of(&v);
        assert_eq!(text, "v1.2.0 0a1b2c3 · Second release");
        assert!(s.matches("v12", &m).is_some());
        assert!(s.matches("second release", &m).is_some());
        let (_, at) = s.matches("0a1b", &m).unwrap();
        assert_eq!(at, vec![7, 8, 9, 10]);
    }

    /// Names and commit versions that score alike are ordered without a cycle: names first,
    /// versions newest first, each once (a sort given an order that is not total panics:
    /// the finder's thread died on googleapis' aiplatform history).
    #[test]
    fn names_and_versions_that_score_alike_sort_in_one_order() {
        let mut ix = super::super::Index::new();
        // Tags and messages whose names the query finds alike (`fix` at their start: one
        // score), their lengths interleaved with the tags' order.
        let history: Vec<Version> = (0..80)
            .map(|k| {
                let name = format!("fix{}", "y".repeat((k * 7) % 13));
                version(&name, VersionKind::Tag, ID, None)
            })
            .collect();
        ix.add_versions(&history);
        let mut c = crate::schema::Content::default();
        c.files.insert(
            "a.proto".into(),
            crate::schema::model::File {
                name: "a.proto".into(),
                package: String::new(),
                syntax: "proto3".into(),
                edition: None,
                imports: Vec::new(),
                public_imports: Vec::new(),
                options: Default::default(),
                external: false,
                origin: crate::origin::Origin::Root,
            },
        );
        for k in 0..40 {
            let name = format!("fix{}", "y".repeat(k % 17));
            let m = crate::schema::model::Message::empty(&name, "a.proto");
            c.messages.insert(name, std::sync::Arc::new(m));
        }
        ix.add(0, &c);
        let hits = ix.search("fix", false, usize::MAX);
        let kinds: Vec<_> = hits.iter().map(|h| ix.entries[h.entry].kind).collect();
        assert!(kinds.contains(&super::super::Kind::Version));
        for w in hits.windows(2) {
            let (a, b) = (&ix.entries[w[0].entry], &ix.entries[w[1].entry]);
            assert!(w[0].score >= w[1].score);
            if w[0].score == w[1].score {
                assert!(a.kind != super::super::Kind::Version || b.kind == a.kind);
                if a.kind == super::super::Kind::Version && b.kind == a.kind {
                    assert!(a.first > b.first, "{a:?} {b:?}");
                }
            }
        }
    }
}
