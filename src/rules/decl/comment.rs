//! COMMENT_CHANGED: comment-only changes on paired declarations.

use crate::diff::Pairing;
use crate::schema::Schema;
use crate::schema::model::{Doc, Extension};

use super::super::verdict::Verdict;
use super::super::{Finding, RuleId};
use super::f;

/// Comment-only changes on paired declarations (and their fields, values, methods), and on
/// paired extensions.
pub(super) fn comment_changed<'a>(
    p: &Pairing<'_>,
    old: &'a Schema,
    new: &'a Schema,
    out: &mut Vec<Finding>,
) {
    // Docs come from the blob: the same file blob on both sides has the same comments.
    let unchanged = |fa: &str, fb: &str| {
        fa == fb
            && match (old.docs.get(fa), new.docs.get(fb)) {
                (Some(x), Some(y)) => std::sync::Arc::ptr_eq(x, y),
                _ => false,
            }
    };
    let mut elements: Vec<(String, String)> = Vec::new();
    for m in &p.messages {
        if let (Some(a), Some(b)) = (m.old, m.new) {
            if unchanged(&a.file, &b.file) {
                continue;
            }
            elements.push((a.full_name.clone(), b.full_name.clone()));
            for (num, bf) in &b.fields {
                if let Some(af) = a.fields.get(num) {
                    elements.push((
                        format!("{}.{}", a.full_name, af.name),
                        format!("{}.{}", b.full_name, bf.name),
                    ));
                }
            }
        }
    }
    for e in &p.enums {
        if let (Some(a), Some(b)) = (e.old, e.new) {
            if unchanged(&a.file, &b.file) {
                continue;
            }
            elements.push((a.full_name.clone(), b.full_name.clone()));
            // The first value of each number (a lookup per value, not a scan).
            let mut first: std::collections::HashMap<i32, &crate::schema::model::EnumValue> =
                std::collections::HashMap::new();
            for v in &a.values {
                first.entry(v.number).or_insert(v);
            }
            for bv in &b.values {
                if let Some(av) = first.get(&bv.number) {
                    elements.push((
                        format!("{}.{}", a.full_name, av.name),
                        format!("{}.{}", b.full_name, bv.name),
                    ));
                }
            }
        }
    }
    for s in &p.services {
        if let (Some(a), Some(b)) = (s.old, s.new) {
            if unchanged(&a.file, &b.file) {
                continue;
            }
            elements.push((a.full_name.clone(), b.full_name.clone()));
            for name in b.methods.keys().filter(|k| a.methods.contains_key(*k)) {
                elements.push((
                    format!("{}.{name}", a.full_name),
                    format!("{}.{name}", b.full_name),
                ));
            }
        }
    }
    // (element, old doc, new doc) of every pair compared.
    let mut docs: Vec<(String, Option<&Doc>, Option<&Doc>)> = elements
        .into_iter()
        .map(|(a, b)| (old.doc(&a), new.doc(&b), b))
        .map(|(da, db, b)| (b, da, db))
        .collect();
    // Extensions: their files are known, so their docs are one look-up each.
    let ext_doc = |s: &'a Schema, e: &Extension| s.docs.get(&e.file)?.get(&e.full_name);
    for x in &p.extensions {
        if let (Some(a), Some(b)) = (x.old, x.new)
            && !unchanged(&a.file, &b.file)
        {
            docs.push((b.full_name.clone(), ext_doc(old, a), ext_doc(new, b)));
        }
    }
    for (b, da, db) in docs {
        let (Some(da), Some(db)) = (da, db) else {
            continue;
        };
        if da.comment != db.comment {
            out.push(f(
                RuleId::COMMENT_CHANGED,
                &b,
                None,
                Some(da.comment.to_string()),
                Some(db.comment.to_string()),
                Verdict::SAFE,
                false,
                "documentation only".into(),
            ));
        }
    }
}
