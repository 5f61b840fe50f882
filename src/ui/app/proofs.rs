//! The detail pane's subject among a comparison's changes, and the round trips of the change
//! it shows: asked of a worker (never proved on the UI thread), kept per pair and change so
//! that moving back is instant, and looked up by the selection on screen only, so that a
//! proof that arrives for another selection is never shown under this one.

use std::sync::Arc;

use crate::explore::Comparison;
use crate::prove::Proof;

use crate::ui::app::{App, ProveKey, Request};
use crate::ui::views::View;

/// How many proofs are kept before those of other pairs are let go.
const KEPT: usize = 256;

/// The round trips of the change on screen.
#[derive(Debug, Clone, Copy)]
pub enum ProofState<'a> {
    /// Asked for, not arrived.
    Proving,
    /// Arrived (`None`: the comparison has no such change).
    Proved(Option<&'a Proof>),
}

impl App {
    /// The changes the detail pane describes (the node's under the graph's cursor, or the
    /// change under the changes list's), as indices into `c.changes`, and which of them it
    /// shows. `None` when it describes nothing.
    pub fn detail_changes(&self, c: &Comparison) -> Option<(Vec<usize>, usize)> {
        if self.view == View::Changes {
            let i = self.changes_nav.cursor;
            c.changes.get(i)?;
            return Some((vec![i], 0));
        }
        let changes = self.tree.row()?.node.changes.clone();
        let shown = self.detail.rule.min(changes.len().saturating_sub(1));
        Some((changes, shown))
    }

    /// The proof the detail pane shows now: the pair on screen and the change it shows,
    /// when the pane is on screen and shows a change.
    pub fn proof_key(&self) -> Option<ProveKey> {
        self.areas().detail?;
        let c = self.current()?;
        if c.first {
            return None;
        }
        let (changes, shown) = self.detail_changes(c)?;
        let i = *changes.get(shown)?;
        Some((c.key(), i))
    }

    /// The round trips of the change on screen, if it shows one.
    pub fn proof(&self) -> Option<ProofState<'_>> {
        let key = self.proof_key()?;
        Some(match self.proofs.get(&key) {
            Some(p) => ProofState::Proved(p.as_deref()),
            None => ProofState::Proving,
        })
    }

    /// A proof arrived: kept whichever selection it is for (the screen looks it up by its
    /// own).
    pub(super) fn proved(&mut self, key: ProveKey, proof: Option<Arc<Proof>>) {
        if self.asked_prove.as_ref() == Some(&key) {
            self.asked_prove = None;
        }
        if self.proofs.len() >= KEPT {
            let pair = self.compare_key();
            self.proofs.retain(|k, _| Some(&k.0) == pair.as_ref());
            if self.proofs.len() >= KEPT {
                self.proofs.clear();
            }
        }
        self.proofs.insert(key, proof);
    }

    /// Asks for the proof on screen when it is neither kept nor asked for.
    pub(super) fn ensure_proof(&mut self) {
        let Some(key) = self.proof_key() else { return };
        if self.proofs.contains_key(&key) || self.asked_prove.as_ref() == Some(&key) {
            return;
        }
        let Some(c) = self.current().cloned() else {
            return;
        };
        self.asked_prove = Some(key.clone());
        self.outbox.push(Request::Prove { key, comparison: c });
    }
}
