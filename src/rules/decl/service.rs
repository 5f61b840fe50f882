//! Service rules: SERVICE_ADDED, SERVICE_REMOVED, SERVICE_OPTION_CHANGED and the RPC_* rules
//! (methods by name).

use crate::diff::{Pair, members};
use crate::schema::model::{Method, Service};

use super::super::options::{self, Kind};
use super::super::verdict::Severity::*;
use super::super::{Finding, RuleId};

use super::super::verdict::{Directions, Source, Verdict};
use super::{BOTH_BREAK, Ctx, f, option_findings, option_findings_with};

fn sig(m: &Method) -> String {
    let stream = |b: bool| if b { "stream " } else { "" };
    format!(
        "rpc {}({}{}) returns ({}{})",
        m.name,
        stream(m.client_streaming),
        m.input,
        stream(m.server_streaming),
        m.output
    )
}

/// Methods by name over a pair of services present on both sides.
fn methods<'a>(p: Pair<'a, Service>) -> Vec<(String, Option<&'a Method>, Option<&'a Method>)> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    members::methods(Some(o), Some(n))
        .into_iter()
        .map(|s| (format!("{}.{}", n.full_name, s.key), s.old, s.new))
        .collect()
}

/// A call to a method that the server's schema does not declare fails with UNIMPLEMENTED:
/// nothing is misread, but the call is lost — a break for old clients of a new server that
/// dropped the method (backward). Adding a method changes no data: old clients never call
/// it, and a new client calling it on an old server is a matter of deployment order
/// (servers first), which the finding's message notes rather than a verdict judges.
const UNSERVED_BACKWARD: Directions = Directions {
    backward: Breaking,
    forward: Safe,
};

pub(super) fn service_added(_: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    let (None, Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        RuleId::SERVICE_ADDED,
        &n.full_name,
        None,
        None,
        Some(format!("service {}", n.name)),
        Verdict::SAFE,
        true,
        format!(
            "{} added: no data changes; note that an old server answers a new client's calls with UNIMPLEMENTED, so deploy servers first",
            n.full_name
        ),
    )]
}

pub(super) fn service_removed(_: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    let (Some(o), None) = (p.old, p.new) else {
        return vec![];
    };
    vec![f(
        RuleId::SERVICE_REMOVED,
        &o.full_name,
        None,
        Some(format!("service {}", o.name)),
        None,
        Verdict {
            wire: UNSERVED_BACKWARD,
            json: UNSERVED_BACKWARD,
            source: Source::Breaking,
        },
        false,
        format!("{} removed: its calls fail with UNIMPLEMENTED", o.full_name),
    )]
}

pub(super) fn rpc_added(_: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    methods(p)
        .into_iter()
        .filter_map(|(elem, a, b)| match (a, b) {
            (None, Some(m)) => Some(f(
                RuleId::RPC_ADDED,
                &elem,
                None,
                None,
                Some(sig(m)),
                Verdict::SAFE,
                true,
                format!(
                    "{} added: no data changes; note that an old server answers a new client's call with UNIMPLEMENTED, so deploy servers first",
                    m.name
                ),
            )),
            _ => None,
        })
        .collect()
}

pub(super) fn rpc_removed(_: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    methods(p)
        .into_iter()
        .filter_map(|(elem, a, b)| match (a, b) {
            (Some(m), None) => Some(f(
                RuleId::RPC_REMOVED,
                &elem,
                None,
                Some(sig(m)),
                None,
                Verdict {
                    wire: UNSERVED_BACKWARD,
                    json: UNSERVED_BACKWARD,
                    source: Source::Breaking,
                },
                false,
                format!(
                    "{} removed: old clients' calls fail with UNIMPLEMENTED",
                    m.name
                ),
            )),
            _ => None,
        })
        .collect()
}

/// A changed request or response type: safe only when both have the same structure.
fn type_changed(
    ctx: &Ctx<'_>,
    p: Pair<'_, Service>,
    rule: RuleId,
    pick: fn(&Method) -> &String,
) -> Vec<Finding> {
    methods(p)
        .into_iter()
        .filter_map(|(elem, a, b)| {
            let (a, b) = (a?, b?);
            let (x, y) = (pick(a), pick(b));
            (x != y).then(|| {
                let s = crate::rules::field::structural(ctx.old, x, ctx.new, y);
                f(
                    rule,
                    &elem,
                    None,
                    Some(sig(a)),
                    Some(sig(b)),
                    Verdict {
                        wire: s.wire,
                        json: s.json,
                        source: Source::Breaking,
                    },
                    false,
                    format!("{x} -> {y}: {}", s.why),
                )
            })
        })
        .collect()
}

pub(super) fn rpc_input_changed(ctx: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    type_changed(ctx, p, RuleId::RPC_INPUT_CHANGED, |m| &m.input)
}

pub(super) fn rpc_output_changed(ctx: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    type_changed(ctx, p, RuleId::RPC_OUTPUT_CHANGED, |m| &m.output)
}

pub(super) fn rpc_streaming_changed(_: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    methods(p)
        .into_iter()
        .filter_map(|(elem, a, b)| {
            let (a, b) = (a?, b?);
            (a.client_streaming != b.client_streaming || a.server_streaming != b.server_streaming)
                .then(|| {
                    f(
                        RuleId::RPC_STREAMING_CHANGED,
                        &elem,
                        None,
                        Some(sig(a)),
                        Some(sig(b)),
                        Verdict {
                            wire: BOTH_BREAK,
                            json: BOTH_BREAK,
                            source: Source::Breaking,
                        },
                        false,
                        "streaming and unary calls are different protocols".into(),
                    )
                })
        })
        .collect()
}

pub(super) fn service_option_changed(_: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    let (Some(o), Some(n)) = (p.old, p.new) else {
        return vec![];
    };
    option_findings(
        RuleId::SERVICE_OPTION_CHANGED,
        Kind::Service,
        &n.full_name,
        &o.options,
        &n.options,
    )
}

/// Options of an rpc present on both sides, `deprecated` included: rpcs have no rule of
/// their own for it.
pub(super) fn rpc_option_changed(_: &Ctx<'_>, p: Pair<'_, Service>) -> Vec<Finding> {
    let plain = |s: Option<&Service>| {
        s.is_none_or(|s| {
            s.methods
                .values()
                .all(|m| m.options.is_empty() && !m.deprecated)
        })
    };
    if plain(p.old) && plain(p.new) {
        return vec![];
    }
    let mut out = Vec::new();
    for (elem, a, b) in methods(p) {
        let (Some(a), Some(b)) = (a, b) else { continue };
        if a.options == b.options && a.deprecated == b.deprecated {
            continue;
        }
        let (x, y) = (
            options::with_deprecated(&a.options, a.deprecated),
            options::with_deprecated(&b.options, b.deprecated),
        );
        let text = |c: &options::OptionChange<'_>, v: Option<&str>| c.text(v);
        option_findings_with(
            RuleId::RPC_OPTION_CHANGED,
            Kind::Method,
            &elem,
            None,
            &x,
            &y,
            text,
            &mut out,
        );
    }
    out
}
