//! Where a compile error is: protox's labels, the names a link error quotes, and a hint
//! when an import exists deeper in the tree.

use miette::Diagnostic as _;

use super::super::diagnostic::Diagnostic;
use super::super::model::FileDocs;

/// A protox error as a diagnostic: file, line and column from its first label.
pub(super) fn diagnostic<'t>(
    e: &protox::Error,
    fallback_file: &str,
    text_of: impl Fn(&str) -> Option<&'t str>,
) -> Diagnostic {
    let file = e.file().unwrap_or(fallback_file).to_string();
    let offset = e
        .labels()
        .and_then(|mut labels| labels.next())
        .map(|l| l.offset());
    let (line, column) = match (offset, text_of(&file)) {
        (Some(offset), Some(text)) => line_col(text, offset),
        _ => (0, 0),
    };
    let mut message = e.to_string();
    if let Some(help) = e.help() {
        message.push_str(&format!(" (help: {help})"));
    }
    Diagnostic {
        file,
        line,
        column,
        message,
    }
}

/// For an import that is not found but exists deeper in the tree (`import "a/b.proto"` with
/// `src/a/b.proto` present), the proto root the user probably meant.
pub(super) fn root_hint<'a>(message: &str, paths: impl Iterator<Item = &'a str>) -> Option<String> {
    let rest = message.strip_prefix("import '")?;
    let missing = &rest[..rest.find('\'')?];
    let suffix = format!("/{missing}");
    let found = paths.filter(|p| p.ends_with(&suffix)).min()?;
    let prefix = &found[..found.len() - suffix.len()];
    Some(format!(
        " (help: `{found}` exists; if `{prefix}` is a proto root, pass -I {prefix} or set proto_paths)"
    ))
}

/// Where a link error is, from the names it quotes: a declaration of this file with that
/// name, else the quoted text (an import), else the first use of the short name.
pub(super) fn locate(message: &str, text: &str, docs: Option<&FileDocs>) -> (u32, u32) {
    let quoted: Vec<&str> = message.split('\'').skip(1).step_by(2).collect();
    for name in &quoted {
        if let Some(doc) = docs.and_then(|d| d.get(*name)) {
            return (doc.line, 1);
        }
        if let Some(offset) = text.find(&format!("\"{name}\"")) {
            return line_col(text, offset);
        }
    }
    for name in &quoted {
        let short = name.rsplit('.').next().unwrap_or(name);
        if short.is_empty() {
            continue;
        }
        let mut from = 0;
        while let Some(i) = text[from..].find(short) {
            let at = from + i;
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !word(text[..at].chars().next_back())
                && !word(text[at + short.len()..].chars().next())
            {
                return line_col(text, at);
            }
            from = at + short.len();
        }
    }
    (0, 0)
}

fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}
