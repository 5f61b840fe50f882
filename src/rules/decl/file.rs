//! File rules: FILE_ADDED, FILE_REMOVED, PACKAGE_CHANGED, SYNTAX_CHANGED, FILE_OPTION_CHANGED.

use std::collections::BTreeSet;

use crate::diff::Pair;
use crate::schema::model::File;

use super::super::verdict::Verdict;
use super::super::{Finding, RuleId};
use super::{Ctx, f, source_only};

/// File options that change generated code.
const CODEGEN_OPTIONS: &[&str] = &[
    "go_package",
    "java_package",
    "java_outer_classname",
    "java_multiple_files",
    "csharp_namespace",
    "objc_class_prefix",
    "php_namespace",
    "php_metadata_namespace",
    "ruby_package",
    "swift_prefix",
    "optimize_for",
    "cc_enable_arenas",
];

pub(super) fn file_added(_: &Ctx<'_>, p: Pair<'_, File>) -> Vec<Finding> {
    let (None, Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        RuleId::FILE_ADDED,
        &n.name,
        None,
        None,
        Some(n.name.clone()),
        Verdict::SAFE,
        true,
        format!("{} added", n.name),
    )]
}

pub(super) fn file_removed(_: &Ctx<'_>, p: Pair<'_, File>) -> Vec<Finding> {
    let (Some(o), None) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        RuleId::FILE_REMOVED,
        &o.name,
        None,
        Some(o.name.clone()),
        None,
        source_only(),
        false,
        format!("{} removed: code importing it no longer builds", o.name),
    )]
}

pub(super) fn package_changed(_: &Ctx<'_>, p: Pair<'_, File>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    if o.package == n.package {
        return vec![];
    }
    vec![f(
        RuleId::PACKAGE_CHANGED,
        &n.name,
        None,
        Some(format!("package {}", o.package)),
        Some(format!("package {}", n.package)),
        source_only(),
        false,
        "every type in the file has a new full name: generated code moves, Any type URLs change"
            .into(),
    )]
}

/// Edition 2024 moved the defaults of language features that protolapse does not model: C++
/// `string_type = VIEW` (string_view accessors), Java `nest_in_file_class = NO`, Go
/// `api_level = API_OPAQUE` (accessors instead of struct fields).
const LANGUAGE_DEFAULTS_MOVED: u32 = 2024;

/// Every consequence of a syntax or edition change for data — presence, packing, closed enums,
/// UTF-8 checks, JSON format, delimited encoding, visibility — is a resolved feature of the
/// field, message or enum it touches, judged there by its own rule. A migration that keeps
/// every feature changes nothing on the wire or in JSON. Generated code changes when one
/// side is edition 2024 or later, whose language defaults differ (unless the file sets them
/// back, which the model cannot see).
pub(super) fn syntax_changed(_: &Ctx<'_>, p: Pair<'_, File>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    if o.syntax == n.syntax {
        return vec![];
    }
    let moved = |f: &File| f.edition.is_some_and(|e| e >= LANGUAGE_DEFAULTS_MOVED);
    let (verdict, message) = if moved(o) || moved(n) {
        (
            source_only(),
            "edition 2024 moves language defaults (C++ string_view accessors, Java classes out of the file class, Go's Opaque API): generated code changes unless the file sets them back; data changes are reported on the fields and enums they touch",
        )
    } else {
        (
            Verdict::SAFE,
            "the same bytes and JSON unless a feature changed, which is reported on the field, message or enum it touches",
        )
    };
    vec![f(
        RuleId::SYNTAX_CHANGED,
        &n.name,
        None,
        Some(o.syntax.clone()),
        Some(n.syntax.clone()),
        verdict,
        false,
        message.into(),
    )]
}

pub(super) fn file_option_changed(_: &Ctx<'_>, p: Pair<'_, File>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    let keys: BTreeSet<&String> = o.options.keys().chain(n.options.keys()).collect();
    keys.into_iter()
        .filter(|k| o.options.get(*k) != n.options.get(*k))
        .map(|k| {
            let codegen = CODEGEN_OPTIONS.contains(&k.as_str());
            let verdict = if codegen {
                source_only()
            } else {
                Verdict::SAFE
            };
            f(
                RuleId::FILE_OPTION_CHANGED,
                &n.name,
                None,
                o.options.get(k).map(|v| format!("option {k} = {v}")),
                n.options.get(k).map(|v| format!("option {k} = {v}")),
                verdict,
                false,
                if codegen {
                    format!("{k} decides where generated code lives")
                } else {
                    format!("{k} does not change the encoding")
                },
            )
        })
        .collect()
}
