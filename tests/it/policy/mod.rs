//! Whole-history analysis on hand-built histories, one concept a module: every policy and
//! level, the semver check, what only the whole history shows (hazards, field lifecycles),
//! ignores, and buffrs package rules. Loading a hand-built history lives here.

mod buffrs;
mod history_wide;
mod ignores;
mod policies;
mod semver_check;

use crate::common::{Repo, proto};
use protolapse::history::HistoryOptions;
use protolapse::load::{self, Project};

fn load(r: &Repo) -> Project {
    load::load(r.path(), &HistoryOptions::default(), |_, _| {}).expect("load")
}

fn commit_tag(r: &mut Repo, tag: &str, file: &str, text: &str) {
    r.write(file, text);
    r.commit(tag);
    r.tag(tag);
}

/// v1.0.0 a; v1.1.0 + b; v1.2.0 - a (not reserved); v1.3.0 number 1 reused as a string;
/// v2.0.0 b int32 -> int64.
fn evolving() -> (Repo, Project) {
    let mut r = Repo::new();
    let steps = [
        ("v1.0.0", "message M {\n  int32 a = 1;\n}"),
        ("v1.1.0", "message M {\n  int32 a = 1;\n  int32 b = 2;\n}"),
        ("v1.2.0", "message M {\n  int32 b = 2;\n}"),
        ("v1.3.0", "message M {\n  int32 b = 2;\n  string a2 = 1;\n}"),
        ("v2.0.0", "message M {\n  int64 b = 2;\n  string a2 = 1;\n}"),
    ];
    for (tag, body) in steps {
        commit_tag(&mut r, tag, "t.proto", &proto("t", body));
    }
    let p = load(&r);
    (r, p)
}
