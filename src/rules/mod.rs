//! Rules: the rule table (id, summary, nearest `buf breaking` rule) and one small function
//! per rule, run over the pairs that `diff` made. Each function returns the verdict of the
//! change it recognises, computed from the actual old and new declarations. `examples`
//! checks each rule's own fixture pair (embedded in the binary) at run time, for `explain`.
//!
//! May import: `diff`, `schema`. Knows no terminal and no git.

mod decl;
pub mod examples;
mod extension;
mod field;
mod options;
mod reserved;
pub mod types;
pub mod units;
pub mod verdict;

use serde::Serialize;

use crate::diff::Pairing;
use crate::schema::Schema;
pub(crate) use field::{Comparisons, keeping};
pub use verdict::{Bump, Directions, Level, Severity, Source, Verdict};

/// One rule's metadata.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub id: RuleId,
    pub summary: &'static str,
    /// The nearest `buf breaking` rule, or "" when buf has none.
    pub buf: &'static str,
}

/// One difference between two versions.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Change {
    pub rule: RuleId,
    /// Full name of the declaration (`pkg.Msg.field`, `pkg.Enum.VALUE`, a file name).
    pub element: String,
    /// Field or enum-value number, when there is one.
    pub number: Option<i64>,
    pub old: Option<String>,
    pub new: Option<String>,
    pub old_location: Option<String>,
    pub new_location: Option<String>,
    pub verdict: Verdict,
    pub bump: Bump,
    /// One line: why this verdict.
    pub message: String,
    /// Set when a configured or inline ignore covers this change: why it is ignored. An
    /// ignored change is still listed, but counts toward no bump, policy or gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
    /// Set with `ignored` when the change could not be judged because a file did not compile
    /// on one side (rather than ignored by configuration or a directive).
    #[serde(skip)]
    pub not_judged: bool,
}

/// What a rule function returns; the engine adds where.
#[derive(Clone)]
pub(crate) struct Finding {
    pub rule: RuleId,
    pub element: String,
    pub number: Option<i64>,
    pub old: Option<String>,
    pub new: Option<String>,
    pub verdict: Verdict,
    pub additive: bool,
    pub message: String,
}

macro_rules! rules {
    ($($id:ident, $buf:literal, $summary:literal;)*) => {
        /// A rule's id: one variant per row of the rule table, named as the id is written
        /// (in output, config, directives, pages and fixture folders), so a grep for an id
        /// finds its code too.
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum RuleId {
            $($id),*
        }

        impl RuleId {
            /// Every rule id, in catalog order.
            pub const ALL: &[RuleId] = &[$(RuleId::$id),*];

            /// The id as written: `FIELD_TYPE_CHANGED`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RuleId::$id => stringify!($id)),*
                }
            }
        }

        /// Every rule, in catalog order (the order of [`RuleId`]).
        pub const RULES: &[Rule] = &[$(Rule { id: RuleId::$id, summary: $summary, buf: $buf }),*];
    };
}

