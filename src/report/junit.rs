//! `protolapse check --format junit`: the gate as a JUnit XML report, which CI systems
//! (GitLab, Jenkins, Azure) show as tests. One test suite for the check; a test case per
//! finding this change makes (an error fails it; a warning passes, its text in
//! `system-out`), one for what was not judged, and — when nothing fails — one passing case
//! for the check itself, so a passing run still shows a test.

use crate::judge::NOT_JUDGED;
use crate::policy::codes;
use crate::policy::gate::{GateReport, Outcome};
use crate::sanitize;

/// Text for an XML attribute or element: repository text sanitized (no control
/// characters, which XML 1.0 forbids), markup escaped.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in sanitize::line(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

struct Case {
    name: String,
    classname: String,
    /// (type, message, text) when the case fails.
    failure: Option<(String, String, String)>,
    out: Option<String>,
}

pub fn to_junit(r: &GateReport) -> String {
    let title = format!("protolapse check {} against {}", r.subject, r.base);
    let mut cases: Vec<Case> = Vec::new();
    for f in r.findings.iter().filter(|f| !f.preexisting) {
        let place = f
            .repo_location
            .as_ref()
            .map(|(file, line)| format!("{file}:{line}"))
            .or_else(|| f.location.clone());
        let mut text = f.message.clone();
        if let Some(w) = &f.why {
            text.push_str(&format!("\nwhy: {w}"));
        }
        if !f.fix.is_empty() {
            text.push_str(&format!("\nfix: {}", f.fix));
        }
        text.push_str(&format!("\nsee: protolapse explain {}", f.rule));
        let name = match f.element.is_empty() {
            true => f.rule.clone(),
            false => format!("{} {}", f.rule, f.element),
        };
        let classname = place
            .as_deref()
            .and_then(|p| p.rsplit_once(':').map(|(file, _)| file.to_string()))
            .unwrap_or_else(|| "protolapse".to_string());
        let text = match &place {
            Some(p) => format!("{p}: {text}"),
            None => text,
        };
        cases.push(match f.severity {
            Outcome::Error => Case {
                name,
                classname,
                failure: Some((f.rule.clone(), f.message.clone(), text)),
                out: None,
            },
            Outcome::Warning => Case {
                name,
                classname,
                failure: None,
                out: Some(format!("warning: {text}")),
            },
        });
    }
    if let Some(why) = &r.not_judged {
        cases.push(Case {
            name: codes::NOT_JUDGED.to_string(),
            classname: "protolapse".to_string(),
            failure: Some((
                codes::NOT_JUDGED.to_string(),
                format!("{NOT_JUDGED}: {why}"),
                codes::NOT_JUDGED_HELP.to_string(),
            )),
            out: None,
        });
    }
    if cases.iter().all(|c| c.failure.is_none()) {
        cases.push(Case {
            name: title.clone(),
            classname: "protolapse".to_string(),
            failure: None,
            out: Some(format!(
                "{} (policy {} at {} level); required bump {}",
                r.verdict(),
                r.policy,
                r.level.as_str(),
                r.required_bump.as_str()
            )),
        });
    }
    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"protolapse\" tests=\"{n}\" failures=\"{failures}\" errors=\"0\">\n  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n",
        xml(&title),
        n = cases.len(),
    ));
    out.push_str(&format!(
        "    <properties>\n      <property name=\"level\" value=\"{}\"></property>\n      <property name=\"config\" value=\"{}\"></property>\n    </properties>\n",
        r.level.as_str(),
        xml(&r.config)
    ));
    for c in &cases {
        out.push_str(&format!(
            "    <testcase name=\"{}\" classname=\"{}\"",
            xml(&c.name),
            xml(&c.classname)
        ));
        if c.failure.is_none() && c.out.is_none() {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        if let Some((kind, message, text)) = &c.failure {
            out.push_str(&format!(
                "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                xml(kind),
                xml(message),
                xml_text(text)
            ));
        }
        if let Some(text) = &c.out {
            out.push_str(&format!(
                "      <system-out>{}</system-out>\n",
                xml_text(text)
            ));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Element text: each line as [`xml`] writes it, the line breaks kept.
fn xml_text(s: &str) -> String {
    s.lines().map(xml).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_control_characters_are_escaped() {
        assert_eq!(
            xml("a<b>&\"c'\u{1b}[2J"),
            "a&lt;b&gt;&amp;&quot;c&apos;".to_string() + &sanitize::line("\u{1b}[2J")
        );
        assert!(!xml("x\u{7}y").contains('\u{7}'));
    }
}
