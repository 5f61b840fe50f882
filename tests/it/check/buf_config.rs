//! A repository's `buf.yaml` `breaking:` section, honoured when no `protolapse.toml` says
//! otherwise: `use` as a level (FILE: source, WIRE_JSON: json, WIRE: wire), `except`,
//! `ignore`, `ignore_only` and `ignore_unstable_packages` as ignores; v1 and v2 layouts; the
//! header line that says which configuration and level `check` used; `--level source`; and
//! fix hints that name the element.

use crate::common::{Repo, proto, run};

/// v1.0.0 with `message M { int32 a = 1; int32 b = 2; }` in `dir/t.proto` (package `pkg`),
/// and a working tree that renames `a` to `alpha`: safe on the wire, breaking for JSON and
/// generated code.
fn renamed(dir: &str, pkg: &str, buf_yaml: &str) -> Repo {
    let mut r = Repo::new();
    let file = if dir.is_empty() {
        "t.proto".to_string()
    } else {
        format!("{dir}/t.proto")
    };
    r.write(
        &file,
        &proto(pkg, "message M {\n  int32 a = 1;\n  int32 b = 2;\n}"),
    );
    r.write("buf.yaml", buf_yaml);
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        &file,
        &proto(pkg, "message M {\n  int32 alpha = 1;\n  int32 b = 2;\n}"),
    );
    r
}

fn check(r: &Repo, args: &[&str]) -> (i32, String) {
    let mut all = vec!["check"];
    all.extend(args);
    let (code, out, err) = run(&all, r.path());
    (code, format!("{out}{err}"))
}

