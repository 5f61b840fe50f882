//! Making the nodes of a comparison: pairing the members of two declarations, and attaching
//! each change to the node it concerns.

use std::collections::BTreeMap;

use crate::rules::{Change, Severity};
use crate::schema::graph::type_text;
use crate::schema::model::{Content, EnumValue, Field, Method};

use super::index::{Index, Member, type_kind};
use super::{Node, NodeKind, Sides, Step, TypePair};
use crate::diff::members;
use crate::schema::decl;

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Short display type: `map<string, Leaf>`, `repeated Node`, `int32`.
fn short_type(f: &Field) -> String {
    let full = type_text(f);
    // Shorten every dotted name in the text to its last part.
    full.split_inclusive([' ', '<', ',', '>'])
        .map(|tok| {
            let (word, sep) = match tok.char_indices().last() {
                Some((i, ' ' | '<' | ',' | '>')) => (&tok[..i], &tok[i..]),
                _ => (tok, ""),
            };
            format!("{}{sep}", short(word))
        })
        .collect()
}

fn field_target(c: &Content, f: &Field) -> Option<String> {
    let t = match &f.map {
        Some((_, v)) => v.type_name(),
        None => f.ty.type_name(),
    }?;
    type_kind(c, t).map(|_| t.to_string())
}

