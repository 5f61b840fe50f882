//! Extension rules, over the extensions `diff` paired by extended message and number.
//!
//! An extension only in the new version is EXTENSION_ADDED, only in the old one
//! EXTENSION_REMOVED. An extension in both is judged by the field rules (FIELD_TYPE_CHANGED,
//! FIELD_CARDINALITY_CHANGED, FIELD_RENAMED, FIELD_NUMBER_CHANGED, ...), reported on the
//! extension's full name: on the wire an extension *is* a field of the extended message, so
//! a type change reads exactly as the same type change of a field does, and one rule id, one
//! page and one ignore entry cover both. Where extensions differ — the ProtoJSON key is the
//! full name in brackets, so a new scope renames it — the field rules ask the extension for
//! its name (see `field::F`).

use crate::diff::{Pair, Pairing};
use crate::schema::decl;
use crate::schema::model::Extension;
use crate::schema::model::reads::Types;

use super::field::{F, changed, number_changed};
use super::verdict::Severity::*;
use super::verdict::{Directions, Source, Verdict};
use super::{Finding, RuleId};

/// The rules on a pair of extensions (paired by `diff`).
pub(super) fn check(p: &Pairing<'_>, pair: Pair<'_, Extension>, out: &mut Vec<Finding>) {
    match (pair.old, pair.new) {
        (None, Some(n)) => out.push(extension_added(n)),
        (Some(o), None) => out.push(extension_removed(o)),
        (Some(o), Some(n)) if o != n => both(p, pair, out),
        _ => {}
    }
}

fn extension_added(n: &Extension) -> Finding {
    Finding {
        rule: RuleId::EXTENSION_ADDED,
        element: n.full_name.clone(),
        number: Some(i64::from(n.field.number)),
        old: None,
        new: Some(decl::extension_short(n)),
        // Old binary readers keep it as an unknown field; old JSON readers meet the key
        // `[pkg.name]` they cannot resolve, as they meet an added field's key.
        verdict: Verdict {
            wire: Directions::SAFE,
            json: Directions {
                backward: Safe,
                forward: Hazard,
            },
            source: Source::Safe,
        },
        additive: true,
        message: format!(
            "extension [{}] of {} added at {}: old binary readers keep it as an unknown field; old JSON readers reject the key \"[{}]\" unless they ignore unknown fields",
            n.full_name, n.extendee, n.field.number, n.full_name
        ),
    }
}

fn extension_removed(o: &Extension) -> Finding {
    Finding {
        rule: RuleId::EXTENSION_REMOVED,
        element: o.full_name.clone(),
        number: Some(i64::from(o.field.number)),
        old: Some(decl::extension_short(o)),
        new: None,
        // As a removed field whose number is not reserved: old data reads as an unknown field
        // today, but the number is free for a later extension (anyone's, in the extended
        // message's ranges) that would misread it. Extension numbers cannot be reserved.
        verdict: Verdict {
            wire: Directions {
                backward: Hazard,
                forward: Safe,
            },
            json: Directions {
                backward: Hazard,
                forward: Safe,
            },
            source: Source::Breaking,
        },
        additive: false,
        message: format!(
            "extension [{}] of {} removed: number {} is free for a later extension that would misread old data; old JSON with the key \"[{}]\" is rejected unless unknown fields are ignored",
            o.full_name, o.extendee, o.field.number, o.full_name
        ),
    }
}

/// An extension in both versions: renumbered (the same full name under a new number), or
/// judged by the field rules.
fn both(p: &Pairing<'_>, pair: Pair<'_, Extension>, out: &mut Vec<Finding>) {
    let (Some(o), Some(n)) = (pair.old, pair.new) else {
        return;
    };
    // The extended message exists in a compiled pool; without it there is nothing to judge.
    let (Some(om), Some(nm)) = (
        p.old.messages.get(&o.extendee),
        p.new.messages.get(&n.extendee),
    ) else {
        return;
    };
    let (fo, fnew) = (
        F::extension(Types::of(p.old), om, o),
        F::extension(Types::of(p.new), nm, n),
    );
    if o.field.number != n.field.number {
        let old_reserved = super::field::reserved(nm, o.field.number);
        out.push(number_changed(&fo, &fnew, old_reserved));
    } else {
        changed(&fo, &fnew, out);
    }
}
