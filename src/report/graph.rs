//! `protolapse graph`: the type graph reached from a root, as an indented tree, Graphviz dot
//! or Mermaid.

use std::collections::{HashMap, HashSet};

use crate::sanitize;
use crate::schema::Content;
use crate::schema::graph::{TypeGraph, Via, type_text};

/// Past this depth the indentation of `graph`'s text stops growing and each line starts with
/// its depth as a number (`[depth 812]`), so the output stays linear in the number of types
/// however long a chain of references is.
pub const MAX_INDENT: usize = 32;

/// An indented tree: each type is expanded once; later uses say `(see above)`, and an edge
/// that closes a cycle says `(cycle)`. Deeper than [`MAX_INDENT`] levels, lines are indented
/// as at that depth and say their depth. Walked with an explicit stack: no recursion per level.
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
    let mut on_path: HashSet<String> = HashSet::from([graph.root.clone()]);
    // One frame per type being expanded: its lines, and the next one to print.
    let mut stack = vec![(graph.root.clone(), lines(content, &graph.root, 1), 0usize)];
    while let Some((name, items, next)) = stack.last_mut() {
        let Some(item) = items.get(*next) else {
            on_path.remove(name.as_str());
            stack.pop();
            continue;
        };
        *next += 1;
        out.push_str(&indent(item.depth));
        out.push_str(&item.text);
        if let Some(t) = &item.target {
            out.push_str(mark(t, &expanded, &on_path));
        }
        out.push('\n');
        if let Some(t) = item.target.clone()
            && expanded.insert(t.clone())
        {
            let child = lines(content, &t, item.depth + 1);
            on_path.insert(t.clone());
            stack.push((t, child, 0));
        }
    }
    if graph.has_cycle() {
        out.push_str("(cycles are marked; a type is expanded once)\n");
    }
    out
}

/// The indentation of a line at `depth`: two spaces a level up to [`MAX_INDENT`], then the
/// depth as a number.
fn indent(depth: usize) -> String {
    if depth <= MAX_INDENT {
        "  ".repeat(depth)
    } else {
        format!("{}[depth {depth}] ", "  ".repeat(MAX_INDENT))
    }
}

/// One line of the tree: its text (without indentation or mark), and the type it expands
/// into, whose lines go one level deeper.
struct Item {
    depth: usize,
    text: String,
    target: Option<String>,
}

/// The lines of a type's expansion at `depth`: its fields and extensions, its values, or its
/// rpcs with their request and response types.
fn lines(content: &Content, name: &str, depth: usize) -> Vec<Item> {
    let mut out = Vec::new();
    if let Some(m) = content.messages.get(name) {
        for f in m.fields.values() {
            let oneof = f
                .oneof
                .as_deref()
                .map(|o| format!("  [oneof {}]", sanitize::line(o)))
                .unwrap_or_default();
            let target = match &f.map {
                Some((_, v)) => v.type_name(),
                None => f.ty.type_name(),
            };
            out.push(Item {
                depth,
                text: format!(
                    "{} {}: {}{oneof}",
                    f.number,
                    sanitize::line(&f.name),
                    sanitize::line(&type_text(f))
                ),
                target: target.map(str::to_string),
            });
        }
        // Extensions of this message, declared anywhere: fields by another name.
        for x in content
            .extensions
            .get(name)
            .into_iter()
            .flat_map(|m| m.values())
        {
            let f = &x.field;
            out.push(Item {
                depth,
                text: format!(
                    "{} [{}]: {}  (extension)",
                    f.number,
                    sanitize::line(&x.full_name),
                    sanitize::line(&type_text(f))
                ),
                target: f.ty.type_name().map(str::to_string),
            });
        }
    } else if let Some(e) = content.enums.get(name) {
        for v in &e.values {
            out.push(Item {
                depth,
                text: format!("{} = {}", sanitize::line(&v.name), v.number),
                target: None,
            });
        }
    } else if let Some(s) = content.services.get(name) {
        for m in s.methods.values() {
            let stream = |b: bool| if b { "stream " } else { "" };
            out.push(Item {
                depth,
                text: format!(
                    "rpc {}({}{}) returns ({}{})",
                    sanitize::line(&m.name),
                    stream(m.client_streaming),
                    m.input,
                    stream(m.server_streaming),
                    m.output
                ),
                target: None,
            });
            for t in [&m.input, &m.output] {
                out.push(Item {
                    depth: depth + 1,
                    text: t.to_string(),
                    target: Some(t.clone()),
                });
            }
        }
    }
    out
}

fn mark(target: &str, expanded: &HashSet<String>, on_path: &HashSet<String>) -> &'static str {
    if on_path.contains(target) {
        "  (cycle)"
    } else if expanded.contains(target) {
        "  (see above)"
    } else {
        ""
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
    let ids: HashMap<&str, usize> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let id = |name: &str| {
        ids.get(name)
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
