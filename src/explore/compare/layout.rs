//! Laying out the rows of a comparison's tree (the expanded paths, cycles cut), expanding
//! everything, and finding the path of a name or a change.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use super::{Comparison, Layout, Node, NodeKind, Path, Row, Step, TypePair};

/// The tree is laid out at most this deep: a node at this depth is shown, but not opened
/// (`Row::cut`). A path is a row's identity and every row carries its own, so an unbounded
/// depth (a chain of 50,000 references) would cost the square of the depth; the `graph`
/// command prints the whole depth.
pub const MAX_DEPTH: usize = 256;

impl Comparison {
    /// Lays out the rows of the tree: the root, then the children of every expanded path,
    /// depth first with an explicit stack (no recursion per level), at most [`MAX_DEPTH`]
    /// levels deep.
    pub fn rows(&self, expanded: &HashSet<Path>, layout: Layout) -> Vec<Row> {
        let mut rows = Vec::new();
        if !self.root_found() {
            return rows;
        }
        let root_expanded = expanded.contains(&Vec::new());
        rows.push(Row {
            node: self.root_node.clone(),
            path: Vec::new(),
            depth: 0,
            expanded: root_expanded,
            cycle: false,
            cut: false,
            last: true,
            guides: Vec::new(),
        });
        if !root_expanded {
            return rows;
        }
        // The type pairs on the path (how many times each), the path, and the guides.
        let mut ancestors: HashMap<&TypePair, usize> = HashMap::from([(&self.root_node.types, 1)]);
        let mut path: Path = Vec::new();
        let mut guides: Vec<bool> = Vec::new();
        // The type pair each open node pushed onto `ancestors`.
        let mut opened: Vec<&TypePair> = Vec::new();
        // One frame per open node: its children shown, and the next one to lay out.
        let mut stack: Vec<(Vec<&Arc<Node>>, usize)> =
            vec![(self.shown_children(&self.root_node, layout), 0)];
        while let Some((kids, next)) = stack.last_mut() {
            if layout.limit > 0 && rows.len() >= layout.limit {
                break;
            }
            let i = *next;
            let count = kids.len();
            let Some(&k) = kids.get(i) else {
                stack.pop();
                // Leaving an open node: what opening it pushed goes.
                if !stack.is_empty() {
                    path.pop();
                    guides.pop();
                    if let Some(t) = opened.pop()
                        && let Some(n) = ancestors.get_mut(t)
                    {
                        *n -= 1;
                        if *n == 0 {
                            ancestors.remove(t);
                        }
                    }
                }
                continue;
            };
            *next += 1;
            let Some(step) = k.step.clone() else { continue };
            path.push(step);
            let cycle = k.expandable() && ancestors.contains_key(&k.types);
            let cut = !cycle && self.has_children(k) && path.len() >= MAX_DEPTH;
            let open = !cycle && !cut && self.has_children(k) && expanded.contains(&path);
            let last = i + 1 == count;
            rows.push(Row {
                node: k.clone(),
                path: path.clone(),
                depth: path.len(),
                expanded: open,
                cycle,
                cut,
                last,
                guides: guides.clone(),
            });
            if open {
                *ancestors.entry(&k.types).or_default() += 1;
                opened.push(&k.types);
                guides.push(!last);
                stack.push((self.shown_children(k, layout), 0));
            } else {
                path.pop();
            }
        }
        rows
    }

    /// The children of a node that the layout shows.
    fn shown_children(&self, node: &Node, layout: Layout) -> Vec<&Arc<Node>> {
        self.children(node)
            .iter()
            .filter(|k| !layout.changed_only || k.worst_here_or_below().is_some())
            .collect()
    }

    /// Paths to expand so that every node below `from` is shown, each type pair expanded at
    /// its first occurrence only (later ones stay collapsed), at most `limit` paths; with
    /// `changed_only`, only nodes with a change below them.
    pub fn expand_all(&self, from: &[Step], changed_only: bool, limit: usize) -> Vec<Path> {
        let mut out = Vec::new();
        let Some(start) = self.node(from) else {
            return out;
        };
        let mut seen: HashSet<TypePair> = HashSet::new();
        // Ancestors of `from` count as seen (a cycle back to them is not expanded).
        let mut n = &self.root_node;
        seen.insert(n.types.clone());
        for s in from {
            match self.children(n).iter().find(|c| c.step.as_ref() == Some(s)) {
                Some(c) => {
                    n = c;
                    seen.insert(c.types.clone());
                }
                None => break,
            }
        }
        let mut queue = VecDeque::from([(from.to_vec(), start.clone())]);
        while let Some((path, node)) = queue.pop_front() {
            if out.len() >= limit {
                break;
            }
            out.push(path.clone());
            for k in self.children(&node) {
                if !self.has_children(k) || changed_only && k.below.is_none() {
                    continue;
                }
                if k.kind != NodeKind::Method && !seen.insert(k.types.clone()) {
                    continue;
                }
                // A node at the depth limit is not opened (see `MAX_DEPTH`).
                if path.len() + 1 >= MAX_DEPTH {
                    continue;
                }
                let Some(step) = k.step.clone() else { continue };
                let mut p = path.clone();
                p.push(step);
                queue.push_back((p, k.clone()));
            }
        }
        out
    }

    /// The shortest path to the first node that `hit` accepts, breadth first, never through
    /// a cycle, at most [`MAX_DEPTH`] deep.
    pub fn find(&self, hit: impl Fn(&Node) -> bool) -> Option<Path> {
        if !self.root_found() {
            return None;
        }
        if hit(&self.root_node) {
            return Some(Vec::new());
        }
        let mut seen: HashSet<TypePair> = HashSet::from([self.root_node.types.clone()]);
        let mut queue = VecDeque::from([(Vec::new(), self.root_node.clone())]);
        while let Some((path, node)) = queue.pop_front() {
            for k in self.children(&node) {
                let Some(step) = k.step.clone() else { continue };
                let mut p = path.clone();
                p.push(step);
                if hit(k) {
                    return Some(p);
                }
                // Nothing below the depth limit is laid out, so nothing there is found.
                if p.len() < MAX_DEPTH
                    && (k.kind == NodeKind::Method
                        || k.expandable() && seen.insert(k.types.clone()))
                {
                    queue.push_back((p, k.clone()));
                }
            }
        }
        None
    }

    /// The path of a full name: a type the tree expands into, or a field, value or rpc.
    pub fn path_to(&self, name: &str) -> Option<Path> {
        self.find(|n| {
            n.element == name
                || n.old_element.as_deref() == Some(name)
                || n.types.0.as_deref() == Some(name)
                || n.types.1.as_deref() == Some(name)
        })
    }

    /// The path of the first node a change is attached to.
    pub fn path_of_change(&self, change: usize) -> Option<Path> {
        self.find(|n| n.changes.contains(&change))
    }
}
