//! `protolapse check`, `log` and `blame` from the command line, one concept a module: the
//! gate's exit statuses and formats, which release is the base, what makes a finding fail or
//! pass (strictness, configuration, ignores, inline directives), and the demo's deliberate
//! mistakes through check, log and blame with their JSON contracts.

mod base;
mod buf_config;
mod demo;
mod gate;
mod prove;
mod strictness;

use crate::common::{Repo, proto};

/// A released v1.0.0 and v1.1.0, and a working tree that changes a field's type.
fn repo_with_a_breaking_worktree() -> Repo {
    let mut r = Repo::new();
    r.write("t.proto", &proto("t", "message M {\n  int32 a = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 a = 1;\n  string b = 2;\n}"),
    );
    r.commit("two");
    r.tag("v1.1.0");
    r.write(
        "t.proto",
        &proto("t", "message M {\n  sint32 a = 1;\n  string b = 2;\n}"),
    );
    r
}
