//! The policy view: versions (rows) × the semver check and every compatibility policy
//! (columns), pass or fail, with the reason of the failure under the cursor.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::explore::facts::{Mark, PolicyMatrix};

use crate::ui::app::App;
use crate::ui::app::action::MatrixProgress;
use crate::ui::panes::legend::{self, short_policy};
use crate::ui::widgets::columns::Window;
use crate::ui::widgets::text::{fit, short_name, width};

pub struct PolicyPane<'a>(pub &'a App);

/// The reason line of a failing cell while the matrix's first violations are worked out.
const WORKING_OUT: &str = "finding the first change that fails it…";

/// What the line under the matrix says while the policies of `scope` are evaluated.
fn progress_note(app: &App, scope: &crate::judge::Scope) -> String {
    match &app.matrix_progress {
        Some(MatrixProgress::Running {
            scope: s,
            done,
            total,
        }) if s == scope && *total > 0 => format!(
            "evaluating every policy… {done}/{total} distinct pairs of versions compared ({}%)",
            done * 100 / total
        ),
        _ => "evaluating every policy…".to_string(),
    }
}

/// Where the checks start (marker, name, bump, need, then the left edge's mark).
fn checks_x(app: &App) -> usize {
    let name_w = super::versions::name_width(app);
    2 + name_w + 1 + 6 + 6 + 1
}

/// The policy matrix of the scope on screen: results of another scope (the previous root,
/// while the new one is computed) are never shown under it.
fn matrix(app: &App) -> Option<&PolicyMatrix> {
    let here = app.scope();
    app.matrix.as_deref().filter(|m| m.scope == here)
}

/// The check columns' names: SEMVER, then each policy by its short name.
fn check_names(app: &App) -> Vec<String> {
    let columns = matrix(app).map(|m| m.columns.as_slice());
    std::iter::once("SEMVER".to_string())
        .chain(columns.unwrap_or(&[]).iter().map(|p| short_policy(&p.name)))
        .collect()
}

/// Width of a check's column: the longest name and a blank.
fn col_w(names: &[String]) -> usize {
    names
        .iter()
        .map(|n| width(n))
        .max()
        .unwrap_or(6)
        .clamp(4, 12)
        + 1
}

/// The check columns on screen in the pane `area`: from the cursor's scroll, as many as fit
/// before the right edge's mark.
pub fn window(app: &App, area: Rect) -> Window {
    Window::new(
        app.policy_nav.col_scroll,
        room(app, area),
        check_names(app).len(),
    )
}

/// How many check columns fit in the pane `area`.
pub fn room(app: &App, area: Rect) -> usize {
    let inner_w = area.width.saturating_sub(2) as usize;
    (inner_w.saturating_sub(checks_x(app) + 1) / col_w(&check_names(app))).max(1)
}

/// The check column under inner x `x` of the pane `area`, if any.
pub fn column_at(app: &App, area: Rect, x: usize) -> Option<usize> {
    let start = checks_x(app);
    let w = window(app, area);
    let cw = col_w(&check_names(app));
    (x >= start)
        .then(|| w.first + (x - start) / cw)
        .filter(|c| w.range().contains(c))
}

/// Visible rows of the matrix in `area`.
pub fn visible_rows(area: Rect) -> usize {
    area.height.saturating_sub(2 + 1 + 2).max(1) as usize
}

