//! The members of a pair of declarations, paired — written once, for the rules and for the
//! explorer's tree: fields by number, enum values by number (the first value of an alias
//! set stands for the number), rpcs by name; and apart, the fields and values that kept
//! their name under a new number (a renumbering). What a renumbering leaves of a slot (the
//! member that stayed, or the one that came) is in [`Members::remains`], so no member goes
//! unjudged. Names are looked up through an index, so a declaration with many members
//! costs their number, not its square.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::schema::model::{Enum, EnumValue, Field, Message, Method, Service};

/// One member slot (a number, or an rpc's name) with the member on each side.
#[derive(Debug)]
pub struct Slot<'a, K, T> {
    pub key: K,
    pub old: Option<&'a T>,
    pub new: Option<&'a T>,
}

/// The members of two declarations, paired.
#[derive(Debug)]
pub struct Members<'a, K, T> {
    /// Every key of either side, in order. A renumbered member is at its old number on the
    /// old side and at its new number on the new side.
    pub slots: Vec<Slot<'a, K, T>>,
    /// Members that kept their name under a new number: (old, new).
    pub renumbered: Vec<(&'a T, &'a T)>,
}

/// What is left of a slot once renumbered members are accounted for (by their own change):
/// `old` and `new` are the members still to judge there (removed, added, renamed);
/// `moved_out` is the renumbering (old, new) whose old member left this number, `moved_in`
/// the one whose new member came to it.
#[derive(Debug)]
pub struct Remains<'a, K, T> {
    pub key: K,
    pub old: Option<&'a T>,
    pub new: Option<&'a T>,
    pub moved_out: Option<(&'a T, &'a T)>,
    pub moved_in: Option<(&'a T, &'a T)>,
}

impl<'a, K: Copy, T> Members<'a, K, T> {
    /// Every slot with something left to judge: a renumbered member is taken out of its
    /// slots (it is its renumbering's), what stays beside it is kept, with the renumbering
    /// that moved out or in named.
    pub fn remains(&self) -> Vec<Remains<'a, K, T>> {
        type Moves<'a, T> = HashMap<*const T, (&'a T, &'a T)>;
        let outs: Moves<'a, T> = self.renumbered.iter().map(|&m| (m.0 as _, m)).collect();
        let ins: Moves<'a, T> = self.renumbered.iter().map(|&m| (m.1 as _, m)).collect();
        self.slots
            .iter()
            .filter_map(|s| {
                let out = s.old.and_then(|o| outs.get(&(o as *const T)).copied());
                let came = s.new.and_then(|n| ins.get(&(n as *const T)).copied());
                let r = Remains {
                    key: s.key,
                    old: s.old.filter(|_| out.is_none()),
                    new: s.new.filter(|_| came.is_none()),
                    moved_out: out,
                    moved_in: came,
                };
                (r.old.is_some() || r.new.is_some()).then_some(r)
            })
            .collect()
    }
}

/// The fields of two messages (either may be absent: a type on one side only), by number:
/// the number is a field's identity on the wire, so a field whose number is still in use is
/// paired with the field at that number, whatever its name. A field is renumbered only by a
/// clean move: its name is at another number in the new message, its old number is free
/// there and that number was free in the old message. (A new field that takes the name of
/// an old one still in use under its number is an addition, and the old field's partner is
/// the field at its number: a rename.)
pub fn fields<'a>(om: Option<&'a Message>, nm: Option<&'a Message>) -> Members<'a, u32, Field> {
    let numbers: BTreeSet<u32> = om
        .into_iter()
        .chain(nm)
        .flat_map(|m| m.fields.keys().copied())
        .collect();
    let slots = numbers
        .into_iter()
        .map(|n| Slot {
            key: n,
            old: om.and_then(|m| m.fields.get(&n)),
            new: nm.and_then(|m| m.fields.get(&n)),
        })
        .collect();
    let mut renumbered = Vec::new();
    if let (Some(om), Some(nm)) = (om, nm) {
        let by_name: HashMap<&str, &Field> =
            nm.fields.values().map(|f| (f.name.as_str(), f)).collect();
        for of in om.fields.values() {
            if nm.fields.contains_key(&of.number) {
                continue;
            }
            if let Some(nf) = by_name.get(of.name.as_str())
                && !om.fields.contains_key(&nf.number)
            {
                renumbered.push((of, *nf));
            }
        }
    }
    Members { slots, renumbered }
}

