//! The versions pane: every version in order with its date, actual and required bump,
//! semver mark, policy mark and compile status; below, what is known of the selected one.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use crate::explore::facts::{Mark, VersionFacts};
use crate::history::format_date;
use crate::policy::SemverVerdict;
use crate::rules::Bump;
use crate::schema::Status;
use crate::ui::widgets::text::fit;

use crate::ui::app::{App, Pane};
use crate::ui::widgets::theme::Theme;

/// Rows kept for the selected version's details under the list.
pub const INFO_HEIGHT: u16 = 5;

/// Whether the info box fits in a pane of `height` rows.
pub fn has_info(height: u16) -> bool {
    height >= 14
}

pub struct VersionsPane<'a>(pub &'a App);

/// The width of the version-name column: the longest name, within 7..=18.
pub fn name_width(app: &App) -> usize {
    app.name_chars.clamp(7, 18)
}

/// The width the pane needs for every column, borders included: marker 2, name, date 11,
/// bump 6, need 6, semver and hazard 4, [policy 2], status 7, borders 2.
pub fn width_wanted(app: &App) -> u16 {
    let policy = if app.settings.policy.is_some() { 2 } else { 0 };
    (2 + name_width(app) + 1 + 11 + 6 + 6 + 4 + policy + 7 + 2) as u16
}

impl App {
    /// The width the versions pane would like.
    pub fn versions_width(&self) -> u16 {
        width_wanted(self)
    }
}

fn bump_text(b: Option<Bump>) -> &'static str {
    match b {
        None => "",
        Some(Bump::None) => "none",
        Some(b) => b.as_str(),
    }
}

impl Widget for &VersionsPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let focused = app.focus == Pane::Versions;
        let title = format!(" Versions ({}) ", app.versions.len());
        let legend = crate::ui::panes::legend::line(area.width.saturating_sub(4) as usize);
        let block = Block::bordered()
            .title(Span::styled(title, t.title(focused)))
            .title_bottom(Span::styled(legend, t.dim()))
            .border_style(t.border(focused));
        let inner = block.inner(area);
        block.render(area, buf);
        if app.versions.is_empty() {
            Line::styled(" reading tags…", t.dim()).render(inner, buf);
            return;
        }
        let info = has_info(area.height);
        let list_h = inner
            .height
            .saturating_sub(1 + if info { INFO_HEIGHT } else { 0 });
        let name_w = name_width(app);
        let policy = app.settings.policy.is_some();
        let date = inner.width >= width_wanted(app) - 2;
        let mut header = format!("  {} ", fit("VERSION", name_w));
        if date {
            header.push_str(&fit("DATE", 11));
        }
        header.push_str("BUMP  NEED  SV ");
        if policy {
            header.push_str("P ");
        }
        Line::styled(header, t.header()).render(Rect { height: 1, ..inner }, buf);
        let facts = |i: usize| -> Option<&VersionFacts> { app.facts.as_ref()?.versions.get(i) };
        let base = app.base_index();
        for (row, i) in (app.versions_nav.scroll..app.versions.len())
            .take(list_h as usize)
            .enumerate()
        {
            let Some(v) = app.versions.get(i) else { break };
            let f = facts(i);
            let (mark, mark_style) = if v.id == app.selected {
                ("● ", t.accent())
            } else if Some(v.id) == base {
                if app.base == Some(v.id) {
                    ("◆ ", t.warn())
                } else {
                    ("○ ", t.accent())
                }
            } else {
                ("  ", Style::new())
            };
            let c = &v.compiled;
            let name_style = match c.status {
                Status::Failed => t.bad(),
                Status::Pending => t.dim(),
                _ if v.unchanged_since.is_some() => t.dim(),
                _ => Style::new(),
            };
            let mut spans = vec![
                Span::styled(mark, mark_style),
                Span::styled(
                    fit(&crate::sanitize::line(&v.version.name), name_w),
                    name_style,
                ),
                Span::raw(" "),
            ];
            if date {
                let d = if v.version.time == 0 && v.version.commit.is_empty() {
                    String::new()
                } else {
                    format_date(v.version.time, v.version.offset_minutes)
                };
                spans.push(Span::styled(fit(&d, 11), t.dim()));
            }
            let bump = f.and_then(|f| f.bump);
            let need = f.and_then(|f| f.need);
            let need_style = f
                .and_then(|f| f.worst)
                .map(|w| t.severity(w))
                .unwrap_or_else(|| t.dim());
            spans.push(Span::raw(fit(bump_text(bump), 5)));
            spans.push(Span::raw(" "));
            spans.push(Span::styled(fit(bump_text(need), 5), need_style));
            spans.push(Span::raw(" "));
            spans.push(match f.and_then(|f| f.semver) {
                // Larger than needed passes, dim.
                Some(SemverVerdict::LargerThanNeeded) => Span::styled("✓ ", t.dim()),
                Some(v) => match Mark::of_semver(v) {
                    Some(m) => mark_span(t, m),
                    None => Span::raw("  "),
                },
                None => Span::raw("  "),
            });
            spans.push(if f.is_some_and(|f| !f.hazards.is_empty()) {
                Span::styled("! ", t.warn())
            } else {
                Span::raw("  ")
            });
            if policy {
                spans.push(match f.and_then(|f| f.policy) {
                    Some(m) => mark_span(t, m),
                    None => Span::raw("  "),
                });
            }
            spans.push(match c.status {
                Status::Pending => Span::styled("…", t.dim()),
                Status::Failed => Span::styled("✗ fails", t.bad()),
                Status::Partial => {
                    Span::styled(format!("⚠{}/{}", c.files_ok, c.files_total), t.warn())
                }
                _ if v.unchanged_since.is_some() => Span::styled("=", t.dim()),
                _ => Span::raw(""),
            });
            // A commit (`--commits`): its subject in what is left of the row.
            if v.version.kind == crate::history::VersionKind::Commit
                && let Some(subject) = &v.version.message
            {
                spans.push(Span::styled(
                    format!(" {}", crate::sanitize::line(subject)),
                    t.dim(),
                ));
            }
            let y = inner.y + 1 + row as u16;
            let r = Rect::new(inner.x, y, inner.width, 1);
            let line = Line::from(spans);
            if v.id == app.selected {
                buf.set_style(r, t.selected(focused));
                line.style(t.selected(focused)).render(r, buf);
            } else {
                line.render(r, buf);
            }
        }
        if info {
            let r = Rect::new(
                inner.x,
                inner.bottom().saturating_sub(INFO_HEIGHT),
                inner.width,
                INFO_HEIGHT,
            );
            Paragraph::new(info_lines(app, r.width))
                .wrap(Wrap { trim: true })
                .render(r, buf);
        }
    }
}

