//! What only the whole history shows: hazards between versions that never meet (types
//! reverted, names and numbers reused, reservations dropped, extension numbers reused), and
//! each field's lifecycle.

use super::{commit_tag, evolving, load};
use crate::common::{Repo, proto};
use protolapse::policy::lifecycle::State;
use protolapse::policy::{self, HazardKind, Settings};
use protolapse::rules::RuleId;
use protolapse::schema::graph::RootMatch;

#[test]
fn history_wide_hazards() {
    let mut r = Repo::new();
    let n = |body: &str| {
        proto(
            "t",
            &format!("message N {{\n{body}\n}}\nenum E {{\n  E_ZERO = 0;\n  E_A = 1;\n}}"),
        )
    };
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &n("  int32 x = 1;\n  int32 y = 2;\n  reserved 5 to 7;\n  reserved \"old\";"),
    );
    commit_tag(
        &mut r,
        "v1.1.0",
        "t.proto",
        &n("  int64 x = 1;\n  int32 y = 2;\n  reserved 5 to 7;\n  reserved \"old\";"),
    );
    // x back to int32 (reverted), y removed, E_A removed.
    let removed = "syntax = \"proto3\";\npackage t;\n\nmessage N {\n  int32 x = 1;\n  reserved 5 to 7;\n  reserved \"old\";\n}\nenum E {\n  E_ZERO = 0;\n}\n";
    commit_tag(&mut r, "v1.2.0", "t.proto", removed);
    // Not adjacent to v1.1.0, where y was 2: y comes back as 3; the reservations are gone.
    let last = "syntax = \"proto3\";\npackage t;\n\nmessage N {\n  int32 x = 1;\n  int32 y = 3;\n  reserved 7;\n}\nenum E {\n  E_ZERO = 0;\n  E_B = 1;\n}\n";
    commit_tag(&mut r, "v1.3.0", "t.proto", last);
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let kinds: Vec<(HazardKind, &str, Option<i64>)> = a
        .hazards
        .iter()
        .map(|h| (h.kind, h.element.as_str(), h.number))
        .collect();
    assert!(
        kinds.contains(&(HazardKind::TypeReverted, "t.N.x", Some(1))),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(HazardKind::NameReused, "t.N.y", Some(3))),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(HazardKind::ReservationDropped, "t.N", Some(5))),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(HazardKind::ReservationDropped, "t.N.old", None)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(HazardKind::NumberReused, "t.E.E_B", Some(1))),
        "{kinds:?}"
    );
    let reverted = a
        .hazards
        .iter()
        .find(|h| h.kind == HazardKind::TypeReverted)
        .unwrap();
    assert_eq!(reverted.versions, ["v1.0.0", "v1.1.0", "v1.2.0"]);
    let dropped = a
        .hazards
        .iter()
        .find(|h| h.kind == HazardKind::ReservationDropped && h.number == Some(5))
        .unwrap();
    assert!(dropped.message.contains("5 to 6"), "{}", dropped.message);
    // Each hazard is listed under the version where it shows.
    let at = |name: &str| {
        let i = p
            .versions
            .iter()
            .position(|v| v.version.name == name)
            .unwrap();
        a.versions[i].hazards.len()
    };
    assert_eq!(at("v1.2.0"), 1);
    assert_eq!(at("v1.3.0"), a.hazards.len() - 1);
}

#[test]
fn a_number_reused_across_versions_that_never_meet() {
    let (_r, p) = evolving();
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let h = a
        .hazards
        .iter()
        .find(|h| h.kind == HazardKind::NumberReused)
        .expect("reuse of number 1");
    assert_eq!(h.element, "t.M.a2");
    assert_eq!(h.versions, ["v1.1.0", "v1.2.0", "v1.3.0"]);
}