rules! {
    FILE_ADDED, "", "a file was added";
    FILE_REMOVED, "FILE_NO_DELETE", "a file was removed";
    PACKAGE_CHANGED, "FILE_SAME_PACKAGE", "a file's package changed";
    SYNTAX_CHANGED, "FILE_SAME_SYNTAX", "a file's syntax or edition (proto2, proto3, edition 2023, 2024) changed";
    FILE_OPTION_CHANGED, "FILE_SAME_GO_PACKAGE", "a file option (go_package, java_package, ...) changed";
    MESSAGE_ADDED, "", "a message was added";
    MESSAGE_REMOVED, "MESSAGE_NO_DELETE", "a message was removed";
    MESSAGE_RENAMED, "MESSAGE_NO_DELETE", "a message has a new full name and the same structure";
    MESSAGE_MOVED, "MESSAGE_NO_DELETE", "a message moved to another file, same full name";
    ENUM_MOVED, "ENUM_NO_DELETE", "an enum moved to another file, same full name";
    SYMBOL_VISIBILITY_CHANGED, "", "a message or enum changed between exported and local (edition 2024)";
    MESSAGE_OPTION_CHANGED, "MESSAGE_SAME_MESSAGE_SET_WIRE_FORMAT", "a message option changed";
    MESSAGE_JSON_FORMAT_CHANGED, "MESSAGE_SAME_JSON_FORMAT", "a message's JSON format feature (ALLOW, LEGACY_BEST_EFFORT) changed";
    FIELD_ADDED, "", "a field was added";
    FIELD_REMOVED, "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED", "a field was removed and its number not reserved";
    FIELD_REMOVED_RESERVED, "FIELD_NO_DELETE", "a field was removed and its number reserved";
    FIELD_RENAMED, "FIELD_SAME_NAME", "a field has a new name, same number";
    FIELD_NUMBER_CHANGED, "FIELD_NO_DELETE", "a field kept its name but got a new number";
    FIELD_TYPE_CHANGED, "FIELD_WIRE_COMPATIBLE_TYPE", "a field's scalar or enum type changed";
    FIELD_MESSAGE_TYPE_CHANGED, "FIELD_SAME_TYPE", "a field's message type changed";
    FIELD_CARDINALITY_CHANGED, "FIELD_WIRE_COMPATIBLE_CARDINALITY", "a field changed between singular and repeated";
    FIELD_MAP_CHANGED, "FIELD_SAME_TYPE", "a field changed between a map and a repeated entry message";
    FIELD_PRESENCE_CHANGED, "FIELD_SAME_CARDINALITY", "a field gained or lost explicit presence (proto3 optional)";
    FIELD_PACKED_CHANGED, "", "a repeated scalar field's packed encoding changed";
    FIELD_UTF8_VALIDATION_CHANGED, "FIELD_SAME_UTF8_VALIDATION", "a string field's UTF-8 validation (VERIFY, NONE) changed";
    FIELD_ONEOF_CHANGED, "FIELD_SAME_ONEOF", "a field moved into, out of or between oneofs";
    FIELD_JSON_NAME_CHANGED, "FIELD_SAME_JSON_NAME", "a field's JSON name changed";
    FIELD_DEFAULT_CHANGED, "FIELD_SAME_DEFAULT", "a proto2 field's default value changed";
    FIELD_REQUIRED_ADDED, "MESSAGE_SAME_REQUIRED_FIELDS", "a required field was added, or a field became required";
    FIELD_REQUIRED_REMOVED, "MESSAGE_SAME_REQUIRED_FIELDS", "a required field became optional";
    FIELD_DEPRECATED, "", "a field was deprecated or undeprecated";
    FIELD_OPTION_CHANGED, "FIELD_SAME_CPP_STRING_TYPE", "a field option (ctype, jstype, lazy, a custom option, ...) changed";
    FIELD_RESERVED_NUMBER_REUSED, "RESERVED_MESSAGE_NO_DELETE", "a field uses a number that was reserved";
    FIELD_RESERVED_NAME_REUSED, "RESERVED_MESSAGE_NO_DELETE", "a field uses a name that was reserved";
    EXTENSION_ADDED, "", "an extension (a field declared in an extend block) was added";
    EXTENSION_REMOVED, "EXTENSION_NO_DELETE", "an extension was removed";
    EXTENSION_RANGE_ADDED, "", "a message's extension range was added or widened";
    EXTENSION_RANGE_REMOVED, "EXTENSION_MESSAGE_NO_DELETE", "a message's extension range was removed or shrunk";
    ONEOF_ADDED, "", "a oneof was added";
    ONEOF_REMOVED, "ONEOF_NO_DELETE", "a oneof was removed";
    ONEOF_RENAMED, "ONEOF_NO_DELETE", "a oneof has a new name, same members";
    RESERVED_RANGE_REMOVED, "RESERVED_MESSAGE_NO_DELETE", "a reserved number range was removed";
    RESERVED_NAME_REMOVED, "RESERVED_MESSAGE_NO_DELETE", "a reserved name was removed";
    ENUM_ADDED, "", "an enum was added";
    ENUM_REMOVED, "ENUM_NO_DELETE", "an enum was removed";
    ENUM_VALUE_ADDED, "", "an enum value was added";
    ENUM_VALUE_REMOVED, "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED", "an enum value was removed and its number not reserved";
    ENUM_VALUE_REMOVED_RESERVED, "ENUM_VALUE_NO_DELETE", "an enum value was removed and its number reserved";
    ENUM_VALUE_RENAMED, "ENUM_VALUE_SAME_NAME", "an enum value has a new name, same number";
    ENUM_VALUE_NUMBER_CHANGED, "ENUM_VALUE_NO_DELETE", "an enum value kept its name but got a new number";
    ENUM_CLOSED_CHANGED, "ENUM_SAME_TYPE", "an enum changed between open and closed";
    ENUM_JSON_FORMAT_CHANGED, "ENUM_SAME_JSON_FORMAT", "an enum's JSON format feature (ALLOW, LEGACY_BEST_EFFORT) changed";
    ENUM_RESERVED_REUSED, "RESERVED_ENUM_NO_DELETE", "an enum value uses a reserved number or name";
    ENUM_OPTION_CHANGED, "", "an enum option (allow_alias, deprecated, a custom option, ...) changed";
    ENUM_VALUE_OPTION_CHANGED, "", "an enum value option (deprecated, debug_redact, a custom option, ...) changed";
    SERVICE_ADDED, "", "a service was added";
    SERVICE_REMOVED, "SERVICE_NO_DELETE", "a service was removed";
    SERVICE_OPTION_CHANGED, "", "a service option (deprecated, a custom option, ...) changed";
    RPC_ADDED, "", "an rpc was added";
    RPC_REMOVED, "RPC_NO_DELETE", "an rpc was removed";
    RPC_INPUT_CHANGED, "RPC_SAME_REQUEST_TYPE", "an rpc's request type changed";
    RPC_OUTPUT_CHANGED, "RPC_SAME_RESPONSE_TYPE", "an rpc's response type changed";
    RPC_STREAMING_CHANGED, "RPC_SAME_CLIENT_STREAMING", "an rpc's client or server streaming changed";
    RPC_OPTION_CHANGED, "RPC_SAME_IDEMPOTENCY_LEVEL", "an rpc option (idempotency_level, deprecated, google.api.http, ...) changed";
    COMMENT_CHANGED, "", "only a comment changed";
}

