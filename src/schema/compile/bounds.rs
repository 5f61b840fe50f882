//! The nesting a `.proto` text may have before a compiler sees it.
//!
//! protox parses nested declarations and option values recursively (6,000 levels overflow
//! the stack), and prost-reflect decodes an option value with prost's limit of 100 nested
//! messages, panicking beyond it. So every text is measured first, in one linear pass over
//! its tokens (comments and string literals skipped): the depth of `{ [ ( <` — nested
//! messages, groups, oneofs, option values — with, at each `=`, the option path before it
//! (`option (a).b.c = ...` sets a value two messages down). A text deeper than [`MAX_DEPTH`]
//! is not compiled, by protox or by protoc: it gets one diagnostic at the first place too
//! deep. Everything that recurses over what a compiler built from such text (normalizing
//! messages and option values, docs) is bounded by the same number.

use crate::proto_text::{Token, Tokens};

use super::super::diagnostic::Diagnostic;

/// The deepest nesting read: far beyond real schemas (protobuf's own tests nest options a
/// few levels; protox refuses messages nested more than 31 deep), far below prost's decoding
/// limit (100) and what a 2 MiB thread can parse.
pub const MAX_DEPTH: usize = 64;

/// Where a text first nests deeper than `limit`: 1-based line and column.
#[derive(Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub line: u32,
    pub column: u32,
}

/// The name before an `=`: how many messages down its dotted path goes.
#[derive(Default)]
struct Path {
    dots: usize,
    in_parens: bool,
    /// The last token continues a name (`.` or `(`), so a word after it belongs to it.
    open: bool,
}

impl Path {
    fn word(&mut self, w: &str) {
        if !self.open {
            *self = Path::default();
        }
        if !self.in_parens {
            self.dots += w.matches('.').count();
        }
        self.open = false;
    }

    fn dot(&mut self) {
        if !self.in_parens {
            self.dots += 1;
        }
        self.open = true;
    }
}

/// The first place `text` nests deeper than `limit`, or None.
pub fn too_deep(text: &str, limit: usize) -> Option<TooDeep> {
    let mut tokens = Tokens::new(text);
    let mut depth = 0usize;
    let mut path = Path::default();
    // The option path of the value being read, and the depth its `=` was at: the value's
    // own nesting comes on top of the path, until the value ends.
    let (mut extra, mut extra_at) = (0usize, 0usize);
    while let Some(t) = tokens.next() {
        let over = match t {
            Token::Punct('{' | '[' | '(' | '<') => {
                depth += 1;
                if t == Token::Punct('(') {
                    if !path.open {
                        path = Path::default();
                    }
                    path.in_parens = true;
                    path.open = true;
                } else {
                    path = Path::default();
                }
                depth + extra > limit
            }
            Token::Punct(')') => {
                depth = depth.saturating_sub(1);
                path.in_parens = false;
                path.open = false;
                false
            }
            Token::Punct('}' | ']' | '>') => {
                depth = depth.saturating_sub(1);
                if depth < extra_at {
                    extra = 0;
                }
                path = Path::default();
                false
            }
            Token::Punct('.') => {
                path.dot();
                false
            }
            Token::Word(w) => {
                path.word(w);
                false
            }
            Token::Punct('=') => {
                (extra, extra_at) = (path.dots, depth);
                path = Path::default();
                depth + extra > limit
            }
            Token::Punct(';' | ',') => {
                if depth <= extra_at {
                    extra = 0;
                }
                path = Path::default();
                false
            }
            _ => {
                path = Path::default();
                false
            }
        };
        if over {
            // The token just read ends here; it is one character (ASCII punctuation).
            let end = text.len().saturating_sub(tokens.remaining());
            return Some(place(text, end.saturating_sub(1)));
        }
    }
    None
}

/// 1-based line and column (in characters) of byte `offset`.
fn place(text: &str, offset: usize) -> TooDeep {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before
        .get(line_start..)
        .map_or(0, |l| crate::proto_text::without_bom(l).chars().count())
        + 1;
    TooDeep {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
    }
}

