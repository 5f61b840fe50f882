//! `protolapse blame`: the lifecycle of each field (or enum value) of one message (or enum)
//! across every version — a one-character timeline per number, then its events — in lines
//! that fit a width: over hundreds of versions the timeline gives one character to each run
//! of versions in which nothing happened (`v3.0.0…v3.5.1 (12)`, listed under the table), and
//! the events wrap under their column.

use std::ops::Range;

use crate::policy::lifecycle::{Lifecycle, State};
use crate::sanitize;

/// The legend of the timeline characters.
pub const LEGEND: &str = "+ added  = kept  ~ changed  d deprecated  - removed  r reserved  . absent  ? unknown (no such type, or did not compile)";

/// The width when standard output is not a terminal.
pub const DEFAULT_WIDTH: usize = 100;

/// The narrowest the events column gets before the timeline is squeezed further.
const EVENTS_MIN: usize = 24;

/// Something happened to the number in this version (the rest carry on from before).
fn event(s: State) -> bool {
    matches!(
        s,
        State::Added | State::Changed | State::Deprecated | State::Removed
    )
}

/// How much a state says, for a character that stands for several versions.
fn weight(s: State) -> u8 {
    match s {
        State::Changed => 7,
        State::Removed => 6,
        State::Deprecated => 5,
        State::Added => 4,
        State::Unknown => 3,
        State::Reserved => 2,
        State::Kept => 1,
        State::Absent => 0,
    }
}

/// The versions each timeline character stands for: one version each when they fit in
/// `room`; else each version in which something happened, with the quiet versions after it
/// (every number as that version left it), shares one; and should even that not fit,
/// neighbouring characters are merged evenly.
fn columns(l: &Lifecycle, room: usize) -> Vec<Range<usize>> {
    let n = l.versions.len();
    if n <= room {
        return (0..n).map(|v| v..v + 1).collect();
    }
    let state = |r: usize, v: usize| l.rows[r].cells.get(v).map(|c| c.state);
    // Nothing happens in `v`: every number is as it was, or as an event of the version
    // before leaves it (added, changed, deprecated: kept; removed: reserved or gone).
    let quiet_after = |v: usize| {
        (0..l.rows.len()).all(|r| match (state(r, v - 1), state(r, v)) {
            (_, Some(s)) if event(s) => false,
            (a, b) if a == b => true,
            (Some(State::Added | State::Changed | State::Deprecated), Some(State::Kept)) => true,
            (Some(State::Removed), Some(State::Reserved | State::Absent)) => true,
            _ => false,
        })
    };
    let mut runs: Vec<Range<usize>> = Vec::new();
    for v in 0..n {
        match runs.last_mut() {
            Some(last) if v > 0 && quiet_after(v) => last.end = v + 1,
            _ => runs.push(v..v + 1),
        }
    }
    if runs.len() <= room {
        return runs;
    }
    let room = room.max(1);
    let k = runs.len();
    (0..room)
        .map(|i| (i * k / room, (i + 1) * k / room))
        .filter(|(a, b)| a < b)
        .map(|(a, b)| runs[a].start..runs[b - 1].end)
        .collect()
}

/// The character of one number over the versions `span`.
fn glyph(l: &Lifecycle, row: usize, span: &Range<usize>) -> char {
    let cells = &l.rows[row].cells;
    span.clone()
        .filter_map(|v| cells.get(v).map(|c| c.state))
        .max_by_key(|s| weight(*s))
        .map(|s| s.glyph())
        .unwrap_or(' ')
}

/// How a run of versions is named: `v3.0.0…v3.5.1 (12)`.
fn run_name(l: &Lifecycle, span: &Range<usize>) -> String {
    let name = |v: usize| {
        l.versions
            .get(v)
            .map(|s| sanitize::line(s))
            .unwrap_or_default()
    };
    if span.len() == 1 {
        name(span.start)
    } else {
        format!(
            "{}…{} ({})",
            name(span.start),
            name(span.end - 1),
            span.len()
        )
    }
}