impl RuleId {
    /// The rule with this exact id (`FIELD_TYPE_CHANGED`), as ids are stored and compared.
    pub fn from_id(id: &str) -> Option<RuleId> {
        RuleId::ALL.iter().copied().find(|r| r.as_str() == id)
    }
}

/// An id that names no rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule `{0}`")]
pub struct UnknownRule(pub String);

/// As a person types it: any case, `-` for `_` (`field-type-changed`).
impl std::str::FromStr for RuleId {
    type Err = UnknownRule;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RuleId::from_id(&s.to_uppercase().replace('-', "_")).ok_or_else(|| UnknownRule(s.into()))
    }
}

/// Ids sort as their text (as output has always listed them), not in catalog order.
impl Ord for RuleId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for RuleId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Written as its id; width and alignment apply as to a `&str` (`{:<30}`).
impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// As its id string, so the JSON output names rules as it always did.
impl Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

mod pages {
    include!(concat!(env!("OUT_DIR"), "/rule_pages.rs"));
}

/// The page of a rule (`assets/rules/<ID>.md`).
pub fn page(id: RuleId) -> Option<&'static str> {
    let file = format!("{id}.md");
    pages::RULE_PAGES
        .iter()
        .find(|(p, _)| *p == file)
        .map(|(_, t)| *t)
}

