//! Every fixture pair run the other way round: each change has its counterpart in the reverse,
//! with the verdicts' directions swapped, except for the listed rules and cells that
//! legitimately differ (each of which some fixture must need).

use std::collections::BTreeSet;

use super::{compile, root};
use protolapse::diff::pair_whole;
use protolapse::rules::{Change, Directions, RULES, RuleId, check};

/// The rule that reports a change seen the other way round (new -> old): an addition is a
/// removal and vice versa; every other rule is its own counterpart.
fn counterparts(rule: RuleId) -> &'static [RuleId] {
    match rule {
        RuleId::FILE_ADDED => &[RuleId::FILE_REMOVED],
        RuleId::FILE_REMOVED => &[RuleId::FILE_ADDED],
        RuleId::MESSAGE_ADDED => &[RuleId::MESSAGE_REMOVED],
        RuleId::MESSAGE_REMOVED => &[RuleId::MESSAGE_ADDED],
        RuleId::ENUM_ADDED => &[RuleId::ENUM_REMOVED],
        RuleId::ENUM_REMOVED => &[RuleId::ENUM_ADDED],
        RuleId::SERVICE_ADDED => &[RuleId::SERVICE_REMOVED],
        RuleId::SERVICE_REMOVED => &[RuleId::SERVICE_ADDED],
        RuleId::RPC_ADDED => &[RuleId::RPC_REMOVED],
        RuleId::RPC_REMOVED => &[RuleId::RPC_ADDED],
        RuleId::ONEOF_ADDED => &[RuleId::ONEOF_REMOVED],
        RuleId::ONEOF_REMOVED => &[RuleId::ONEOF_ADDED],
        RuleId::EXTENSION_ADDED => &[RuleId::EXTENSION_REMOVED],
        RuleId::EXTENSION_REMOVED => &[RuleId::EXTENSION_ADDED],
        RuleId::EXTENSION_RANGE_ADDED => &[RuleId::EXTENSION_RANGE_REMOVED],
        RuleId::EXTENSION_RANGE_REMOVED => &[RuleId::EXTENSION_RANGE_ADDED],
        RuleId::FIELD_ADDED => &[RuleId::FIELD_REMOVED, RuleId::FIELD_REMOVED_RESERVED],
        RuleId::FIELD_REMOVED | RuleId::FIELD_REMOVED_RESERVED => {
            &[RuleId::FIELD_ADDED, RuleId::FIELD_REQUIRED_ADDED]
        }
        // A field that became required, or a required field added (whose reverse is the
        // removal of a required field).
        RuleId::FIELD_REQUIRED_ADDED => &[
            RuleId::FIELD_REQUIRED_REMOVED,
            RuleId::FIELD_REMOVED,
            RuleId::FIELD_REMOVED_RESERVED,
        ],
        RuleId::FIELD_REQUIRED_REMOVED => &[RuleId::FIELD_REQUIRED_ADDED],
        RuleId::ENUM_VALUE_ADDED => &[
            RuleId::ENUM_VALUE_REMOVED,
            RuleId::ENUM_VALUE_REMOVED_RESERVED,
        ],
        RuleId::ENUM_VALUE_REMOVED | RuleId::ENUM_VALUE_REMOVED_RESERVED => {
            &[RuleId::ENUM_VALUE_ADDED]
        }
        _ => &[],
    }
}

/// Rules whose change has no counterpart in the reversed pair, and why.
const NO_COUNTERPART: &[(RuleId, &str)] = &[
    (
        RuleId::FIELD_RESERVED_NUMBER_REUSED,
        "judges data from before the reservation (a third, earlier version); the reverse \
         (number reserved again) is FIELD_REMOVED_RESERVED, matched to FIELD_ADDED",
    ),
    (
        RuleId::FIELD_RESERVED_NAME_REUSED,
        "judges JSON from before the reservation; the reverse is FIELD_REMOVED_RESERVED",
    ),
    (
        RuleId::ENUM_RESERVED_REUSED,
        "judges data from before the reservation; the reverse is ENUM_VALUE_REMOVED_RESERVED",
    ),
    (
        RuleId::RESERVED_RANGE_REMOVED,
        "the reverse adds a reservation, which no reader notices and no rule reports",
    ),
    (
        RuleId::RESERVED_NAME_REMOVED,
        "the reverse adds a reservation, which no reader notices and no rule reports",
    ),
];

