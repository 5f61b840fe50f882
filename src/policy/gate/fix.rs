//! How to fix a finding, named for the actual element: `reserved 2; reserved
//! "SCALE_FAHRENHEIT";` in `weather.v1.Scale`, not the rule page's example. Rules without an
//! element-specific fix take the first paragraph of their page's "How to make the change
//! safely".

use crate::rules::{self, Change, RuleId};

/// First paragraph of the rule page's "How to make the change safely".
pub fn how_to_fix(rule: RuleId) -> String {
    let Some(page) = rules::page(rule) else {
        return String::new();
    };
    let mut lines = page
        .lines()
        .skip_while(|l| !l.starts_with("## How to make the change safely"))
        .skip(1)
        .skip_while(|l| l.trim().is_empty());
    let mut out = String::new();
    for l in lines.by_ref() {
        if l.trim().is_empty() || l.starts_with('#') {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(l.trim());
    }
    out
}

/// How to fix this change: its own names and numbers where the fix is a declaration to
/// write, else the rule page's advice.
pub fn how_to_fix_change(c: &Change) -> String {
    specific(c).unwrap_or_else(|| how_to_fix(c.rule))
}

fn specific(c: &Change) -> Option<String> {
    let (parent, name) = c.element.rsplit_once('.')?;
    let old = c.old.as_deref().map(str::trim);
    Some(match c.rule {
        RuleId::FIELD_REMOVED => format!(
            "Reserve the field's number and name in `{parent}`: `reserved {}; reserved \"{name}\";`.",
            c.number?
        ),
        RuleId::ENUM_VALUE_REMOVED => format!(
            "Reserve the value's number and name in enum `{parent}`: `reserved {}; reserved \"{name}\";`.",
            c.number?
        ),
        RuleId::FIELD_REMOVED_RESERVED => format!(
            "Reserve the name as well (`reserved \"{name}\";` in `{parent}`), so that no later field takes it and misreads old JSON; have JSON readers ignore unknown fields."
        ),
        RuleId::FIELD_RESERVED_NUMBER_REUSED => format!(
            "Give `{name}` a number never used in `{parent}`, and keep `reserved {};`.",
            c.number?
        ),
        RuleId::FIELD_RESERVED_NAME_REUSED => format!(
            "Give the field another name than `{name}`, and keep `reserved \"{name}\";` in `{parent}`."
        ),
        RuleId::FIELD_NUMBER_CHANGED => format!(
            "Keep `{}` as it was; add a new field with the new number, deprecate `{name}`, and reserve its number when it is removed.",
            old?
        ),
        RuleId::FIELD_TYPE_CHANGED | RuleId::FIELD_MESSAGE_TYPE_CHANGED => format!(
            "Keep `{}`; add a new field of the new type with a new number in `{parent}`, write both for a while, then deprecate and reserve `{name}`.",
            old?
        ),
        RuleId::FIELD_RENAMED => format!(
            "Keep the old declaration `{}` (add a comment), and rename in a major release; `json_name` keeps default JSON readable, not JSON written with proto names.",
            old?
        ),
        RuleId::ENUM_VALUE_RENAMED => format!(
            "Add `{name} = {};` beside the old name as an alias (`option allow_alias = true;` in `{parent}`), move callers, and remove the old name in a major release.",
            c.number?
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Bump, Verdict};

    #[test]
    fn fixes_come_from_the_rule_pages() {
        for r in rules::RULES {
            assert!(!how_to_fix(r.id).is_empty(), "{} has no fix text", r.id);
        }
    }

    #[test]
    fn a_removed_value_is_reserved_by_its_own_number_and_name() {
        let c = Change {
            rule: RuleId::ENUM_VALUE_REMOVED,
            element: "weather.v1.Scale.SCALE_FAHRENHEIT".into(),
            number: Some(2),
            old: Some("SCALE_FAHRENHEIT = 2;".into()),
            new: None,
            old_location: None,
            new_location: None,
            verdict: Verdict::SAFE,
            bump: Bump::Major,
            message: String::new(),
            ignored: None,
            not_judged: false,
        };
        let fix = how_to_fix_change(&c);
        assert!(
            fix.contains("`reserved 2; reserved \"SCALE_FAHRENHEIT\";`")
                && fix.contains("`weather.v1.Scale`"),
            "{fix}"
        );
        // Without a number, the page's advice.
        let c = Change { number: None, ..c };
        assert_eq!(
            how_to_fix_change(&c),
            how_to_fix(RuleId::ENUM_VALUE_REMOVED)
        );
    }
}