/// Every page, as (file name, text), for the meta-tests.
pub fn pages() -> &'static [(&'static str, &'static str)] {
    pages::RULE_PAGES
}

/// The rule with this id.
pub fn rule(id: RuleId) -> &'static Rule {
    // RULES and RuleId are generated from one table, in one order.
    &RULES[id as usize]
}

/// Every change between the paired versions, sorted by severity (worst first), then
/// location, then rule.
pub fn check(pairing: &Pairing<'_>, old: &Schema, new: &Schema) -> Vec<Change> {
    check_with(pairing, old, new, true)
}

/// [`check`] without COMMENT_CHANGED, whose verdict is always safe: for judging many pairs.
pub fn check_verdicts(pairing: &Pairing<'_>, old: &Schema, new: &Schema) -> Vec<Change> {
    check_with(pairing, old, new, false)
}

/// What the rules find in one unit of a pairing, added to the list: judged there, or kept
/// from a pair judged before (see `judge::units`).
pub(crate) type UnitFindings<'f, 'a> = &'f dyn Fn(units::Unit<'a>, &mut Vec<Finding>);

/// Where the docs of a unit's findings are, on each side (see [`units::Unit::home`]).
type Home<'a> = [Option<(&'a str, &'a str)>; 2];

/// The findings of every unit (and the comments' when `comments`), each unit's from its
/// place in the list on, with its [`Home`].
fn findings<'a>(
    pairing: &Pairing<'a>,
    old: &Schema,
    new: &Schema,
    comments: bool,
    each: UnitFindings<'_, 'a>,
) -> (Vec<Finding>, Vec<(usize, Home<'a>)>) {
    let mut findings = Vec::new();
    let mut homes = Vec::new();
    if std::ptr::eq(old, new) {
        // One compiled file set shared by both versions: nothing differs, comments included.
        return (findings, homes);
    }
    for unit in units::units(pairing) {
        homes.push((findings.len(), unit.home()));
        each(unit, &mut findings);
    }
    if comments {
        homes.push((findings.len(), [None, None]));
        decl::comments(pairing, old, new, &mut findings);
    }
    (findings, homes)
}

fn change(f: Finding, old_location: Option<String>, new_location: Option<String>) -> Change {
    Change {
        rule: f.rule,
        old_location,
        new_location,
        element: f.element,
        number: f.number,
        old: f.old,
        new: f.new,
        bump: f.verdict.bump(f.additive),
        verdict: f.verdict,
        message: f.message,
        ignored: None,
        not_judged: false,
    }
}

fn check_with(pairing: &Pairing<'_>, old: &Schema, new: &Schema, comments: bool) -> Vec<Change> {
    check_by(pairing, old, new, comments, &|unit, out| {
        unit.findings(pairing, out)
    })
}

/// [`check`] (with comments compared or not), each unit's findings from `each`.
pub(crate) fn check_by<'a>(
    pairing: &Pairing<'a>,
    old: &Schema,
    new: &Schema,
    comments: bool,
    each: UnitFindings<'_, 'a>,
) -> Vec<Change> {
    let (found, homes) = findings(pairing, old, new, comments, each);
    let mut homes = homes.into_iter().peekable();
    let mut home: Home<'_> = [None, None];
    let changes: Vec<Change> = found
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            while let Some((_, h)) = homes.next_if(|(from, _)| *from <= i) {
                home = h;
            }
            let loc = |s: &Schema, side: &Option<String>, home: Option<(&str, &str)>| {
                side.as_ref()?;
                let d = located_from(s, &f.element, home)?;
                Some(format!("{}:{}", d.file, d.line))
            };
            let (o, n) = (loc(old, &f.old, home[0]), loc(new, &f.new, home[1]));
            change(f, o, n)
        })
        .collect();
    sorted(changes)
}

