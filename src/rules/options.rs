//! What changing an option does, option by option, for the rules on options of fields,
//! enums, enum values, services and rpcs (FIELD_OPTION_CHANGED, ENUM_OPTION_CHANGED,
//! ENUM_VALUE_OPTION_CHANGED, SERVICE_OPTION_CHANGED, RPC_OPTION_CHANGED). File and message
//! options have their own rules. Options that another rule judges are not in the model's
//! option maps (a field's `deprecated` and `packed`; `json_name` and `default` are not
//! options), so they are never reported twice.
//!
//! Most options change neither the bytes nor the JSON: some change generated code (source),
//! a few change how calls are made. A custom option `(pkg.name)` means what the tools that
//! read it make of it, which we cannot know: it is reported, as safe.

use std::collections::BTreeSet;

use crate::schema::model::Options;

use super::verdict::Severity::{self, *};
use super::verdict::{Directions, Source, Verdict};

/// One option whose value differs: its name and both values (None: not set).
pub(super) struct OptionChange<'a> {
    pub name: &'a str,
    pub old: Option<&'a str>,
    pub new: Option<&'a str>,
}

impl OptionChange<'_> {
    /// `option name = value`, for one side.
    pub fn text(&self, value: Option<&str>) -> Option<String> {
        value.map(|v| format!("option {} = {v}", self.name))
    }

    fn values(&self) -> String {
        format!(
            "{} -> {}",
            self.old.unwrap_or("(unset)"),
            self.new.unwrap_or("(unset)")
        )
    }
}

/// The options whose values differ, in name order.
pub(super) fn differing<'a>(old: &'a Options, new: &'a Options) -> Vec<OptionChange<'a>> {
    if old == new {
        return Vec::new();
    }
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    names
        .into_iter()
        .filter(|k| old.get(*k) != new.get(*k))
        .map(|k| OptionChange {
            name: k,
            old: old.get(k).map(String::as_str),
            new: new.get(k).map(String::as_str),
        })
        .collect()
}

/// The element kinds whose options these rules compare.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Field,
    Enum,
    EnumValue,
    Service,
    Method,
}

/// Options every kind may carry, and what a change of each does.
const COMMON: &[(&str, &str)] = &[
    (
        "deprecated",
        "documentation and compiler warnings only: data and API unchanged",
    ),
    (
        "features",
        "an editions feature; editions files are not compiled yet, so it is not judged",
    ),
    (
        "feature_support",
        "when an editions feature may be used: metadata for the compiler",
    ),
    (
        "debug_redact",
        "hides the value in debug output (DebugString, text-format logs): data and API unchanged",
    ),
];

/// Field options that change only metadata or run-time behaviour, never data or API.
const FIELD_SAFE: &[(&str, &str)] = &[
    (
        "lazy",
        "parses the submessage on first access (C++, Java): the same data and API",
    ),
    (
        "unverified_lazy",
        "parses the submessage on first access (C++, Java): the same data and API",
    ),
    (
        "retention",
        "whether the option this field defines is kept in run-time descriptors: not about data",
    ),
    (
        "targets",
        "which declarations the option this field defines may be used on: checked by the compiler",
    ),
    (
        "edition_defaults",
        "the defaults of the editions feature this field defines: not about data",
    ),
];

/// Field options that change generated code.
const FIELD_SOURCE: &[(&str, &str)] = &[
    (
        "ctype",
        "the C++ type of the field's accessors (std::string, absl::Cord, string_view) changes",
    ),
    (
        "jstype",
        "JavaScript code sees the 64-bit field as a string or as a number (ProtoJSON writes 64-bit integers as strings either way)",
    ),
    ("weak", "a weak field has other C++ accessors"),
];

const ENUM_SAFE: &[(&str, &str)] = &[
    (
        "allow_alias",
        "lets values share a number; the values decide what is on the wire and are compared one by one",
    ),
    (
        "deprecated_legacy_json_field_conflicts",
        "relaxes a compile-time check of JSON names: data and API unchanged",
    ),
];

/// The HTTP/JSON transcoding rule of googleapis (`google/api/annotations.proto`).
const HTTP_RULE: &str = "(google.api.http)";