#[test]
fn an_extension_number_reused_is_a_hazard() {
    let mut r = Repo::new();
    let head = "syntax = \"proto2\";\npackage t;\nmessage E {\n  extensions 100 to 199;\n}\n";
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &format!("{head}extend E {{\n  optional int32 size = 100;\n}}\n"),
    );
    commit_tag(&mut r, "v1.1.0", "t.proto", head);
    commit_tag(
        &mut r,
        "v1.2.0",
        "t.proto",
        &format!("{head}extend E {{\n  optional string label = 100;\n}}\n"),
    );
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let h = a
        .hazards
        .iter()
        .find(|h| h.kind == HazardKind::NumberReused)
        .unwrap_or_else(|| panic!("{:?}", a.hazards));
    assert_eq!(h.element, "t.label");
    assert_eq!(h.number, Some(100));
    assert_eq!(h.versions, ["v1.0.0", "v1.1.0", "v1.2.0"]);
    assert!(h.message.contains("t.E (extensions)"), "{}", h.message);
    // The message's lifecycle shows its extensions as rows of their own.
    let l = policy::lifecycle(&p.versions, "t.E");
    let row = l.rows.iter().find(|r| r.number == 100).expect("row 100");
    assert_eq!(row.names, ["[t.size]", "[t.label]"]);
    use State::*;
    assert_eq!(
        row.cells.iter().map(|c| c.state).collect::<Vec<_>>(),
        [Added, Removed, Added]
    );
}

#[test]
fn lifecycle_of_each_field() {
    let (_r, p) = evolving();
    let RootMatch::Found(name) = policy::lifecycle::resolve(&p.versions, "M") else {
        panic!("t.M not found");
    };
    assert_eq!(name, "t.M");
    let l = policy::lifecycle(&p.versions, &name);
    let row = |n: i64| l.rows.iter().find(|r| r.number == n).unwrap();
    let states = |n: i64| row(n).cells.iter().map(|c| c.state).collect::<Vec<_>>();
    use State::*;
    assert_eq!(states(1), [Added, Kept, Removed, Added, Kept]);
    assert_eq!(row(1).names, ["a", "a2"]);
    assert_eq!(states(2), [Absent, Added, Kept, Kept, Changed]);
    assert_eq!(row(2).cells[4].rules, [RuleId::FIELD_TYPE_CHANGED]);
    assert!(matches!(
        policy::lifecycle::resolve(&p.versions, "Nope"),
        RootMatch::Unknown(_)
    ));
}

/// A reuse names the type as declared (`string`, though it reads like `bytes`) and the last
/// version that held the number or name — through releases that did not touch the file.
#[test]
fn reuse_messages_name_the_declared_type_and_the_last_version_that_held_it() {
    let mut r = Repo::new();
    let m = |body: &str| proto("t", &format!("message M {{\n  int32 id = 1;\n{body}\n}}"));
    commit_tag(&mut r, "v1.0.0", "t.proto", &m("  string datum = 4;"));
    // The same schema: v1.1.0 still holds datum.
    commit_tag(&mut r, "v1.1.0", "t.proto", &m("  string datum = 4;"));
    commit_tag(&mut r, "v1.2.0", "t.proto", &m(""));
    commit_tag(
        &mut r,
        "v1.3.0",
        "t.proto",
        &m("  bytes geohash = 4;\n  int32 datum = 5;"),
    );
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let message = |kind: HazardKind| {
        a.hazards
            .iter()
            .find(|h| h.kind == kind)
            .map(|h| h.message.clone())
            .unwrap_or_else(|| panic!("no {kind:?} in {:?}", a.hazards))
    };
    assert_eq!(
        message(HazardKind::NumberReused),
        "t.M: number 4 held `string datum` until v1.1.0, was removed in v1.2.0, and is \
         `bytes geohash` in v1.3.0: data written before the removal is misread"
    );
    assert!(
        message(HazardKind::NameReused).contains("`datum` was number 4 until v1.1.0"),
        "{}",
        message(HazardKind::NameReused)
    );
}
