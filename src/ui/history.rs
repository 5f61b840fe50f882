//! The history view: the fields (or values) of one message (or enum) × every version, showing
//! when each was added, changed, deprecated, removed or reserved.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::explore::lifecycle::{Lifecycle, State};

use super::app::App;
use super::text::fit;
use super::theme::Theme;

/// Rows under the matrix: the cell's description and the legend.
const FOOTER_ROWS: u16 = 3;

/// The matrix geometry in an area: (label width, cell width, visible columns, visible rows).
pub fn geometry(app: &App, l: &Lifecycle, area: Rect) -> (usize, usize, usize, usize) {
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2 + 1 + FOOTER_ROWS) as usize;
    let num_w = l
        .members
        .iter()
        .map(|m| m.number.to_string().len())
        .max()
        .unwrap_or(1);
    let name_w = l
        .members
        .iter()
        .map(|m| m.name.chars().count())
        .max()
        .unwrap_or(4)
        .min(28);
    let label = num_w + 1 + name_w + 2;
    let cell = app
        .versions
        .iter()
        .map(|v| v.version.name.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(3, 9)
        + 1;
    let cols = (inner_w.saturating_sub(label) / cell).max(1);
    (label, cell, cols, inner_h.max(1))
}

fn glyph(t: &Theme, s: State) -> (&'static str, Style) {
    match s {
        State::Absent => ("", Style::new()),
        State::Added => ("+", t.ok()),
        State::Present => ("·", t.dim()),
        State::Changed => ("~", t.warn()),
        State::Deprecated => ("D", t.warn()),
        State::Removed => ("−", t.bad()),
        State::Reserved => ("R", t.dim()),
        State::Unknown => ("?", t.dim()),
    }
}

fn state_word(s: State) -> &'static str {
    match s {
        State::Absent => "absent",
        State::Added => "added",
        State::Present => "unchanged",
        State::Changed => "changed",
        State::Deprecated => "deprecated",
        State::Removed => "removed",
        State::Reserved => "reserved (removed earlier)",
        State::Unknown => "unknown (the version does not compile)",
    }
}

pub struct HistoryPane<'a>(pub &'a App);

impl Widget for &HistoryPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let container = app.history_container();
        let title = match &container {
            Some(c) => format!(
                " History · {} · members × versions ",
                crate::sanitize::line(c)
            ),
            None => " History ".to_string(),
        };
        let block = Block::bordered()
            .title(Span::styled(title, t.title(true)))
            .border_style(t.border(true));
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(container) = container else {
            Line::styled(" no root yet: press r to pick one", t.dim()).render(inner, buf);
            return;
        };
        let Some(l) = app.lifecycles.get(&container) else {
            let msg = if app.project.is_some() {
                " computing…"
            } else {
                " waiting for every version to load…"
            };
            Line::styled(msg, t.dim()).render(inner, buf);
            return;
        };
        if l.members.is_empty() {
            Line::styled(" no fields in any version", t.dim()).render(inner, buf);
            return;
        }
        let nav = app.history_nav;
        let (label_w, cell_w, cols, rows) = geometry(app, l, area);
        let num_w = l
            .members
            .iter()
            .map(|m| m.number.to_string().len())
            .max()
            .unwrap_or(1);
        // Header: version names.
        let mut head = vec![Span::raw(" ".repeat(label_w))];
        for ci in nav.col_scroll..(nav.col_scroll + cols).min(app.versions.len()) {
            let name = app
                .versions
                .get(ci)
                .map(|v| crate::sanitize::line(&v.version.name))
                .unwrap_or_default();
            let style = if ci == nav.col {
                t.header().add_modifier(Modifier::UNDERLINED)
            } else if ci == app.selected {
                t.accent()
            } else {
                t.dim()
            };
            head.push(Span::styled(fit(&name, cell_w - 1), style));
            head.push(Span::raw(" "));
        }
        Line::from(head).render(Rect { height: 1, ..inner }, buf);
        for (ri, mi) in (nav.row_scroll..l.members.len()).take(rows).enumerate() {
            let Some(m) = l.members.get(mi) else { break };
            let sel_row = mi == nav.row;
            let mut spans = vec![
                Span::styled(format!("{:>num_w$} ", m.number), t.dim()),
                Span::styled(
                    fit(&crate::sanitize::line(&m.name), label_w - num_w - 1),
                    if sel_row { t.header() } else { Style::new() },
                ),
            ];
            for ci in nav.col_scroll..(nav.col_scroll + cols).min(app.versions.len()) {
                let st = m.states.get(ci).copied().unwrap_or(State::Unknown);
                let (g, style) = glyph(t, st);
                let half = (cell_w - 1) / 2;
                let text = format!(
                    "{}{}{}",
                    " ".repeat(half),
                    g,
                    " ".repeat(cell_w.saturating_sub(half + g.chars().count().max(1)))
                );
                let text = if g.is_empty() {
                    " ".repeat(cell_w)
                } else {
                    text
                };
                let style = if sel_row && ci == nav.col {
                    style.patch(t.selected(true))
                } else {
                    style
                };
                spans.push(Span::styled(text, style));
            }
            let r = Rect::new(inner.x, inner.y + 1 + ri as u16, inner.width, 1);
            Line::from(spans).render(r, buf);
        }
        // The cell under the cursor, and the legend.
        let y = inner.bottom().saturating_sub(FOOTER_ROWS);
        if let Some(m) = l.members.get(nav.row) {
            let st = m.states.get(nav.col).copied().unwrap_or(State::Unknown);
            let vname = app
                .versions
                .get(nav.col)
                .map(|v| crate::sanitize::line(&v.version.name))
                .unwrap_or_default();
            let decl = m.decls.get(nav.col).cloned().flatten().unwrap_or_default();
            Line::from(vec![
                Span::styled(format!(" {} ", crate::sanitize::line(&m.name)), t.header()),
                Span::raw(format!("in {vname}: ")),
                Span::styled(state_word(st), glyph(t, st).1),
                Span::styled(format!("  {}", crate::sanitize::line(&decl)), t.dim()),
            ])
            .render(Rect::new(inner.x, y + 1, inner.width, 1), buf);
        }
        let mut legend = vec![Span::raw(" ")];
        for s in [
            State::Added,
            State::Changed,
            State::Deprecated,
            State::Removed,
            State::Reserved,
            State::Present,
        ] {
            let (g, style) = glyph(t, s);
            legend.push(Span::styled(g, style));
            legend.push(Span::styled(
                format!(" {}  ", state_word(s).split(' ').next().unwrap_or("")),
                t.dim(),
            ));
        }
        Line::from(legend).render(Rect::new(inner.x, y + 2, inner.width, 1), buf);
    }
}
