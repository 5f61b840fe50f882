//! The finder finds versions: a commit of `--commits` by a prefix of its hash and by the
//! words of its subject, a tag by its name; Enter selects it in the versions pane, keeping
//! the root and the view. On a repository the test builds, keys through the key table.

use std::sync::RwLock;

use protolapse::explore::names::{Index, Kind};
use protolapse::ui::app::{Action, App, Overlay, Pane};
use protolapse::ui::runtime::loader::{self, LoadOptions, Source};
use protolapse::ui::runtime::worker::{Inbox, execute};
use protolapse::ui::views::View;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use super::{COLOR, text};
use crate::common::{Repo, proto};

/// Four commits that change the schema (and one that does not), the third tagged.
fn history(r: &mut Repo) -> Vec<String> {
    let mut ids = Vec::new();
    r.write(
        "api/pay.proto",
        &proto("pay", "message Payment { int64 units = 1; }"),
    );
    ids.push(r.commit("Add the payments API"));
    r.write(
        "api/pay.proto",
        &proto(
            "pay",
            "message Payment { int64 units = 1; string memo = 2; }",
        ),
    );
    ids.push(r.commit("Payments get a memo"));
    r.write(
        "api/pay.proto",
        &proto(
            "pay",
            "message Payment { int64 units = 1; string memo = 2; int32 nanos = 3; }",
        ),
    );
    ids.push(r.commit("Money gets \u{1b}[31mnanos"));
    r.tag("v1.0.0");
    r.write("README.md", "docs");
    r.commit("Docs only");
    r.write(
        "api/pay.proto",
        &proto(
            "pay",
            "message Payment { int64 units = 1; string memo = 2; int32 nanos = 3; bool done = 4; }",
        ),
    );
    ids.push(r.commit("Payments can be done"));
    ids
}

struct Ui {
    app: App,
    names: RwLock<Index>,
}

impl Ui {
    fn settle(&mut self) {
        for _ in 0..50 {
            let reqs: Vec<_> = self.app.outbox.drain(..).collect();
            if reqs.is_empty() {
                return;
            }
            for r in reqs {
                for a in execute(r, &self.names) {
                    self.app.update(a);
                }
            }
        }
        panic!("the app keeps asking");
    }

    fn key(&mut self, code: KeyCode) {
        let ev = Event::Key(KeyEvent::new(code, KeyModifiers::NONE));
        if let Some(a) = protolapse::ui::runtime::event_loop::input_action(&self.app, &ev) {
            self.app.update(a);
            self.settle();
        }
    }

    fn keys(&mut self, s: &str) {
        for ch in s.chars() {
            self.key(KeyCode::Char(ch));
        }
    }

    /// The finder's results: (kind, text) of each.
    fn found(&self) -> Vec<(Kind, String, usize)> {
        let Overlay::Finder(f) = &self.app.overlay else {
            panic!("the finder is not open");
        };
        let r = f.results.as_ref().expect("results");
        assert_eq!(r.query, f.query);
        r.items
            .iter()
            .map(|i| (i.kind, i.name.clone(), i.first))
            .collect()
    }
}

fn open(r: &Repo) -> Ui {
    let names = RwLock::new(Index::new());
    let inbox = Inbox::default();
    let opts = LoadOptions {
        commits: Some("HEAD".into()),
        ..LoadOptions::default()
    };
    loader::run(
        &Source::Repo(r.path().to_path_buf()),
        &opts,
        &names,
        &inbox,
        &|| {},
    )
    .unwrap();
    let app = App::new(
        COLOR,
        Rect::new(0, 0, 120, 40),
        "repo",
        Some("pay.Payment".into()),
    );
    let mut ui = Ui { app, names };
    for a in inbox.drain() {
        ui.app.update(a);
        ui.settle();
    }
    ui
}