fn lookup(table: &[(&str, &'static str)], name: &str) -> Option<&'static str> {
    table.iter().find(|(n, _)| *n == name).map(|(_, why)| *why)
}

/// The verdict of one option change, and why.
pub(super) fn judge(kind: Kind, c: &OptionChange<'_>) -> (Verdict, String) {
    let name = c.name;
    let safe = |why: &str| (Verdict::SAFE, format!("{name} {}: {why}", c.values()));
    if let Some(why) = lookup(COMMON, name) {
        return safe(why);
    }
    match kind {
        Kind::Field => {
            if let Some(why) = lookup(FIELD_SOURCE, name) {
                let verdict = Verdict {
                    source: Source::Breaking,
                    ..Verdict::SAFE
                };
                return (verdict, format!("{name} {}: {why}", c.values()));
            }
            if let Some(why) = lookup(FIELD_SAFE, name) {
                return safe(why);
            }
        }
        Kind::Enum => {
            if let Some(why) = lookup(ENUM_SAFE, name) {
                return safe(why);
            }
        }
        Kind::Method if name == "idempotency_level" => return idempotency(c),
        Kind::Method if name == HTTP_RULE => return http_rule(c),
        Kind::EnumValue | Kind::Service | Kind::Method => {}
    }
    if name.starts_with('(') {
        safe(
            "a custom option: what it does is up to the code generators and libraries that read it",
        )
    } else {
        safe("does not change the encoding or the generated API")
    }
}

/// Connect serves `NO_SIDE_EFFECTS` methods over HTTP GET as well as POST, and its clients
/// send GET when configured to: a client that may send GET (its schema says
/// `NO_SIDE_EFFECTS`) calling a server whose schema does not say so has its GET rejected.
/// Only clients configured for GET are hit: a hazard, in the direction of that client.
fn idempotency(c: &OptionChange<'_>) -> (Verdict, String) {
    let get = |v: Option<&str>| v == Some("NO_SIDE_EFFECTS");
    let call = |client: &Option<&str>, server: &Option<&str>| -> Severity {
        if get(*client) && !get(*server) {
            Hazard
        } else {
            Safe
        }
    };
    let d = Directions::of(&c.old, &c.new, call);
    let why = if get(c.old) != get(c.new) {
        "Connect serves NO_SIDE_EFFECTS methods over HTTP GET too: a client configured for GET fails against a server whose schema does not say NO_SIDE_EFFECTS"
    } else {
        "neither side allows HTTP GET; no protocol reads the difference"
    };
    (
        Verdict {
            wire: d,
            json: d,
            source: Source::Safe,
        },
        format!("idempotency_level {}: {why}", c.values()),
    )
}

/// The HTTP rule maps an rpc to a REST route with a ProtoJSON body: a client calling the
/// route its schema gives fails against a server whose rule differs.
fn http_rule(c: &OptionChange<'_>) -> (Verdict, String) {
    let call = |client: &Option<&str>, server: &Option<&str>| -> Severity {
        if client.is_some() && client != server {
            Breaking
        } else {
            Safe
        }
    };
    (
        Verdict {
            wire: Directions::SAFE,
            json: Directions::of(&c.old, &c.new, call),
            source: Source::Safe,
        },
        format!(
            "{HTTP_RULE} {}: REST clients call the route their version gives; gRPC calls are unchanged",
            c.values()
        ),
    )
}

/// `options` with `deprecated = true` added when the element is deprecated (enum values and
/// rpcs model it apart, and no other rule reports it for them).
pub(super) fn with_deprecated(options: &Options, deprecated: bool) -> Options {
    let mut all = options.clone();
    if deprecated {
        all.insert("deprecated".into(), "true".into());
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change<'a>(name: &'a str, old: Option<&'a str>, new: Option<&'a str>) -> OptionChange<'a> {
        OptionChange { name, old, new }
    }

    #[test]
    fn each_option_is_judged_by_what_it_does() {
        let (v, why) = judge(Kind::Field, &change("ctype", None, Some("CORD")));
        assert_eq!(v.source, Source::Breaking);
        assert_eq!(v.wire, Directions::SAFE);
        assert!(
            why.starts_with("ctype (unset) -> CORD: the C++ type"),
            "{why}"
        );
        let (v, _) = judge(
            Kind::Field,
            &change("jstype", Some("JS_NORMAL"), Some("JS_STRING")),
        );
        assert_eq!((v.source, v.json), (Source::Breaking, Directions::SAFE));
        assert_eq!(
            judge(Kind::Field, &change("lazy", None, Some("true"))).0,
            Verdict::SAFE
        );
        assert_eq!(
            judge(Kind::Enum, &change("ctype", None, Some("CORD"))).0,
            Verdict::SAFE,
            "not an enum option"
        );
        let (v, why) = judge(Kind::Service, &change("(acme.owner)", None, Some("\"x\"")));
        assert_eq!(v, Verdict::SAFE);
        assert!(why.contains("custom option"), "{why}");
    }

    #[test]
    fn idempotency_level_is_a_hazard_for_the_side_that_may_send_get() {
        let gained = judge(
            Kind::Method,
            &change("idempotency_level", None, Some("NO_SIDE_EFFECTS")),
        )
        .0;
        assert_eq!((gained.wire.backward, gained.wire.forward), (Safe, Hazard));
        let lost = judge(
            Kind::Method,
            &change(
                "idempotency_level",
                Some("NO_SIDE_EFFECTS"),
                Some("IDEMPOTENT"),
            ),
        )
        .0;
        assert_eq!((lost.json.backward, lost.json.forward), (Hazard, Safe));
        let neither = judge(
            Kind::Method,
            &change("idempotency_level", None, Some("IDEMPOTENT")),
        )
        .0;
        assert_eq!(neither, Verdict::SAFE);
    }

    #[test]
    fn a_changed_http_rule_breaks_rest_calls_both_ways() {
        let v = judge(
            Kind::Method,
            &change(HTTP_RULE, Some("{get:\"/v1/a\"}"), Some("{get:\"/v2/a\"}")),
        )
        .0;
        assert_eq!(v.wire, Directions::SAFE);
        assert_eq!((v.json.backward, v.json.forward), (Breaking, Breaking));
        let added = judge(
            Kind::Method,
            &change(HTTP_RULE, None, Some("{get:\"/v1/a\"}")),
        )
        .0;
        assert_eq!((added.json.backward, added.json.forward), (Safe, Breaking));
    }

    #[test]
    fn only_differing_options_are_listed() {
        let a: Options = [("a".into(), "1".into()), ("b".into(), "2".into())].into();
        let b: Options = [("b".into(), "3".into()), ("c".into(), "4".into())].into();
        let names: Vec<&str> = differing(&a, &b).iter().map(|c| c.name).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(differing(&a, &a).is_empty());
    }
}
