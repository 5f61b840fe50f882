//! The detail pane: for the selected node (or change), old → new declaration side by side with
//! the difference highlighted, the verdict grid (wire/json × backward/forward, source, bump),
//! the rule and why, the round trips that prove the change ([`proof`]), the node's lifecycle
//! across all versions, and the rule's page. One scrollable document.

mod proof;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use crate::explore::tokens::token_diff;
use crate::explore::{Comparison, NodeKind};
use crate::policy::lifecycle::State;
use crate::rules::{self, Change, RuleId, Severity, Source};

use crate::ui::app::{App, Pane};
use crate::ui::views::View;
use crate::ui::widgets::text::{self, fit, wrap_all};
use crate::ui::widgets::theme::Theme;

/// What the pane describes.
struct Subject {
    title: String,
    kind: String,
    location: Option<String>,
    old_decl: Option<String>,
    new_decl: Option<String>,
    comment: Option<String>,
    changes: Vec<usize>,
    rule: usize,
    /// (container, number) for the lifecycle.
    life: Option<(String, i64)>,
    worst: Option<Severity>,
}

fn kind_text(k: NodeKind, number: Option<i64>) -> String {
    let base = match k {
        NodeKind::Message => "message",
        NodeKind::Enum => "enum",
        NodeKind::Service => "service",
        NodeKind::Field => "field",
        NodeKind::Value => "enum value",
        NodeKind::Method => "rpc",
        NodeKind::Request => "rpc request",
        NodeKind::Response => "rpc response",
    };
    match number {
        Some(n) => format!("{base} {n}"),
        None => base.to_string(),
    }
}

/// `file:line`, and where the file came from when it is not under a proto root
/// (`google/api/http.proto:30 (embedded third-party)`).
fn located(location: String, c: &Comparison) -> String {
    let file = location
        .rsplit_once(':')
        .map_or(location.as_str(), |(f, _)| f);
    let origin = [&c.new.compiled.schema, &c.old.compiled.schema]
        .iter()
        .find_map(|s| s.content.files.get(file).map(|f| f.origin));
    match origin {
        Some(o) if o != crate::schema::Origin::Root => format!("{location} ({})", o.as_str()),
        _ => location,
    }
}

fn subject(app: &App, c: &Comparison) -> Option<Subject> {
    let (changes, rule) = app.detail_changes(c)?;
    if app.view == View::Changes {
        let ch = c.changes.get(*changes.first()?)?;
        let life = ch
            .element
            .rsplit_once('.')
            .and_then(|(p, _)| ch.number.map(|n| (p.to_string(), n)));
        return Some(Subject {
            title: ch.element.clone(),
            kind: ch.rule.to_string(),
            location: ch
                .new_location
                .clone()
                .or(ch.old_location.clone())
                .map(|l| located(l, c)),
            old_decl: ch.old.clone(),
            new_decl: ch.new.clone(),
            comment: None,
            changes,
            rule,
            life,
            worst: Some(ch.verdict.worst()),
        });
    }
    let r = app.tree.row()?;
    let n = &r.node;
    let schema_new = &c.new.compiled.schema;
    let schema_old = &c.old.compiled.schema;
    let doc = schema_new
        .doc(&n.element)
        .or_else(|| schema_old.doc(n.old_element.as_deref().unwrap_or(&n.element)));
    let location = doc.map(|d| located(format!("{}:{}", d.file, d.line), c));
    let comment = doc.map(|d| d.comment.to_string()).filter(|s| !s.is_empty());
    let container = n.container.1.clone().or(n.container.0.clone());
    let life = match (n.kind, container, n.number) {
        (NodeKind::Field | NodeKind::Value, Some(ct), Some(num)) => Some((ct, num)),
        _ => None,
    };
    let (old_decl, new_decl) = if c.first {
        (None, n.new_decl.clone())
    } else {
        (n.old_decl.clone(), n.new_decl.clone())
    };
    Some(Subject {
        title: n.element.clone(),
        kind: kind_text(n.kind, n.number),
        location,
        old_decl,
        new_decl,
        comment,
        changes,
        rule,
        life,
        worst: n.worst,
    })
}