/// `prefix` then `text`, broken into lines of at most `width` characters at the spaces of
/// `text` (a word longer than a line is cut), the lines after the first indented by `indent`
/// spaces (at most `width - 8`).
fn wrap(prefix: &str, text: &str, width: usize, indent: usize) -> Vec<String> {
    let width = width.max(16);
    let indent = indent.min(width - 8);
    let mut out = Vec::new();
    let mut line = prefix.to_string();
    let mut used = prefix.chars().count();
    let mut start = used;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let gap = usize::from(used > start);
            if used + gap + word.len() <= width {
                if gap == 1 {
                    line.push(' ');
                }
                line.extend(word.iter());
                used += gap + word.len();
                break;
            }
            if used > start || used >= width {
                out.push(std::mem::take(&mut line));
                line = " ".repeat(indent);
                used = indent;
                start = indent;
                continue;
            }
            // Longer than a line: cut after a token (`google.protobuf.`) when one fits.
            let text: String = word.iter().collect();
            let room = crate::proto_text::token_break(&text, width - used).unwrap_or(width - used);
            line.extend(word.iter().take(room));
            out.push(std::mem::take(&mut line));
            line = " ".repeat(indent);
            used = indent;
            start = indent;
            word.drain(..room);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.trim().is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

/// The text of `blame`, every line at most `width` characters.
pub fn to_text(l: &Lifecycle, width: usize) -> String {
    let mut out = String::new();
    // Non-breaking spaces hold a phrase together (`+ added`); they print as spaces.
    let mut push = |prefix: &str, text: &str, indent: usize| {
        for line in wrap(prefix, text, width, indent) {
            out.push_str(line.replace('\u{a0}', " ").trim_end());
            out.push('\n');
        }
    };
    let kind = match l.kind {
        crate::policy::lifecycle::Kind::Message => "message",
        crate::policy::lifecycle::Kind::Enum => "enum",
    };
    let first = l.present.iter().position(|p| *p);
    let last = l.present.iter().rposition(|p| *p);
    push(
        "",
        &format!(
            "{kind} {} — in {} of {} versions{}",
            sanitize::line(&l.element),
            l.present.iter().filter(|p| **p).count(),
            l.versions.len(),
            match (first, last) {
                (Some(a), Some(b)) => format!(
                    " ({} .. {})",
                    sanitize::line(&l.versions[a]),
                    sanitize::line(&l.versions[b])
                ),
                _ => String::new(),
            }
        ),
        2,
    );
    if l.rows.is_empty() {
        push("", "no fields", 0);
        return out;
    }
    let num_w = l
        .rows
        .iter()
        .map(|r| r.number.to_string().len())
        .max()
        .unwrap_or(1);
    let names: Vec<String> = l
        .rows
        .iter()
        .map(|r| sanitize::line(&r.names.join("/")))
        .collect();
    let name_w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 32)
        .min(width / 4);
    // The timeline takes at most a quarter of the line: the events say what happened.
    let room = width
        .saturating_sub(num_w + 2 + name_w + 2 + 2 + EVENTS_MIN)
        .min(width / 4)
        .max(8);
    let cols = columns(l, room);
    let tl_w = cols.len().max("TIMELINE".len());
    let events_x = num_w + 2 + name_w + 2 + tl_w + 2;
    push(
        &format!(
            "{:>num_w$}  {:<name_w$}  {:<tl_w$}  ",
            "#", "NAME", "TIMELINE"
        ),
        "EVENTS",
        0,
    );
    // The events wrap under their column, or under the row when the column is too narrow.
    let indent = if events_x + EVENTS_MIN <= width {
        events_x
    } else {
        4
    };
    for (ri, row) in l.rows.iter().enumerate() {
        let timeline: String = cols.iter().map(|c| glyph(l, ri, c)).collect();
        let mut events = Vec::new();
        for c in &row.cells {
            let v = sanitize::line(&c.version);
            let rules = if c.rules.is_empty() {
                String::new()
            } else {
                format!(" ({})", c.rule_list())
            };
            let decl = c.decl.as_deref().map(sanitize::line).unwrap_or_default();
            match c.state {
                State::Added => events.push(format!("+{v} {decl}")),
                State::Changed => events.push(format!("~{v} {decl}{rules}")),
                State::Deprecated => events.push(format!("{v} deprecated")),
                State::Removed if c.reserved => events.push(format!("-{v} reserved")),
                State::Removed => events.push(format!("-{v} not reserved")),
                _ => {}
            }
        }
        let name: String = {
            let n = &names[ri];
            if n.chars().count() > name_w {
                // Names keep their tail, where renames and suffixes differ.
                let skip = n.chars().count() + 1 - name_w;
                format!("…{}", n.chars().skip(skip).collect::<String>())
            } else {
                n.clone()
            }
        };
        let head = format!(
            "{:>num_w$}  {name:<name_w$}  {timeline:<tl_w$}  ",
            row.number
        );
        let all = events.join("; ");
        if head.chars().count() + all.chars().count() <= width || events.len() < 2 {
            push(&head, &all, indent);
        } else {
            // Too long for one line: one event a line, each wrapped under the column.
            let last = events.len() - 1;
            for (i, e) in events.iter().enumerate() {
                let e = if i < last { format!("{e};") } else { e.clone() };
                let prefix = if i == 0 {
                    head.clone()
                } else {
                    " ".repeat(indent)
                };
                push(&prefix, &e, indent);
            }
        }
    }
    let (a, b) = (
        l.versions
            .first()
            .map(|v| sanitize::line(v))
            .unwrap_or_default(),
        l.versions
            .last()
            .map(|v| sanitize::line(v))
            .unwrap_or_default(),
    );
    // The legend, each mark with its word.
    let legend = LEGEND
        .split("  ")
        .map(|item| item.replace(' ', "\u{a0}"))
        .collect::<Vec<_>>()
        .join("  ");
    push("", "", 0);
    if cols.len() == l.versions.len() {
        push(
            "",
            &format!("TIMELINE: one character per version, {a} .. {b}: {legend}"),
            2,
        );
        return out;
    }
    let squeezed = cols.iter().any(|c| {
        c.clone().skip(1).any(|v| {
            (0..l.rows.len()).any(|r| l.rows[r].cells.get(v).is_some_and(|c| event(c.state)))
        })
    });
    push(
        "",
        &format!(
            "TIMELINE: {} versions, {a} .. {b}, in {} characters, each a version in which \
             something happened with the quiet versions after it{}: {legend}",
            l.versions.len(),
            cols.len(),
            if squeezed {
                " (too many for the width: where a character stands for several events, it \
                 shows the most telling)"
            } else {
                ""
            }
        ),
        2,
    );
    let list: Vec<String> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}\u{a0}{}", i + 1, run_name(l, c).replace(' ', "\u{a0}")))
        .collect();
    push("", &format!("characters: {}", list.join("\u{a0}· ")), 2);
    out
}
