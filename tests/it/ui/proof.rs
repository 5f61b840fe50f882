//! The detail pane's round trips: computed by a worker (a `Request::Prove` the app asks
//! for, run inline here), shown under the verdict grid, kept per pair and change, and never
//! shown under a selection they are not for.

use super::cells::find_cell;
use super::{COLOR, buffer, cmd, demo, go_to, pair, rich, screen, text};
use protolapse::rules::RuleId;
use protolapse::ui::app::{App, Command, ProveKey, Request};
use protolapse::ui::runtime::worker::execute;
use protolapse::ui::views::View;
use protolapse::ui::widgets::theme::Theme;
use ratatui::style::{Color, Modifier};

/// The demo's v1.1.0 → v1.1.1 reuses a reserved number: the rule calls the backward cells
/// breaking (a third version's data), every sample reads back — contradictions, marked.
#[test]
fn snapshot_detail_with_round_trips() {
    let mut app = demo(120, 60, Some("FlightPath"), COLOR);
    pair(&mut app, "v1.1.0", "v1.1.1");
    cmd(&mut app, Command::Enter);
    go_to(&mut app, "physics.v1.FlightPath.duration_ms");
    snap!("detail_round_trips_120x60", app);
    let mut lossy = rich(120, 60, COLOR);
    go_to(&mut lossy, "physics.v1.FlightPath.passengers");
    snap!("detail_round_trips_lossy_120x60", lossy);
}

/// The proofs the app asked for and has not had.
fn asked(app: &mut App) -> Vec<(ProveKey, Request)> {
    app.outbox
        .drain(..)
        .filter_map(|r| match &r {
            Request::Prove { key, .. } => Some((key.clone(), r)),
            _ => None,
        })
        .collect()
}

/// The detail pane's text from its round trips on.
fn section(app: &App) -> String {
    let screen = text(app);
    let rows: Vec<&str> = screen.lines().collect();
    let from = rows
        .iter()
        .position(|r| r.contains("round trip"))
        .unwrap_or_else(|| panic!("no round trips on screen:\n{screen}"));
    rows[from..].join("\n")
}

/// A proof is asked of a worker and shown only under the selection it is for: until it
/// arrives the pane says "proving…"; one that arrives for a selection the user has left is
/// kept (moving back is instant, nothing asked again) but never shown under the new one.
#[test]
fn a_proof_for_another_selection_is_never_shown() {
    let names = &super::demo_load().1;
    let mut app = rich(120, 60, COLOR);
    go_to(&mut app, "physics.v1.FlightPath.passengers");
    assert!(section(&app).contains("passengers: 1  30 01 → -1 (changed)"));

    // Onto crew_code: asked for, not arrived.
    app.show("physics.v1.FlightPath.crew_code");
    let mut crew = asked(&mut app);
    assert_eq!(crew.len(), 1, "one proof asked for");
    let s = section(&app);
    assert!(s.contains("round trip  proving…"), "{s}");
    assert!(
        !s.contains("passengers: "),
        "another change's proof shown:\n{s}"
    );

    // Onto checksum before crew_code's proof arrives; then it arrives.
    app.show("physics.v1.FlightPath.checksum");
    let mut checksum = asked(&mut app);
    assert_eq!(checksum.len(), 1);
    assert_ne!(checksum[0].0, crew[0].0, "keyed by the change");
    let (crew_key, crew_req) = crew.remove(0);
    for a in execute(crew_req, names) {
        app.update(a);
    }
    let s = section(&app);
    assert!(s.contains("round trip  proving…"), "{s}");
    assert!(!s.contains("crew_code: "), "a stale proof shown:\n{s}");
    assert!(
        app.proofs.contains_key(&crew_key),
        "kept for when it is wanted"
    );

    // Checksum's own arrives and shows.
    for a in execute(checksum.remove(0).1, names) {
        app.update(a);
    }
    let s = section(&app);
    assert!(!s.contains("proving…") && s.contains("checksum: "), "{s}");

    // Back on crew_code: shown at once, nothing asked again.
    app.show("physics.v1.FlightPath.crew_code");
    assert!(asked(&mut app).is_empty(), "a kept proof is asked again");
    let s = section(&app);
    assert!(
        s.contains("crew_code: ") && !s.contains("checksum: "),
        "{s}"
    );

    // The changes view shows the proof of the change under its cursor.
    cmd(&mut app, Command::View(View::Changes));
    let c = app.current().expect("compared").clone();
    let i = app.changes_nav.cursor;
    assert_eq!(app.proof_key(), Some((c.key(), i)));
    assert!(section(&app).contains(&format!("{}:", short(&c.changes[i].element))));
}

fn short(element: &str) -> &str {
    element.rsplit('.').next().unwrap_or(element)
}

/// A change with no data of its own (a comment) says so in one line.
#[test]
fn a_change_no_sample_can_show_takes_one_line() {
    let mut app = rich(120, 60, COLOR);
    go_to(&mut app, "physics.v1.Reading.milli_kelvin");
    while app
        .current()
        .and_then(|c| {
            let (changes, shown) = app.detail_changes(c)?;
            Some(c.changes[changes[shown]].rule != RuleId::COMMENT_CHANGED)
        })
        .unwrap_or(false)
    {
        cmd(&mut app, Command::NextRule);
    }
    // One line of the document (the pane's width wraps it), then the lifecycle.
    let s = section(&app);
    let said: Vec<&str> = s
        .lines()
        .take_while(|r| !r.contains("lifecycle"))
        .map(|r| r.trim_matches(|c: char| c == '"' || c == '│' || c == ' '))
        .filter(|r| !r.is_empty())
        .collect();
    assert_eq!(
        said.join(" "),
        "round trip  not proven (no field or enum value of its own: nothing a round trip can show)",
        "{s}"
    );
}

/// A contradiction is written as a word, reversed: without colour (`NO_COLOR`) it still
/// stands out, as the verdict grid's words do.
#[test]
fn a_contradiction_is_marked_without_colour_too() {
    for theme in [COLOR, Theme { color: false }] {
        let mut app = demo(120, 60, Some("FlightPath"), theme);
        pair(&mut app, "v1.1.0", "v1.1.1");
        cmd(&mut app, Command::Enter);
        go_to(&mut app, "physics.v1.FlightPath.duration_ms");
        let buf = buffer(&app);
        let (x, y) = find_cell(&buf, "CONTRADICTION").expect("marked");
        let cell = &buf[(x, y)];
        assert!(cell.modifier.contains(Modifier::REVERSED), "{cell:?}");
        if theme.color {
            assert_eq!(cell.fg, Color::Red);
        } else {
            assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset));
        }
    }
}

/// The worker proves one change as `diff --prove` proves it among the pair's others.
#[test]
fn the_worker_proves_a_change_as_the_cli_does() {
    let app = rich(120, 40, COLOR);
    let c = app.current().expect("compared");
    let (old, new) = (&c.old.compiled.schema, &c.new.compiled.schema);
    let all = protolapse::prove::prove(old, new, &c.changes);
    assert!(all.len() > 10);
    for (i, p) in all.iter().enumerate() {
        let one = protolapse::prove::prove_change(old, new, &c.changes, i).expect("a change");
        assert_eq!(
            serde_json::to_string(&one).unwrap(),
            serde_json::to_string(p).unwrap()
        );
    }
    assert!(protolapse::prove::prove_change(old, new, &c.changes, all.len()).is_none());
}