/// Old and new declaration side by side, differing words highlighted.
fn decl_lines(t: &Theme, s: &Subject, c: &Comparison, width: usize) -> Vec<Line<'static>> {
    let col = width.saturating_sub(3) / 2;
    let (a, b) = token_diff(
        s.old_decl.as_deref().unwrap_or(""),
        s.new_decl.as_deref().unwrap_or(""),
    );
    let to_lines =
        |toks: &[(String, bool)], present: bool, missing: &str| -> Vec<Vec<Span<'static>>> {
            if !present {
                return vec![vec![Span::styled(missing.to_string(), t.dim())]];
            }
            let spans: Vec<Span<'static>> = toks
                .iter()
                .map(|(tok, diff)| {
                    let tok = crate::sanitize::line(tok);
                    if *diff {
                        Span::styled(tok, t.differs(s.worst))
                    } else {
                        Span::raw(tok)
                    }
                })
                .collect();
            text::wrap(Line::from(spans), col.max(4))
                .into_iter()
                .map(|l| l.spans)
                .collect()
        };
    let (old_missing, new_missing) = if c.first {
        ("", "")
    } else {
        ("(absent)", "(removed)")
    };
    let left = to_lines(&a, s.old_decl.is_some(), old_missing);
    let right = to_lines(
        &b,
        s.new_decl.is_some(),
        if s.old_decl.is_some() {
            new_missing
        } else {
            "(absent)"
        },
    );
    let mut out = Vec::new();
    if c.first {
        out.push(Line::from(vec![Span::styled(
            crate::sanitize::line(c.new.name()),
            t.header(),
        )]));
        for l in right {
            out.push(Line::from(l));
        }
        return out;
    }
    out.push(Line::from(vec![
        Span::styled(fit(&crate::sanitize::line(c.old.name()), col), t.header()),
        Span::styled(" │ ", t.dim()),
        Span::styled(crate::sanitize::line(c.new.name()), t.header()),
    ]));
    for i in 0..left.len().max(right.len()) {
        let l = left.get(i).cloned().unwrap_or_default();
        let lw: usize = l.iter().map(|s| s.width()).sum();
        let mut spans = l;
        spans.push(Span::raw(" ".repeat(col.saturating_sub(lw))));
        spans.push(Span::styled(" │ ", t.dim()));
        spans.extend(right.get(i).cloned().unwrap_or_default());
        out.push(Line::from(spans));
    }
    out
}

fn cell(t: &Theme, s: Severity) -> Span<'static> {
    Span::styled(fit(s.as_str(), 10), t.severity(s))
}

/// The verdict grid of one change.
pub fn verdict_lines(t: &Theme, ch: &Change) -> Vec<Line<'static>> {
    let v = &ch.verdict;
    let source = match v.source {
        Source::Safe => Span::styled("safe", t.ok()),
        Source::Breaking => Span::styled("breaking", t.bad()),
    };
    let bump_style = match ch.bump {
        rules::Bump::Major => t.bad(),
        rules::Bump::Minor => t.warn(),
        _ => Style::new(),
    };
    vec![
        Line::from(vec![
            Span::raw("        "),
            Span::styled(fit("backward", 10), t.header()),
            Span::styled(fit("forward", 10), t.header()),
            Span::styled("   new reads old │ old reads new", t.dim()),
        ]),
        Line::from(vec![
            Span::styled("  wire  ", t.header()),
            cell(t, v.wire.backward),
            cell(t, v.wire.forward),
            Span::styled("   source ", t.header()),
            source,
        ]),
        Line::from(vec![
            Span::styled("  json  ", t.header()),
            cell(t, v.json.backward),
            cell(t, v.json.forward),
            Span::styled("   bump   ", t.header()),
            Span::styled(ch.bump.as_str().to_string(), bump_style),
        ]),
    ]
}

