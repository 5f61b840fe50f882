//! The policy names and their grammar (`BACKWARD_TRANSITIVE`, `BACKWARD_TILL(v1.0.0)`,
//! `BACKWARD_TILL(x)_AND_FORWARD_TILL(y)`), and the level a policy is evaluated at.

use std::fmt;
use std::str::FromStr;

use crate::history::VersionKind;
use crate::load::Loaded;

use crate::policy::PolicyError;

/// A compatibility policy. `TILL` versions are version names of the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Policy {
    AllowAny,
    DenyAll,
    Backward,
    BackwardTransitive,
    BackwardTill(String),
    Forward,
    ForwardTransitive,
    ForwardTill(String),
    BackwardTillAndForwardTill(String, String),
    Full,
    FullTransitive,
}

impl Policy {
    /// Every policy that needs no version argument, in the order the docs list them.
    pub const PLAIN: [Policy; 8] = [
        Policy::AllowAny,
        Policy::DenyAll,
        Policy::Backward,
        Policy::BackwardTransitive,
        Policy::Forward,
        Policy::ForwardTransitive,
        Policy::Full,
        Policy::FullTransitive,
    ];

    /// The `TILL` versions it names.
    fn tills(&self) -> Vec<&str> {
        match self {
            Policy::BackwardTill(x) | Policy::ForwardTill(x) => vec![x],
            Policy::BackwardTillAndForwardTill(x, y) => vec![x, y],
            _ => Vec::new(),
        }
    }

    /// Every `TILL` version must be in the history.
    pub fn check_versions(&self, versions: &[Loaded]) -> Result<(), PolicyError> {
        for t in self.tills() {
            if crate::load::find(versions, t).is_none() {
                return Err(PolicyError::UnknownTill {
                    policy: self.to_string(),
                    version: t.to_string(),
                    names: versions
                        .iter()
                        .rev()
                        .filter(|v| v.version.kind == VersionKind::Tag)
                        .take(3)
                        .map(|v| v.version.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        Ok(())
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::AllowAny => f.write_str("ALLOW_ANY"),
            Policy::DenyAll => f.write_str("DENY_ALL"),
            Policy::Backward => f.write_str("BACKWARD"),
            Policy::BackwardTransitive => f.write_str("BACKWARD_TRANSITIVE"),
            Policy::BackwardTill(x) => write!(f, "BACKWARD_TILL({x})"),
            Policy::Forward => f.write_str("FORWARD"),
            Policy::ForwardTransitive => f.write_str("FORWARD_TRANSITIVE"),
            Policy::ForwardTill(x) => write!(f, "FORWARD_TILL({x})"),
            Policy::BackwardTillAndForwardTill(x, y) => {
                write!(f, "BACKWARD_TILL({x})_AND_FORWARD_TILL({y})")
            }
            Policy::Full => f.write_str("FULL"),
            Policy::FullTransitive => f.write_str("FULL_TRANSITIVE"),
        }
    }
}

const POLICY_HELP: &str = "ALLOW_ANY, DENY_ALL, BACKWARD, BACKWARD_TRANSITIVE, BACKWARD_TILL(v), FORWARD, FORWARD_TRANSITIVE, FORWARD_TILL(v), BACKWARD_TILL(x)_AND_FORWARD_TILL(y), FULL, FULL_TRANSITIVE";

impl FromStr for Policy {
    type Err = String;

    /// Names in any case (`-` for `_` too); `TILL` arguments keep their spelling.
    fn from_str(s: &str) -> Result<Policy, String> {
        let t = s.trim();
        let bad = || format!("`{t}` is not a policy; policies are {POLICY_HELP}");
        let (name, arg, rest) = call(t).ok_or_else(bad)?;
        let policy = match (name.as_str(), arg) {
            ("ALLOW_ANY", None) => Policy::AllowAny,
            ("DENY_ALL", None) => Policy::DenyAll,
            ("BACKWARD", None) => Policy::Backward,
            ("BACKWARD_TRANSITIVE", None) => Policy::BackwardTransitive,
            ("FORWARD", None) => Policy::Forward,
            ("FORWARD_TRANSITIVE", None) => Policy::ForwardTransitive,
            ("FULL", None) => Policy::Full,
            ("FULL_TRANSITIVE", None) => Policy::FullTransitive,
            ("BACKWARD_TILL", Some(x)) if rest.is_empty() => Policy::BackwardTill(x),
            ("FORWARD_TILL", Some(x)) if rest.is_empty() => Policy::ForwardTill(x),
            ("BACKWARD_TILL", Some(x)) => {
                let and = rest.get(..5).filter(|a| a.eq_ignore_ascii_case("_AND_"));
                let (name2, arg2, rest2) = and.and_then(|_| call(&rest[5..])).ok_or_else(bad)?;
                match (name2.as_str(), arg2) {
                    ("FORWARD_TILL", Some(y)) if rest2.is_empty() => {
                        Policy::BackwardTillAndForwardTill(x, y)
                    }
                    _ => return Err(bad()),
                }
            }
            _ => return Err(bad()),
        };
        if rest.is_empty() || matches!(policy, Policy::BackwardTillAndForwardTill(..)) {
            Ok(policy)
        } else {
            Err(bad())
        }
    }
}

/// Splits `NAME` or `NAME(arg)rest` into the upper-cased name, the argument and the rest.
fn call(t: &str) -> Option<(String, Option<String>, &str)> {
    let name = |n: &str| n.trim().to_ascii_uppercase().replace('-', "_");
    match t.find('(') {
        None => Some((name(t), None, "")),
        Some(open) => {
            let close = open + t[open..].find(')')?;
            let arg = t[open + 1..close].trim();
            (!arg.is_empty()).then(|| (name(&t[..open]), Some(arg.to_string()), &t[close + 1..]))
        }
    }
}

pub use crate::rules::Level;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_print() {
        for p in Policy::PLAIN {
            assert_eq!(p.to_string().parse::<Policy>(), Ok(p.clone()));
            assert_eq!(p.to_string().to_lowercase().parse::<Policy>(), Ok(p));
        }
        assert_eq!(
            "BACKWARD_TILL(v1.0.0)".parse::<Policy>(),
            Ok(Policy::BackwardTill("v1.0.0".into()))
        );
        assert_eq!(
            "forward_till(V2-rc)".parse::<Policy>(),
            Ok(Policy::ForwardTill("V2-rc".into()))
        );
        assert_eq!(
            "BACKWARD_TILL(v1.0.0)_AND_FORWARD_TILL(v1.1.0)".parse::<Policy>(),
            Ok(Policy::BackwardTillAndForwardTill(
                "v1.0.0".into(),
                "v1.1.0".into()
            ))
        );
        let p = Policy::BackwardTillAndForwardTill("a".into(), "b".into());
        assert_eq!(p.to_string().parse::<Policy>(), Ok(p));
        for bad in [
            "BACKWARDS",
            "BACKWARD_TILL()",
            "BACKWARD_TILL(v1",
            "BACKWARD_TILL(v1)_OR_FORWARD_TILL(v2)",
            "BACKWARD_TILL(v1)_AND_FORWARD_TILL(v2)x",
            "",
        ] {
            let err = bad.parse::<Policy>().unwrap_err();
            assert!(err.contains("FULL_TRANSITIVE"), "{bad}: {err}");
        }
    }
}
