//! `protolapse graph`: the type graph reached from a root, as an indented tree, Graphviz dot
//! or Mermaid.

use std::collections::HashSet;

use crate::sanitize;
use crate::schema::Content;
use crate::schema::graph::{TypeGraph, Via, type_text};

/// An indented tree: each type is expanded once; later uses say `(see above)`, and an edge
/// that closes a cycle says `(cycle)`.
pub fn to_text(content: &Content, graph: &TypeGraph) -> String {
    let mut out = String::new();
    let kind = if content.services.contains_key(&graph.root) {
        "service"
    } else {
        "message"
    };
    out.push_str(&format!("{kind} {}\n", sanitize::line(&graph.root)));
    let mut expanded = HashSet::new();
    expanded.insert(graph.root.clone());
    let mut stack = vec![graph.root.clone()];
    tree(
        content,
        graph,
        &graph.root,
        1,
        &mut expanded,
        &mut stack,
        &mut out,
    );
    if graph.has_cycle() {
        out.push_str("(cycles are marked; a type is expanded once)\n");
    }
    out
}

fn tree(
    content: &Content,
    graph: &TypeGraph,
    name: &str,
    depth: usize,
    expanded: &mut HashSet<String>,
    stack: &mut Vec<String>,
    out: &mut String,
) {
    let indent = "  ".repeat(depth);
    if let Some(m) = content.messages.get(name) {
        for f in m.fields.values() {
            let oneof = f
                .oneof
                .as_deref()
                .map(|o| format!("  [oneof {o}]"))
                .unwrap_or_default();
            let target = match &f.map {
                Some((_, v)) => v.type_name(),
                None => f.ty.type_name(),
            };
            let mark = target.map(|t| mark(t, expanded, stack)).unwrap_or_default();
            out.push_str(&format!(
                "{indent}{} {}: {}{oneof}{mark}\n",
                f.number,
                sanitize::line(&f.name),
                sanitize::line(&type_text(f))
            ));
            if let Some(t) = target {
                descend(content, graph, t, depth, expanded, stack, out);
            }
        }
        // Extensions of this message, declared anywhere: fields by another name.
        for x in content
            .extensions
            .get(name)
            .into_iter()
            .flat_map(|m| m.values())
        {
            let f = &x.field;
            let target = f.ty.type_name();
            let mark = target.map(|t| mark(t, expanded, stack)).unwrap_or_default();
            out.push_str(&format!(
                "{indent}{} [{}]: {}  (extension){mark}\n",
                f.number,
                sanitize::line(&x.full_name),
                sanitize::line(&type_text(f))
            ));
            if let Some(t) = target {
                descend(content, graph, t, depth, expanded, stack, out);
            }
        }
    } else if let Some(e) = content.enums.get(name) {
        for v in &e.values {
            out.push_str(&format!(
                "{indent}{} = {}\n",
                sanitize::line(&v.name),
                v.number
            ));
        }
    } else if let Some(s) = content.services.get(name) {
        for m in s.methods.values() {
            let stream = |b: bool| if b { "stream " } else { "" };
            out.push_str(&format!(
                "{indent}rpc {}({}{}) returns ({}{})\n",
                sanitize::line(&m.name),
                stream(m.client_streaming),
                m.input,
                stream(m.server_streaming),
                m.output
            ));
            for t in [&m.input, &m.output] {
                let mark = mark(t, expanded, stack);
                out.push_str(&format!("{indent}  {t}{mark}\n"));
                descend(content, graph, t, depth + 1, expanded, stack, out);
            }
        }
    }
}

fn mark(target: &str, expanded: &HashSet<String>, stack: &[String]) -> &'static str {
    if stack.iter().any(|s| s == target) {
        "  (cycle)"
    } else if expanded.contains(target) {
        "  (see above)"
    } else {
        ""
    }
}

fn descend(
    content: &Content,
    graph: &TypeGraph,
    target: &str,
    depth: usize,
    expanded: &mut HashSet<String>,
    stack: &mut Vec<String>,
    out: &mut String,
) {
    if expanded.insert(target.to_string()) {
        stack.push(target.to_string());
        tree(content, graph, target, depth + 1, expanded, stack, out);
        stack.pop();
    }
}

fn edge_label(via: Via, label: &str, number: Option<u32>) -> String {
    let n = number.map(|n| format!(" = {n}")).unwrap_or_default();
    match via {
        Via::Field => format!("{label}{n}"),
        Via::MapValue => format!("{label}{n} (map)"),
        Via::Oneof => format!("{label}{n} (oneof)"),
        Via::Input => format!("{label} (in)"),
        Via::Output => format!("{label} (out)"),
        Via::Extension => format!("[{label}]{n} (extension)"),
    }
}

/// Graphviz dot; back edges dashed, types in a cycle drawn bold.
pub fn to_dot(graph: &TypeGraph) -> String {
    let q = |s: &str| {
        format!(
            "\"{}\"",
            sanitize::line(s).replace('\\', "\\\\").replace('"', "\\\"")
        )
    };
    let mut out = String::from(
        "digraph types {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n",
    );
    for n in &graph.nodes {
        let shape = match n.kind {
            crate::schema::graph::NodeKind::Enum => ", shape=ellipse",
            crate::schema::graph::NodeKind::Service => ", shape=component",
            _ => "",
        };
        let bold = if n.in_cycle { ", style=bold" } else { "" };
        out.push_str(&format!(
            "  {}[label={}{shape}{bold}];\n",
            q(&n.name),
            q(&n.name)
        ));
    }
    for e in &graph.edges {
        let style = if e.back { ", style=dashed" } else { "" };
        out.push_str(&format!(
            "  {} -> {} [label={}{style}];\n",
            q(&e.from),
            q(&e.to),
            q(&edge_label(e.via, &e.label, e.number))
        ));
    }
    out.push_str("}\n");
    out
}

/// Mermaid flowchart; back edges dotted.
pub fn to_mermaid(graph: &TypeGraph) -> String {
    let id = |name: &str| {
        graph
            .nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| format!("n{i}"))
            .unwrap_or_else(|| "missing".into())
    };
    let safe = |s: &str| sanitize::line(s).replace(['"', '|', '[', ']', '{', '}', '<', '>'], "_");
    let mut out = String::from("flowchart LR\n");
    for (i, n) in graph.nodes.iter().enumerate() {
        out.push_str(&format!("  n{i}[\"{}\"]\n", safe(&n.name)));
    }
    for e in &graph.edges {
        let arrow = if e.back { "-.->" } else { "-->" };
        out.push_str(&format!(
            "  {} {arrow}|\"{}\"| {}\n",
            id(&e.from),
            safe(&edge_label(e.via, &e.label, e.number)),
            id(&e.to)
        ));
    }
    out
}
