//! Every mark explained: the help's legend of the versions columns, the marks and the
//! policies by name; the NEED column and the semver reason agree below 1.0; "unchanged" only
//! where nothing changed.

use super::{COLOR, act, cmd, demo, index_of, text};
use protolapse::ui::app::{Action, App, Command};
use protolapse::ui::views::View;

/// Every column and mark of the versions pane and every policy is in the help, by the names
/// the registry design gives them; DENY_ALL is never shown as `NONE`.
#[test]
fn the_help_and_the_legend_explain_every_mark_and_policy() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    let legend = text(&app);
    assert!(
        legend.contains("✓ ok") && legend.contains("? more"),
        "{legend}"
    );
    cmd(&mut app, Command::Help);
    let mut help = String::new();
    for _ in 0..20 {
        help.push_str(&text(&app));
        cmd(&mut app, Command::PageDown);
    }
    for word in [
        "Versions columns",
        "BUMP",
        "NEED",
        "SV",
        "✓ dim",
        "⊘",
        "⚠5/7",
        "✗ fails",
        "ALLOW_ANY",
        "DENY_ALL",
        "BACKWARD_TRANSITIVE",
        "FULL_TRANSITIVE",
    ] {
        assert!(help.contains(word), "{word} is not in the help");
    }
    assert!(!help.contains("NONE"));
    // The policy view heads its columns with those names.
    cmd(&mut app, Command::Back);
    cmd(&mut app, Command::View(View::Policy));
    let screen = text(&app);
    assert!(
        screen.contains("ALLOW_ANY") && screen.contains("DENY_ALL"),
        "{screen}"
    );
    assert!(!screen.contains("NONE"), "{screen}");
}

/// Below 1.0 the NEED column names the bump the reason names (Cargo's reading); "schema
/// unchanged" only where nothing changed.
#[test]
fn need_and_the_semver_reason_agree_and_unchanged_means_unchanged() {
    let mut app = demo(120, 40, Some("FlightPath"), COLOR);
    let row = |app: &App, name: &str| {
        text(app)
            .lines()
            .find(|l| l.contains(&format!(" {name}  20")))
            .unwrap_or("")
            .to_string()
    };
    // v0.1.0 -> v0.2.0 only adds: a patch is what 0.x needs, so the minor bump is more.
    assert!(
        row(&app, "v0.2.0").contains("minor patch"),
        "{}",
        row(&app, "v0.2.0")
    );
    // v0.3.0 breaks: 0.x needs a minor bump.
    assert!(
        row(&app, "v0.3.0").contains("minor minor"),
        "{}",
        row(&app, "v0.3.0")
    );
    app.selected = index_of(&app, "v0.2.0");
    act(&mut app, Action::Resize(120, 40));
    let screen = text(&app);
    assert!(screen.contains("require patch bump"), "{screen}");
    // v0.2.1 changes only comments; v4.0.0 changes nothing FlightPath reaches.
    app.selected = index_of(&app, "v0.2.1");
    act(&mut app, Action::Resize(120, 40));
    let screen = text(&app);
    assert!(screen.contains("only comments changed since"), "{screen}");
    assert!(!screen.contains("schema unchanged"), "{screen}");
    app.selected = index_of(&app, "v4.0.0");
    act(&mut app, Action::Resize(120, 40));
    let screen = text(&app);
    assert!(screen.contains("nothing reached from"), "{screen}");
}