/// The value standing for `number` in `e`: the first declared with it.
pub fn value(e: &Enum, number: i32) -> Option<&EnumValue> {
    e.values.iter().find(|v| v.number == number)
}

/// The values of two enums (either may be absent), by number. A value is renumbered when
/// its name is at another number in the new enum and that number's value in the old enum
/// is not of the same name.
pub fn values<'a>(o: Option<&'a Enum>, n: Option<&'a Enum>) -> Members<'a, i32, EnumValue> {
    let first = |e: Option<&'a Enum>| -> BTreeMap<i32, &'a EnumValue> {
        let mut m = BTreeMap::new();
        for v in e.into_iter().flat_map(|e| &e.values) {
            m.entry(v.number).or_insert(v);
        }
        m
    };
    let (fo, fnew) = (first(o), first(n));
    let numbers: BTreeSet<i32> = fo.keys().chain(fnew.keys()).copied().collect();
    let slots = numbers
        .into_iter()
        .map(|x| Slot {
            key: x,
            old: fo.get(&x).copied(),
            new: fnew.get(&x).copied(),
        })
        .collect();
    let mut renumbered = Vec::new();
    if let (Some(o), Some(n)) = (o, n) {
        let by_name: HashMap<&str, &EnumValue> =
            n.values.iter().map(|v| (v.name.as_str(), v)).collect();
        for ov in &o.values {
            let Some(nv) = by_name
                .get(ov.name.as_str())
                .filter(|v| v.number != ov.number)
            else {
                continue;
            };
            if fo.get(&nv.number).is_none_or(|x| x.name != nv.name) {
                renumbered.push((ov, *nv));
            }
        }
    }
    Members { slots, renumbered }
}

