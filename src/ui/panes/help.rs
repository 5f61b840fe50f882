//! The `?` help pop-up: every key, from the key table, plus what the colours and markers mean.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::rules::Severity;

use crate::ui::app::App;
use crate::ui::app::keys;
use crate::ui::panes::legend;
use crate::ui::widgets::layout;
use crate::ui::widgets::text::fit;

pub struct HelpPopup<'a>(pub &'a App, pub usize);

/// How far the help can scroll at the current size.
pub fn max_scroll(app: &App) -> usize {
    let pop = layout::popup(app.size);
    let (w, h) = (
        pop.width.saturating_sub(2) as usize,
        pop.height.saturating_sub(2) as usize,
    );
    let n: usize = lines(app)
        .into_iter()
        .map(|l| crate::ui::widgets::text::wrap_hanging(l, w, 2 + key_width()).len())
        .sum();
    n.saturating_sub(h)
}

/// The width of the keys column.
fn key_width() -> usize {
    keys::help()
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|(k, _)| k.chars().count()))
        .max()
        .unwrap_or(8)
        + 2
}

/// The help text, for rendering and for tests.
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut out = Vec::new();
    let sections = keys::help();
    let key_w = key_width();
    for (ctx, rows) in sections {
        out.push(Line::styled(ctx.title().to_string(), t.header()));
        for (k, h) in rows {
            out.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(fit(&k, key_w), t.key()),
                Span::raw(h.to_string()),
            ]));
        }
        out.push(Line::raw(""));
    }
    out.push(Line::styled(
        "Verdicts (worst of wire, json and source)".to_string(),
        t.header(),
    ));
    for (s, what) in [
        (Severity::Safe, "reads correctly"),
        (Severity::Hazard, "safe now, but enables a later break"),
        (Severity::Lossy, "reads, but values may change or be lost"),
        (
            Severity::Breaking,
            "fails to read, reads garbage, or generated code breaks",
        ),
    ] {
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(fit(s.as_str(), key_w), t.severity(s)),
            Span::raw(what),
        ]));
    }
    out.push(Line::raw(""));
    out.push(Line::styled("Mouse".to_string(), t.header()));
    for (m, what) in [
        (
            "click",
            "select a row or a pane; click a selected row to open it; a tab switches the view",
        ),
        (
            "wheel",
            "move through the list under the pointer, or scroll the detail",
        ),
    ] {
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(fit(m, key_w), t.key()),
            Span::raw(what),
        ]));
    }
    out.push(Line::raw(""));
    out.push(Line::styled("Markers".to_string(), t.header()));
    for (m, what) in [
        ("+", "added in the new version"),
        ("−", "removed (kept in the tree, struck through)"),
        ("~", "changed"),
        ("•", "something below changed"),
        ("↻", "cycle: the type is already open above"),
        (
            "⋯",
            "too deep to open here (`protolapse graph` prints every level)",
        ),
        ("▸ ▾", "collapsed / expanded"),
        ("● ○ ◆", "selected version / its base / a base you marked"),
    ] {
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(fit(m, key_w), t.accent()),
            Span::raw(what),
        ]));
    }
    out.push(Line::raw(""));
    legend(app, key_w, &mut out);
    out
}

/// The versions pane's columns and marks, and the policies by name.
fn legend(app: &App, key_w: usize, out: &mut Vec<Line<'static>>) {
    let t = &app.theme;
    let row = |k: &str, style, what: String| {
        Line::from(vec![
            Span::raw("  "),
            Span::styled(fit(k, key_w), style),
            Span::raw(what),
        ])
    };
    out.push(Line::styled("Versions columns".to_string(), t.header()));
    for (k, what) in legend::COLUMNS {
        out.push(row(k, t.header(), what.to_string()));
    }
    out.push(Line::raw(""));
    out.push(Line::styled("Marks".to_string(), t.header()));
    for (k, what) in legend::MARKS {
        let style = match *k {
            "✓" => t.ok(),
            "✓ dim" => t.dim(),
            "✗" | "✗ fails" => t.bad(),
            "⊘" | "!" | "⚠5/7" => t.warn(),
            _ => t.dim(),
        };
        out.push(row(k, style, what.to_string()));
    }
    out.push(Line::raw(""));
    out.push(Line::styled(
        "Policies (docs/policies.md; the policy view, 4)".to_string(),
        t.header(),
    ));
    for (full, short, what) in legend::POLICIES {
        let what = if full == short {
            what.to_string()
        } else {
            format!("{full}: {what}")
        };
        out.push(row(short, t.key(), what));
    }
}

impl Widget for &HelpPopup<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let pop = layout::popup(area);
        Clear.render(pop, buf);
        let block = Block::bordered()
            .title(Span::styled(" Keys · Esc closes ", t.title(true)))
            .border_style(t.border(true));
        let inner = block.inner(pop);
        block.render(pop, buf);
        let hang = 2 + key_width();
        let lines: Vec<Line> = lines(app)
            .into_iter()
            .flat_map(|l| crate::ui::widgets::text::wrap_hanging(l, inner.width as usize, hang))
            .collect();
        let max = lines.len().saturating_sub(inner.height as usize);
        Paragraph::new(lines)
            .scroll((self.1.min(max) as u16, 0))
            .render(inner, buf);
    }
}
