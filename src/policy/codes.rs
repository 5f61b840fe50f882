//! The codes `check` prints besides rule ids (a too small bump, a history-wide hazard, a
//! compile error, a buffrs package rule, what was not judged): each with a summary and a
//! page under `assets/codes/`, so that `explain` knows every code `check` prints. The gate
//! and the buffrs rules name their findings by these constants; the hazards by
//! [`HazardKind::id`].

use super::HazardKind;

/// A code `check` prints that is not a rule id.
#[derive(Debug, Clone, Copy)]
pub struct Code {
    pub id: &'static str,
    pub summary: &'static str,
    /// The page (markdown), from `assets/codes/<id>.md`.
    pub page: &'static str,
}

pub const SEMVER_TOO_SMALL: &str = "SEMVER_TOO_SMALL";
pub const SEMVER_VERSION_TAKEN: &str = "SEMVER_VERSION_TAKEN";
pub const COMPILE_ERROR: &str = "COMPILE_ERROR";
pub const NOT_JUDGED: &str = "NOT_JUDGED";
/// What to do about a NOT_JUDGED finding, in every report format.
pub const NOT_JUDGED_HELP: &str =
    "fix the files that did not compile (or check another --root): nothing unread passes";
pub const PROVE_CONTRADICTED: &str = "PROVE_CONTRADICTED";
pub const BUFFRS_LIB_HAS_SERVICE: &str = "BUFFRS_LIB_HAS_SERVICE";
pub const BUFFRS_PACKAGE_MISMATCH: &str = "BUFFRS_PACKAGE_MISMATCH";
pub const BUFFRS_MANIFEST_INVALID: &str = "BUFFRS_MANIFEST_INVALID";

macro_rules! code {
    ($id:expr, $file:literal, $summary:literal) => {
        Code {
            id: $id,
            summary: $summary,
            page: include_str!(concat!("../../assets/codes/", $file, ".md")),
        }
    };
}

/// Every code, in the order `explain --list` shows them.
pub const CODES: &[Code] = &[
    code!(
        SEMVER_TOO_SMALL,
        "SEMVER_TOO_SMALL",
        "the version to publish bumps less than its changes require"
    ),
    code!(
        SEMVER_VERSION_TAKEN,
        "SEMVER_VERSION_TAKEN",
        "the version to publish is already released with another schema"
    ),
    code!(
        COMPILE_ERROR,
        "COMPILE_ERROR",
        "a file of the checked version does not compile"
    ),
    code!(
        NOT_JUDGED,
        "NOT_JUDGED",
        "changes in files that did not compile are not judged, so the check fails"
    ),
    code!(
        PROVE_CONTRADICTED,
        "PROVE_CONTRADICTED",
        "a round trip contradicts a rule's safe verdict (check --prove)"
    ),
    code!(
        HazardKind::NumberReused.id(),
        "HAZARD_NUMBER_REUSED",
        "a number an earlier release removed is used again"
    ),
    code!(
        HazardKind::NameReused.id(),
        "HAZARD_NAME_REUSED",
        "a name an earlier release removed is used again"
    ),
    code!(
        HazardKind::ReservationDropped.id(),
        "HAZARD_RESERVATION_DROPPED",
        "a reserved number or name is no longer reserved"
    ),
    code!(
        HazardKind::TypeReverted.id(),
        "HAZARD_TYPE_REVERTED",
        "a field's type changed and changed back"
    ),
    code!(
        HazardKind::DependencyChanged.id(),
        "DEPENDENCY_CHANGED",
        "a buf.lock pin moved: the dependency's changes are not judged"
    ),
    code!(
        BUFFRS_LIB_HAS_SERVICE,
        "BUFFRS_LIB_HAS_SERVICE",
        "a buffrs lib package declares a service"
    ),
    code!(
        BUFFRS_PACKAGE_MISMATCH,
        "BUFFRS_PACKAGE_MISMATCH",
        "a file's proto package is not the buffrs package or below it"
    ),
    code!(
        BUFFRS_MANIFEST_INVALID,
        "BUFFRS_MANIFEST_INVALID",
        "the buffrs manifest (Proto.toml) cannot be read"
    ),
];

/// The code `id` (exact, upper case), if it is one.
pub fn code(id: &str) -> Option<&'static Code> {
    CODES.iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_has_its_own_page_and_every_hazard_a_code() {
        for c in CODES {
            assert!(c.page.starts_with(&format!("# {}\n", c.id)), "{}", c.id);
            assert!(c.page.contains("## What to do"), "{}", c.id);
        }
        let all = [
            HazardKind::NumberReused,
            HazardKind::NameReused,
            HazardKind::ReservationDropped,
            HazardKind::TypeReverted,
            HazardKind::DependencyChanged,
        ];
        for h in all {
            assert!(code(h.id()).is_some(), "{}", h.id());
        }
        // No code is also a rule id.
        for c in CODES {
            assert!(crate::rules::RuleId::from_id(c.id).is_none(), "{}", c.id);
        }
    }
}
