//! The type graph pane: the tree reached from the root in the selected version, with removed
//! nodes kept (struck through), each node's number, name, type and change marker coloured by
//! its worst verdict.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use crate::explore::{Comparison, NodeKind, Row, Sides};
use crate::judge::NOT_JUDGED;
use crate::rules::Severity;
use crate::schema::Status;
use crate::ui::widgets::text::{fit_change, fit_name};

use crate::ui::app::{App, Pane};
use crate::ui::widgets::theme::Theme;

pub struct GraphPane<'a>(pub &'a App);

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The title's change counts: `24 changes: 12 breaking · 3 lossy · ...`.
pub fn counts_spans(t: &Theme, c: &Comparison) -> Vec<Span<'static>> {
    let counts = c.counts();
    let total = counts.total();
    if c.first {
        return vec![Span::styled("first version: nothing to compare ", t.dim())];
    }
    if total == 0 && counts.ignored == 0 {
        return vec![Span::styled("no changes ", t.ok())];
    }
    let mut out = vec![Span::raw(format!(
        "{total} change{}",
        if total == 1 { "" } else { "s" }
    ))];
    if total > 0 {
        out.push(Span::raw(": "));
    }
    let sevs = [
        Severity::Breaking,
        Severity::Lossy,
        Severity::Hazard,
        Severity::Safe,
    ];
    let mut first = true;
    for s in sevs {
        let n = match s {
            Severity::Breaking => counts.breaking,
            Severity::Lossy => counts.lossy,
            Severity::Hazard => counts.hazard,
            Severity::Safe => counts.safe,
        };
        if n == 0 {
            continue;
        }
        if !first {
            out.push(Span::styled(" · ", t.dim()));
        }
        first = false;
        out.push(Span::styled(format!("{n} {}", s.as_str()), t.severity(s)));
    }
    // The same words as the banner above the tree and the reports.
    if counts.not_judged > 0 {
        out.push(Span::styled(
            format!(" · {} {NOT_JUDGED}", counts.not_judged),
            t.warn(),
        ));
    }
    let ignored = counts.ignored - counts.not_judged;
    if ignored > 0 {
        out.push(Span::styled(format!(" · {ignored} ignored"), t.dim()));
    }
    out.push(Span::raw(" "));
    out
}

/// Why there is no tree to show, if there is none.
/// Draws a pane's border and title; when there is nothing to compare yet, says why inside it
/// and returns None, else the area inside.
pub fn framed(
    app: &App,
    title: Vec<Span<'_>>,
    focused: bool,
    area: Rect,
    buf: &mut Buffer,
) -> Option<Rect> {
    let block = Block::bordered()
        .title(Line::from(title))
        .border_style(app.theme.border(focused));
    let inner = block.inner(area);
    block.render(area, buf);
    match empty_reason(app) {
        Some(lines) => {
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .render(inner, buf);
            None
        }
        None => Some(inner),
    }
}

pub fn empty_reason(app: &App) -> Option<Vec<Line<'static>>> {
    let t = &app.theme;
    let Some(root) = &app.root else {
        return Some(vec![Line::styled(
            " no root yet: press r to pick a message or service",
            t.dim(),
        )]);
    };
    let v = app.version(app.selected)?;
    let name = crate::sanitize::line(&v.version.name);
    match v.status() {
        Status::Pending => {
            return Some(vec![Line::styled(format!(" compiling {name}…"), t.dim())]);
        }
        Status::Failed => {
            let mut out = vec![Line::styled(format!(" {name} does not compile:"), t.bad())];
            for d in v.compiled.diagnostics.iter().take(20) {
                out.push(Line::raw(format!(
                    "   {}",
                    crate::sanitize::line(&d.to_string())
                )));
            }
            return Some(out);
        }
        _ => {}
    }
    if let Some(b) = app.base_index()
        && let Some(bv) = app.version(b)
    {
        let bname = crate::sanitize::line(&bv.version.name);
        match bv.status() {
            Status::Pending => {
                return Some(vec![Line::styled(format!(" compiling {bname}…"), t.dim())]);
            }
            Status::Failed => {
                return Some(vec![Line::styled(
                    format!(" the base {bname} does not compile: press b on another version"),
                    t.bad(),
                )]);
            }
            _ => {}
        }
    }
    let c = app.current().or(app.comparison.as_ref())?;
    if !c.root_found() {
        return Some(vec![Line::styled(
            format!(
                " {} is in neither {} nor {}: press r to pick another root",
                crate::sanitize::line(short(root)),
                crate::sanitize::line(c.old.name()),
                crate::sanitize::line(c.new.name())
            ),
            t.warn(),
        )]);
    }
    None
}

