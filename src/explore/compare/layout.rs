//! Laying out the rows of a comparison's tree (the expanded paths, cycles cut), expanding
//! everything, and finding the path of a name or a change.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use super::{Comparison, Layout, Node, NodeKind, Path, Row, Step, TypePair};

impl Comparison {
    /// Lays out the rows of the tree: the root, then the children of every expanded path.
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
            last: true,
            guides: Vec::new(),
        });
        if root_expanded {
            let mut ancestors = vec![self.root_node.types.clone()];
            let mut path = Vec::new();
            let mut guides = Vec::new();
            self.walk(
                &self.root_node,
                expanded,
                layout,
                &mut ancestors,
                &mut path,
                &mut guides,
                &mut rows,
            );
        }
        rows
    }

    #[allow(clippy::too_many_arguments)] // one recursive walk and its accumulators
    fn walk(
        &self,
        node: &Node,
        expanded: &HashSet<Path>,
        layout: Layout,
        ancestors: &mut Vec<TypePair>,
        path: &mut Path,
        guides: &mut Vec<bool>,
        rows: &mut Vec<Row>,
    ) {
        let kids: Vec<&Arc<Node>> = self
            .children(node)
            .iter()
            .filter(|k| !layout.changed_only || k.worst_here_or_below().is_some())
            .collect();
        let count = kids.len();
        for (i, k) in kids.into_iter().enumerate() {
            if layout.limit > 0 && rows.len() >= layout.limit {
                return;
            }
            let Some(step) = k.step.clone() else { continue };
            path.push(step);
            let cycle = k.expandable() && ancestors.contains(&k.types);
            let open = !cycle && self.has_children(k) && expanded.contains(path);
            let last = i + 1 == count;
            rows.push(Row {
                node: k.clone(),
                path: path.clone(),
                depth: path.len(),
                expanded: open,
                cycle,
                last,
                guides: guides.clone(),
            });
            if open {
                ancestors.push(k.types.clone());
                guides.push(!last);
                self.walk(k, expanded, layout, ancestors, path, guides, rows);
                guides.pop();
                ancestors.pop();
            }
            path.pop();
        }
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
                let Some(step) = k.step.clone() else { continue };
                let mut p = path.clone();
                p.push(step);
                queue.push_back((p, k.clone()));
            }
        }
        out
    }

    /// The shortest path to the first node that `hit` accepts, breadth first, never through
    /// a cycle.
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
                if k.kind == NodeKind::Method || k.expandable() && seen.insert(k.types.clone()) {
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
