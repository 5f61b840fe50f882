//! The detail pane's round trips: under the verdict grid, per level (wire, json) and the
//! runtime that read it, each direction's observed cell beside the rule's, a contradiction
//! marked in words (not by colour alone), and one sample of the cell — the bytes (or JSON
//! text) written and what the reader got. While the proof is computed, "proving…"; a
//! change no sample can show says so in one line.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::prove::{Cell, Cells, Proof};
use crate::sanitize;

use crate::ui::app::ProofState;
use crate::ui::widgets::text::{self, cut_head, fit};
use crate::ui::widgets::theme::Theme;

const TITLE: &str = "round trip  ";

fn titled(t: &Theme, rest: Vec<Span<'static>>) -> Line<'static> {
    let mut spans = vec![Span::styled(TITLE, t.header())];
    spans.extend(rest);
    Line::from(spans)
}

/// The section's lines, or none when the pane shows no change.
pub(super) fn lines(t: &Theme, state: Option<ProofState<'_>>, width: usize) -> Vec<Line<'static>> {
    let Some(state) = state else {
        return Vec::new();
    };
    let p = match state {
        ProofState::Proving => return vec![titled(t, vec![Span::styled("proving…", t.dim())])],
        ProofState::Proved(None) => {
            return vec![titled(t, vec![Span::styled("not proven", t.dim())])];
        }
        ProofState::Proved(Some(p)) => p,
    };
    if let Some(why) = &p.unproven {
        return vec![titled(
            t,
            vec![Span::styled(
                format!("not proven ({})", sanitize::line(why)),
                t.dim(),
            )],
        )];
    }
    let levels: Vec<(&str, &Cells)> = [("wire", &p.wire), ("json", &p.json)]
        .into_iter()
        .filter_map(|(l, c)| Some((l, c.as_ref()?)))
        .collect();
    let cells = || levels.iter().flat_map(|(_, c)| [&c.backward, &c.forward]);
    if cells().all(|c| c.samples.is_empty()) {
        let why = cells()
            .find_map(|c| c.skipped.first())
            .map(|s| format!(" ({})", sanitize::line(s)))
            .unwrap_or_else(|| " (no side writes it)".to_string());
        return vec![titled(
            t,
            vec![Span::styled(
                format!("no sample shows this change{why}"),
                t.dim(),
            )],
        )];
    }
    let mut out = vec![titled(t, about(t, p))];
    for (level, c) in levels {
        out.push(Line::from(vec![
            Span::styled(format!("  {level:<6}"), t.header()),
            Span::styled(c.backward.runtime, t.dim()),
        ]));
        for (dir, cell) in [("backward", &c.backward), ("forward", &c.forward)] {
            let other =
                (dir == "forward" && cell.runtime != c.backward.runtime).then_some(cell.runtime);
            out.push(cell_line(t, dir, cell, other));
            out.push(sample_line(t, cell, level == "wire", width));
        }
    }
    out
}

/// What the directions mean, and which message the samples are of when it is not the
/// changed element's own.
fn about(t: &Theme, p: &Proof) -> Vec<Span<'static>> {
    let mut spans = vec![Span::styled(
        "backward: old writes, new reads · forward: the reverse",
        t.dim(),
    )];
    let parent = p.element.rsplit_once('.').map_or("", |x| x.0);
    if let Some(m) = p.message.as_deref().filter(|m| *m != parent) {
        spans.push(Span::styled(
            format!(" · samples of {}", sanitize::line(m)),
            t.dim(),
        ));
    }
    spans
}

/// `    backward  observed lossy     rule breaking  CONTRADICTION`
fn cell_line(t: &Theme, dir: &str, c: &Cell, runtime: Option<&str>) -> Line<'static> {
    let mut spans = vec![
        Span::styled(format!("    {dir:<10}"), t.header()),
        Span::styled("observed ", t.dim()),
    ];
    spans.push(match c.observed {
        Some(o) => Span::styled(fit(o.as_str(), 9), t.severity(o)),
        None => Span::styled(fit("none", 9), t.dim()),
    });
    spans.push(Span::styled(" rule ", t.dim()));
    spans.push(Span::styled(c.rule.as_str(), t.severity(c.rule)));
    if let Some(all) = c.together {
        spans.push(Span::styled(
            format!(" ({} with the field's other changes)", all.as_str()),
            t.dim(),
        ));
    }
    if c.contradiction {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(
            " CONTRADICTION ",
            t.bad().add_modifier(Modifier::REVERSED),
        ));
    }
    if let Some(r) = runtime {
        spans.push(Span::styled(format!(" · {r}"), t.dim()));
    }
    Line::from(spans)
}

/// Hex as bytes: `08 96 01`.
fn spaced(hex: &str) -> String {
    let chars: Vec<char> = hex.chars().collect();
    chars
        .chunks(2)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `      label  08 96 01 → 150 (preserved)`: on one line when it fits, else on two (the
/// document wraps it); the label, the written text and the reading each cut (keeping their
/// heads) so that a sample never takes more.
fn sample_line(t: &Theme, c: &Cell, wire: bool, width: usize) -> Line<'static> {
    const INDENT: &str = "      ";
    let Some(s) = c.telling() else {
        let why = c
            .skipped
            .first()
            .map(|w| format!("not written: {}", sanitize::line(w)))
            .unwrap_or_else(|| "no sample".to_string());
        let room = width.saturating_sub(INDENT.len());
        return Line::from(vec![
            Span::raw(INDENT),
            Span::styled(cut_head(&why, room).apply(&why), t.dim()),
        ]);
    };
    let written = sanitize::line(s.written_text());
    let written = if wire && !s.written.is_empty() {
        spaced(&written)
    } else {
        written
    };
    let read = sanitize::line(&s.read);
    let outcome = format!(" ({})", s.outcome.as_str());
    let room = width.saturating_sub(INDENT.len());
    let cut = |s: &str, w: usize| cut_head(s, w).apply(s);
    let label = cut(&sanitize::line(&s.label), 32.min(room / 2));
    let written = cut(&written, 24.max(room / 2));
    let read = cut(&read, room.saturating_sub(text::width(&outcome) + 2));
    Line::from(vec![
        Span::raw(INDENT),
        Span::styled(label, t.dim()),
        Span::raw("  "),
        Span::styled(written, t.accent()),
        Span::styled(" → ", t.dim()),
        Span::raw(read),
        Span::styled(outcome, t.severity(s.outcome.severity())),
    ])
}
