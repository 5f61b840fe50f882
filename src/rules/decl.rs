//! Rules on declarations: files, messages, oneofs, reservations, enums and their values,
//! services and rpcs, and comments.

use std::collections::BTreeSet;

use crate::diff::{Pairing, same_shape};
use crate::schema::Schema;
use crate::schema::model::{Content, Enum, Message, Service};

use super::Finding;
use super::verdict::Severity::*;
use super::verdict::{Directions, Source, Verdict};

const BOTH_BREAK: Directions = Directions {
    backward: Breaking,
    forward: Breaking,
};

#[allow(clippy::too_many_arguments)] // a plain constructor: one argument per field
fn f(
    rule: &'static str,
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

fn source_only() -> Verdict {
    Verdict {
        source: Source::Breaking,
        ..Verdict::SAFE
    }
}

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

pub(super) fn check(p: &Pairing<'_>, old: &Schema, new: &Schema, out: &mut Vec<Finding>) {
    files(p, out);
    for m in &p.messages {
        message(p, m.old, m.new, out);
    }
    for e in &p.enums {
        enumeration(e.old, e.new, out);
    }
    for s in &p.services {
        service(p.old, p.new, s.old, s.new, out);
    }
    comments(p, old, new, out);
}

fn files(p: &Pairing<'_>, out: &mut Vec<Finding>) {
    for pair in &p.files {
        match (pair.old, pair.new) {
            (None, Some(n)) => out.push(f(
                "FILE_ADDED",
                &n.name,
                None,
                None,
                Some(n.name.clone()),
                Verdict::SAFE,
                true,
                format!("{} added", n.name),
            )),
            (Some(o), None) => out.push(f(
                "FILE_REMOVED",
                &o.name,
                None,
                Some(o.name.clone()),
                None,
                source_only(),
                false,
                format!("{} removed: code importing it no longer builds", o.name),
            )),
            (Some(o), Some(n)) => {
                if o.package != n.package {
                    out.push(f("PACKAGE_CHANGED", &n.name, None, Some(format!("package {}", o.package)), Some(format!("package {}", n.package)), source_only(), false,
                        "every type in the file has a new full name: generated code moves, Any type URLs change".into()));
                }
                if o.syntax != n.syntax {
                    out.push(f("SYNTAX_CHANGED", &n.name, None, Some(o.syntax.clone()), Some(n.syntax.clone()), Verdict { wire: Directions { backward: Hazard, forward: Hazard }, ..source_only() }, false,
                        "presence, enum closedness, packing and UTF-8 checks follow the syntax; see the field changes".into()));
                }
                let keys: BTreeSet<&String> = o.options.keys().chain(n.options.keys()).collect();
                for k in keys {
                    let (a, b) = (o.options.get(k), n.options.get(k));
                    if a == b {
                        continue;
                    }
                    let codegen = CODEGEN_OPTIONS.contains(&k.as_str());
                    let verdict = if codegen {
                        source_only()
                    } else {
                        Verdict::SAFE
                    };
                    out.push(f(
                        "FILE_OPTION_CHANGED",
                        &n.name,
                        None,
                        a.map(|v| format!("option {k} = {v}")),
                        b.map(|v| format!("option {k} = {v}")),
                        verdict,
                        false,
                        if codegen {
                            format!("{k} decides where generated code lives")
                        } else {
                            format!("{k} does not change the encoding")
                        },
                    ));
                }
            }
            (None, None) => {}
        }
    }
}

fn message(p: &Pairing<'_>, o: Option<&Message>, n: Option<&Message>, out: &mut Vec<Finding>) {
    match (o, n) {
        (None, Some(n)) => out.push(f(
            "MESSAGE_ADDED",
            &n.full_name,
            None,
            None,
            Some(format!("message {}", n.name)),
            Verdict::SAFE,
            true,
            format!("{} added", n.full_name),
        )),
        (Some(o), None) => out.push(f(
            "MESSAGE_REMOVED",
            &o.full_name,
            None,
            Some(format!("message {}", o.name)),
            None,
            source_only(),
            false,
            format!("{} removed: code using it no longer builds", o.full_name),
        )),
        (Some(o), Some(n)) => {
            if o.full_name != n.full_name {
                if same_shape(p.old, &o.full_name, p.new, &n.full_name) {
                    out.push(f("MESSAGE_RENAMED", &n.full_name, None, Some(o.full_name.clone()), Some(n.full_name.clone()), source_only(), false,
                        format!("{} is now {} with the same structure: binary and JSON unchanged (but Any type URLs)", o.full_name, n.full_name)));
                }
            } else if o.file != n.file {
                out.push(f(
                    "MESSAGE_MOVED",
                    &n.full_name,
                    None,
                    Some(o.file.clone()),
                    Some(n.file.clone()),
                    source_only(),
                    false,
                    format!(
                        "moved from {} to {}: imports of generated code change",
                        o.file, n.file
                    ),
                ));
            }
            if o.options != n.options {
                let msgset = o.options.get("message_set_wire_format")
                    != n.options.get("message_set_wire_format");
                let verdict = if msgset {
                    Verdict {
                        wire: BOTH_BREAK,
                        ..Verdict::SAFE
                    }
                } else {
                    Verdict::SAFE
                };
                out.push(f(
                    "MESSAGE_OPTION_CHANGED",
                    &n.full_name,
                    None,
                    Some(format!("{:?}", o.options)),
                    Some(format!("{:?}", n.options)),
                    verdict,
                    false,
                    if msgset {
                        "message_set_wire_format changes the encoding".into()
                    } else {
                        "options that do not change the encoding".into()
                    },
                ));
            }
            oneofs(o, n, out);
            reservations(o, n, out);
        }
        (None, None) => {}
    }
}

fn oneofs(o: &Message, n: &Message, out: &mut Vec<Finding>) {
    let real = |m: &Message| {
        m.oneofs
            .iter()
            .filter(|x| !x.synthetic)
            .cloned()
            .collect::<Vec<_>>()
    };
    let (a, b) = (real(o), real(n));
    let mut renamed = BTreeSet::new();
    for x in &a {
        if b.iter().any(|y| y.name == x.name) {
            continue;
        }
        let mut members: Vec<u32> = x.fields.clone();
        members.sort();
        if let Some(y) = b.iter().find(|y| {
            let mut m = y.fields.clone();
            m.sort();
            m == members && !a.iter().any(|z| z.name == y.name)
        }) {
            renamed.insert(y.name.clone());
            out.push(f(
                "ONEOF_RENAMED",
                &format!("{}.{}", n.full_name, y.name),
                None,
                Some(format!("oneof {}", x.name)),
                Some(format!("oneof {}", y.name)),
                source_only(),
                false,
                format!(
                    "oneof {} is now {}: same members, new accessors",
                    x.name, y.name
                ),
            ));
        } else {
            out.push(f(
                "ONEOF_REMOVED",
                &format!("{}.{}", o.full_name, x.name),
                None,
                Some(format!("oneof {}", x.name)),
                None,
                source_only(),
                false,
                format!("oneof {} removed", x.name),
            ));
        }
    }
    for y in &b {
        if !a.iter().any(|x| x.name == y.name) && !renamed.contains(&y.name) {
            out.push(f(
                "ONEOF_ADDED",
                &format!("{}.{}", n.full_name, y.name),
                None,
                None,
                Some(format!("oneof {}", y.name)),
                Verdict::SAFE,
                true,
                format!("oneof {} added", y.name),
            ));
        }
    }
}

fn reservations(o: &Message, n: &Message, out: &mut Vec<Finding>) {
    let covered = |m: &Message, a: u32, b: u32| {
        (a..=b).all(|x| {
            m.reserved_ranges
                .iter()
                .any(|(s, e)| (*s..=*e).contains(&x))
                || m.fields.contains_key(&x)
        })
    };
    for (a, b) in &o.reserved_ranges {
        // Ranges can be huge (`to max`): check the ends and a bounded sample.
        let ok = if b - a > 4096 {
            covered(n, *a, *a) && covered(n, *b, *b)
        } else {
            covered(n, *a, *b)
        };
        if !ok {
            let text = if a == b {
                format!("reserved {a}")
            } else {
                format!("reserved {a} to {b}")
            };
            out.push(f(
                "RESERVED_RANGE_REMOVED",
                &o.full_name,
                Some(i64::from(*a)),
                Some(text),
                None,
                Verdict {
                    wire: Directions {
                        backward: Hazard,
                        forward: Hazard,
                    },
                    ..Verdict::SAFE
                },
                false,
                "a reservation was dropped: the numbers may be reused and misread old data".into(),
            ));
        }
    }
    for name in &o.reserved_names {
        if !n.reserved_names.contains(name) && !n.fields.values().any(|f| &f.name == name) {
            out.push(f(
                "RESERVED_NAME_REMOVED",
                &o.full_name,
                None,
                Some(format!("reserved \"{name}\"")),
                None,
                Verdict {
                    json: Directions {
                        backward: Hazard,
                        forward: Hazard,
                    },
                    ..Verdict::SAFE
                },
                false,
                format!("the name {name} may be reused and misread old JSON"),
            ));
        }
    }
}

fn enumeration(o: Option<&Enum>, n: Option<&Enum>, out: &mut Vec<Finding>) {
    let (o, n) = match (o, n) {
        (None, Some(n)) => {
            return out.push(f(
                "ENUM_ADDED",
                &n.full_name,
                None,
                None,
                Some(format!("enum {}", n.name)),
                Verdict::SAFE,
                true,
                format!("{} added", n.full_name),
            ));
        }
        (Some(o), None) => {
            return out.push(f(
                "ENUM_REMOVED",
                &o.full_name,
                None,
                Some(format!("enum {}", o.name)),
                None,
                source_only(),
                false,
                format!("{} removed", o.full_name),
            ));
        }
        (Some(o), Some(n)) => (o, n),
        (None, None) => return,
    };
    if o.full_name == n.full_name && o.file != n.file {
        out.push(f(
            "ENUM_MOVED",
            &n.full_name,
            None,
            Some(o.file.clone()),
            Some(n.file.clone()),
            source_only(),
            false,
            format!("moved from {} to {}", o.file, n.file),
        ));
    }
    if o.closed != n.closed {
        let read = |w: &Enum, r: &Enum| if r.closed && !w.closed { Lossy } else { Safe };
        let d = Directions::of(o, n, read);
        out.push(f(
            "ENUM_CLOSED_CHANGED",
            &n.full_name,
            None,
            Some(closed_text(o)),
            Some(closed_text(n)),
            Verdict {
                wire: d,
                json: Directions::SAFE,
                source: Source::Breaking,
            },
            false,
            "a closed enum drops unknown numbers into unknown fields; an open one keeps them"
                .into(),
        ));
    }
    let elem = |name: &str| format!("{}.{}", n.full_name, name);
    let numbers: BTreeSet<i32> = o.values.iter().chain(&n.values).map(|v| v.number).collect();
    let mut renumbered = BTreeSet::new();
    for ov in &o.values {
        if let Some(nv) = n
            .values
            .iter()
            .find(|v| v.name == ov.name && v.number != ov.number)
            && value(o, nv.number).is_none_or(|x| x.name != nv.name)
        {
            renumbered.insert(ov.number);
            renumbered.insert(nv.number);
            out.push(f(
                "ENUM_VALUE_NUMBER_CHANGED",
                &elem(&nv.name),
                Some(i64::from(nv.number)),
                Some(format!("{} = {}", ov.name, ov.number)),
                Some(format!("{} = {}", nv.name, nv.number)),
                Verdict {
                    wire: BOTH_BREAK,
                    ..Verdict::SAFE
                },
                false,
                format!(
                    "{} moved from {} to {}: binary data means another value",
                    nv.name, ov.number, nv.number
                ),
            ));
        }
    }
    let reserved = |e: &Enum, x: i32| {
        e.reserved_ranges
            .iter()
            .any(|(a, b)| (*a..=*b).contains(&x))
    };
    for num in numbers {
        if renumbered.contains(&num) {
            continue;
        }
        match (value(o, num), value(n, num)) {
            (Some(ov), None) => {
                let res = reserved(n, num);
                let wire_back = if o.closed || n.closed {
                    Lossy
                } else if res {
                    Safe
                } else {
                    Hazard
                };
                out.push(f(if res { "ENUM_VALUE_REMOVED_RESERVED" } else { "ENUM_VALUE_REMOVED" }, &format!("{}.{}", o.full_name, ov.name), Some(i64::from(num)), Some(format!("{} = {num}", ov.name)), None,
                    Verdict { wire: Directions { backward: wire_back, forward: Safe }, json: Directions { backward: Breaking, forward: Safe }, source: Source::Breaking }, false,
                    format!("{} removed{}: old data with it reads as an unknown number; old JSON with its name is rejected", ov.name, if res { " (number reserved)" } else { " without reserving its number" })));
            }
            (None, Some(nv)) => {
                let wire_fwd = if o.closed { Lossy } else { Hazard };
                out.push(f(
                    "ENUM_VALUE_ADDED",
                    &elem(&nv.name),
                    Some(i64::from(num)),
                    None,
                    Some(format!("{} = {num}", nv.name)),
                    Verdict {
                        wire: Directions {
                            backward: Safe,
                            forward: wire_fwd,
                        },
                        json: Directions {
                            backward: Safe,
                            forward: Hazard,
                        },
                        source: Source::Safe,
                    },
                    true,
                    format!("{} added: old readers see an unknown value", nv.name),
                ));
                if reserved(o, num) || o.reserved_names.contains(&nv.name) {
                    out.push(f("ENUM_RESERVED_REUSED", &elem(&nv.name), Some(i64::from(num)), None, Some(format!("{} = {num}", nv.name)),
                        Verdict { wire: Directions { backward: Breaking, forward: Hazard }, json: Directions { backward: Breaking, forward: Hazard }, source: Source::Safe }, false,
                        format!("{} uses a reserved number or name: data from before the reservation means something else", nv.name)));
                }
            }
            (Some(ov), Some(nv)) if ov.name != nv.name => {
                out.push(f(
                    "ENUM_VALUE_RENAMED",
                    &elem(&nv.name),
                    Some(i64::from(num)),
                    Some(format!("{} = {num}", ov.name)),
                    Some(format!("{} = {num}", nv.name)),
                    Verdict {
                        wire: Directions::SAFE,
                        json: BOTH_BREAK,
                        source: Source::Breaking,
                    },
                    false,
                    format!(
                        "{} renamed to {}: binary unchanged; JSON uses the name",
                        ov.name, nv.name
                    ),
                ));
            }
            _ => {}
        }
    }
}

fn value(e: &Enum, num: i32) -> Option<&crate::schema::model::EnumValue> {
    e.values.iter().find(|v| v.number == num)
}

fn closed_text(e: &Enum) -> String {
    format!(
        "enum {} ({})",
        e.name,
        if e.closed { "closed" } else { "open" }
    )
}

fn service(
    oc: &Content,
    nc: &Content,
    o: Option<&Service>,
    n: Option<&Service>,
    out: &mut Vec<Finding>,
) {
    let (o, n) = match (o, n) {
        (None, Some(n)) => {
            return out.push(f(
                "SERVICE_ADDED",
                &n.full_name,
                None,
                None,
                Some(format!("service {}", n.name)),
                Verdict::SAFE,
                true,
                format!("{} added", n.full_name),
            ));
        }
        (Some(o), None) => {
            return out.push(f(
                "SERVICE_REMOVED",
                &o.full_name,
                None,
                Some(format!("service {}", o.name)),
                None,
                Verdict {
                    wire: Directions {
                        backward: Breaking,
                        forward: Safe,
                    },
                    json: Directions {
                        backward: Breaking,
                        forward: Safe,
                    },
                    source: Source::Breaking,
                },
                false,
                format!("{} removed: its calls fail with UNIMPLEMENTED", o.full_name),
            ));
        }
        (Some(o), Some(n)) => (o, n),
        (None, None) => return,
    };
    let names: BTreeSet<&String> = o.methods.keys().chain(n.methods.keys()).collect();
    let sig = |m: &crate::schema::model::Method| {
        format!(
            "rpc {}({}{}) returns ({}{})",
            m.name,
            if m.client_streaming { "stream " } else { "" },
            m.input,
            if m.server_streaming { "stream " } else { "" },
            m.output
        )
    };
    for name in names {
        let elem = format!("{}.{}", n.full_name, name);
        match (o.methods.get(name), n.methods.get(name)) {
            (None, Some(m)) => out.push(f(
                "RPC_ADDED",
                &elem,
                None,
                None,
                Some(sig(m)),
                Verdict {
                    wire: Directions {
                        backward: Safe,
                        forward: Hazard,
                    },
                    json: Directions {
                        backward: Safe,
                        forward: Hazard,
                    },
                    source: Source::Safe,
                },
                true,
                format!("{name} added: old servers answer UNIMPLEMENTED"),
            )),
            (Some(m), None) => out.push(f(
                "RPC_REMOVED",
                &elem,
                None,
                Some(sig(m)),
                None,
                Verdict {
                    wire: Directions {
                        backward: Breaking,
                        forward: Safe,
                    },
                    json: Directions {
                        backward: Breaking,
                        forward: Safe,
                    },
                    source: Source::Breaking,
                },
                false,
                format!("{name} removed: old clients' calls fail with UNIMPLEMENTED"),
            )),
            (Some(a), Some(b)) => {
                for (rule, x, y) in [
                    ("RPC_INPUT_CHANGED", &a.input, &b.input),
                    ("RPC_OUTPUT_CHANGED", &a.output, &b.output),
                ] {
                    if x != y {
                        let same = same_shape(oc, x, nc, y);
                        let d = if same { Directions::SAFE } else { BOTH_BREAK };
                        out.push(f(
                            rule,
                            &elem,
                            None,
                            Some(sig(a)),
                            Some(sig(b)),
                            Verdict {
                                wire: d,
                                json: d,
                                source: Source::Breaking,
                            },
                            false,
                            format!(
                                "{x} -> {y}: {}",
                                if same {
                                    "the same structure under another name"
                                } else {
                                    "a different structure"
                                }
                            ),
                        ));
                    }
                }
                if a.client_streaming != b.client_streaming
                    || a.server_streaming != b.server_streaming
                {
                    out.push(f(
                        "RPC_STREAMING_CHANGED",
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
                    ));
                }
            }
            (None, None) => {}
        }
    }
}

/// Comment-only changes on paired declarations (and their fields, values, methods).
fn comments(p: &Pairing<'_>, old: &Schema, new: &Schema, out: &mut Vec<Finding>) {
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
            for bv in &b.values {
                if let Some(av) = a.values.iter().find(|v| v.number == bv.number) {
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
    for (a, b) in elements {
        let (Some(da), Some(db)) = (old.doc(&a), new.doc(&b)) else {
            continue;
        };
        if da.comment != db.comment {
            out.push(f(
                "COMMENT_CHANGED",
                &b,
                None,
                Some(da.comment.clone()),
                Some(db.comment.clone()),
                Verdict::SAFE,
                false,
                "documentation only".into(),
            ));
        }
    }
}
