//! The per-version and per-history caps of [`crate::limits`], decided before anything is
//! compiled. A version whose `.proto` files total more than the per-version cap is not
//! compiled. The distinct file sets of the history are then counted newest first (an equal
//! set costs nothing more: it is compiled once), and a version whose set would take the
//! statements compiled past the per-history cap is not compiled: the newest versions, which
//! `check`, the policies and a reader care for most, are the ones kept. Either way the version
//! is shown as not compiled, with the reason in one line, and the rest of the history goes on.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::history::{Origin, Version};
use crate::limits::{self, Limits};
use crate::schema::Compiled;

/// Per version, in history order: why it is not compiled (one line), or None.
pub(super) fn over_caps(versions: &[Version], limits: &Limits) -> Vec<Option<String>> {
    // Every statement ends in a `;` or opens with a `{`: when the bytes that could be one
    // do not reach the history cap over all the distinct file sets, no version passes it,
    // and no statement needs counting (protobuf's 384 tags: no tokenizing at all).
    let within = history_within(versions, limits.history_statements);
    let mut by_blob: HashMap<&str, usize> = HashMap::new();
    let mut counted: HashSet<Vec<(&str, &str)>> = HashSet::new();
    let mut total = 0usize;
    let mut out: Vec<Option<String>> = versions
        .iter()
        .rev()
        .map(|v| {
            let bytes: usize = v
                .files
                .iter()
                .map(|f| f.text.as_ref().map_or(0, |t| t.len()))
                .sum();
            if bytes > limits.version_bytes {
                return Some(format!(
                    "not compiled: its .proto files total {bytes} bytes, over the per-version \
                     cap of {} bytes (set {} to raise it)",
                    limits.version_bytes,
                    limits::VERSION_VAR
                ));
            }
            let mut key: Vec<(&str, &str)> = v
                .files
                .iter()
                .map(|f| (f.path.as_str(), f.blob.as_str()))
                .collect();
            key.sort_unstable();
            if within || counted.contains(&key) {
                return None;
            }
            let statements: usize = v
                .files
                .iter()
                .map(|f| {
                    *by_blob.entry(f.blob.as_str()).or_insert_with(|| {
                        f.text.as_deref().map_or(0, crate::proto_text::statements)
                    })
                })
                .sum();
            if total.saturating_add(statements) > limits.history_statements {
                return Some(format!(
                    "not compiled: its {statements} statements would take the history past \
                     its cap of {} statements compiled, newest versions first (set {} to \
                     raise it)",
                    limits.history_statements,
                    limits::HISTORY_VAR
                ));
            }
            total += statements;
            counted.insert(key);
            None
        })
        .collect();
    out.reverse();
    out
}

/// Whether the history's distinct file sets hold at most `cap` bytes that can end or open
/// a statement (`;`, `{`): an upper bound of their statements.
fn history_within(versions: &[Version], cap: usize) -> bool {
    let mut by_blob: HashMap<&str, usize> = HashMap::new();
    let mut seen: HashSet<Vec<(&str, &str)>> = HashSet::new();
    let mut total = 0usize;
    for v in versions {
        let mut key: Vec<(&str, &str)> = v
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.blob.as_str()))
            .collect();
        key.sort_unstable();
        if !seen.insert(key) {
            continue;
        }
        for f in v.files.iter() {
            let n = *by_blob.entry(f.blob.as_str()).or_insert_with(|| {
                f.text.as_deref().map_or(0, |t| {
                    t.bytes().filter(|b| matches!(b, b';' | b'{')).count()
                })
            });
            total = total.saturating_add(n);
        }
        if total > cap {
            return false;
        }
    }
    true
}

/// The compile state of a version over a cap: failed, with the reason as its diagnostic.
pub(super) fn not_compiled(version: &Version, reason: String) -> Arc<Compiled> {
    let roots = version.files.iter().filter(|f| f.origin == Origin::Root);
    Arc::new(Compiled::failed(reason, roots.count()))
}