#[test]
fn buf_yaml_v1_use_sets_the_level() {
    let r = renamed("", "t", "version: v1\nbreaking:\n  use:\n    - FILE\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("at source level"), "{out}");
    assert!(
        out.contains("config: buf.yaml breaking (use: FILE)"),
        "{out}"
    );
    assert!(out.contains("error[FIELD_RENAMED]"), "{out}");

    r.write("buf.yaml", "version: v1\nbreaking:\n  use: [WIRE_JSON]\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("at json level"), "{out}");

    r.write("buf.yaml", "version: v1\nbreaking:\n  use: [WIRE]\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("at wire level"), "{out}");

    // The flag wins, and says so.
    let (code, out) = check(&r, &["--level", "source"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("level from --level"), "{out}");

    // A single rule id: only that rule counts, at the strictest level.
    r.write(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FIELD_NO_DELETE]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("at source level"), "{out}");
    r.write(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FIELD_SAME_NAME]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn buf_yaml_v1_except_ignore_and_ignore_only() {
    let r = renamed(
        "",
        "t",
        "version: v1\nbreaking:\n  use: [FILE]\n  except: [FIELD_SAME_NAME]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("except: 1"), "{out}");
    let (_, json) = check(&r, &["--format", "json"]);
    assert!(
        json.contains("buf.yaml breaking.except FIELD_SAME_NAME"),
        "{json}"
    );

    r.write(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FILE]\n  ignore: [t.proto]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");

    // ignore_only: that rule on that path only. Another rule's id does not cover it.
    r.write(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FILE]\n  ignore_only:\n    FIELD_SAME_NAME: [t.proto]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    r.write(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FILE]\n  ignore_only:\n    FIELD_SAME_TYPE: [t.proto]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn buf_yaml_ignore_unstable_packages() {
    let r = renamed("", "t.v1alpha1", "version: v1\nbreaking:\n  use: [FILE]\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 1, "{out}");
    r.write(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FILE]\n  ignore_unstable_packages: true\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 ignored"), "{out}");
}

#[test]
fn buf_yaml_v2_modules_and_top_level() {
    // Per module: paths are relative to buf.yaml's folder; the module's folder is not part
    // of the import path.
    let v2 = "version: v2\nmodules:\n  - path: proto\n    breaking:\n      use: [FILE]\n";
    let r = renamed("proto/api", "api", v2);
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("modules[0].breaking (use: FILE)"), "{out}");
    r.write(
        "buf.yaml",
        "version: v2\nmodules:\n  - path: proto\n    breaking:\n      use: [FILE]\n      ignore: [proto/api]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    // Top-level, for the modules that have none of their own.
    r.write(
        "buf.yaml",
        "version: v2\nmodules:\n  - path: proto\nbreaking:\n  use: [WIRE_JSON]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("at json level"), "{out}");
    r.write(
        "buf.yaml",
        "version: v2\nmodules:\n  - path: proto\nbreaking:\n  use: [WIRE_JSON]\n  except: [FIELD_SAME_JSON_NAME, FIELD_SAME_NAME]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn without_a_breaking_section_protolapse_keeps_its_default_and_says_so() {
    let r = renamed("", "t", "version: v1\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("at wire level"), "{out}");
    assert!(
        out.contains("buf.yaml has no breaking section: protolapse's default level"),
        "{out}"
    );
    let (_, json) = check(&r, &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v["config"]
            .as_str()
            .unwrap()
            .contains("no breaking section"),
        "{json}"
    );
    assert_eq!(v["level"], "wire");
    let (_, gh) = check(&r, &["--format", "github"]);
    assert!(
        gh.contains("::notice title=protolapse config::buf.yaml has no breaking section"),
        "{gh}"
    );
    let (_, junit) = check(&r, &["--format", "junit"]);
    assert!(
        junit.contains("<property name=\"level\" value=\"wire\"></property>")
            && junit.contains("<property name=\"config\" value=\"buf.yaml has no breaking"),
        "{junit}"
    );
}

#[test]
fn protolapse_toml_wins_over_buf_yaml() {
    let r = renamed("", "t", "version: v1\nbreaking:\n  use: [FILE]\n");
    r.write("protolapse.toml", "level = \"wire\"\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "config: protolapse.toml (level); buf.yaml breaking (use: FILE), its level overridden"
        ),
        "{out}"
    );
}

#[test]
fn a_malformed_breaking_section_names_the_file_and_key() {
    let r = renamed("", "t", "version: v1\nbreaking:\n  use: [WIR]\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("buf.yaml")
            && out.contains("`breaking.use`")
            && out.contains("did you mean WIRE"),
        "{out}"
    );
    r.write("buf.yaml", "version: v1\nbreaking:\n  uses: [FILE]\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("`breaking`") && out.contains("uses"), "{out}");
    r.write(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FILE]\n  ignore: [../x]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("`breaking.ignore`"), "{out}");
}

#[test]
fn level_source_fails_on_generated_code_breaks() {
    // A new go_package: no reader of the data sees it, generated Go code moves.
    let mut r = Repo::new();
    let with = |pkg: &str| {
        format!(
            "syntax = \"proto3\";\npackage t;\noption go_package = \"{pkg}\";\n\nmessage M {{\n  int32 a = 1;\n}}\n"
        )
    };
    r.write("t.proto", &with("example.com/a"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("t.proto", &with("example.com/b"));
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("config: defaults (no protolapse.toml, no buf.yaml)"),
        "{out}"
    );
    let (code, out) = check(&r, &["--level", "json"]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = check(&r, &["--level", "source"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[FILE_OPTION_CHANGED]"), "{out}");
    assert!(out.contains("source backward breaking"), "{out}");
    r.write("protolapse.toml", "level = \"source\"\n");
    let (code, _) = check(&r, &[]);
    assert_eq!(code, 1);
}

#[test]
fn fix_hints_name_the_element() {
    let mut r = Repo::new();
    r.write(
        "w.proto",
        &proto(
            "weather.v1",
            "enum Scale {\n  SCALE_UNSPECIFIED = 0;\n  SCALE_CELSIUS = 1;\n  SCALE_FAHRENHEIT = 2;\n}",
        ),
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "w.proto",
        &proto(
            "weather.v1",
            "enum Scale {\n  SCALE_UNSPECIFIED = 0;\n  SCALE_CELSIUS = 1;\n}",
        ),
    );
    let (_, out) = check(&r, &[]);
    assert!(
        out.contains("= fix: Reserve the value's number and name in enum `weather.v1.Scale`: `reserved 2; reserved \"SCALE_FAHRENHEIT\";`"),
        "{out}"
    );
    assert!(!out.contains("E_TWO"), "{out}");
}

#[test]
fn buf_work_yaml_directories_are_read() {
    // A v1 workspace: the module's own buf.yaml, in a buf.work.yaml directory.
    let mut r = Repo::new();
    r.write("buf.work.yaml", "version: v1\ndirectories:\n  - proto\n");
    r.write("proto/buf.yaml", "version: v1\nbreaking:\n  use: [FILE]\n");
    r.write(
        "proto/api/t.proto",
        &proto("api", "message M {\n  int32 a = 1;\n}"),
    );
    r.commit("one");
    r.tag("v1.0.0");
    r.write(
        "proto/api/t.proto",
        &proto("api", "message M {\n  int32 alpha = 1;\n}"),
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("config: proto/buf.yaml breaking (use: FILE)"),
        "{out}"
    );
    // Its paths are relative to the module root: import paths.
    r.write(
        "proto/buf.yaml",
        "version: v1\nbreaking:\n  use: [FILE]\n  ignore: [api]\n",
    );
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 0, "{out}");
    r.write("proto/buf.yaml", "version: v1\nbreaking:\n  use: [FLIE]\n");
    let (code, out) = check(&r, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("proto/buf.yaml"), "{out}");
}