/// The diagnostic of a file too deep to compile, or None.
pub fn check(path: &str, text: &str) -> Option<Diagnostic> {
    let at = too_deep(text, MAX_DEPTH)?;
    Some(Diagnostic {
        file: path.to_string(),
        line: at.line,
        column: at.column,
        message: format!(
            "nested more than {MAX_DEPTH} levels deep here (messages, groups, option values \
             and option paths count together): the file is not compiled, so that no compiler \
             overflows on it; flatten the nesting at this point"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep_option(n: usize) -> String {
        format!(
            "message A {{\n  option (deep) = {}{{ v: 1 }}{};\n}}\n",
            "{ o: ".repeat(n),
            " }".repeat(n)
        )
    }

    #[test]
    fn braces_of_nested_options_and_messages_count() {
        // The message's brace, then the option value's: 1 + 3.
        assert_eq!(too_deep(&deep_option(2), 4), None);
        let at = too_deep(&deep_option(3), 4).expect("too deep");
        assert_eq!((at.line, at.column), (2, 34));
        let nested = "message A { message B { message C { } } }";
        assert_eq!(too_deep(nested, 3), None);
        assert!(too_deep(nested, 2).is_some());
    }

    #[test]
    fn comments_and_strings_with_brackets_do_not_count() {
        let text = "// {{{{{{{{{{\n/* [[[[[[[[[[ ((((( */\nmessage A {\n  \
                    option (x) = \"{{{{{{{{{{\";\n  option (y) = '<<<<<<<<<<';\n  \
                    string s = 1 [default = \"[[[[[[\\\"[[[[\"];\n}\n";
        assert_eq!(too_deep(text, 2), None);
    }

    #[test]
    fn option_paths_count_as_nesting() {
        let dotted = |n: usize| format!("message A {{ option (deep){}.v = 1; }}", ".o".repeat(n));
        assert_eq!(too_deep(&dotted(2), 4), None);
        assert!(too_deep(&dotted(3), 4).is_some());
        // Dots of an extension's own name, a type name or a number are no nesting.
        let flat = "message A { option (a.b.c.d.e.f) = 1.5;\n  .x.y.z.T t = 1 [(p.q.r.s) = 2]; }";
        assert_eq!(too_deep(flat, 3), None);
        // Field options and standard dotted options (`features.x`) count as well.
        let field = "message A { int32 x = 1 [(f).a.b.c = 1]; }";
        assert!(too_deep(field, 4).is_some());
        assert_eq!(too_deep(field, 6), None);
        assert!(too_deep("option features.a.b.c = 1;", 2).is_some());
        // A value's nesting comes on top of its path, until the value ends.
        let both = "option (x).a.b = { c { d: 1 } };\noption (y) = { e { f: 1 } };";
        assert_eq!(too_deep(both, 4), None);
        let at = too_deep(both, 3).expect("too deep");
        assert_eq!((at.line, at.column), (1, 22));
        let listed = "message M { int32 x = 1 [(p).q.r = 1, (s) = { t { u: 1 } }]; }";
        assert_eq!(too_deep(listed, 4), None);
    }

    #[test]
    fn unbalanced_and_hostile_text_ends_cleanly() {
        assert!(too_deep(&"{".repeat(100_000), MAX_DEPTH).is_some());
        assert_eq!(too_deep(&"}".repeat(1000), 1), None);
        assert_eq!(too_deep("/* never closed {{{{", 1), None);
        assert_eq!(too_deep("\"never closed {{{{", 1), None);
        let at = too_deep("\u{feff}{{", 1).expect("too deep");
        assert_eq!((at.line, at.column), (1, 2));
    }

    #[test]
    fn a_file_too_deep_reaches_no_compiler_nor_its_importers() {
        use super::super::{Cache, Origin, SourceRef, Status};
        let deep = format!(
            "syntax = \"proto3\";\npackage d;\n{}",
            deep_option(MAX_DEPTH)
        );
        let src = |path, text| SourceRef {
            path,
            blob: path,
            text: Ok(text),
            origin: Origin::Root,
        };
        let out = Cache::new().compile(&[
            src("deep.proto", &deep),
            src(
                "e.proto",
                "edition = \"2023\";\npackage e;\nimport \"deep.proto\";\n",
            ),
            src(
                "ok.proto",
                "syntax = \"proto3\";\npackage k;\nmessage K {}\n",
            ),
        ]);
        assert_eq!(out.status, Status::Partial);
        assert!(out.how.protoc.is_empty(), "{:?}", out.how);
        let said: Vec<String> = out.diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(said[0].starts_with("deep.proto:4:"), "{said:?}");
        assert!(said[1].contains("it imports `deep.proto`"), "{said:?}");
    }

    #[test]
    fn the_diagnostic_is_one_line_with_the_place() {
        let d = check("a.proto", &deep_option(MAX_DEPTH)).expect("too deep");
        assert_eq!((d.file.as_str(), d.line), ("a.proto", 2));
        assert!(!d.message.contains('\n'));
        assert!(d.message.contains("64 levels"), "{}", d.message);
        assert!(check("a.proto", &deep_option(MAX_DEPTH - 2)).is_none());
    }
}