enum Item<'a> {
    /// An extension of the message, shown among its fields as `[pkg.name]`.
    Extension(&'a crate::schema::model::Extension),
    Field(&'a Field),
    Value(&'a EnumValue),
    Method(&'a Method),
    Request(&'a Method),
    Response(&'a Method),
}

/// The children of a node that expands into the type pair `(ot, nt)`, paired by step:
/// fields and extensions by number, enum values by number, rpcs by name — the pairing of
/// `diff::members`, which the rules use too.
fn paired_children<'a>(
    old: &'a Content,
    ot: Option<&str>,
    new: &'a Content,
    nt: Option<&str>,
) -> BTreeMap<Step, (Option<Item<'a>>, Option<Item<'a>>)> {
    let mut merged: BTreeMap<Step, (Option<Item<'a>>, Option<Item<'a>>)> = BTreeMap::new();
    let (om, nm) = (
        ot.and_then(|t| old.message(t)),
        nt.and_then(|t| new.message(t)),
    );
    for s in members::fields(om, nm).slots {
        merged.insert(
            Step::Field(s.key),
            (s.old.map(Item::Field), s.new.map(Item::Field)),
        );
    }
    // Extension numbers lie in extension ranges, apart from the field numbers.
    for (side, c, t, m) in [(0, old, ot, om), (1, new, nt, nm)] {
        let extensions = t.filter(|_| m.is_some()).and_then(|t| c.extensions.get(t));
        for x in extensions.into_iter().flat_map(|x| x.values()) {
            let slot = merged
                .entry(Step::Field(x.field.number))
                .or_insert((None, None));
            let item = Some(Item::Extension(x));
            if side == 0 {
                slot.0 = item
            } else {
                slot.1 = item
            }
        }
    }
    let (oe, ne) = (ot.and_then(|t| old.enum_(t)), nt.and_then(|t| new.enum_(t)));
    for s in members::values(oe, ne).slots {
        merged.insert(
            Step::Value(s.key),
            (s.old.map(Item::Value), s.new.map(Item::Value)),
        );
    }
    let (os, ns) = (
        ot.and_then(|t| old.service(t)),
        nt.and_then(|t| new.service(t)),
    );
    for s in members::methods(os, ns) {
        merged.insert(
            Step::Method(s.key.to_string()),
            (s.old.map(Item::Method), s.new.map(Item::Method)),
        );
    }
    merged
}

/// What the builder needs to make nodes.
pub(super) struct Builder<'a> {
    pub old: &'a Content,
    pub new: &'a Content,
    pub changes: &'a [Change],
    pub index: Index,
}

impl Builder<'_> {
    fn worst(&self, ids: &[usize]) -> Option<Severity> {
        ids.iter()
            .filter_map(|&i| self.changes.get(i))
            .filter(|c| c.ignored.is_none())
            .map(|c| c.verdict.worst())
            .max()
    }

    pub(super) fn root(&mut self, root: &str) -> Node {
        let (o, n) = (
            type_kind(self.old, root).map(|_| root.to_string()),
            type_kind(self.new, root).map(|_| root.to_string()),
        );
        let kind = type_kind(self.new, root)
            .or_else(|| type_kind(self.old, root))
            .unwrap_or(NodeKind::Message);
        let sides = match (&o, &n) {
            (Some(_), None) => Sides::Old,
            (None, Some(_)) => Sides::New,
            _ => Sides::Both,
        };
        let mut changes = Vec::new();
        self.index
            .collect(&mut changes, &[], [o.as_deref(), n.as_deref()]);
        let decl_of = |c: &Content| {
            c.message(root)
                .map(decl::message)
                .or_else(|| c.service(root).map(decl::service))
        };
        Node {
            kind,
            step: None,
            number: None,
            name: short(root).to_string(),
            old_name: None,
            ty: match kind {
                NodeKind::Service => "service".into(),
                NodeKind::Enum => "enum".into(),
                _ => "message".into(),
            },
            old_ty: None,
            sides,
            worst: self.worst(&changes),
            changes,
            below: None,
            container: (None, None),
            element: root.to_string(),
            old_element: None,
            old_decl: o.as_ref().and_then(|_| decl_of(self.old)),
            new_decl: n.as_ref().and_then(|_| decl_of(self.new)),
            types: (o, n),
        }
    }

    /// The children of a node that expands into `types` (or of rpc `method`).
    pub(super) fn children(&mut self, types: &TypePair, method: Option<&str>) -> Vec<Node> {
        let (old, new) = (self.old, self.new);
        fn lookup<'c>(c: &'c Content, svc: &Option<String>, m: &str) -> Option<&'c Method> {
            svc.as_ref()
                .and_then(|s| c.services.get(s))
                .and_then(|s| s.methods.get(m))
        }
        let merged = match method {
            // An rpc's children: its request and its response.
            Some(m) => {
                let (a, b) = (lookup(old, &types.0, m), lookup(new, &types.1, m));
                BTreeMap::from([
                    (Step::Request, (a.map(Item::Request), b.map(Item::Request))),
                    (
                        Step::Response,
                        (a.map(Item::Response), b.map(Item::Response)),
                    ),
                ])
            }
            None => paired_children(old, types.0.as_deref(), new, types.1.as_deref()),
        };
        merged
            .into_iter()
            .filter_map(|(step, (a, b))| self.node(types, method, step, a, b))
            .collect()
    }

    fn node(
        &mut self,
        parent: &TypePair,
        method: Option<&str>,
        step: Step,
        a: Option<Item<'_>>,
        b: Option<Item<'_>>,
    ) -> Option<Node> {
        let (old, new) = (self.old, self.new);
        let sides = match (&a, &b) {
            (Some(_), None) => Sides::Old,
            (None, Some(_)) => Sides::New,
            _ => Sides::Both,
        };
        let pa = parent.0.as_deref();
        let pb = parent.1.as_deref();
        struct One {
            kind: NodeKind,
            number: Option<i64>,
            name: String,
            ty: String,
            target: Option<String>,
            decl: String,
        }
        let one = |it: &Item<'_>, c: &Content| -> One {
            match it {
                Item::Field(f) => One {
                    kind: NodeKind::Field,
                    number: Some(i64::from(f.number)),
                    name: f.name.clone(),
                    ty: short_type(f),
                    target: field_target(c, f),
                    decl: decl::field(f),
                },
                Item::Extension(x) => One {
                    kind: NodeKind::Field,
                    number: Some(i64::from(x.field.number)),
                    name: format!("[{}]", x.full_name),
                    ty: short_type(&x.field),
                    target: field_target(c, &x.field),
                    decl: decl::extension(x),
                },
                Item::Value(v) => One {
                    kind: NodeKind::Value,
                    number: Some(i64::from(v.number)),
                    name: v.name.clone(),
                    ty: String::new(),
                    target: None,
                    decl: decl::value(v),
                },
                Item::Method(m) => {
                    let stream = |s: bool| if s { "stream " } else { "" };
                    One {
                        kind: NodeKind::Method,
                        number: None,
                        name: m.name.clone(),
                        ty: format!(
                            "{}{} → {}{}",
                            stream(m.client_streaming),
                            short(&m.input),
                            stream(m.server_streaming),
                            short(&m.output)
                        ),
                        target: None,
                        decl: decl::method(m),
                    }
                }
                Item::Request(m) => One {
                    kind: NodeKind::Request,
                    number: None,
                    name: "request".into(),
                    ty: format!(
                        "{}{}",
                        if m.client_streaming { "stream " } else { "" },
                        short(&m.input)
                    ),
                    target: type_kind(c, &m.input).map(|_| m.input.clone()),
                    decl: decl::method(m),
                },
                Item::Response(m) => One {
                    kind: NodeKind::Response,
                    number: None,
                    name: "response".into(),
                    ty: format!(
                        "{}{}",
                        if m.server_streaming { "stream " } else { "" },
                        short(&m.output)
                    ),
                    target: type_kind(c, &m.output).map(|_| m.output.clone()),
                    decl: decl::method(m),
                },
            }
        };
        let oa = a.as_ref().map(|it| one(it, old));
        let ob = b.as_ref().map(|it| one(it, new));
        let main = ob.as_ref().or(oa.as_ref())?;
        let kind = main.kind;
        let number = main.number;
        let name = main.name.clone();
        let ty = main.ty.clone();
        let old_name = oa
            .as_ref()
            .filter(|o| o.name != name)
            .map(|o| o.name.clone());
        let old_ty = oa.as_ref().filter(|o| o.ty != ty).map(|o| o.ty.clone());
        let types = (
            oa.as_ref().and_then(|o| o.target.clone()),
            ob.as_ref().and_then(|o| o.target.clone()),
        );
        let elem = |p: Option<&str>, o: &Option<One>| match (p, o) {
            (Some(p), Some(o)) if matches!(o.kind, NodeKind::Request | NodeKind::Response) => {
                Some(format!("{p}.{}", method.unwrap_or_default()))
            }
            // An extension is named by its own full name, not under the message.
            (Some(_), Some(o)) if o.name.starts_with('[') => Some(
                o.name
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string(),
            ),
            (Some(p), Some(o)) => Some(format!("{p}.{}", o.name)),
            _ => None,
        };
        let new_el = elem(pb, &ob);
        let old_el = elem(pa, &oa);
        let element = new_el.clone().or(old_el.clone()).unwrap_or_default();
        let old_element = old_el.filter(|o| Some(o) != new_el.as_ref());
        // Changes: the member's own, then those of the types it expands into.
        let mut keys: Vec<(Option<&str>, Member)> = Vec::new();
        let names = [
            oa.as_ref().map(|o| o.name.as_str()),
            ob.as_ref().map(|o| o.name.as_str()),
        ];
        match kind {
            NodeKind::Field | NodeKind::Value => {
                if let Some(n) = number {
                    keys.push((pa, Member::Number(n)));
                    keys.push((pb, Member::Number(n)));
                }
                keys.push((pa, Member::Name(names[0].unwrap_or_default().to_string())));
                keys.push((pb, Member::Name(names[1].unwrap_or_default().to_string())));
            }
            NodeKind::Method => {
                keys.push((pa, Member::Name(name.clone())));
                keys.push((pb, Member::Name(name.clone())));
            }
            _ => {}
        }
        let mut changes = Vec::new();
        self.index.collect(
            &mut changes,
            &keys,
            [types.0.as_deref(), types.1.as_deref()],
        );
        Some(Node {
            kind,
            step: Some(step),
            number,
            name,
            old_name,
            ty,
            old_ty,
            sides,
            container: parent.clone(),
            element,
            old_element,
            old_decl: oa.map(|o| o.decl),
            new_decl: ob.map(|o| o.decl),
            worst: self.worst(&changes),
            changes,
            below: None,
            types,
        })
    }
}
