//! The type graph reached from a root message or service: messages and enums reached
//! through fields, map values, oneof members and RPC input/output types. Cycles are found
//! and marked; the graph is plain data.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::model::{Content, FieldType};

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Message,
    Enum,
    Service,
    /// Referenced but not in the schema (cannot happen in a compiled pool; kept for safety).
    Missing,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Part of a cycle (reaches itself).
    pub in_cycle: bool,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    Field,
    MapValue,
    Oneof,
    Input,
    Output,
    /// An extension of the message (declared elsewhere, in its extension ranges).
    Extension,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Edge {
    pub from: String,
    pub to: String,
    /// Field or method name; an extension's full name.
    pub label: String,
    /// Field or extension number (None for RPC edges).
    pub number: Option<u32>,
    pub via: Via,
    /// Closes a cycle: `to` is an ancestor of `from` in the walk.
    pub back: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TypeGraph {
    pub root: String,
    /// In the order first reached (depth first, fields by number).
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl TypeGraph {
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.nodes.iter().map(|n| n.name.as_str())
    }

    pub fn has_cycle(&self) -> bool {
        self.edges.iter().any(|e| e.back)
    }
}

/// The edges going out of one message or service: fields in number order, then the
/// extensions of the message in number order (data of the message can carry them), or rpcs.
pub fn out_edges(content: &Content, name: &str) -> Vec<Edge> {
    let mut out = Vec::new();
    if let Some(m) = content.messages.get(name) {
        for f in m.fields.values() {
            let (target, via) = match &f.map {
                Some((_, value)) => (value.type_name(), Via::MapValue),
                None => (
                    f.ty.type_name(),
                    if f.oneof.is_some() {
                        Via::Oneof
                    } else {
                        Via::Field
                    },
                ),
            };
            if let Some(target) = target {
                out.push(Edge {
                    from: name.to_string(),
                    to: target.to_string(),
                    label: f.name.clone(),
                    number: Some(f.number),
                    via,
                    back: false,
                });
            }
        }
        for e in content.extensions_of(name) {
            if let Some(target) = e.field.ty.type_name() {
                out.push(Edge {
                    from: name.to_string(),
                    to: target.to_string(),
                    label: e.full_name.clone(),
                    number: Some(e.field.number),
                    via: Via::Extension,
                    back: false,
                });
            }
        }
    } else if let Some(s) = content.services.get(name) {
        for m in s.methods.values() {
            for (to, via) in [(&m.input, Via::Input), (&m.output, Via::Output)] {
                out.push(Edge {
                    from: name.to_string(),
                    to: to.clone(),
                    label: m.name.clone(),
                    number: None,
                    via,
                    back: false,
                });
            }
        }
    }
    out
}

fn kind_of(content: &Content, name: &str) -> NodeKind {
    if content.messages.contains_key(name) {
        NodeKind::Message
    } else if content.enums.contains_key(name) {
        NodeKind::Enum
    } else if content.services.contains_key(name) {
        NodeKind::Service
    } else {
        NodeKind::Missing
    }
}

/// Walks the graph from `root` (a full name that exists in `content`), depth first without
/// recursion. The names on the current path are kept in a map to their depth, so telling a
/// back edge costs one lookup; each frame carries the shallowest depth its subtree reaches
/// back to, so marking the types of a cycle costs one step per type popped, whatever the
/// length of the path (a chain of 50,000 references is linear, not quadratic).
pub fn build(content: &Content, root: &str) -> TypeGraph {
    struct Frame {
        name: String,
        edges: Vec<Edge>,
        next: usize,
        /// The shallowest depth on the path that this node's subtree has a back edge to.
        low: usize,
    }
    let mut g = TypeGraph {
        root: root.to_string(),
        nodes: Vec::new(),
        edges: Vec::new(),
    };
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut in_cycle: HashSet<String> = HashSet::new();
    let mut on_path: HashMap<String, usize> = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    index.insert(root.to_string(), 0);
    g.nodes.push(Node {
        name: root.to_string(),
        kind: kind_of(content, root),
        in_cycle: false,
    });
    on_path.insert(root.to_string(), 0);
    stack.push(Frame {
        name: root.to_string(),
        edges: out_edges(content, root),
        next: 0,
        low: usize::MAX,
    });
    while let Some(top) = stack.last_mut() {
        let Some(edge) = top.edges.get(top.next).cloned() else {
            let depth = stack.len() - 1;
            if let Some(done) = stack.pop() {
                on_path.remove(&done.name);
                // Below a node that a back edge reaches, every node up to it is in the cycle.
                if done.low < depth {
                    in_cycle.insert(done.name);
                    if let Some(parent) = stack.last_mut() {
                        parent.low = parent.low.min(done.low);
                    }
                }
            }
            continue;
        };
        top.next += 1;
        let mut edge = edge;
        if let Some(&pos) = on_path.get(&edge.to) {
            edge.back = true;
            top.low = top.low.min(pos);
            in_cycle.insert(edge.to.clone());
        } else if !index.contains_key(&edge.to) {
            index.insert(edge.to.clone(), g.nodes.len());
            g.nodes.push(Node {
                name: edge.to.clone(),
                kind: kind_of(content, &edge.to),
                in_cycle: false,
            });
            on_path.insert(edge.to.clone(), stack.len());
            stack.push(Frame {
                name: edge.to.clone(),
                edges: out_edges(content, &edge.to),
                next: 0,
                low: usize::MAX,
            });
        }
        g.edges.push(edge);
    }
    for n in &mut g.nodes {
        n.in_cycle = in_cycle.contains(&n.name);
    }
    g
}

/// How a root name given by a user resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootMatch {
    Found(String),
    /// Several full names end in the given name.
    Ambiguous(Vec<String>),
    /// Nothing matched; the closest names.
    Unknown(Vec<String>),
}