/// A warning above the tree when a side of the comparison compiled only in part.
pub fn notice(app: &App) -> Option<Line<'static>> {
    let c = app.current()?;
    let sides = if c.first {
        vec![&c.new]
    } else {
        vec![&c.old, &c.new]
    };
    let parts: Vec<String> = sides
        .into_iter()
        .filter(|s| s.compiled.status == Status::Partial)
        .map(|s| {
            format!(
                "{} {}/{}",
                crate::sanitize::line(s.name()),
                s.compiled.files_ok,
                s.compiled.files_total
            )
        })
        .collect();
    (!parts.is_empty()).then(|| {
        Line::styled(
            format!(
                " ⚠ files compiled: {}; the rest shows as absent, its changes {NOT_JUDGED}",
                parts.join(", ")
            ),
            app.theme.warn(),
        )
    })
}

/// Column widths for the visible rows.
pub struct Cols {
    num: usize,
    name: usize,
    ty: usize,
}

/// Room beside the name and type columns: the number's blank, the blanks around the marker,
/// the marker and the longest verdict.
const FIXED: usize = 14;

fn cols(rows: &[Row], width: usize) -> Cols {
    let num = rows
        .iter()
        .filter_map(|r| r.node.number.map(|n| n.to_string().len()))
        .max()
        .unwrap_or(0);
    let name_need = rows
        .iter()
        .map(|r| r.depth * 2 + 1 + r.node.name.chars().count())
        .max()
        .unwrap_or(8);
    let ty_need = rows
        .iter()
        .map(|r| type_text(r).chars().count())
        .max()
        .unwrap_or(0);
    let avail = width.saturating_sub(num + FIXED);
    if name_need + ty_need <= avail {
        return Cols {
            num,
            name: name_need,
            ty: ty_need,
        };
    }
    // Too narrow for both: a changed type (`old → new`) is what the row is about, so the
    // type column keeps the widest change whole and the names give way, down to two fifths
    // of the room (at least 10); other types are cut as names are.
    let changed = rows
        .iter()
        .filter(|r| r.node.old_ty.is_some() && r.node.sides == Sides::Both)
        .map(|r| type_text(r).chars().count())
        .max()
        .unwrap_or(0);
    let name_floor = name_need.min((avail * 2 / 5).max(10));
    let ty = changed
        .max(avail.saturating_sub(name_need))
        .min(avail.saturating_sub(name_floor))
        .max(8);
    let name = avail.saturating_sub(ty).min(name_need);
    Cols { num, name, ty }
}

fn type_text(r: &Row) -> String {
    let n = &r.node;
    match &n.old_ty {
        Some(o) if n.sides == Sides::Both => format!("{o} → {}", n.ty),
        _ => n.ty.clone(),
    }
}

/// The type cell in `w` columns: a changed type keeps both its sides, each cut as a name.
fn type_cell(r: &Row, w: usize) -> String {
    let n = &r.node;
    match &n.old_ty {
        Some(o) if n.sides == Sides::Both => fit_change(o, &n.ty, w),
        _ => fit_name(&n.ty, w),
    }
}

