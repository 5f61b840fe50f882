//! The finder pop-up: a fuzzy search over every name of every version, matched characters
//! highlighted, with the versions each name appears in; and over the versions themselves
//! (their name, commit and message, with their date).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};

use crate::explore::names::Kind;
use crate::history::format_date;
use crate::ui::app::{App, FindMode, Finder};
use crate::ui::widgets::layout;
use crate::ui::widgets::text::{cut_head, cut_name, fit, width};

pub struct FinderPopup<'a>(pub &'a App, pub &'a Finder);

impl Widget for &FinderPopup<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (app, f) = (self.0, self.1);
        let t = &app.theme;
        let pop = layout::popup(area);
        Clear.render(pop, buf);
        let title = match f.mode {
            FindMode::Root => " Pick the root · a message or service of any version ",
            FindMode::Jump => {
                " Find · a type, field, value or rpc of any version, or a version by tag, commit or subject "
            }
        };
        let block = Block::bordered()
            .title(Span::styled(title, t.title(true)))
            .border_style(t.border(true));
        let inner = block.inner(pop);
        block.render(pop, buf);
        let total = app.versions.len();
        let progress = if total > 0 && app.indexed < total {
            format!("{}/{total} versions indexed ", app.indexed)
        } else {
            format!("{total} version{} ", if total == 1 { "" } else { "s" })
        };
        // Results of an earlier query stay until the new ones arrive (the index may be busy
        // taking a version): say so rather than pass them off as matches of this query.
        let count = f
            .results
            .as_ref()
            .map(|r| {
                if r.query != f.query {
                    "searching… · ".to_string()
                } else {
                    format!(
                        "{} match{} · ",
                        r.items.len(),
                        if r.items.len() == 1 { "" } else { "es" }
                    )
                }
            })
            .unwrap_or_default();
        let right = format!("{count}{progress}");
        let query = crate::sanitize::line(&f.query);
        Line::from(vec![
            Span::styled(" › ", t.accent()),
            Span::raw(query),
            Span::styled("▏", t.accent()),
        ])
        .render(Rect { height: 1, ..inner }, buf);
        let rw = width(&right) as u16;
        buf.set_string(inner.right().saturating_sub(rw), inner.y, &right, t.dim());
        buf.set_string(
            inner.x,
            inner.y + 1,
            "─".repeat(inner.width as usize),
            t.dim(),
        );
        let list = Rect::new(
            inner.x,
            inner.y + 2,
            inner.width,
            inner.height.saturating_sub(2),
        );
        let Some(res) = &f.results else {
            Line::styled(" searching…", t.dim()).render(list, buf);
            return;
        };
        if res.items.is_empty() {
            let msg = if app.indexed == 0 {
                " waiting for the first version to compile…"
            } else {
                " no match"
            };
            Line::styled(msg, t.dim()).render(list, buf);
            return;
        }
        let range_w = 2 * app.name_chars.clamp(6, 14) + 1;
        let name_w = (list.width as usize).saturating_sub(2 + 8 + range_w + 1);
        for (row, i) in (f.scroll..res.items.len())
            .take(list.height as usize)
            .enumerate()
        {
            let Some(it) = res.items.get(i) else { break };
            let name = crate::sanitize::line(&it.name);
            let mut spans = vec![
                Span::raw(" "),
                Span::styled(fit(it.kind.as_str(), 8), t.dim()),
            ];
            // The name, matched characters highlighted, cut to its column as names are (its
            // tail kept); a version's text (name, commit, message) keeps its head.
            let version = it.kind == Kind::Version;
            let cut = if version {
                cut_head(&name, name_w.saturating_sub(1))
            } else {
                cut_name(&name, name_w.saturating_sub(1))
            };
            let mut used = 0;
            if cut.before {
                spans.push(Span::raw("…"));
                used += 1;
            }
            for (ci, ch) in name.chars().enumerate() {
                if !cut.chars.contains(&ci) {
                    continue;
                }
                let style = if it.indices.contains(&ci) {
                    t.matched()
                } else {
                    Style::new()
                };
                spans.push(Span::styled(ch.to_string(), style));
                used += width(ch.encode_utf8(&mut [0; 4]));
            }
            if cut.after {
                spans.push(Span::raw("…"));
                used += 1;
            }
            spans.push(Span::raw(" ".repeat(name_w.saturating_sub(used) + 1)));
            let vname = |k: usize| {
                app.versions
                    .get(k)
                    .map(|v| crate::sanitize::line(&v.version.name))
                    .unwrap_or_default()
            };
            let range = if version {
                // Its name is in the text: its date instead.
                app.versions
                    .get(it.first)
                    .map(|v| format_date(v.version.time, v.version.offset_minutes))
                    .unwrap_or_default()
            } else if it.first == it.last {
                vname(it.first)
            } else {
                format!("{}–{}", vname(it.first), vname(it.last))
            };
            spans.push(Span::styled(fit(&range, range_w), t.dim()));
            let r = Rect::new(list.x, list.y + row as u16, list.width, 1);
            if i == f.cursor {
                buf.set_style(r, t.selected(true));
                Line::from(spans).style(t.selected(true)).render(r, buf);
            } else {
                Line::from(spans).render(r, buf);
            }
        }
    }
}