/// [`located`], looked for first in the docs of the file that declares `home` (its full
/// name and file), when `element` is that declaration or one of its members: where a unit's
/// findings are documented, found in two look-ups instead of a search of the schema's maps
/// (a transitive policy locates thousands of changes per pair).
fn located_from<'s>(
    s: &'s Schema,
    element: &str,
    home: Option<(&str, &str)>,
) -> Option<&'s crate::schema::model::Doc> {
    let member = |(decl, _): &(&str, &str)| {
        element
            .strip_prefix(*decl)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    };
    home.filter(member)
        .and_then(|(_, file)| s.docs.get(file)?.get(element))
        .or_else(|| located(s, element))
}

/// Where a change on `element` is located in `s`: the element's doc, else its parent's (a
/// oneof, a reserved range, an option are reported on their declaration).
pub fn located<'s>(s: &'s Schema, element: &str) -> Option<&'s crate::schema::model::Doc> {
    s.doc(element)
        .or_else(|| element.rsplit_once('.').and_then(|(p, _)| s.doc(p)))
}

/// Changes sorted worst first, then by bump, location (file, then line as a number),
/// element and rule; each location is parsed once, not at every comparison.
fn sorted(changes: Vec<Change>) -> Vec<Change> {
    let keys: Vec<_> = changes
        .iter()
        .map(|c| (location_key(&c.new_location), location_key(&c.old_location)))
        .collect();
    let mut order: Vec<usize> = (0..changes.len()).collect();
    order.sort_by(|&i, &j| {
        let (a, b) = (&changes[i], &changes[j]);
        b.verdict
            .worst()
            .cmp(&a.verdict.worst())
            .then_with(|| b.bump.cmp(&a.bump))
            .then_with(|| keys[i].cmp(&keys[j]))
            .then_with(|| a.element.cmp(&b.element))
            .then_with(|| a.rule.cmp(&b.rule))
    });
    drop(keys);
    let mut slots: Vec<Option<Change>> = changes.into_iter().map(Some).collect();
    order.iter().filter_map(|&i| slots[i].take()).collect()
}

/// `file:line` sorted by file, then line as a number; no location sorts last.
fn location_key(loc: &Option<String>) -> (bool, &str, u32) {
    match loc.as_deref().and_then(|l| l.rsplit_once(':')) {
        Some((file, line)) => (false, file, line.parse().unwrap_or(0)),
        None => (true, "", 0),
    }
}