fn lifecycle_line(app: &App, s: &Subject) -> Option<Line<'static>> {
    let t = &app.theme;
    let (container, number) = s.life.as_ref()?;
    let mut spans = vec![Span::styled("lifecycle ", t.header())];
    let Some(l) = app.lifecycles.get(container) else {
        spans.push(Span::styled(
            if app.project.is_some() {
                "…"
            } else {
                "(after loading)"
            },
            t.dim(),
        ));
        return Some(Line::from(spans));
    };
    let m = l.rows.iter().find(|r| r.number == *number)?;
    let mut first = true;
    for (i, cell) in m.cells.iter().enumerate() {
        let (word, style) = match cell.state {
            State::Added if i > 0 && m.cells[..i].iter().any(|c| c.state == State::Removed) => {
                ("reused".to_string(), t.bad())
            }
            State::Added => ("added".to_string(), t.ok()),
            State::Changed => (
                if cell.rules.is_empty() {
                    "changed".to_string()
                } else {
                    format!("changed ({})", cell.rule_list())
                },
                t.warn(),
            ),
            State::Deprecated => ("deprecated".to_string(), t.warn()),
            State::Removed if cell.reserved => ("removed, reserved".to_string(), t.bad()),
            State::Removed => ("removed".to_string(), t.bad()),
            _ => continue,
        };
        let name = app
            .versions
            .get(i)
            .map(|v| crate::sanitize::line(&v.version.name))
            .unwrap_or_default();
        if !first {
            spans.push(Span::styled(" · ", t.dim()));
        }
        first = false;
        let vstyle = if i == app.selected.index() {
            t.header().add_modifier(Modifier::UNDERLINED)
        } else {
            Style::new()
        };
        spans.push(Span::styled(name, vstyle));
        spans.push(Span::raw(" "));
        spans.push(Span::styled(word, style));
    }
    if first {
        spans.push(Span::styled("no change in any version", t.dim()));
    }
    Some(Line::from(spans))
}

/// The rule page as lines: headings bold, code in the accent colour.
fn page_lines(t: &Theme, id: RuleId) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let Some(page) = rules::page(id) else {
        return out;
    };
    let mut code = false;
    for raw in page.lines() {
        if raw.starts_with("```") {
            code = !code;
            continue;
        }
        if code {
            out.push(Line::styled(format!("  {raw}"), t.accent()));
        } else if let Some(h) = raw.strip_prefix("# ") {
            out.push(Line::styled(
                h.to_string(),
                t.header().add_modifier(Modifier::UNDERLINED),
            ));
        } else if let Some(h) = raw.strip_prefix("## ") {
            out.push(Line::styled(h.to_string(), t.header()));
        } else {
            // Inline `code`.
            let mut spans = Vec::new();
            for (k, part) in raw.split('`').enumerate() {
                if k % 2 == 1 {
                    spans.push(Span::styled(part.to_string(), t.accent()));
                } else if !part.is_empty() {
                    spans.push(Span::raw(part.to_string()));
                }
            }
            out.push(Line::from(spans));
        }
    }
    out
}