#[test]
fn the_finder_finds_a_commit_by_hash_prefix_and_enter_selects_it() {
    let mut r = Repo::new();
    let ids = history(&mut r);
    let mut ui = open(&r);
    assert_eq!(ui.app.versions.len(), 4);
    assert_eq!(ui.app.selected.index(), 3);
    assert_eq!(ui.app.root.as_deref(), Some("pay.Payment"));
    ui.key(KeyCode::Char('/'));
    ui.keys(&ids[1][..6]);
    let found = ui.found();
    assert_eq!(found.first().map(|f| f.0), Some(Kind::Version), "{found:?}");
    assert_eq!(found[0].2, 1);
    assert_eq!(
        found[0].1,
        format!("{} · Payments get a memo", &ids[1][..7]),
        "{found:?}"
    );
    // Shown as a version, with its date.
    let v = &ui.app.versions[1].version;
    let date = protolapse::history::format_date(v.time, v.offset_minutes);
    let screen = text(&ui.app);
    assert!(
        screen.lines().any(|l| l.contains(" version ")
            && l.contains("Payments get a memo")
            && l.contains(&date)),
        "{screen}"
    );
    ui.key(KeyCode::Enter);
    assert!(matches!(ui.app.overlay, Overlay::None));
    assert_eq!(ui.app.selected.index(), 1);
    assert_eq!(ui.app.focus, Pane::Versions);
    // The root and the view stay; the graph shows the selected commit against its previous.
    assert_eq!(ui.app.root.as_deref(), Some("pay.Payment"));
    assert_eq!(ui.app.view, View::Graph);
    let c = ui
        .app
        .current()
        .expect("the comparison of the selected commit");
    assert_eq!(c.new.version.commit, ids[1]);
}

#[test]
fn the_finder_finds_a_commit_by_the_words_of_its_subject_and_a_tag_by_its_name() {
    let mut r = Repo::new();
    let ids = history(&mut r);
    let mut ui = open(&r);
    ui.key(KeyCode::Char('/'));
    ui.keys("nanos money");
    let versions: Vec<_> = ui
        .found()
        .into_iter()
        .filter(|f| f.0 == Kind::Version)
        .collect();
    // The tagged commit, by its tag, its hash and its subject (its escape made harmless).
    assert_eq!(
        versions,
        [(
            Kind::Version,
            format!("v1.0.0 {} · Money gets ?[31mnanos", &ids[2][..7]),
            2
        )]
    );
    let screen = text(&ui.app);
    assert!(!screen.contains('\u{1b}'), "{screen}");
    // A subject word finds every commit that has it, newest first.
    ui.key(KeyCode::Esc);
    ui.key(KeyCode::Char('/'));
    ui.keys("payments");
    let firsts: Vec<usize> = ui
        .found()
        .into_iter()
        .filter(|f| f.0 == Kind::Version)
        .map(|f| f.2)
        .collect();
    assert_eq!(firsts, [3, 1, 0]);
    // The tag by its name; Enter selects it.
    ui.key(KeyCode::Esc);
    ui.key(KeyCode::Char('/'));
    ui.keys("v1.0");
    let found = ui.found();
    assert_eq!(found.first().map(|f| (f.0, f.2)), Some((Kind::Version, 2)));
    ui.key(KeyCode::Enter);
    assert_eq!(ui.app.selected.index(), 2);
    assert_eq!(ui.app.version(ui.app.selected).unwrap().name(), "v1.0.0");
}

#[test]
fn the_root_finder_lists_no_version() {
    let mut r = Repo::new();
    let ids = history(&mut r);
    let mut ui = open(&r);
    // `pay` names the root (pay.Payment) and words of commit subjects (payments).
    ui.key(KeyCode::Char('r'));
    ui.keys("pay");
    let found = ui.found();
    assert!(!found.is_empty());
    assert!(found.iter().all(|f| f.0 != Kind::Version), "{found:?}");
    ui.key(KeyCode::Esc);
    ui.key(KeyCode::Char('/'));
    ui.keys("pay");
    assert!(ui.found().iter().any(|f| f.0 == Kind::Version));
    ui.key(KeyCode::Esc);
    // A hash prefix finds nothing there.
    ui.key(KeyCode::Char('r'));
    ui.keys(&ids[1][..6]);
    assert!(ui.found().iter().all(|f| f.0 != Kind::Version));
    ui.key(KeyCode::Esc);
    ui.app.update(Action::Resize(120, 40));
    assert_eq!(ui.app.root.as_deref(), Some("pay.Payment"));
}