/// The bump a set of changes requires (ignored changes do not count).
pub fn required_bump(changes: &[Change]) -> Bump {
    changes
        .iter()
        .filter(|c| c.ignored.is_none())
        .map(|c| c.bump)
        .max()
        .unwrap_or(Bump::None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two versions of a few files: nested types, a oneof, enums, a service, extensions
    /// declared away from their extendee, and names that share a prefix without being
    /// members (`p.Msg`, `p.MsgX`).
    const VERSIONS: [&[(&str, &str)]; 2] = [
        &[
            (
                "a.proto",
                "syntax = \"proto2\";\npackage p;\n// Msg\nmessage Msg {\n  // id\n  optional int32 id = 1;\n  // Inner\n  message Inner {\n    // x\n    optional string x = 1;\n  }\n  oneof choice {\n    // a\n    int32 a = 2;\n  }\n  extensions 100 to 200;\n}\n// MsgX\nmessage MsgX {\n  optional Msg.Inner inner = 1;\n}\n// Kind\nenum Kind {\n  // K0\n  K0 = 0;\n}\n",
            ),
            (
                "b.proto",
                "syntax = \"proto2\";\npackage p;\nimport \"a.proto\";\n// ext\nextend Msg {\n  // e\n  optional int32 e = 100;\n}\n// Svc\nservice Svc {\n  // Get\n  rpc Get(Msg) returns (MsgX);\n}\n",
            ),
        ],
        &[
            (
                "a.proto",
                "syntax = \"proto2\";\npackage p;\n// Msg, again\nmessage Msg {\n  // id, a long\n  optional int64 id = 1;\n  // Inner\n  message Inner {\n    optional string x = 1;\n    // y\n    optional bytes y = 2;\n  }\n  oneof choice {\n    // a\n    int64 a = 2;\n  }\n  extensions 100 to 200;\n}\n// MsgX\nmessage MsgX {\n  optional int32 inner = 1;\n}\n// Kind\nenum Kind {\n  K0 = 0;\n  // K1\n  K1 = 1;\n}\n",
            ),
            (
                "b.proto",
                "syntax = \"proto2\";\npackage p;\nimport \"a.proto\";\n// ext\nextend Msg {\n  // e, a string\n  optional string e = 100;\n}\n// Svc\nservice Svc {\n  rpc Get(MsgX) returns (Msg);\n  // Put\n  rpc Put(Msg) returns (Msg);\n}\n",
            ),
        ],
    ];

    /// Wherever a unit's findings can be (its declaration, its members, names that are
    /// documented nowhere), looking in the file of its declaration first finds the doc that
    /// `located` finds: every unit of a pair of versions, both sides.
    #[test]
    fn a_units_findings_are_located_alike_from_its_home() {
        let compiled = VERSIONS.map(|files| {
            let refs: Vec<crate::schema::SourceRef<'_>> = files
                .iter()
                .map(|&(path, text)| crate::schema::SourceRef {
                    origin: crate::schema::Origin::Root,
                    path,
                    blob: text,
                    text: Ok(text),
                })
                .collect();
            let out = crate::schema::Cache::new().compile(&refs);
            assert_eq!(
                out.status,
                crate::schema::Status::Complete,
                "{:?}",
                out.diagnostics
            );
            out
        });
        let (old, new) = (&*compiled[0].schema, &*compiled[1].schema);
        let pairing = crate::diff::pair_whole(&old.content, &new.content);
        let mut checked = 0;
        for unit in units::units(&pairing) {
            for (s, home) in [old, new].into_iter().zip(unit.home()) {
                let Some((decl, _)) = home else { continue };
                let documented = s.docs.values().flat_map(|d| d.keys());
                let members = documented
                    .filter(|e| e.starts_with(decl))
                    .cloned()
                    .chain([format!("{decl}.no_such_member"), format!("{decl}x")]);
                for e in members.chain([decl.to_string()]) {
                    let at = |d: Option<&crate::schema::model::Doc>| {
                        d.map(|d| format!("{}:{}", d.file, d.line))
                    };
                    assert_eq!(at(located_from(s, &e, home)), at(located(s, &e)), "{e}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 40, "{checked}");
    }

    #[test]
    fn ids_and_table_rows_are_one_list() {
        assert_eq!(RULES.len(), RuleId::ALL.len());
        for (i, (r, &id)) in RULES.iter().zip(RuleId::ALL).enumerate() {
            assert_eq!((r.id, id as usize, rule(id).id), (id, i, id));
            assert_eq!(RuleId::from_id(id.as_str()), Some(id));
        }
    }

    #[test]
    fn ids_parse_as_typed_and_print_as_written() {
        let id = RuleId::FIELD_TYPE_CHANGED;
        for typed in [
            "FIELD_TYPE_CHANGED",
            "field_type_changed",
            "Field-Type-Changed",
        ] {
            assert_eq!(typed.parse(), Ok(id));
        }
        assert_eq!(RuleId::from_id("field_type_changed"), None);
        assert_eq!(
            "NO_SUCH_RULE".parse::<RuleId>(),
            Err(UnknownRule("NO_SUCH_RULE".into()))
        );
        assert_eq!(format!("[{id:<20}]"), "[FIELD_TYPE_CHANGED  ]");
        assert_eq!(
            serde_json::to_string(&id).unwrap(),
            "\"FIELD_TYPE_CHANGED\""
        );
        // By text, as output lists them, not by catalog order.
        assert!(RuleId::ENUM_ADDED < RuleId::FILE_ADDED);
    }
}