/// Every line of the pane's document, wrapped to `width`.
fn document(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(c) = app.current() else {
        return vec![];
    };
    let Some(s) = subject(app, c) else {
        return vec![Line::styled(" no change selected", t.dim())];
    };
    let mut out: Vec<Line<'static>> = Vec::new();
    // The element, then what and where it is; the location joins the first line when it fits.
    let title = Span::styled(
        crate::sanitize::line(&s.title),
        t.header().patch(t.maybe(s.worst)),
    );
    let mut what = vec![Span::styled(s.kind.clone(), t.dim())];
    if let Some(l) = &s.location {
        what.push(Span::styled(
            format!(" · {}", crate::sanitize::line(l)),
            t.dim(),
        ));
    }
    let what_w: usize = what.iter().map(|x| x.width()).sum();
    if title.width() + 2 + what_w <= width {
        let mut head = vec![title, Span::raw("  ")];
        head.extend(what);
        out.push(Line::from(head));
    } else {
        out.push(Line::from(title));
        out.push(Line::from(what));
    }
    out.extend(decl_lines(t, &s, c, width));
    if let Some(cm) = &s.comment {
        let lines: Vec<&str> = cm
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        for l in lines.iter().take(4) {
            out.push(Line::styled(
                format!("   {}", crate::sanitize::line(l)),
                t.dim(),
            ));
        }
        if lines.len() > 4 {
            out.push(Line::styled("   …", t.dim()));
        }
    }
    out.push(Line::raw(""));
    if s.changes.is_empty() {
        let what = if c.first {
            "first version"
        } else {
            "unchanged in this pair"
        };
        out.push(Line::styled(what.to_string(), t.dim()));
    } else {
        if s.changes.len() > 1 {
            let mut tabs = vec![Span::styled("changes ", t.header())];
            for (k, &i) in s.changes.iter().enumerate() {
                let Some(ch) = c.changes.get(i) else { continue };
                let style = t.severity(ch.verdict.worst());
                let style = if k == s.rule {
                    style.add_modifier(Modifier::REVERSED)
                } else {
                    style
                };
                tabs.push(Span::styled(format!(" {} ", ch.rule), style));
                tabs.push(Span::raw(" "));
            }
            tabs.push(Span::styled("(←/→)", t.dim()));
            out.push(Line::from(tabs));
        }
        if let Some(ch) = s.changes.get(s.rule).and_then(|&i| c.changes.get(i)) {
            let summary = rules::rule(ch.rule).summary;
            out.push(Line::from(vec![
                Span::styled(ch.rule.to_string(), t.severity(ch.verdict.worst())),
                Span::styled(format!("  {summary}"), t.dim()),
            ]));
            out.extend(verdict_lines(t, ch));
            out.push(Line::from(vec![
                Span::styled("why  ", t.header()),
                Span::raw(crate::sanitize::line(&ch.message)),
            ]));
            out.extend(proof::lines(t, app.proof(), width));
        }
    }
    if let Some(l) = lifecycle_line(app, &s) {
        out.push(Line::raw(""));
        out.push(l);
    }
    if let Some(ch) = s.changes.get(s.rule).and_then(|&i| c.changes.get(i)) {
        out.push(Line::raw(""));
        out.push(Line::styled("─".repeat(width), t.dim()));
        out.extend(page_lines(t, ch.rule));
    }
    wrap_all(out, width)
}

impl App {
    /// How many lines the detail pane's document has at the current size.
    pub fn detail_lines(&self) -> usize {
        let w = self
            .areas()
            .detail
            .map(|r| r.width.saturating_sub(2))
            .unwrap_or(40);
        document(self, w as usize).len()
    }
}

pub struct DetailPane<'a>(pub &'a App);

impl Widget for &DetailPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let focused = app.focus == Pane::Detail;
        let block = Block::bordered()
            .title(Span::styled(" Detail ", t.title(focused)))
            .border_style(t.border(focused));
        let inner = block.inner(area);
        block.render(area, buf);
        let lines = document(app, inner.width as usize);
        let total = lines.len();
        let scroll = app.detail.scroll.min(total.saturating_sub(1));
        Paragraph::new(lines)
            .scroll((scroll as u16, 0))
            .render(inner, buf);
        if total > inner.height as usize {
            let pct = (scroll + inner.height as usize).min(total) * 100 / total.max(1);
            let label = format!(" {pct}% ");
            let x = area.right().saturating_sub(label.len() as u16 + 1);
            buf.set_string(x, area.bottom().saturating_sub(1), label, t.dim());
        }
    }
}