impl Widget for &PolicyPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        // The title names the scope on screen; results of another scope (the previous root,
        // while the new one is computed) are never shown under it.
        let here = app.scope();
        let scope = match here.root() {
            Some(r) => {
                // The root's name keeps its tail when the title is too long for the border.
                let room = (area.width as usize)
                    .saturating_sub(2 + width(" Policy · versions × checks · reached from  "));
                format!(
                    "reached from {}",
                    short_name(&crate::sanitize::line(r), room)
                )
            }
            None => "whole schema".to_string(),
        };
        let facts = app.facts.as_ref().filter(|f| f.scope == here);
        let matrix = matrix(app);
        let win = window(app, area);
        let mut block = Block::bordered()
            .title(Span::styled(
                format!(" Policy · versions × checks · {scope} "),
                t.title(true),
            ))
            .border_style(t.border(true));
        if let Some(note) = win.note("columns") {
            block = block.title_bottom(Line::styled(note, t.accent()).right_aligned());
        }
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(f) = facts else {
            let msg = if app.project.is_some() {
                " analysing…"
            } else {
                " waiting for every version to load…"
            };
            Line::styled(msg, t.dim()).render(inner, buf);
            return;
        };
        let nav = app.policy_nav;
        let name_w = super::versions::name_width(app);
        let mut head = vec![
            Span::raw("  "),
            Span::raw(fit("VERSION", name_w + 1)),
            Span::raw(fit("BUMP", 6)),
            Span::raw(fit("NEED", 6)),
            Span::styled(win.left_mark(), t.accent()),
        ];
        let columns = matrix.map(|m| m.columns.as_slice()).unwrap_or(&[]);
        let cols = check_names(app);
        let col_w = col_w(&cols);
        for ci in win.range() {
            let style = if ci == nav.col {
                Style::new().add_modifier(Modifier::UNDERLINED)
            } else {
                Style::new()
            };
            head.push(Span::styled(fit(&cols[ci], col_w), style));
        }
        Line::from(head)
            .style(t.header())
            .render(Rect { height: 1, ..inner }, buf);
        if let Some(x) = inner.right().checked_sub(1) {
            buf.set_string(x, inner.y, win.right_mark(), t.accent());
        }
        let rows = visible_rows(area);
        for (ri, vi) in (nav.row_scroll..app.versions.len()).take(rows).enumerate() {
            let Some(v) = app.versions.get(vi) else { break };
            let vf = f.versions.get(vi);
            let bump = vf.and_then(|x| x.bump).map(|b| b.as_str()).unwrap_or("");
            let need = vf.and_then(|x| x.need).map(|b| b.as_str()).unwrap_or("");
            let mut spans = vec![
                Span::styled(
                    if vi == app.selected.index() {
                        "● "
                    } else {
                        "  "
                    },
                    t.accent(),
                ),
                Span::raw(fit(&crate::sanitize::line(&v.version.name), name_w + 1)),
                Span::raw(fit(bump, 6)),
                Span::styled(
                    fit(need, 6),
                    vf.and_then(|x| x.worst)
                        .map(|w| t.severity(w))
                        .unwrap_or_else(|| t.dim()),
                ),
                Span::raw(" "),
            ];
            let sel = |ci: usize| vi == nav.row && ci == nav.col;
            let mark = |m: Option<Mark>, ci: usize| {
                let (g, style) = match m {
                    Some(m) => t.mark(m),
                    None => ("·", t.dim()),
                };
                let txt = format!("  {g}");
                let style = if sel(ci) {
                    style.patch(t.selected(true))
                } else {
                    style
                };
                Span::styled(fit(&txt, col_w), style)
            };
            for ci in win.range() {
                let m = match ci.checked_sub(1) {
                    None => vf.and_then(|x| x.semver).and_then(Mark::of_semver),
                    Some(pi) => columns
                        .get(pi)
                        .and_then(|p| p.results.get(vi).copied().flatten()),
                };
                spans.push(mark(m, ci));
            }
            let r = Rect::new(inner.x, inner.y + 1 + ri as u16, inner.width, 1);
            Line::from(spans).render(r, buf);
        }
        // Why the cell under the cursor fails.
        let y = inner.bottom().saturating_sub(1);
        let reason = if nav.col == 0 {
            f.versions.get(nav.row).and_then(|x| x.reason.clone())
        } else {
            columns.get(nav.col - 1).and_then(|p| {
                let failed = matches!(
                    p.results.get(nav.row).copied().flatten(),
                    Some(Mark::Fail | Mark::NotJudged)
                );
                let reason = p.reasons.get(nav.row).cloned().flatten();
                // The marks come before the first violations that explain them.
                let pending = matrix.is_some_and(|m| !m.complete);
                failed
                    .then(|| reason.or_else(|| pending.then(|| WORKING_OUT.to_string())))
                    .flatten()
            })
        };
        let note = match matrix {
            None if app.project.is_some() => Some(progress_note(app, &here)),
            None => None,
            Some(m) => Some(
                match nav.col.checked_sub(1).and_then(|c| m.columns.get(c)) {
                    Some(c) => {
                        let what = legend::POLICIES
                            .iter()
                            .find(|(full, _, _)| *full == c.name)
                            .map(|(_, _, what)| format!(": {what}"))
                            .unwrap_or_default();
                        let short = short_policy(&c.name);
                        let named = if short == c.name {
                            short
                        } else {
                            format!("{short} = {}", c.name)
                        };
                        format!("{named}{what}, at the {} level", m.level)
                    }
                    None => "SEMVER: BUMP is at least NEED, the bump the changes need".to_string(),
                },
            ),
        };
        let cell = if nav.col == 0 {
            f.versions
                .get(nav.row)
                .and_then(|x| x.semver)
                .and_then(Mark::of_semver)
        } else {
            columns
                .get(nav.col - 1)
                .and_then(|p| p.results.get(nav.row).copied().flatten())
        };
        if let Some(n) = note {
            Line::styled(format!(" {}", crate::sanitize::line(&n)), t.dim())
                .render(Rect::new(inner.x, y.saturating_sub(1), inner.width, 1), buf);
        }
        if let Some(r) = reason {
            let style = match cell {
                Some(m @ (Mark::Fail | Mark::NotJudged)) => t.mark(m).1,
                _ => t.dim(),
            };
            Line::styled(format!(" {}", crate::sanitize::line(&r)), style)
                .render(Rect::new(inner.x, y, inner.width, 1), buf);
        }
    }
}
