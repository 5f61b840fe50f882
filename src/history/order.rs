//! Which tags are versions, and in which order.

use std::cmp::Ordering;

/// The literal part of a tag glob before its first wildcard: `physics/v*` -> `physics/v`.
pub fn tag_prefix(glob: &str) -> &str {
    let end = glob.find(['*', '?', '[', '{']).unwrap_or(glob.len());
    &glob[..end]
}

/// Parses a tag name as a version: strip `prefix`, then an optional `v`, then semver.
/// A two-part version (`v21.0`, `v22.0-rc1`, as protobuf itself tags) reads as `21.0.0`.
pub fn parse_tag_version(name: &str, prefix: &str) -> Option<semver::Version> {
    let rest = name.strip_prefix(prefix)?;
    let rest = rest.strip_prefix('v').unwrap_or(rest);
    if let Ok(v) = semver::Version::parse(rest) {
        return Some(v);
    }
    let split = rest.find(['-', '+']).unwrap_or(rest.len());
    let (core, tail) = rest.split_at(split);
    let parts: Vec<&str> = core.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if parts.len() == 2 && parts.iter().all(numeric) {
        semver::Version::parse(&format!("{core}.0{tail}")).ok()
    } else {
        None
    }
}

/// Orders versions: semver ones by version (pre-releases before their release, build
/// metadata ignored, then by name so that the order is total); the others by commit time,
/// then name, after them.
pub(super) fn compare(
    a: (&Option<semver::Version>, i64, &str),
    b: (&Option<semver::Version>, i64, &str),
) -> Ordering {
    match (a.0, b.0) {
        (Some(x), Some(y)) => x
            .cmp_precedence(y)
            .then_with(|| x.cmp(y))
            .then_with(|| a.2.cmp(b.2)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.1.cmp(&b.1).then_with(|| a.2.cmp(b.2)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Option<semver::Version> {
        parse_tag_version(s, "")
    }

    #[test]
    fn semver_after_optional_v() {
        assert_eq!(v("v1.2.3").map(|v| v.to_string()), Some("1.2.3".into()));
        assert_eq!(
            v("1.2.3-rc.1").map(|v| v.to_string()),
            Some("1.2.3-rc.1".into())
        );
        assert!(v("release-1").is_none());
        assert_eq!(
            v("v21.0-rc1").map(|v| v.to_string()),
            Some("21.0.0-rc1".into())
        );
        assert_eq!(v("v22.3").map(|v| v.to_string()), Some("22.3.0".into()));
        assert!(v("v1").is_none());
        assert!(v("v1.x").is_none());
        assert_eq!(
            parse_tag_version("physics/v0.3.0", tag_prefix("physics/v*")),
            semver::Version::parse("0.3.0").ok()
        );
        assert!(parse_tag_version("chem/v0.3.0", "physics/v").is_none());
    }

    #[test]
    fn prereleases_come_before_their_release_and_non_semver_last() {
        let mut tags = [
            (v("v1.0.0"), 5, "v1.0.0"),
            (None, 1, "nightly"),
            (v("v1.0.0-rc.2"), 9, "v1.0.0-rc.2"),
            (v("v0.9.0"), 7, "v0.9.0"),
            (v("v1.0.0-rc.10"), 8, "v1.0.0-rc.10"),
            (None, 0, "first"),
        ];
        tags.sort_by(|a, b| compare((&a.0, a.1, a.2), (&b.0, b.1, b.2)));
        let names: Vec<_> = tags.iter().map(|t| t.2).collect();
        assert_eq!(
            names,
            [
                "v0.9.0",
                "v1.0.0-rc.2",
                "v1.0.0-rc.10",
                "v1.0.0",
                "first",
                "nightly"
            ]
        );
    }
}
