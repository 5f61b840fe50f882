//! Hostile .proto text (issue 13): nesting deep enough to overflow a compiler's stack or
//! prost's decoding limit is refused with one diagnostic before any compiler sees it; a
//! byte order mark is read as protoc reads it; a file that fails after extending an options
//! message does not take the history down. Each time the rest of the history is judged.

use serde_json::Value;

use crate::common::{Repo, proto, run};

const OPTIONS: &str = "import \"google/protobuf/descriptor.proto\";\n\
                       message O { O o = 1; int32 v = 2; }\n\
                       extend google.protobuf.MessageOptions { O deep = 50000; }\n";

/// v1.0.0 valid; v1.1.0 adds `b.proto` with `bad`; v1.2.0 drops it and adds a field. Returns
/// the versions of `log --format json` (which must succeed).
fn history_with(bad: &str) -> Vec<Value> {
    let mut r = Repo::new();
    r.write("a.proto", &proto("p", "message A { int32 x = 1; }"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("b.proto", bad);
    r.commit("bad");
    r.tag("v1.1.0");
    r.remove("b.proto");
    r.write(
        "a.proto",
        &proto("p", "message A { int32 x = 1; int32 y = 2; }"),
    );
    r.commit("mended");
    r.tag("v1.2.0");
    let (code, out, err) = run(&["log", "--format", "json"], r.path());
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).expect("json");
    json["versions"].as_array().expect("versions").clone()
}

/// The one diagnostic of the bad version, which compiled only `a.proto`; the last version
/// is judged, against the first (a field added: a minor bump, which v1.2.0 is).
fn bad_version_diagnostic(versions: &[Value]) -> String {
    let bad = &versions[1];
    assert_eq!(bad["status"], "partial", "{bad}");
    assert_eq!(bad["files"], 1, "{bad}");
    let diags = bad["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diags.len(), 1, "{bad}");
    let mended = &versions[2];
    assert_eq!(mended["status"], "complete", "{mended}");
    assert_eq!(mended["semver"], "ok", "{mended}");
    assert_eq!(mended["previous"], "v1.0.0", "{mended}");
    assert_eq!(mended["required_bump"], "minor", "{mended}");
    let d = &diags[0];
    assert_eq!(d["file"], "b.proto", "{d}");
    let message = d["message"].as_str().expect("message").to_string();
    assert!(!message.contains('\n'), "{message}");
    format!("{}:{}", d["line"], message)
}

fn too_deep(versions: &[Value], line: u32) {
    let d = bad_version_diagnostic(versions);
    assert!(
        d.starts_with(&format!("{line}:nested more than 64 levels deep")),
        "{d}"
    );
}

/// A value of `O` nested `n` levels deep: `{ o: { o: ... { v: 1 } ... } }`.
fn value(n: usize) -> String {
    format!("{}{{ v: 1 }}{}", "{ o: ".repeat(n), " }".repeat(n))
}

fn deep_option(n: usize) -> String {
    let value = value(n);
    proto(
        "q",
        &format!("{OPTIONS}message B {{\n  option (deep) = {value};\n  int32 x = 1;\n}}"),
    )
}

#[test]
fn an_option_nested_100_deep_is_refused_not_a_panic() {
    // prost-reflect panicked decoding it (recursion limit reached) in every command.
    too_deep(&history_with(&deep_option(100)), 8);
}

#[test]
fn an_option_nested_6000_deep_is_refused_not_a_stack_overflow() {
    // protox's option parser overflowed the stack.
    too_deep(&history_with(&deep_option(6000)), 8);
}

#[test]
fn an_option_path_100_deep_is_refused() {
    let path = ".o".repeat(100);
    let text = proto(
        "q",
        &format!("{OPTIONS}message B {{\n  option (deep){path}.v = 1;\n}}"),
    );
    too_deep(&history_with(&text), 8);
    // 60 down the path, then 60 in the value: each alone is within the bound, together
    // they panicked prost-reflect's decoding as well.
    let (path, value) = (".o".repeat(60), value(59));
    let text = proto(
        "q",
        &format!("{OPTIONS}message B {{\n  option (deep){path} = {value};\n}}"),
    );
    too_deep(&history_with(&text), 8);
}

#[test]
fn messages_nested_200_and_6000_deep_are_refused() {
    for n in [200, 6000] {
        let open: String = (0..n).map(|i| format!("message M{i} {{\n")).collect();
        let text = proto("q", &format!("{open}int32 x = 1;\n{}", "}\n".repeat(n)));
        // The 65th `message` line; the first is line 4.
        too_deep(&history_with(&text), 4 + 64);
    }
}

#[test]
fn a_byte_order_mark_is_read_by_protox() {
    let mut r = Repo::new();
    r.write(
        "a.proto",
        &format!("\u{feff}{}", proto("p", "message A { int32 x = 1; }")),
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "a.proto",
        &format!(
            "\u{feff}{}",
            proto("p", "message A { int32 x = 1; int32 y = 2; }")
        ),
    );
    r.commit("two");
    r.tag("v1.1.0");
    let (code, out, err) = run(&["log", "--format", "json"], r.path());
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).expect("json");
    for v in json["versions"].as_array().expect("versions") {
        assert_eq!(v["status"], "complete", "{v}");
        assert_eq!(v["diagnostics"], Value::Array(Vec::new()), "{v}");
        // Not handed to protoc: protox read it.
        assert_eq!(v["compiled_by"]["protox"], 1, "{v}");
        assert_eq!(v["compiled_by"]["protoc"], Value::Array(Vec::new()), "{v}");
    }
    assert_eq!(json["versions"][1]["semver"], "ok");
}

#[test]
fn a_byte_order_mark_keeps_lines_and_columns() {
    let mut r = Repo::new();
    r.write(
        "a.proto",
        "\u{feff}syntax = \"proto3\"; message A { int32 x = ; }\n",
    );
    r.commit("one");
    r.tag("v1.0.0");
    let (code, out, err) = run(&["log", "--format", "json"], r.path());
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).expect("json");
    let d = &json["versions"][0]["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(1), Some(42)),
        "{d}"
    );
}

#[test]
fn a_failing_file_that_extends_field_options_does_not_panic() {
    // prost-reflect's rollback of the failed file left its extension listed on FieldOptions:
    // reading any field's options then panicked (index out of bounds).
    let text = "syntax = \"proto2\";\npackage q;\n\
                import \"google/protobuf/descriptor.proto\";\n\
                extend google.protobuf.FieldOptions { optional int32 x = 50000; }\n\
                message B { optional Unknown u = 1; }\n";
    let d = bad_version_diagnostic(&history_with(text));
    assert!(d.starts_with("5:") && d.contains("Unknown"), "{d}");
}