/// Resolves a root given as a full name (`physics.v1.FlightPath`, a leading dot allowed) or
/// as a unique suffix (`FlightPath`, `v1.FlightPath`) among messages and services.
pub fn resolve_root(content: &Content, given: &str) -> RootMatch {
    let given = given.trim_start_matches('.');
    let candidates: Vec<&str> = content
        .messages
        .values()
        .filter(|m| !m.map_entry)
        .map(|m| m.full_name.as_str())
        .chain(content.services.keys().map(String::as_str))
        .collect();
    if candidates.contains(&given) {
        return RootMatch::Found(given.to_string());
    }
    let suffix = format!(".{given}");
    let mut matches: Vec<String> = candidates
        .iter()
        .filter(|c| c.ends_with(&suffix))
        .map(|c| c.to_string())
        .collect();
    // A short name means the repository's own type before a well-known one that happens to
    // end the same way (`Annotation` is also google.protobuf.GeneratedCodeInfo.Annotation).
    let own = |n: &String| {
        let file = content
            .messages
            .get(n)
            .map(|m| &m.file)
            .or_else(|| content.services.get(n).map(|s| &s.file));
        file.and_then(|f| content.files.get(f))
            .is_some_and(|f| !f.external)
    };
    if matches.len() > 1 && matches.iter().any(own) {
        matches.retain(own);
    }
    match matches.len() {
        1 => RootMatch::Found(matches.into_iter().next().unwrap_or_default()),
        0 => RootMatch::Unknown(closest(&candidates, given, 5)),
        _ => RootMatch::Ambiguous(matches),
    }
}

/// The `n` names closest to `given` (edit distance on the short and full names).
pub fn closest(candidates: &[&str], given: &str, n: usize) -> Vec<String> {
    let given_lower = given.to_lowercase();
    let mut scored: Vec<(usize, &str)> = candidates
        .iter()
        .map(|c| {
            let short = c.rsplit('.').next().unwrap_or(c).to_lowercase();
            let d = strsim::levenshtein(&short, &given_lower)
                .min(strsim::levenshtein(&c.to_lowercase(), &given_lower));
            let d = if short.contains(&given_lower) || given_lower.contains(&short) {
                d.min(1)
            } else {
                d
            };
            (d, *c)
        })
        .collect();
    scored.sort();
    let limit = (given.chars().count() / 2).max(3);
    scored
        .into_iter()
        .filter(|(d, _)| *d <= limit)
        .take(n)
        .map(|(_, c)| c.to_string())
        .collect()
}

