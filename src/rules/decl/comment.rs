//! COMMENT_CHANGED: comment-only changes on paired declarations.

use std::collections::HashMap;

use foldhash::{HashMap as FoldMap, HashSet};

use crate::diff::Pairing;
use crate::schema::Schema;
use crate::schema::model::{EnumValue, FileDocs};

use super::super::verdict::Verdict;
use super::super::{Finding, RuleId};
use super::f;

/// Comment-only changes on paired declarations (and their fields, values, methods), and on
/// paired extensions.
///
/// A declaration's docs, and those of its fields, values and methods, are in the file that
/// declares it: each is one look-up in that file's docs (not a search of the schema for the
/// file), and a file whose blob is the same on both sides (one docs map, shared) is skipped.
pub(super) fn comment_changed(p: &Pairing<'_>, old: &Schema, new: &Schema, out: &mut Vec<Finding>) {
    // The docs of the declaring files on both sides; None when they cannot differ.
    let docs = |fa: &str, fb: &str| -> Option<(Option<&FileDocs>, Option<&FileDocs>)> {
        let (da, db) = (old.docs.get(fa), new.docs.get(fb));
        if fa == fb
            && let (Some(x), Some(y)) = (da, db)
            && std::sync::Arc::ptr_eq(x, y)
        {
            return None;
        }
        Some((da.map(|d| &**d), db.map(|d| &**d)))
    };
    let mut cmp = Compare {
        out,
        ka: String::new(),
        kb: String::new(),
        differing: FoldMap::default(),
    };
    for m in &p.messages {
        let (Some(a), Some(b)) = (m.old, m.new) else {
            continue;
        };
        let Some(files) = docs(&a.file, &b.file) else {
            continue;
        };
        cmp.element(files, (&a.full_name, None), (&b.full_name, None));
        for (num, bf) in &b.fields {
            if let Some(af) = a.fields.get(num) {
                cmp.element(
                    files,
                    (&a.full_name, Some(&af.name)),
                    (&b.full_name, Some(&bf.name)),
                );
            }
        }
    }
    for e in &p.enums {
        let (Some(a), Some(b)) = (e.old, e.new) else {
            continue;
        };
        let Some(files) = docs(&a.file, &b.file) else {
            continue;
        };
        cmp.element(files, (&a.full_name, None), (&b.full_name, None));
        // The first value of each number (a lookup per value, not a scan).
        let mut first: HashMap<i32, &EnumValue> = HashMap::new();
        for v in &a.values {
            first.entry(v.number).or_insert(v);
        }
        for bv in &b.values {
            if let Some(av) = first.get(&bv.number) {
                cmp.element(
                    files,
                    (&a.full_name, Some(&av.name)),
                    (&b.full_name, Some(&bv.name)),
                );
            }
        }
    }
    for s in &p.services {
        let (Some(a), Some(b)) = (s.old, s.new) else {
            continue;
        };
        let Some(files) = docs(&a.file, &b.file) else {
            continue;
        };
        cmp.element(files, (&a.full_name, None), (&b.full_name, None));
        for name in b.methods.keys().filter(|k| a.methods.contains_key(*k)) {
            cmp.element(
                files,
                (&a.full_name, Some(name)),
                (&b.full_name, Some(name)),
            );
        }
    }
    for x in &p.extensions {
        let (Some(a), Some(b)) = (x.old, x.new) else {
            continue;
        };
        let Some(files) = docs(&a.file, &b.file) else {
            continue;
        };
        cmp.element(files, (&a.full_name, None), (&b.full_name, None));
    }
}

/// Compares the docs of paired elements, building their names in two reused buffers.
struct Compare<'o, 'd> {
    out: &'o mut Vec<Finding>,
    ka: String,
    kb: String,
    /// For each pair of docs maps met (by address), the names [`differing`] in them.
    differing: FoldMap<[usize; 2], HashSet<&'d str>>,
}

/// The names documented in both docs maps whose leading comments differ: one walk of the
/// two sorted maps side by side. Most declarations of a file keep their comments from one
/// version to the next; an element of the same name on both sides is then ruled out
/// without a look-up in each map (a long name compared in every B-tree node on the way).
fn differing<'d>(a: &'d FileDocs, b: &'d FileDocs) -> HashSet<&'d str> {
    let mut out = HashSet::default();
    let (mut x, mut y) = (a.iter().peekable(), b.iter().peekable());
    while let (Some((ka, da)), Some((kb, db))) = (x.peek(), y.peek()) {
        match ka.cmp(kb) {
            std::cmp::Ordering::Less => {
                x.next();
            }
            std::cmp::Ordering::Greater => {
                y.next();
            }
            std::cmp::Ordering::Equal => {
                if da.comment != db.comment {
                    out.insert(ka.as_str());
                }
                x.next();
                y.next();
            }
        }
    }
    out
}

impl<'d> Compare<'_, 'd> {
    /// The element `parent[.member]` on each side, looked up in its declaring file's docs.
    fn element(
        &mut self,
        (da, db): (Option<&'d FileDocs>, Option<&'d FileDocs>),
        a: (&str, Option<&str>),
        b: (&str, Option<&str>),
    ) {
        let (Some(da), Some(db)) = (da, db) else {
            return;
        };
        let key = |buf: &mut String, (parent, member): (&str, Option<&str>)| {
            buf.clear();
            buf.push_str(parent);
            if let Some(m) = member {
                buf.push('.');
                buf.push_str(m);
            }
        };
        key(&mut self.ka, a);
        key(&mut self.kb, b);
        if self.ka == self.kb {
            let maps = [da, db].map(|d| std::ptr::from_ref(d) as usize);
            let names = self
                .differing
                .entry(maps)
                .or_insert_with(|| differing(da, db));
            if !names.contains(self.ka.as_str()) {
                return;
            }
        }
        let (Some(x), Some(y)) = (da.get(&self.ka), db.get(&self.kb)) else {
            return;
        };
        if x.comment != y.comment {
            self.out.push(f(
                RuleId::COMMENT_CHANGED,
                &self.kb,
                None,
                Some(x.comment.to_string()),
                Some(y.comment.to_string()),
                Verdict::SAFE,
                false,
                "documentation only".into(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::model::Doc;
    use std::collections::BTreeMap;

    /// Two docs maps drawn from a few names and comments (a seeded generator): the walk finds the
    /// names documented in both whose comments differ, and only those.
    #[test]
    fn the_walk_finds_what_a_look_up_of_each_name_finds() {
        use proptest::prelude::Rng;
        use proptest::test_runner::{RngAlgorithm, TestRng};
        let mut rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
        let mut next = |m: u64| rng.next_u64() % m;
        let mut found = 0;
        for _ in 0..300 {
            let mut maps: [BTreeMap<String, Doc>; 2] = Default::default();
            for m in &mut maps {
                for _ in 0..next(30) {
                    let name = format!("p.M{}.f{}", next(4), next(6));
                    let doc = Doc {
                        file: "p.proto".into(),
                        line: next(100) as u32,
                        comment: ["", "a", "b"][next(3) as usize].into(),
                        trailing: "".into(),
                    };
                    m.insert(name, doc);
                }
            }
            let expected: HashSet<&str> = maps[0]
                .iter()
                .filter(|(k, d)| maps[1].get(*k).is_some_and(|e| e.comment != d.comment))
                .map(|(k, _)| k.as_str())
                .collect();
            found += expected.len();
            let [a, b] = maps.clone().map(|m| FileDocs::new(None, m));
            assert_eq!(differing(&a, &b), expected);
        }
        assert!(found > 100, "{found}");
    }
}
