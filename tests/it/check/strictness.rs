//! What turns a finding into a failure or lets it through: `--strict` and `--no-strict`,
//! `protolapse.toml`, ignores of changes and of hazards, and inline directives that cover the
//! change that introduces them only.

use crate::common::{Repo, proto, run};

#[test]
fn strict_turns_warnings_into_failures() {
    let mut r = Repo::new();
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 a = 1;\n  int32 b = 2;\n}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    // Removing a field without reserving its number: a hazard.
    r.write("t.proto", &proto("t", "message M {\n  int32 a = 1;\n}"));
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning[FIELD_REMOVED]"), "{out}");
    let (code, out, _) = run(&["check", "--strict"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[FIELD_REMOVED]"), "{out}");
    // protolapse.toml can say the same, and ignore the change.
    r.write("protolapse.toml", "strict = true\n");
    let (code, _, _) = run(&["check"], r.path());
    assert_eq!(code, 1);
    r.write(
        "protolapse.toml",
        "strict = true\n[[ignore]]\nrule = \"FIELD_REMOVED\"\nelement = \"t.M.*\"\nreason = \"b was never written\"\n",
    );
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 ignored"), "{out}");
    // A bad key names itself and the file: exit 2.
    r.write("protolapse.toml", "strictness = true\n");
    let (code, _, err) = run(&["check"], r.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("strictness") && err.contains("protolapse.toml"),
        "{err}"
    );
}

#[test]
fn inline_directives_cover_the_change_that_introduces_them_only() {
    let mut r = Repo::new();
    r.write(
        "t.proto",
        &proto("t", "message M {\n  int32 x = 1;\n  int32 y = 2;\n}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "t.proto",
        &proto(
            "t",
            "message M {\n  int64 x = 1; // protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit\n  int32 y = 2;\n}",
        ),
    );
    r.commit("two");
    r.tag("v1.1.0");
    let (code, out, _) = run(&["check", "--against", "v1.0.0", "--strict"], r.path());
    assert_eq!(code, 0, "the directive covers its own change: {out}");
    // The comment stays, the type changes again: the old directive does not cover it.
    r.write(
        "t.proto",
        &proto(
            "t",
            "message M {\n  string x = 1; // protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit\n  int32 y = 2;\n}",
        ),
    );
    let (code, out, _) = run(&["check"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[FIELD_TYPE_CHANGED]"), "{out}");
    // A directive on the syntax line covers a removed field of that file.
    r.write(
        "t.proto",
        "// protolapse:ignore FIELD_REMOVED y was never written\nsyntax = \"proto3\";\npackage t;\n\nmessage M {\n  int64 x = 1;\n}\n",
    );
    let (code, out, _) = run(&["check", "--strict"], r.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 ignored"), "{out}");
}

#[test]
fn hazards_can_be_ignored() {
    let mut r = Repo::new();
    r.write("t.proto", &proto("t", "message M {\n  int32 x = 1;\n}"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("t.proto", &proto("t", "message M {\n  int64 x = 1;\n}"));
    r.commit("two");
    r.tag("v1.1.0");
    // Back to int32: a reverted type, a hazard that fails under --strict.
    r.write("t.proto", &proto("t", "message M {\n  int32 x = 1;\n}"));
    let (code, out, _) = run(&["check", "--strict", "--policy", "ALLOW_ANY"], r.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[HAZARD_TYPE_REVERTED]"), "{out}");
    r.write(
        "protolapse.toml",
        "[[ignore]]\nrule = \"HAZARD_TYPE_REVERTED\"\nelement = \"t.M.x\"\nreason = \"nothing was written as int64\"\n",
    );
    let (code, out, _) = run(&["check", "--strict", "--policy", "ALLOW_ANY"], r.path());
    assert_eq!(code, 0, "{out}");
    // --no-strict overrides the file.
    r.write("protolapse.toml", "strict = true\n");
    let (code, _, _) = run(&["check", "--policy", "ALLOW_ANY"], r.path());
    assert_eq!(code, 1);
    let (code, _, _) = run(&["check", "--policy", "ALLOW_ANY", "--no-strict"], r.path());
    assert_eq!(code, 0);
}