/// The rpcs of two services (either may be absent), by name.
pub fn methods<'a>(
    o: Option<&'a Service>,
    n: Option<&'a Service>,
) -> Vec<Slot<'a, &'a str, Method>> {
    let names: BTreeSet<&'a str> = o
        .into_iter()
        .chain(n)
        .flat_map(|s| s.methods.keys().map(String::as_str))
        .collect();
    names
        .into_iter()
        .map(|name| Slot {
            key: name,
            old: o.and_then(|s| s.methods.get(name)),
            new: n.and_then(|s| s.methods.get(name)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(text: &str) -> crate::schema::Content {
        let out = crate::schema::Cache::new().compile(&[crate::schema::SourceRef {
            path: "t.proto",
            blob: text,
            text: Ok(text),
            origin: crate::origin::Origin::Root,
        }]);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        out.schema.content.clone()
    }

    #[test]
    fn fields_pair_by_number_and_a_kept_name_is_a_renumbering() {
        let old =
            content("syntax = \"proto3\"; message M { int32 a = 1; int32 b = 2; int32 c = 3; }");
        let new =
            content("syntax = \"proto3\"; message M { int32 a = 1; int32 x = 2; int32 c = 4; }");
        let m = fields(old.message("M"), new.message("M"));
        let keys: Vec<(u32, Option<&str>, Option<&str>)> = m
            .slots
            .iter()
            .map(|s| {
                (
                    s.key,
                    s.old.map(|f| f.name.as_str()),
                    s.new.map(|f| f.name.as_str()),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                (1, Some("a"), Some("a")),
                (2, Some("b"), Some("x")),
                (3, Some("c"), None),
                (4, None, Some("c")),
            ]
        );
        let moved: Vec<(u32, u32)> = m
            .renumbered
            .iter()
            .map(|(o, n)| (o.number, n.number))
            .collect();
        assert_eq!(moved, [(3, 4)]);
        // The moved field is its renumbering's: slots 3 and 4 leave nothing to judge.
        let left: Vec<u32> = m.remains().iter().map(|r| r.key).collect();
        assert_eq!(left, [1, 2]);
        // A type on one side only: every member one-sided, nothing renumbered.
        let one = fields(None, new.message("M"));
        assert!(one.slots.iter().all(|s| s.old.is_none()) && one.renumbered.is_empty());
    }

    /// opentelemetry v0.15.0: `scope_spans = 2` took the number of
    /// `instrumentation_library_spans = 2`, which came back as a deprecated field 1000. The
    /// number is the wire identity: the old field's partner is `scope_spans`, and the field
    /// 1000 is new, not the old one renumbered.
    #[test]
    fn a_field_is_paired_once_by_its_number_when_its_name_moves_to_another() {
        let old = content("syntax = \"proto3\"; message M { int32 res = 1; int32 lib = 2; }");
        let new = content(
            "syntax = \"proto3\"; message M { int32 res = 1; int32 scope = 2; int32 lib = 1000; }",
        );
        let m = fields(old.message("M"), new.message("M"));
        assert!(m.renumbered.is_empty(), "{:?}", m.renumbered);
        let left: Vec<(u32, Option<&str>, Option<&str>)> = m
            .remains()
            .iter()
            .map(|r| {
                (
                    r.key,
                    r.old.map(|f| f.name.as_str()),
                    r.new.map(|f| f.name.as_str()),
                )
            })
            .collect();
        assert_eq!(
            left,
            [
                (1, Some("res"), Some("res")),
                (2, Some("lib"), Some("scope")),
                (1000, None, Some("lib")),
            ]
        );
        // Nor is a field renumbered onto a number another field held.
        let old = content("syntax = \"proto3\"; message M { int32 a = 1; int32 b = 2; }");
        let new = content("syntax = \"proto3\"; message M { int32 b = 1; }");
        assert!(
            fields(old.message("M"), new.message("M"))
                .renumbered
                .is_empty()
        );
    }

    /// opentelemetry v0.4.0: SUMMARY moved 7 -> 6, where CUMULATIVE_HISTOGRAM was. The move
    /// is SUMMARY's; what remains of slot 6 is CUMULATIVE_HISTOGRAM, removed, with the value
    /// that moved in named.
    #[test]
    fn a_renumbering_leaves_the_rest_of_its_slots_to_judge() {
        let old = content("syntax = \"proto3\"; enum E { Z = 0; H = 6; S = 7; }");
        let new = content("syntax = \"proto3\"; enum E { U = 0; Z = 1; S = 6; }");
        let v = values(old.enum_("E"), new.enum_("E"));
        let moved: Vec<(i32, i32)> = v
            .renumbered
            .iter()
            .map(|(o, n)| (o.number, n.number))
            .collect();
        assert_eq!(moved, [(0, 1), (7, 6)]);
        let name = |x: Option<&EnumValue>| x.map(|x| x.name.clone());
        let left: Vec<_> = v
            .remains()
            .iter()
            .map(|r| {
                (
                    r.key,
                    name(r.old),
                    name(r.new),
                    name(r.moved_out.map(|m| m.0)),
                    name(r.moved_in.map(|m| m.1)),
                )
            })
            .collect();
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            left,
            [
                (0, None, s("U"), s("Z"), None),
                (6, s("H"), None, None, s("S")),
            ]
        );
    }

    #[test]
    fn enum_values_pair_by_number_the_first_alias_standing_for_it() {
        let old = content(
            "syntax = \"proto3\"; enum E { option allow_alias = true; Z = 0; A = 1; B = 1; C = 2; }",
        );
        let new = content("syntax = \"proto3\"; enum E { Z = 0; A = 1; C = 3; }");
        let v = values(old.enum_("E"), new.enum_("E"));
        let keys: Vec<(i32, Option<&str>, Option<&str>)> = v
            .slots
            .iter()
            .map(|s| {
                (
                    s.key,
                    s.old.map(|x| x.name.as_str()),
                    s.new.map(|x| x.name.as_str()),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                (0, Some("Z"), Some("Z")),
                (1, Some("A"), Some("A")),
                (2, Some("C"), None),
                (3, None, Some("C")),
            ]
        );
        let moved: Vec<&str> = v.renumbered.iter().map(|(o, _)| o.name.as_str()).collect();
        assert_eq!(moved, ["C"]);
    }

    #[test]
    fn rpcs_pair_by_name() {
        let old = content(
            "syntax = \"proto3\"; message R {} service S { rpc A(R) returns (R); rpc B(R) returns (R); }",
        );
        let new = content(
            "syntax = \"proto3\"; message R {} service S { rpc B(R) returns (R); rpc C(R) returns (R); }",
        );
        let m = methods(old.service("S"), new.service("S"));
        let keys: Vec<(&str, bool, bool)> = m
            .iter()
            .map(|s| (s.key, s.old.is_some(), s.new.is_some()))
            .collect();
        assert_eq!(
            keys,
            [("A", true, false), ("B", true, true), ("C", false, true)]
        );
    }
}