/// Type text for display: `map<string, Foo>`, `repeated Foo`, `Foo`.
pub fn type_text(f: &super::model::Field) -> String {
    use super::model::Cardinality;
    match &f.map {
        Some((k, v)) => format!("map<{k}, {v}>"),
        None => match f.cardinality {
            Cardinality::Repeated => format!("repeated {}", f.ty),
            Cardinality::Required => format!("required {}", f.ty),
            Cardinality::Optional if f.proto3_optional => format!("optional {}", f.ty),
            Cardinality::Optional => f.ty.to_string(),
        },
    }
}

/// Whether a type is a message (for expanding in trees).
pub fn is_message(ty: &FieldType) -> bool {
    matches!(ty, FieldType::Message(_) | FieldType::Group(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::compile::{Cache, SourceRef};

    fn content(text: &str) -> Content {
        let mut cache = Cache::new();
        let out = cache.compile(&[SourceRef {
            path: "t.proto",
            blob: "1",
            origin: crate::schema::Origin::Root,
            text: Ok(text),
        }]);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        out.schema.content.clone()
    }

    #[test]
    fn cycles_are_marked_and_terminate() {
        let c = content(
            "syntax = \"proto3\"; package p;\n\
             message Tree { Node root = 1; map<string, Leaf> leaves = 2; }\n\
             message Node { repeated Node children = 1; Tree owner = 2; Kind kind = 3; }\n\
             message Leaf { oneof v { string s = 1; Kind k = 2; } }\n\
             enum Kind { KIND_UNSPECIFIED = 0; }\n\
             message Unreached { int32 x = 1; }\n",
        );
        let g = build(&c, "p.Tree");
        let names: Vec<&str> = g.names().collect();
        assert_eq!(names, ["p.Tree", "p.Node", "p.Kind", "p.Leaf"]);
        assert!(g.has_cycle());
        let back: Vec<(&str, &str)> = g
            .edges
            .iter()
            .filter(|e| e.back)
            .map(|e| (e.from.as_str(), e.to.as_str()))
            .collect();
        assert_eq!(back, [("p.Node", "p.Node"), ("p.Node", "p.Tree")]);
        let cyc: Vec<bool> = g.nodes.iter().map(|n| n.in_cycle).collect();
        assert_eq!(cyc, [true, true, false, false]);
        assert!(
            g.edges
                .iter()
                .any(|e| e.via == Via::MapValue && e.to == "p.Leaf")
        );
        assert!(
            g.edges
                .iter()
                .any(|e| e.via == Via::Oneof && e.to == "p.Kind")
        );
    }

    #[test]
    fn the_extensions_of_a_reached_message_are_edges() {
        let c = content(
            "syntax = \"proto2\"; package p;\n\
             message Root { optional Box box = 1; }\n\
             message Box { extensions 100 to 199; }\n\
             message Payload { optional int32 x = 1; }\n\
             extend Box { optional Payload payload = 100; optional int32 plain = 101; }\n",
        );
        let g = build(&c, "p.Root");
        let names: Vec<&str> = g.names().collect();
        assert_eq!(names, ["p.Root", "p.Box", "p.Payload"]);
        let e = g.edges.iter().find(|e| e.via == Via::Extension).unwrap();
        assert_eq!(
            (e.from.as_str(), e.label.as_str(), e.number),
            ("p.Box", "p.payload", Some(100))
        );
    }

    #[test]
    fn services_reach_rpc_types_and_roots_resolve() {
        let c = content(
            "syntax = \"proto3\"; package p.v1;\n\
             message Req {} message Resp { Temperature t = 1; } message Temperature {}\n\
             service Svc { rpc Get(Req) returns (Resp); }\n",
        );
        let g = build(&c, "p.v1.Svc");
        let names: Vec<&str> = g.names().collect();
        assert_eq!(
            names,
            ["p.v1.Svc", "p.v1.Req", "p.v1.Resp", "p.v1.Temperature"]
        );
        assert_eq!(
            resolve_root(&c, "Resp"),
            RootMatch::Found("p.v1.Resp".into())
        );
        assert_eq!(
            resolve_root(&c, ".p.v1.Svc"),
            RootMatch::Found("p.v1.Svc".into())
        );
        match resolve_root(&c, "Temprature") {
            RootMatch::Unknown(s) => {
                assert_eq!(s.first().map(String::as_str), Some("p.v1.Temperature"))
            }
            other => panic!("{other:?}"),
        }
    }
}
