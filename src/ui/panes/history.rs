//! The history view: the fields (or values) of one message (or enum) × every version, showing
//! when each was added, changed, deprecated, removed or reserved (from `policy::lifecycle`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::explore::facts::Mark;
use crate::judge::{NOT_JUDGED, Scope};
use crate::policy::lifecycle::{Lifecycle, Row, State};

use crate::ui::app::App;
use crate::ui::widgets::columns::Window;
use crate::ui::widgets::text::{fit, fit_name, short_name, width};
use crate::ui::widgets::theme::Theme;

/// Rows under the matrix: the cell's description and the legend.
const FOOTER_ROWS: u16 = 3;

/// The latest name of a row.
fn last_name(r: &Row) -> &str {
    r.names.last().map(String::as_str).unwrap_or("")
}

/// The matrix geometry in an area: (label width, cell width, visible columns, visible rows).
pub fn geometry(app: &App, l: &Lifecycle, area: Rect) -> (usize, usize, usize, usize) {
    let inner_w = area.width.saturating_sub(2) as usize;
    let inner_h = area.height.saturating_sub(2 + 1 + FOOTER_ROWS) as usize;
    let num_w = l
        .rows
        .iter()
        .map(|m| m.number.to_string().len())
        .max()
        .unwrap_or(1);
    let name_w = l
        .rows
        .iter()
        .map(|m| last_name(m).chars().count())
        .max()
        .unwrap_or(4)
        .min(28);
    let label = num_w + 1 + name_w + 2;
    let cell = app.name_chars.clamp(3, 9) + 1;
    // One column kept at the right edge for the mark of the versions hidden there.
    let cols = (inner_w.saturating_sub(label + 1) / cell).max(1);
    (label, cell, cols, inner_h.max(1))
}

/// The glyph and style of a state.
pub fn glyph(t: &Theme, s: State) -> (&'static str, Style) {
    match s {
        State::Absent => ("", Style::new()),
        State::Added => ("+", t.ok()),
        State::Kept => ("·", t.dim()),
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
        State::Kept => "unchanged",
        State::Changed => "changed",
        State::Deprecated => "deprecated",
        State::Removed => "removed",
        State::Reserved => "reserved",
        State::Unknown => "unknown",
    }
}

/// The mark of a version where the container was not read.
fn not_judged_glyph(t: &Theme) -> (&'static str, Style) {
    t.mark(Mark::NotJudged)
}

/// Why the container is not judged in version `ci` (`judge::Scope::not_judged` with the
/// container as the root), when the version does not have it.
fn not_judged_at(app: &App, l: &Lifecycle, container: &str, ci: usize) -> Option<String> {
    if l.present.get(ci).copied().unwrap_or(false) {
        return None;
    }
    let v = app.versions.get(ci)?;
    Scope::Root(container.to_string()).not_judged(v, &[])
}

pub struct HistoryPane<'a>(pub &'a App);

