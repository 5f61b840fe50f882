//! `blame` over hundreds of versions stays within the width (issue 15): the timeline gives a
//! character to each version in which something happened with the quiet ones after it
//! (`v1.0.3…v1.0.99 (97)`), lists them, and the events wrap under their column.

use crate::common::{Repo, run_env};

/// 240 tags of one message, built with `git fast-import`: a field added at v1.0.3, its type
/// changed at v1.1.20, a field removed and reserved at v1.2.0.
fn long_history() -> Repo {
    let r = Repo::new();
    let mut stream = String::new();
    let mut n = 0;
    for minor in 0..3 {
        for patch in 0..80 {
            n += 1;
            let late = minor > 1 || (minor == 1 && patch >= 20);
            let mut body = String::from("syntax = \"proto3\";\npackage org.example.billing.v1;\n");
            body.push_str("message InvoiceLineItemWithAVeryLongName {\n  string id = 1;\n");
            if minor == 0 && patch < 3 || minor < 2 {
                body.push_str("  string legacy_description_of_the_item = 2;\n");
            } else {
                body.push_str("  reserved 2;\n");
            }
            if minor > 0 || patch >= 3 {
                let ty = if late { "int64" } else { "int32" };
                body.push_str(&format!(
                    "  {ty} amount_in_the_smallest_currency_unit = 3;\n"
                ));
            }
            body.push_str("}\n");
            stream.push_str(&format!(
                "commit refs/heads/main\ncommitter T <t@e> {} +0000\ndata 1\nc\nM 644 inline billing.proto\ndata {}\n{body}\nreset refs/tags/v1.{minor}.{patch}\nfrom refs/heads/main\n\n",
                1_700_000_000 + n * 86_400,
                body.len()
            ));
        }
    }
    r.fast_import(&stream);
    r.git(&["reset", "-q", "--hard", "refs/heads/main"]);
    r
}

#[test]
fn blame_over_hundreds_of_versions_fits_the_width() {
    let r = long_history();
    for (columns, width) in [(None, 100), (Some("80"), 80), (Some("60"), 60)] {
        let vars: Vec<(&str, &std::ffi::OsStr)> = columns
            .iter()
            .map(|c| ("COLUMNS", std::ffi::OsStr::new(*c)))
            .collect();
        let (code, out, err) = run_env(
            &["blame", "InvoiceLineItemWithAVeryLongName"],
            r.path(),
            &vars,
        );
        assert_eq!(code, 0, "{err}");
        for line in out.lines() {
            assert!(
                line.chars().count() <= width,
                "{width}: {} columns: {line}\n{out}",
                line.chars().count()
            );
        }
        assert!(out.contains("in 240 of 240"), "{out}");
        // Quiet runs named by their ends and length, events kept whole.
        assert!(out.contains("v1.0.3…v1.1.19 (97)"), "{out}");
        assert!(out.contains("v1.2.0…v1.2.79 (80)"), "{out}");
        assert!(out.contains("+v1.0.3 int32"), "{out}");
        assert!(out.contains("~v1.1.20 int64"), "{out}");
        assert!(out.contains("-v1.2.0 reserved"), "{out}");
        let timeline = out
            .lines()
            .find(|l| l.trim_start().starts_with("3  "))
            .unwrap_or_default();
        assert!(timeline.contains(".+~="), "{out}");
    }
}