/// Cells where a change and its reverse legitimately differ: (rule, level, direction of that
/// rule's own verdict, why). Each must be needed by some fixture.
const ASYMMETRIC: &[(RuleId, &str, &str, &str)] = &[
    (
        RuleId::FIELD_REMOVED,
        "wire",
        "backward",
        "a removal frees the number for reuse by a later version, which would misread old data; \
         the reverse addition reads the same bytes, but frees nothing",
    ),
    (
        RuleId::EXTENSION_REMOVED,
        "wire",
        "backward",
        "as FIELD_REMOVED: the extension's number is free for a later extension (which cannot \
         be prevented: extension numbers cannot be reserved); adding one frees nothing",
    ),
    (
        RuleId::EXTENSION_RANGE_REMOVED,
        "wire",
        "backward",
        "numbers leaving an extension range are free for fields that would misread old \
         extension data; numbers joining a range free nothing",
    ),
    (
        RuleId::RPC_REMOVED,
        "wire",
        "backward",
        "old clients call the removed method and get UNIMPLEMENTED; an added method is one \
         nobody calls yet (a new client on an old server is a deployment-order note)",
    ),
    (
        RuleId::RPC_REMOVED,
        "json",
        "backward",
        "as on the wire: calls of the removed method fail whatever the encoding",
    ),
    (
        RuleId::SERVICE_REMOVED,
        "wire",
        "backward",
        "old clients call the removed service and get UNIMPLEMENTED; an added service is one \
         nobody calls yet",
    ),
    (
        RuleId::SERVICE_REMOVED,
        "json",
        "backward",
        "as on the wire: calls of the removed service fail whatever the encoding",
    ),
];

fn cells(c: &Change) -> [(&'static str, Directions); 2] {
    [("wire", c.verdict.wire), ("json", c.verdict.json)]
}

fn parent(element: &str) -> &str {
    element.rsplit_once('.').map_or("", |(p, _)| p)
}

/// For every fixture pair (A, B), runs (B, A) too: each change of (A, B) has its counterpart
/// in (B, A) (same or paired rule, the two declarations swapped, same enclosing scope), and
/// the counterpart's backward verdict is the original's forward verdict and the other way
/// round, at the wire and JSON levels. (Source is not directional: removing breaks code,
/// adding does not.)
#[test]
fn fixture_verdicts_are_symmetric() {
    let mut failures = Vec::new();
    let mut used_no_counterpart = BTreeSet::new();
    let mut used_asymmetric = BTreeSet::new();
    let mut compared = 0;
    for r in RULES {
        let dir = root().join(r.id.as_str());
        let (a, b) = (compile(&dir.join("old")), compile(&dir.join("new")));
        let ab = check(&pair_whole(&a.content, &b.content), &a, &b);
        let ba = check(&pair_whole(&b.content, &a.content), &b, &a);
        for x in &ab {
            if let Some((rule, _)) = NO_COUNTERPART.iter().find(|(id, _)| *id == x.rule) {
                used_no_counterpart.insert(*rule);
                continue;
            }
            let want = counterparts(x.rule);
            let y = ba.iter().find(|y| {
                (y.rule == x.rule || want.contains(&y.rule))
                    && y.old == x.new
                    && y.new == x.old
                    && parent(&y.element) == parent(&x.element)
            });
            let Some(y) = y else {
                failures.push(format!(
                    "{}: {} on {} has no counterpart in the reverse: {:?}",
                    r.id,
                    x.rule,
                    x.element,
                    ba.iter().map(|c| (c.rule, &c.element)).collect::<Vec<_>>()
                ));
                continue;
            };
            compared += 1;
            for ((level, dx), (_, dy)) in cells(x).into_iter().zip(cells(y)) {
                for (dir_x, sx, dir_y, sy) in [
                    ("forward", dx.forward, "backward", dy.backward),
                    ("backward", dx.backward, "forward", dy.forward),
                ] {
                    if sx == sy {
                        continue;
                    }
                    let known = ASYMMETRIC.iter().find(|(id, l, d, _)| {
                        *l == level
                            && ((*id == x.rule && *d == dir_x) || (*id == y.rule && *d == dir_y))
                    });
                    match known {
                        Some((id, l, d, _)) => {
                            used_asymmetric.insert((*id, *l, *d));
                        }
                        None => failures.push(format!(
                            "{}: {} {level} {dir_x} is {} but the reverse {} {level} {dir_y} is {} ({})",
                            r.id,
                            x.rule,
                            sx.as_str(),
                            y.rule,
                            sy.as_str(),
                            x.element
                        )),
                    }
                }
            }
        }
    }
    for (id, why) in NO_COUNTERPART {
        assert!(
            used_no_counterpart.contains(id),
            "{id} is listed as having no counterpart ({why}) but no fixture shows it"
        );
    }
    for (id, l, d, _) in ASYMMETRIC {
        assert!(
            used_asymmetric.contains(&(*id, *l, *d)),
            "the asymmetry {id} {l} {d} is listed but no fixture shows it"
        );
    }
    assert!(compared >= 50, "only {compared} changes compared");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