impl Widget for &HistoryPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let container = app.history_container();
        let title = match &container {
            Some(c) => {
                // The message's name keeps its tail when the title is too long for the border.
                let room =
                    (area.width as usize).saturating_sub(2 + width(" History ·  × versions "));
                format!(
                    " History · {} × versions ",
                    short_name(&crate::sanitize::line(c), room)
                )
            }
            None => " History ".to_string(),
        };
        let mut block = Block::bordered()
            .title(Span::styled(title, t.title(true)))
            .border_style(t.border(true));
        // The versions on screen, and the note of those hidden on either side.
        let lifecycle = container.as_ref().and_then(|c| app.lifecycles.get(c));
        let laid = lifecycle.map(|l| {
            let (label_w, cell_w, cols, rows) = geometry(app, l, area);
            let win = Window::new(app.history_nav.col_scroll, cols, app.versions.len());
            (label_w, cell_w, rows, win)
        });
        if let Some(note) = laid.as_ref().and_then(|(.., w)| w.note("versions")) {
            block = block.title_bottom(Line::styled(note, t.accent()).right_aligned());
        }
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(container) = container else {
            Line::styled(" no root yet: press r to pick one", t.dim()).render(inner, buf);
            return;
        };
        let (Some(l), Some((label_w, cell_w, rows, win))) = (lifecycle, laid) else {
            let msg = if app.project.is_some() {
                " computing…"
            } else {
                " waiting for every version to load…"
            };
            Line::styled(msg, t.dim()).render(inner, buf);
            return;
        };
        if l.rows.is_empty() {
            Line::styled(" no fields in any version", t.dim()).render(inner, buf);
            return;
        }
        let nav = app.history_nav;
        let num_w = l
            .rows
            .iter()
            .map(|m| m.number.to_string().len())
            .max()
            .unwrap_or(1);
        let shown = win.range();
        // Header: version names, between the marks of the versions hidden on either side.
        let mut head = vec![
            Span::raw(" ".repeat(label_w.saturating_sub(1))),
            Span::styled(win.left_mark(), t.accent()),
        ];
        for ci in shown.clone() {
            let name = app
                .versions
                .get(ci)
                .map(|v| crate::sanitize::line(&v.version.name))
                .unwrap_or_default();
            let style = if ci == nav.col {
                t.header().add_modifier(Modifier::UNDERLINED)
            } else if ci == app.selected.index() {
                t.accent()
            } else {
                t.dim()
            };
            head.push(Span::styled(fit(&name, cell_w - 1), style));
            head.push(Span::raw(" "));
        }
        Line::from(head).render(Rect { height: 1, ..inner }, buf);
        if let Some(x) = inner.right().checked_sub(1) {
            buf.set_string(x, inner.y, win.right_mark(), t.accent());
        }
        // The versions where the container was not read: it is not among what compiled.
        let not_judged: Vec<Option<String>> = shown
            .clone()
            .map(|ci| not_judged_at(app, l, &container, ci))
            .collect();
        for (ri, mi) in (nav.row_scroll..l.rows.len()).take(rows).enumerate() {
            let Some(m) = l.rows.get(mi) else { break };
            let sel_row = mi == nav.row;
            let mut spans = vec![
                Span::styled(format!("{:>num_w$} ", m.number), t.dim()),
                Span::styled(
                    fit_name(&crate::sanitize::line(last_name(m)), label_w - num_w - 1),
                    if sel_row { t.header() } else { Style::new() },
                ),
            ];
            for ci in shown.clone() {
                let st = m.cells.get(ci).map(|c| c.state).unwrap_or(State::Unknown);
                // A version without the message says nothing: blank, not unknown.
                let compiled = app.versions.get(ci).is_some_and(|v| v.schema().is_some());
                let absent = st == State::Unknown
                    && compiled
                    && !l.present.get(ci).copied().unwrap_or(false);
                let (g, style) = if not_judged[ci - shown.start].is_some() {
                    not_judged_glyph(t)
                } else if absent {
                    ("", Style::new())
                } else {
                    glyph(t, st)
                };
                let half = (cell_w - 1) / 2;
                let text = if g.is_empty() {
                    " ".repeat(cell_w)
                } else {
                    format!("{}{g}{}", " ".repeat(half), " ".repeat(cell_w - half - 1))
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
        if let Some(m) = l.rows.get(nav.row)
            && let Some(why) = not_judged_at(app, l, &container, nav.col)
        {
            let vname = app
                .versions
                .get(nav.col)
                .map(|v| crate::sanitize::line(v.name()))
                .unwrap_or_default();
            let (_, style) = not_judged_glyph(t);
            Line::from(vec![
                Span::styled(
                    format!(" {} ", crate::sanitize::line(last_name(m))),
                    t.header(),
                ),
                Span::raw(format!("in {vname}: ")),
                Span::styled(NOT_JUDGED, style),
                Span::styled(format!(": {}", crate::sanitize::line(&why)), t.dim()),
            ])
            .render(Rect::new(inner.x, y + 1, inner.width, 1), buf);
        } else if let Some(m) = l.rows.get(nav.row)
            && let Some(cell) = m.cells.get(nav.col)
        {
            let vname = crate::sanitize::line(&cell.version);
            let mut spans = vec![
                Span::styled(
                    format!(" {} ", crate::sanitize::line(last_name(m))),
                    t.header(),
                ),
                Span::raw(format!("in {vname}: ")),
                Span::styled(state_word(cell.state), glyph(t, cell.state).1),
            ];
            if cell.reserved && cell.state != State::Reserved {
                spans.push(Span::styled(", number reserved", t.dim()));
            }
            if !cell.rules.is_empty() {
                spans.push(Span::styled(format!(" ({})", cell.rule_list()), t.dim()));
            }
            if let Some(d) = &cell.decl {
                spans.push(Span::raw(format!("  {}", crate::sanitize::line(d))));
            }
            if m.names.len() > 1 {
                spans.push(Span::styled(
                    format!("  names: {}", crate::sanitize::line(&m.names.join(" → "))),
                    t.dim(),
                ));
            }
            Line::from(spans).render(Rect::new(inner.x, y + 1, inner.width, 1), buf);
        }
        let mut legend = vec![Span::raw(" ")];
        for s in [
            State::Added,
            State::Changed,
            State::Deprecated,
            State::Removed,
            State::Reserved,
            State::Kept,
            State::Unknown,
        ] {
            let (g, style) = glyph(t, s);
            legend.push(Span::styled(g, style));
            legend.push(Span::styled(format!(" {}  ", state_word(s)), t.dim()));
        }
        let (g, style) = not_judged_glyph(t);
        legend.push(Span::styled(g, style));
        legend.push(Span::styled(format!(" {NOT_JUDGED}"), t.dim()));
        Line::from(legend).render(Rect::new(inner.x, y + 2, inner.width, 1), buf);
    }
}
