//! The top bar (what is explored, the compared pair, load progress, the view tabs) and the
//! footer (key hints from the key table, or a status message).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::ui::app::keys;
use crate::ui::app::{App, Phase};
use crate::ui::views::{View, tabs};

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

pub struct TopBar<'a>(pub &'a App);

impl Widget for &TopBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        // Pieces in order of importance; the least important go first when space is short.
        let mut pair: Vec<Span> = Vec::new();
        if let (Some(new), base) = (app.version(app.selected), app.base_index()) {
            if let Some(b) = base.and_then(|b| app.version(b)) {
                pair.push(Span::raw(crate::sanitize::line(&b.version.name)));
                pair.push(Span::styled(" → ", t.dim()));
            }
            pair.push(Span::styled(
                crate::sanitize::line(&new.version.name),
                t.header(),
            ));
        }
        let marked = Span::styled(" (base marked)", t.warn());
        let root: Vec<Span> = match &app.root {
            Some(r) => vec![
                Span::styled("root ", t.dim()),
                Span::raw(crate::sanitize::line(short(r))),
                Span::raw("  "),
            ],
            None => Vec::new(),
        };
        let name = Span::styled(
            " protolapse ",
            t.title(true).add_modifier(Modifier::REVERSED),
        );
        let source = Span::styled(format!(" {}  ", app.source), t.header());
        let mut progress: Vec<Span> = Vec::new();
        match &app.phase {
            Phase::Reading => {
                progress.push(Span::styled("  reading the repository…", t.accent()));
            }
            Phase::Compiling { done, total } => {
                let width = 16usize;
                let filled = if *total == 0 { 0 } else { done * width / total };
                progress.push(Span::styled(
                    format!("  compiling {done}/{total} "),
                    t.accent(),
                ));
                progress.push(Span::styled("━".repeat(filled), t.accent()));
                progress.push(Span::styled("─".repeat(width - filled), t.dim()));
            }
            Phase::Done | Phase::Failed(_) => {}
        }
        let tabs = tabs(area);
        let tabs_x = tabs.first().map(|(_, r)| r.x).unwrap_or(area.right());
        let room = tabs_x.saturating_sub(area.x + 1) as usize;
        let w = |v: &[Span]| v.iter().map(|s| s.width()).sum::<usize>();
        let mut keep = (true, true, true, app.base.is_some());
        loop {
            let total = if keep.0 { name.width() } else { 1 }
                + if keep.1 { source.width() } else { 0 }
                + if keep.2 { w(&root) } else { 0 }
                + w(&pair)
                + if keep.3 { marked.width() } else { 0 }
                + w(&progress);
            if total <= room {
                break;
            }
            if keep.3 {
                keep.3 = false;
            } else if keep.0 {
                keep.0 = false;
            } else if keep.1 {
                keep.1 = false;
            } else if keep.2 {
                keep.2 = false;
            } else {
                break;
            }
        }
        let mut spans = Vec::new();
        if keep.0 {
            spans.push(name);
        } else {
            spans.push(Span::raw(" "));
        }
        if keep.1 {
            spans.push(source);
        }
        if keep.2 {
            spans.extend(root);
        }
        spans.extend(pair);
        if keep.3 {
            spans.push(marked);
        }
        spans.extend(progress);
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
