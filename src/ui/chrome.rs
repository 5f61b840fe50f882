//! The top bar (what is explored, the compared pair, load progress, the view tabs) and the
//! footer (key hints from the key table, or a status message).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::action::View;
use super::app::{App, Phase};
use super::keys;

/// The tab labels, right-aligned in the top bar.
pub fn tabs(top: Rect) -> Vec<(View, Rect)> {
    let labels: Vec<(View, String)> = View::ALL
        .iter()
        .enumerate()
        .map(|(i, v)| (*v, format!(" {} {} ", i + 1, v.title())))
        .collect();
    let total: u16 = labels.iter().map(|(_, l)| l.chars().count() as u16).sum();
    let mut x = top.right().saturating_sub(total);
    labels
        .into_iter()
        .map(|(v, l)| {
            let w = l.chars().count() as u16;
            let r = Rect::new(x, top.y, w, 1);
            x += w;
            (v, r)
        })
        .collect()
}

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

pub struct TopBar<'a>(pub &'a App);

impl Widget for &TopBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let mut spans = vec![
            Span::styled(
                " protolapse ",
                t.title(true).add_modifier(Modifier::REVERSED),
            ),
            Span::raw(" "),
            Span::styled(app.source.clone(), t.header()),
        ];
        if let Some(r) = &app.root {
            spans.push(Span::styled("  root ", t.dim()));
            spans.push(Span::raw(crate::sanitize::line(short(r))));
        }
        if let (Some(new), base) = (app.versions.get(app.selected), app.base_index()) {
            spans.push(Span::styled("  ", t.dim()));
            if let Some(b) = base.and_then(|b| app.versions.get(b)) {
                spans.push(Span::raw(crate::sanitize::line(&b.version.name)));
                spans.push(Span::styled(" → ", t.dim()));
            }
            spans.push(Span::styled(
                crate::sanitize::line(&new.version.name),
                t.header(),
            ));
            if app.base.is_some() {
                spans.push(Span::styled(" (base marked)", t.warn()));
            }
        }
        let tabs = tabs(area);
        let tabs_x = tabs.first().map(|(_, r)| r.x).unwrap_or(area.right());
        match &app.phase {
            Phase::Reading => {
                spans.push(Span::styled("  reading the repository…", t.accent()));
            }
            Phase::Compiling { done, total } => {
                let width = 16usize;
                let filled = if *total == 0 { 0 } else { done * width / total };
                spans.push(Span::styled(
                    format!("  compiling {done}/{total} "),
                    t.accent(),
                ));
                spans.push(Span::styled("━".repeat(filled), t.accent()));
                spans.push(Span::styled("─".repeat(width - filled), t.dim()));
            }
            Phase::Done | Phase::Failed(_) => {}
        }
        let left = Rect::new(area.x, area.y, tabs_x.saturating_sub(area.x + 1), 1);
        Line::from(spans).render(left, buf);
        for (v, r) in tabs {
            let style = if v == app.view {
                t.title(true).add_modifier(Modifier::REVERSED)
            } else {
                t.dim()
            };
            let i = View::ALL.iter().position(|x| *x == v).unwrap_or(0) + 1;
            Line::from(Span::styled(format!(" {i} {} ", v.title()), style)).render(r, buf);
        }
    }
}

pub struct Footer<'a>(pub &'a App);

impl Widget for &Footer<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        if let Some(msg) = &app.status {
            Line::from(vec![
                Span::raw(" "),
                Span::styled(crate::sanitize::line(msg), t.warn()),
            ])
            .render(area, buf);
            return;
        }
        let mut spans = vec![Span::raw(" ")];
        let mut used = 1usize;
        for (keys, label) in keys::footer(app.context()) {
            let w = keys.chars().count() + label.chars().count() + 3;
            if used + w > area.width as usize {
                break;
            }
            used += w;
            spans.push(Span::styled(keys, t.key()));
            spans.push(Span::styled(format!(" {label}  "), Style::new()));
        }
        Line::from(spans).render(area, buf);
    }
}
