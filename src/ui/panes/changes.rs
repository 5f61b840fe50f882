//! The changes view: every change of the selected pair, worst first, in aligned columns.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::rules::Bump;

use crate::ui::app::{App, Pane};
use crate::ui::panes::graph::{counts_spans, framed};
use crate::ui::widgets::text::{fit, fit_name};

pub struct ChangesPane<'a>(pub &'a App);

/// The package prefix every element shares (`physics.v1.`), to shorten the list.
fn common_prefix<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut prefix: Option<Vec<&str>> = None;
    for n in names {
        let parts: Vec<&str> = n.split('.').collect();
        let parts = &parts[..parts.len().saturating_sub(1)];
        prefix = Some(match prefix {
            None => parts.to_vec(),
            Some(p) => p
                .iter()
                .zip(parts)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect(),
        });
    }
    match prefix {
        Some(p) if !p.is_empty() => format!("{}.", p.join(".")),
        _ => String::new(),
    }
}

impl Widget for &ChangesPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let focused = app.focus == Pane::Changes;
        let mut title = vec![Span::styled(" Changes ", t.title(focused))];
        let cmp = app.current();
        if let Some(c) = cmp {
            title.extend(counts_spans(t, c));
        }
        let Some(inner) = framed(app, title, focused, area, buf) else {
            return;
        };
        let Some(c) = cmp else {
            Line::styled(" comparing…", t.dim()).render(inner, buf);
            return;
        };
        if c.changes.is_empty() {
            let msg = if c.first {
                " the first version: nothing to compare it with"
            } else {
                " no changes between these versions from this root"
            };
            Line::styled(msg, t.dim()).render(inner, buf);
            return;
        }
        let prefix = common_prefix(c.changes.iter().map(|ch| ch.element.as_str()));
        let rule_need = c
            .changes
            .iter()
            .map(|ch| ch.rule.as_str().len())
            .max()
            .unwrap_or(10);
        let w = inner.width as usize;
        // The element keeps at least 16 columns (the name is what differs between rows): the
        // BUMP column gives way first, then the rule ids (down to 12).
        const ELEM_MIN: usize = 16;
        let with_bump = w.saturating_sub(2 + 9 + rule_need + 2 + 1 + 5);
        let bump = with_bump >= ELEM_MIN;
        let rule_w = if bump {
            rule_need
        } else {
            rule_need.min(w.saturating_sub(2 + 9 + 2 + ELEM_MIN).max(12))
        };
        let elem_w = if bump {
            with_bump
        } else {
            w.saturating_sub(2 + 9 + rule_w + 2)
        };
        let elem_head = if prefix.is_empty() {
            "ELEMENT".to_string()
        } else {
            format!("ELEMENT (in {})", prefix.trim_end_matches('.'))
        };
        let header = format!(
            "  {}{}  {}{}",
            fit("VERDICT", 9),
            fit("RULE", rule_w),
            fit(&elem_head, elem_w),
            if bump { " BUMP" } else { "" }
        );
        Line::styled(header, t.header()).render(Rect { height: 1, ..inner }, buf);
        let list_h = inner.height.saturating_sub(1) as usize;
        for (row, i) in (app.changes_nav.scroll..c.changes.len())
            .take(list_h)
            .enumerate()
        {
            let Some(ch) = c.changes.get(i) else { break };
            let sev = ch.verdict.worst();
            let elem = ch.element.strip_prefix(&prefix).unwrap_or(&ch.element);
            let unattached = c.unattached.contains(&i);
            let bump_style = match ch.bump {
                Bump::Major => t.bad(),
                Bump::Minor => t.warn(),
                _ => t.dim(),
            };
            let mut spans = vec![
                Span::styled(if unattached { "· " } else { "  " }, t.dim()),
                Span::styled(fit(sev.as_str(), 9), t.severity(sev)),
                Span::styled(fit(ch.rule.as_str(), rule_w), t.severity(sev)),
                Span::raw("  "),
                Span::raw(fit_name(&crate::sanitize::line(elem), elem_w)),
            ];
            if bump {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(ch.bump.as_str().to_string(), bump_style));
            }
            let line = Line::from(spans);
            let r = Rect::new(inner.x, inner.y + 1 + row as u16, inner.width, 1);
            if i == app.changes_nav.cursor {
                buf.set_style(r, t.selected(focused));
                line.style(t.selected(focused)).render(r, buf);
            } else {
                line.style(Style::new()).render(r, buf);
            }
        }
    }
}