/// A check's mark in a two-column cell.
fn mark_span(t: &Theme, m: Mark) -> Span<'static> {
    let (g, style) = t.mark(m);
    Span::styled(format!("{g} "), style)
}

fn info_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut out = vec![Line::styled("─".repeat(width as usize), t.dim())];
    let Some(v) = app.version(app.selected) else {
        return out;
    };
    let ver = &v.version;
    let commit: String = ver.commit.chars().take(7).collect();
    let mut head = vec![Span::styled(crate::sanitize::line(&ver.name), t.header())];
    if !commit.is_empty() {
        head.push(Span::styled(format!(" {commit}"), t.dim()));
    }
    let c = &v.compiled;
    if c.status != Status::Pending {
        head.push(Span::styled(format!(" · {} files", c.files_total), t.dim()));
    }
    if let Some(s) = v.unchanged_since.and_then(|s| app.versions.get(s.index())) {
        head.push(Span::styled(
            format!(" · same as {}", crate::sanitize::line(s.name())),
            t.dim(),
        ));
    }
    out.push(Line::from(head));
    if let Some(how) = c.how.summary() {
        out.push(Line::styled(crate::sanitize::line(&how), t.dim()));
    }
    if let Some(d) = c.diagnostics.first() {
        let more = if c.diagnostics.len() > 1 {
            format!(" (+{} more)", c.diagnostics.len() - 1)
        } else {
            String::new()
        };
        out.push(Line::styled(
            format!("{}{more}", crate::sanitize::line(&d.to_string())),
            t.bad(),
        ));
    }
    if let Some(e) = app.facts.as_ref().and_then(|f| f.error.as_ref()) {
        out.push(Line::styled(
            format!("analysis: {}", crate::sanitize::line(e)),
            t.bad(),
        ));
    }
    if let Some(f) = app
        .facts
        .as_ref()
        .and_then(|f| f.versions.get(app.selected.index()))
    {
        if let Some(r) = &f.reason {
            let style = match f.semver {
                Some(SemverVerdict::TooSmall) => t.bad(),
                Some(SemverVerdict::LargerThanNeeded | SemverVerdict::NotJudged) => t.warn(),
                _ => t.dim(),
            };
            out.push(Line::styled(
                format!("semver: {}", crate::sanitize::line(r)),
                style,
            ));
        }
        if let Some(m @ (Mark::Fail | Mark::NotJudged)) = f.policy
            && let Some(r) = &f.policy_reason
        {
            out.push(Line::styled(crate::sanitize::line(r), t.mark(m).1));
        }
        for h in &f.hazards {
            out.push(Line::styled(
                format!("hazard: {}", crate::sanitize::line(h)),
                t.warn(),
            ));
        }
    }
    if let Some(m) = &ver.message {
        out.push(Line::raw(crate::sanitize::line(m)));
    }
    out
}
