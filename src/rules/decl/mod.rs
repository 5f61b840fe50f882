//! Rules on declarations — files, messages (with oneofs and reservations), enums and their
//! values, the editions features of messages and enums, services and rpcs, comments — one
//! small function per rule, listed per element kind in a table. Each function looks at one
//! old/new pair and returns what it finds.

mod comment;
mod enums;
mod features;
mod file;
mod message;
mod service;

use crate::diff::{Pair, Pairing};
use crate::schema::Schema;
use crate::schema::model::{Enum, File, Message, Service};

use super::verdict::Severity::*;
use super::verdict::{Directions, Source, Verdict};
use super::{Finding, RuleId};
use crate::schema::model::reads::Types;

/// The two schemas a rule may look into (for structural comparison).
pub(in crate::rules) struct Ctx<'a> {
    pub old: Types<'a>,
    pub new: Types<'a>,
}

/// A rule over one pair of declarations of kind `T`.
pub(super) type Rule<T> = fn(&Ctx<'_>, Pair<'_, T>) -> Vec<Finding>;

const FILE_RULES: &[Rule<File>] = &[
    file::file_added,
    file::file_removed,
    file::package_changed,
    file::syntax_changed,
    file::file_option_changed,
];

const MESSAGE_RULES: &[Rule<Message>] = &[
    message::message_added,
    message::message_removed,
    message::message_renamed,
    message::message_moved,
    features::message_visibility_changed,
    message::message_option_changed,
    features::message_json_format_changed,
    message::oneof_renamed,
    message::oneof_removed,
    message::oneof_added,
    message::reserved_range_removed,
    message::reserved_name_removed,
    message::extension_range_removed,
    message::extension_range_added,
];

const ENUM_RULES: &[Rule<Enum>] = &[
    enums::enum_added,
    enums::enum_removed,
    enums::enum_moved,
    features::enum_visibility_changed,
    enums::enum_closed_changed,
    features::enum_json_format_changed,
    enums::enum_value_number_changed,
    enums::enum_value_removed,
    enums::enum_value_removed_reserved,
    enums::enum_value_added,
    enums::enum_reserved_reused,
    enums::enum_value_renamed,
    enums::enum_option_changed,
    enums::enum_value_option_changed,
];

const SERVICE_RULES: &[Rule<Service>] = &[
    service::service_added,
    service::service_removed,
    service::rpc_added,
    service::rpc_removed,
    service::rpc_input_changed,
    service::rpc_output_changed,
    service::rpc_streaming_changed,
    service::service_option_changed,
    service::rpc_option_changed,
];

const BOTH_BREAK: Directions = Directions {
    backward: Breaking,
    forward: Breaking,
};

#[allow(clippy::too_many_arguments)] // a plain constructor: one argument per field
fn f(
    rule: RuleId,
    element: &str,
    number: Option<i64>,
    old: Option<String>,
    new: Option<String>,
    verdict: Verdict,
    additive: bool,
    message: String,
) -> Finding {
    Finding {
        rule,
        element: element.to_string(),
        number,
        old,
        new,
        verdict,
        additive,
        message,
    }
}

/// [`option_findings_with`], each side written as `option = value`.
fn option_findings(
    rule: RuleId,
    kind: super::options::Kind,
    element: &str,
    old: &crate::schema::model::Options,
    new: &crate::schema::model::Options,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let text = |c: &super::options::OptionChange<'_>, v: Option<&str>| c.text(v);
    option_findings_with(rule, kind, element, None, old, new, text, &mut out);
    out
}

/// One finding of `rule` per option that differs between `old` and `new` (the options of
/// one declaration), judged for its `kind`; `text` writes a side's declaration.
#[allow(clippy::too_many_arguments)] // the finding's fields, as `f` takes them
fn option_findings_with(
    rule: RuleId,
    kind: super::options::Kind,
    element: &str,
    number: Option<i64>,
    old: &crate::schema::model::Options,
    new: &crate::schema::model::Options,
    text: impl Fn(&super::options::OptionChange<'_>, Option<&str>) -> Option<String>,
    out: &mut Vec<Finding>,
) {
    for c in super::options::differing(old, new) {
        let (verdict, message) = super::options::judge(kind, &c);
        out.push(f(
            rule,
            element,
            number,
            text(&c, c.old),
            text(&c, c.new),
            verdict,
            false,
            message,
        ));
    }
}

/// Only generated code breaks.
fn source_only() -> Verdict {
    Verdict {
        source: Source::Breaking,
        ..Verdict::SAFE
    }
}

fn run<T>(ctx: &Ctx<'_>, pair: Pair<'_, T>, rules: &[Rule<T>], out: &mut Vec<Finding>) {
    for rule in rules {
        out.extend(rule(ctx, pair));
    }
}

impl<'a> Ctx<'a> {
    pub(super) fn of(p: &Pairing<'a>) -> Self {
        Ctx {
            old: Types::of(p.old),
            new: Types::of(p.new),
        }
    }
}

/// The rules on a pair of files.
pub(super) fn file(ctx: &Ctx<'_>, pair: Pair<'_, File>, out: &mut Vec<Finding>) {
    run(ctx, pair, FILE_RULES, out);
}

/// The rules on a pair of messages, as declarations (their fields: `field::message_pair`).
pub(super) fn message(ctx: &Ctx<'_>, pair: Pair<'_, Message>, out: &mut Vec<Finding>) {
    run(ctx, pair, MESSAGE_RULES, out);
}

/// The rules on a pair of enums and their values.
pub(super) fn enumeration(ctx: &Ctx<'_>, pair: Pair<'_, Enum>, out: &mut Vec<Finding>) {
    run(ctx, pair, ENUM_RULES, out);
}

/// The rules on a pair of services and their rpcs.
pub(super) fn service(ctx: &Ctx<'_>, pair: Pair<'_, Service>, out: &mut Vec<Finding>) {
    run(ctx, pair, SERVICE_RULES, out);
}

/// COMMENT_CHANGED, over every paired declaration.
pub(super) fn comments(p: &Pairing<'_>, old: &Schema, new: &Schema, out: &mut Vec<Finding>) {
    comment::comment_changed(p, old, new, out);
}
