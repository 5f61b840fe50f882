//! `buf.yaml` breaking sections mapped: levels, rule ids, ignores, v2 paths, mistakes.

use super::*;

fn rules(b: &BufBreaking) -> Vec<(Option<String>, Option<String>, bool)> {
    b.ignores
        .iter()
        .map(|i| {
            (
                i.rule.clone(),
                i.path.as_ref().map(|p| p.as_str().to_string()),
                i.unstable_package,
            )
        })
        .collect()
}

#[test]
fn categories_map_to_levels() {
    for (used, level) in [
        ("[FILE]", Level::Source),
        ("[PACKAGE]", Level::Source),
        ("[WIRE_JSON]", Level::Json),
        ("[WIRE]", Level::Wire),
        ("[WIRE, WIRE_JSON]", Level::Json),
    ] {
        let b = parse(
            "buf.yaml",
            &format!("version: v1\nbreaking:\n  use: {used}\n"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(b.level, Some(level), "{used}");
        assert!(b.ignores.is_empty(), "{used}");
    }
    // A section without `use` is buf's default, FILE; no section is no level.
    let b = parse(
        "buf.yaml",
        "version: v1\nbreaking:\n  except: [FILE_NO_DELETE]\n",
    )
    .unwrap()
    .unwrap();
    assert_eq!(b.level, Some(Level::Source));
    let b = parse("buf.yaml", "version: v1\nlint:\n  use: [STANDARD]\n")
        .unwrap()
        .unwrap();
    assert_eq!(b.level, None);
    assert!(b.ignores.is_empty());
    assert!(
        b.summary.contains("has no breaking section"),
        "{}",
        b.summary
    );
    // Not YAML at all: left to the history layer.
    assert_eq!(parse("buf.yaml", "version: [").unwrap(), None);
}

#[test]
fn buf_rule_ids_name_protolapse_rules() {
    assert_eq!(rules_for("FIELD_SAME_NAME"), [RuleId::FIELD_RENAMED]);
    let deletes = rules_for("FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED");
    for r in [
        RuleId::FIELD_REMOVED,
        RuleId::FIELD_REMOVED_RESERVED,
        RuleId::FIELD_NUMBER_CHANGED,
    ] {
        assert!(deletes.contains(&r), "{r}");
    }
    assert_eq!(
        rules_for("FILE_SAME_JAVA_PACKAGE"),
        [RuleId::FILE_OPTION_CHANGED]
    );
    assert_eq!(rules_for("FILE_SAME_PACKAGE"), [RuleId::PACKAGE_CHANGED]);
    // Every id the rule table names is one buf knows.
    for r in RULES.iter().filter(|r| !r.buf.is_empty()) {
        assert!(BUF_RULES.contains(&r.buf), "{}: {}", r.id, r.buf);
    }
}

#[test]
fn except_ignore_and_ignore_only_become_ignores() {
    let b = parse(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FILE]\n  except: [FIELD_SAME_JSON_NAME]\n  ignore: [legacy, a/b.proto]\n  ignore_only:\n    FIELD_SAME_NAME: [x]\n  ignore_unstable_packages: true\n",
    )
    .unwrap()
    .unwrap();
    let got = rules(&b);
    let json = Some("FIELD_JSON_NAME_CHANGED".to_string());
    assert!(got.contains(&(json, None, false)), "{got:?}");
    for p in ["legacy", "legacy/**", "a/b.proto", "a/b.proto/**"] {
        assert!(got.contains(&(None, Some(p.into()), false)), "{p}: {got:?}");
    }
    assert!(got.contains(&(Some("FIELD_RENAMED".into()), Some("x/**".into()), false)));
    assert!(got.contains(&(None, None, true)), "{got:?}");
    assert!(b.summary.contains("except: 1; ignore: 2; ignore_only: 1"));
}

#[test]
fn single_rules_in_use_keep_only_those_rules() {
    let b = parse(
        "buf.yaml",
        "version: v1\nbreaking:\n  use: [FIELD_SAME_NAME]\n",
    )
    .unwrap()
    .unwrap();
    assert_eq!(b.level, Some(Level::Source));
    let ignored: Vec<String> = b.ignores.iter().filter_map(|i| i.rule.clone()).collect();
    assert_eq!(ignored.len(), RuleId::ALL.len() - 1);
    assert!(!ignored.contains(&"FIELD_RENAMED".to_string()));
}

#[test]
fn v2_paths_lose_the_module_folder() {
    let b = parse(
        "buf.yaml",
        "version: v2\nmodules:\n  - path: proto\n    breaking:\n      use: [WIRE]\n      ignore: [proto/legacy]\n  - path: api\nbreaking:\n  use: [FILE]\n",
    )
    .unwrap()
    .unwrap();
    // The strictest of the modules' levels; the summary says they differ.
    assert_eq!(b.level, Some(Level::Source));
    assert!(b.summary.contains("modules differ"), "{}", b.summary);
    assert!(
        rules(&b).contains(&(None, Some("legacy/**".into()), false)),
        "{:?}",
        rules(&b)
    );
}

#[test]
fn mistakes_name_the_key() {
    for (text, key) in [
        ("version: v1\nbreaking:\n  use: [WIR]\n", "`breaking.use`"),
        (
            "version: v1\nbreaking:\n  except: [FIELD_NO_DELET]\n",
            "`breaking.except`",
        ),
        ("version: v1\nbreaking:\n  uses: [FILE]\n", "`breaking`"),
        ("version: v1\nbreaking:\n  use: FILE\n", "`breaking`"),
        (
            "version: v1\nbreaking:\n  ignore: [/etc]\n",
            "`breaking.ignore`",
        ),
        (
            "version: v1\nbreaking:\n  ignore_only:\n    NOPE: [x]\n",
            "`breaking.ignore_only`",
        ),
        (
            "version: v2\nmodules:\n  - path: p\n    breaking:\n      use: [WIER]\n",
            "`modules[0].breaking.use`",
        ),
        (
            "version: v1\nbreaking:\n  use: [WIRE]\n  except: [WIRE]\n",
            "`breaking`",
        ),
    ] {
        let err = parse("buf.yaml", text).unwrap_err();
        assert!(err.contains(key), "{text}: {err}");
    }
    let err = parse("buf.yaml", "version: v1\nbreaking:\n  use: [WIR]\n").unwrap_err();
    assert!(err.contains("did you mean WIRE"), "{err}");
}
