//! What every column and mark of the versions pane and the policy view means, and the
//! policies by the names the registry design gives them: one place for the `?` help, the
//! versions pane's legend line and the policy view's notes, so they never disagree.

/// The versions pane's columns, as headed.
pub const COLUMNS: &[(&str, &str)] = &[
    (
        "BUMP",
        "the bump of the version number from the version it is compared with",
    ),
    (
        "NEED",
        "the bump its changes need (below 1.0, Cargo's reading: 0.x breaks in a minor bump, adds in a patch)",
    ),
    ("SV", "the semver check: is BUMP at least NEED"),
    (
        "P",
        "the policy protolapse.toml sets (`policy = …`), when it sets one",
    ),
];

/// The marks in those columns, in the order the pane shows them.
pub const MARKS: &[(&str, &str)] = &[
    (
        "✓",
        "passes (SV: the bump is at least what the changes need)",
    ),
    ("✓ dim", "SV: a larger bump than the changes need (passes)"),
    ("✗", "fails (SV: a smaller bump than the changes need)"),
    ("⊘", "not judged: a file it depends on does not compile"),
    (
        "!",
        "a history-wide hazard shows in this version (see below the list)",
    ),
    (
        "=",
        "the same schema as an earlier version (only comments or layout differ)",
    ),
    (
        "⚠5/7",
        "5 of its 7 .proto files compile: judged on what compiles",
    ),
    ("✗ fails", "no file compiles: the version is not judged"),
    ("…", "still compiling"),
];

/// The compatibility policies (docs/policies.md), the short heading the policy view uses
/// for each, and what a version must be compatible with.
pub const POLICIES: &[(&str, &str, &str)] = &[
    ("ALLOW_ANY", "ALLOW_ANY", "no check: any change passes"),
    (
        "DENY_ALL",
        "DENY_ALL",
        "any change but a comment fails (against the previous relevant version)",
    ),
    (
        "BACKWARD",
        "BACKWARD",
        "new readers read the previous version's data",
    ),
    (
        "BACKWARD_TRANSITIVE",
        "BACK_TR",
        "new readers read every earlier version's data",
    ),
    (
        "FORWARD",
        "FORWARD",
        "old readers read the new version's data",
    ),
    (
        "FORWARD_TRANSITIVE",
        "FWD_TR",
        "every earlier version's readers read the new data",
    ),
    ("FULL", "FULL", "both BACKWARD and FORWARD"),
    (
        "FULL_TRANSITIVE",
        "FULL_TR",
        "both, against every earlier version",
    ),
];

/// A column heading for a policy: the name users know when it fits, else a short form
/// (`BACKWARD_TRANSITIVE` -> `BACK_TR`); never `NONE`, which in Confluent's registry means
/// the opposite of DENY_ALL.
pub fn short_policy(name: &str) -> String {
    POLICIES
        .iter()
        .find(|(full, _, _)| *full == name)
        .map(|(_, short, _)| short.to_string())
        .unwrap_or_else(|| name.chars().take(9).collect())
}

/// The versions pane's legend line: as many marks as fit in `width`, then where the rest is.
pub fn line(width: usize) -> String {
    const ITEMS: &[&str] = &["✓ ok", "✗ too small", "! hazard", "= same", "⊘ not judged"];
    const MORE: &str = " ? more ";
    let mut out = String::new();
    for it in ITEMS {
        let w = out.chars().count() + it.chars().count() + 2;
        if w + MORE.chars().count() > width {
            break;
        }
        out.push(' ');
        out.push_str(it);
        out.push(' ');
    }
    if out.chars().count() + MORE.chars().count() <= width {
        out.push_str(MORE);
    }
    out
}
