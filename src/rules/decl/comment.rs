//! COMMENT_CHANGED: comment-only changes on paired declarations.

use std::collections::HashMap;

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
struct Compare<'o> {
    out: &'o mut Vec<Finding>,
    ka: String,
    kb: String,
}

impl Compare<'_> {
    /// The element `parent[.member]` on each side, looked up in its declaring file's docs.
    fn element(
        &mut self,
        (da, db): (Option<&FileDocs>, Option<&FileDocs>),
        a: (&str, Option<&str>),
        b: (&str, Option<&str>),
    ) {
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
        let (Some(x), Some(y)) = (
            da.and_then(|d| d.get(&self.ka)),
            db.and_then(|d| d.get(&self.kb)),
        ) else {
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
