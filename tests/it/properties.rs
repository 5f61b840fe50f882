//! Properties over generated schemas and edits (proptest): a schema compared with itself
//! changes nothing; what a new reader sees of old data (backward, old → new) is what an old
//! reader sees of new data going the other way (forward, new → old), cell by cell at each
//! level; and every change names an element of the side it is about.
//!
//! A `hazard` cell is folded into `safe` for the symmetry: it says the data reads fine now
//! and warns about what a later change may do (a number freed for reuse), which is not a
//! property of reading one version's data with the other.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use protolapse::diff::pair_whole;
use protolapse::rules::{Change, Severity, check};
use protolapse::schema::{Cache, Content, Origin, Schema, SourceRef, Status};

const FIELD_NAMES: [&str; 8] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
];
const TYPES: [&str; 8] = [
    "int32", "int64", "sint32", "string", "bytes", "bool", "Kind", "Inner",
];
const LABELS: [&str; 3] = ["", "repeated ", "optional "];
const VALUE_NAMES: [&str; 5] = ["RED", "GREEN", "BLUE", "CYAN", "MAGENTA"];

/// A generated schema: one message's fields (number -> name, type, label) and one enum's
/// values beyond its zero (number -> name).
#[derive(Debug, Clone)]
struct Spec {
    fields: BTreeMap<u32, (usize, usize, usize)>,
    values: BTreeMap<i32, usize>,
}

impl Spec {
    fn text(&self) -> String {
        let mut seen = BTreeSet::new();
        let mut fields = String::new();
        for (n, (name, ty, label)) in &self.fields {
            if !seen.insert(*name) {
                continue;
            }
            // A repeated field has no `optional`; a map-free, oneof-free proto3 message.
            let label = if *label == 2 && TYPES[*ty] == "Inner" {
                ""
            } else {
                LABELS[*label]
            };
            fields.push_str(&format!(
                "  {label}{} {} = {n};\n",
                TYPES[*ty], FIELD_NAMES[*name]
            ));
        }
        let mut seen = BTreeSet::new();
        let mut values = String::new();
        for (n, name) in &self.values {
            if seen.insert(*name) {
                values.push_str(&format!("  KIND_{} = {n};\n", VALUE_NAMES[*name]));
            }
        }
        format!(
            "syntax = \"proto3\";\npackage p;\n\nenum Kind {{\n  KIND_UNSPECIFIED = 0;\n{values}}}\n\n\
             message Inner {{\n  int32 x = 1;\n}}\n\nmessage Top {{\n{fields}}}\n"
        )
    }
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::collection::btree_map(1u32..10, (0..8usize, 0..8usize, 0..3usize), 0..7),
        prop::collection::btree_map(1i32..6, 0..5usize, 0..4),
    )
        .prop_map(|(fields, values)| Spec { fields, values })
}

/// Compiles on a cache of its own, so that two compilations are two schemas.
fn compile(text: &str) -> std::sync::Arc<Schema> {
    let out = Cache::new().compile(&[SourceRef {
        path: "p/p.proto",
        blob: text,
        text: Ok(text),
        origin: Origin::Root,
    }]);
    assert_eq!(
        out.status,
        Status::Complete,
        "{text}\n{:?}",
        out.diagnostics
    );
    out.schema.clone()
}

fn changes(a: &Schema, b: &Schema) -> Vec<Change> {
    check(&pair_whole(&a.content, &b.content), a, b)
}

fn folded(s: Severity) -> Severity {
    if s == Severity::Hazard {
        Severity::Safe
    } else {
        s
    }
}

/// The worst cell of each level and direction: `[wire, json] x [backward, forward]`.
fn worst(changes: &[Change]) -> [[Severity; 2]; 2] {
    let mut w = [[Severity::Safe; 2]; 2];
    for c in changes {
        for (l, d) in [(0, c.verdict.wire), (1, c.verdict.json)] {
            w[l][0] = w[l][0].max(folded(d.backward));
            w[l][1] = w[l][1].max(folded(d.forward));
        }
    }
    w
}

fn has_element(c: &Content, element: &str) -> bool {
    c.messages.contains_key(element)
        || c.enums.contains_key(element)
        || c.files.contains_key(element)
        || element.rsplit_once('.').is_some_and(|(parent, last)| {
            c.messages
                .get(parent)
                .is_some_and(|m| m.fields.values().any(|f| f.name == last))
                || c.enums
                    .get(parent)
                    .is_some_and(|e| e.values.iter().any(|v| v.name == last))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn a_schema_compared_with_itself_changes_nothing(a in spec()) {
        let text = a.text();
        let (x, y) = (compile(&text), compile(&text));
        let found = changes(&x, &y);
        prop_assert!(found.is_empty(), "{text}\n{found:#?}");
    }

    #[test]
    fn backward_one_way_is_forward_the_other(a in spec(), b in spec()) {
        let (ta, tb) = (a.text(), b.text());
        let (x, y) = (compile(&ta), compile(&tb));
        let (ab, ba) = (changes(&x, &y), changes(&y, &x));
        let (w_ab, w_ba) = (worst(&ab), worst(&ba));
        for level in 0..2 {
            prop_assert_eq!(
                w_ab[level][0], w_ba[level][1],
                "level {}: backward old->new vs forward new->old\n--- old\n{}\n--- new\n{}\n{:#?}\n{:#?}",
                ["wire", "json"][level], ta, tb, ab, ba
            );
            prop_assert_eq!(
                w_ab[level][1], w_ba[level][0],
                "level {}: forward old->new vs backward new->old\n--- old\n{}\n--- new\n{}\n{:#?}\n{:#?}",
                ["wire", "json"][level], ta, tb, ab, ba
            );
        }
    }

    #[test]
    fn every_change_names_an_element_of_its_side(a in spec(), b in spec()) {
        let (ta, tb) = (a.text(), b.text());
        let (x, y) = (compile(&ta), compile(&tb));
        for c in changes(&x, &y) {
            let id = c.rule.as_str();
            let (old, new) = (has_element(&x.content, &c.element), has_element(&y.content, &c.element));
            let ok = if id.ends_with("_ADDED") {
                new
            } else if id.contains("_REMOVED") {
                old
            } else {
                old || new
            };
            prop_assert!(ok, "{id} {} (old has it: {old}, new: {new})\n--- old\n{ta}\n--- new\n{tb}", c.element);
        }
    }
}
