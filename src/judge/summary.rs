//! What a pair of versions amounts to for a policy: its [`PairSummary`] (worst verdict and
//! warnings per level and direction), and the changes a first violation can be ([`firsts`]).

use crate::rules::{Change, Level, RuleId, Severity, Verdict};

/// What a policy needs to know of one pair: per level and direction, the worst verdict
/// and how many changes warn (hazard or lossy), over the changes that count (not ignored,
/// not in a file that failed to compile); and whether anything but comments changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairSummary {
    /// `[level][direction]`: level by `Level::index` (wire, json, source); direction 0
    /// backward, 1 forward.
    pub worst: [[Severity; 2]; 3],
    pub warnings: [[u32; 2]; 3],
    /// Some change other than a comment counts.
    pub changed: bool,
    /// Changes that could not be judged because a file did not compile on one side.
    pub not_judged: u32,
}

impl PairSummary {
    /// The summary of a list of changes, as [`super::judge`] gives them.
    pub fn of(changes: &[Change]) -> PairSummary {
        let mut s = PairSummary::default();
        for c in changes {
            if super::is_not_judged(c) {
                s.not_judged += 1;
            }
            if c.ignored.is_none() {
                s.add(&c.verdict, c.rule != RuleId::COMMENT_CHANGED);
            }
        }
        s
    }

    /// Counts one change that counts: its verdict, and whether it is more than a comment.
    pub(super) fn add(&mut self, verdict: &Verdict, changed: bool) {
        self.changed |= changed;
        for level in Level::ALL {
            for (k, backward) in [(0, true), (1, false)] {
                let sev = verdict.at(level, backward);
                let l = level.index();
                self.worst[l][k] = self.worst[l][k].max(sev);
                if matches!(sev, Severity::Hazard | Severity::Lossy) {
                    self.warnings[l][k] += 1;
                }
            }
        }
    }

    /// The summary of two disjoint sets of changes together.
    pub(super) fn merge(&mut self, other: &PairSummary) {
        self.changed |= other.changed;
        self.not_judged += other.not_judged;
        for l in 0..3 {
            for k in 0..2 {
                self.worst[l][k] = self.worst[l][k].max(other.worst[l][k]);
                self.warnings[l][k] += other.warnings[l][k];
            }
        }
    }
}

/// The changes of a sorted list that a policy's first violation can be, whatever the
/// policy, level, directions and strictness: the first change (not ignored) with each
/// severity above safe in each level and direction, and the first change other than a
/// comment (what DENY_ALL objects to), in the list's order. A first violation is the first
/// change, in the list's order, of the worst severity the policy's cells reach, so it is
/// always one of these.
pub fn firsts(changes: &[Change]) -> Vec<Change> {
    let mut seen = [[[false; 4]; 2]; 3];
    let mut other = false;
    changes
        .iter()
        .filter(|c| c.ignored.is_none())
        .filter(|c| {
            let mut keep = false;
            if !other && c.rule != RuleId::COMMENT_CHANGED {
                other = true;
                keep = true;
            }
            for level in Level::ALL {
                for (d, backward) in [(0, true), (1, false)] {
                    let s = c.verdict.at(level, backward);
                    let cell = &mut seen[level.index()][d][s as usize];
                    if s > Severity::Safe && !*cell {
                        *cell = true;
                        keep = true;
                    }
                }
            }
            keep
        })
        .cloned()
        .collect()
}