/// One row of the tree as a line.
pub fn row_line(t: &Theme, r: &Row, parent_sides: Option<Sides>, c: &Cols) -> Line<'static> {
    let n = &r.node;
    let gone = n.sides == Sides::Old;
    let base = if gone { t.removed() } else { Style::new() };
    let mut prefix = String::new();
    for g in &r.guides {
        prefix.push_str(if *g { "│ " } else { "  " });
    }
    if r.depth > 0 {
        prefix.push_str(if r.last { "└─" } else { "├─" });
    }
    let expander = if r.cycle {
        "↻"
    } else if r.cut {
        "⋯"
    } else if r.expanded {
        "▾"
    } else if n.expandable() || n.kind == NodeKind::Method {
        "▸"
    } else {
        " "
    };
    let own = n.worst;
    let name_style = match (own, gone) {
        (_, true) => t.removed(),
        (Some(s), _) => t.severity(s),
        (None, _) => Style::new(),
    };
    let name_cell = fit_name(&n.name, c.name.saturating_sub(prefix.chars().count() + 1));
    let num = n.number.map(|x| x.to_string()).unwrap_or_default();
    let marker = match (n.sides, parent_sides) {
        (Sides::New, Some(p)) if p != Sides::New => "+",
        (Sides::New, None) => "+",
        (Sides::Old, Some(p)) if p != Sides::Old => "−",
        (Sides::Old, None) => "−",
        _ if own.is_some() => "~",
        _ if n.below.is_some() => "•",
        _ => " ",
    };
    let marker_style = match (own, n.below) {
        (Some(s), _) => t.severity(s),
        (None, Some(b)) => t.severity(b),
        _ => t.dim(),
    };
    let verdict = own.map(|s| s.as_str()).unwrap_or("");
    let dim = if gone { t.removed() } else { t.dim() };
    Line::from(vec![
        Span::styled(prefix, t.dim()),
        Span::styled(expander.to_string(), t.accent()),
        Span::styled(format!("{num:>w$} ", w = c.num + 1), dim),
        Span::styled(name_cell, name_style),
        Span::raw(" "),
        Span::styled(
            type_cell(r, c.ty),
            if gone {
                base
            } else {
                dim.remove_modifier(Modifier::CROSSED_OUT)
            },
        ),
        Span::raw(" "),
        Span::styled(
            marker.to_string(),
            marker_style.add_modifier(Modifier::BOLD),
        ),
        Span::raw(" "),
        Span::styled(
            verdict.to_string(),
            own.map(|s| t.severity(s)).unwrap_or_default(),
        ),
    ])
}

impl Widget for &GraphPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let focused = app.focus == Pane::Graph;
        let mut title = vec![Span::styled(" Graph ", t.title(focused))];
        let cmp = app.current();
        if let Some(c) = cmp {
            title.extend(counts_spans(t, c));
        } else if app.root.is_some() && app.comparison.is_some() {
            title.push(Span::styled("comparing… ", t.dim()));
        }
        if app.tree.changed_only {
            title.push(Span::styled("· changed only ", t.accent()));
        }
        let Some(inner) = framed(app, title, focused, area, buf) else {
            return;
        };
        let inner = match notice(app) {
            Some(line) => {
                line.render(Rect { height: 1, ..inner }, buf);
                Rect {
                    y: inner.y + 1,
                    height: inner.height.saturating_sub(1),
                    ..inner
                }
            }
            None => inner,
        };
        let rows = &app.tree.rows;
        if rows.is_empty() {
            if cmp.is_none() {
                Line::styled(" comparing…", t.dim()).render(inner, buf);
            } else if app.tree.changed_only {
                Line::styled(" nothing changed here (f: show everything)", t.dim())
                    .render(inner, buf);
            }
            return;
        }
        let visible: Vec<&Row> = rows
            .iter()
            .skip(app.tree.scroll)
            .take(inner.height as usize)
            .collect();
        let owned: Vec<Row> = visible.iter().map(|r| (*r).clone()).collect();
        let c = cols(&owned, inner.width as usize);
        for (i, r) in visible.iter().enumerate() {
            let idx = app.tree.scroll + i;
            let parent_sides = parent_of(rows, idx).map(|p| p.node.sides);
            let mut line = row_line(t, r, parent_sides, &c);
            if idx == app.tree.cursor {
                line = line.style(t.selected(focused));
            }
            let y = inner.y + i as u16;
            let rect = Rect::new(inner.x, y, inner.width, 1);
            if idx == app.tree.cursor {
                buf.set_style(rect, t.selected(focused));
            }
            line.render(rect, buf);
        }
    }
}

/// The parent row of row `i` (the nearest row above with a smaller depth).
fn parent_of(rows: &[Row], i: usize) -> Option<&Row> {
    let d = rows.get(i)?.depth;
    rows[..i].iter().rev().find(|r| r.depth < d)
}
