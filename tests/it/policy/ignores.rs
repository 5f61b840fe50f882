//! Ignores, from the configuration and from inline comments: an ignored change no longer
//! fails a policy nor requires a bump, and records why it was ignored.

use super::{commit_tag, evolving, load};
use crate::common::{Repo, proto};
use protolapse::judge::{IgnoreRule, Ignores};
use protolapse::policy::{self, Policy, Settings};
use protolapse::rules::RuleId;

#[test]
fn ignores_from_config_and_inline_comments() {
    let (_r, p) = evolving();
    let ignores = Ignores {
        rules: vec![IgnoreRule {
            rule: Some("FIELD_TYPE_CHANGED".into()),
            path: None,
            element: Some(glob::Pattern::new("t.M.*").unwrap()),
            unstable_package: false,
            reason: Some("migrated".into()),
        }],
    };
    let a = policy::analyze(
        &p,
        &Settings {
            policy: Some(Policy::BackwardTransitive),
            ignores,
            ..Default::default()
        },
    )
    .unwrap();
    // The type change of number 1 is ignored: transitive passes now.
    assert!(a.versions.iter().all(|r| r.policy.as_ref().unwrap().pass));
    let v2 = &a.versions[4];
    let c = v2
        .changes
        .as_ref()
        .unwrap()
        .iter()
        .find(|c| c.rule == RuleId::FIELD_TYPE_CHANGED)
        .unwrap();
    assert_eq!(c.ignored.as_deref(), Some("migrated"));
    assert_eq!(v2.counts.ignored, 1);

    // Inline: on the field itself, and on the message for a removed field.
    let mut r = Repo::new();
    commit_tag(
        &mut r,
        "v1.0.0",
        "t.proto",
        &proto("t", "message M {\n  int32 a = 1;\n  int32 gone = 2;\n}"),
    );
    commit_tag(
        &mut r,
        "v2.0.0",
        "t.proto",
        &proto(
            "t",
            "// protolapse:ignore FIELD_REMOVED nobody reads it\nmessage M {\n  int64 a = 1; // protolapse:ignore FIELD_TYPE_CHANGED all readers are 64-bit\n}",
        ),
    );
    let p = load(&r);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let changes = a.versions[1].changes.as_ref().unwrap();
    let reason = |rule: RuleId| {
        changes
            .iter()
            .find(|c| c.rule == rule)
            .and_then(|c| c.ignored.clone())
    };
    assert_eq!(
        reason(RuleId::FIELD_TYPE_CHANGED).as_deref(),
        Some("all readers are 64-bit")
    );
    assert_eq!(
        reason(RuleId::FIELD_REMOVED).as_deref(),
        Some("nobody reads it")
    );
    assert_eq!(
        a.versions[1].semver.required,
        Some(protolapse::rules::Bump::Patch)
    );
}
