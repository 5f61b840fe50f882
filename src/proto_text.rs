//! The import paths of a `.proto` file, read from its text without parsing it: enough to find
//! the files a version needs (history's tree lookup) and the import closure that protoc is
//! given for a file protox cannot read (schema), not to judge the text (the compiler does).
//!
//! Also where a long name in a declaration may break across lines ([`token_break`]), for
//! whoever wraps declarations (the terminal UI, `blame`).
//!
//! A leaf: imports nothing of ours, so both `history` and `schema` may use it.

/// Where a word of a declaration may break within its first `room` characters: after the
/// last `.`, `,`, `;`, `(`, `<`, `[`, `=` or `/` that leaves something on both sides (a
/// character count) — `google.protobuf.` | `FieldDescriptorProto`, never mid-identifier.
pub fn token_break(word: &str, room: usize) -> Option<usize> {
    let chars: Vec<char> = word.chars().collect();
    (1..chars.len().min(room + 1))
        .rev()
        .find(|&i| matches!(chars[i - 1], '.' | ',' | ';' | '(' | '<' | '[' | '=' | '/'))
}

/// `import "a.proto";`, `import public "b.proto";`, `import weak "c.proto";` and edition
/// 2024's `import option "d.proto";`, in order; comments and other strings are skipped.
pub fn scan(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Every import statement's keyword is an occurrence of `import` in the text: past the
    // last one there is none to find, and the rest (most of a file: its imports come
    // first) is not tokenized.
    let Some(last) = text.rfind("import") else {
        return out;
    };
    let mut tokens = Tokens::new(text);
    let mut at_statement = true;
    while text.len() - tokens.rest.len() <= last
        && let Some(t) = tokens.next()
    {
        if at_statement && t == Token::Word("import") {
            let mut next = tokens.next();
            if matches!(next, Some(Token::Word("public" | "weak" | "option"))) {
                next = tokens.next();
            }
            if let Some(Token::Str(path)) = next {
                out.push(path.to_string());
            }
        }
        at_statement = matches!(t, Token::Punct(';' | '{' | '}'));
    }
    out
}

/// How many statements and blocks a file holds (`;` and `{` outside comments and strings):
/// what its declarations cost once compiled, as the history's cap counts it.
pub fn statements(text: &str) -> usize {
    let mut tokens = Tokens { rest: text };
    let mut n = 0;
    while let Some(t) = tokens.next() {
        n += usize::from(matches!(t, Token::Punct(';' | '{')));
    }
    n
}

/// The 1-based line of the file's `edition = "...";` statement: the first statement, as
/// protobuf requires (a field or enum value named `edition`, or a comment, is not one).
pub fn edition_line(text: &str) -> Option<u32> {
    let mut tokens = Tokens::new(text);
    let Some(Token::Word("edition")) = tokens.next() else {
        return None;
    };
    let start = text.len() - tokens.rest.len() - "edition".len();
    if tokens.next() != Some(Token::Punct('=')) {
        return None;
    }
    let line = text.get(..start).unwrap_or("").matches('\n').count() + 1;
    Some(u32::try_from(line).unwrap_or(u32::MAX))
}

/// The text without a leading UTF-8 byte order mark, which protoc accepts and protox does
/// not: nothing else changes, so lines and columns stay right (the mark is invisible).
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// A token of `.proto` text: a word (an identifier, a dotted name or a number), the body of
/// a string literal, or any other character.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    Word(&'a str),
    Str(&'a str),
    Punct(char),
}

/// The tokens of `.proto` text, comments skipped, in one linear pass.
pub(crate) struct Tokens<'a> {
    rest: &'a str,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Tokens {
            rest: without_bom(text),
        }
    }

    /// How many bytes of the text are left (the offset of what comes next, from the end).
    pub(crate) fn remaining(&self) -> usize {
        self.rest.len()
    }

    pub(crate) fn next(&mut self) -> Option<Token<'a>> {
        loop {
            let s = self.rest.trim_start();
            if let Some(r) = s.strip_prefix("//") {
                self.rest = r.find('\n').map_or("", |i| &r[i..]);
            } else if let Some(r) = s.strip_prefix("/*") {
                self.rest = r.find("*/").map_or("", |i| &r[i + 2..]);
            } else {
                self.rest = s;
                break;
            }
        }
        let mut chars = self.rest.char_indices();
        let (_, c) = chars.next()?;
        if c == '"' || c == '\'' {
            // A string: up to the matching unescaped quote (or the end of the line).
            let body = &self.rest[1..];
            let mut end = body.len();
            let mut escaped = false;
            for (i, ch) in body.char_indices() {
                match ch {
                    '\\' if !escaped => escaped = true,
                    '\n' => {
                        end = i;
                        break;
                    }
                    q if q == c && !escaped => {
                        end = i;
                        break;
                    }
                    _ => escaped = false,
                }
            }
            let value = &body[..end];
            self.rest = body.get(end + 1..).unwrap_or("");
            return Some(Token::Str(value));
        }
        if c.is_alphanumeric() || c == '_' {
            let end = self
                .rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '.'))
                .unwrap_or(self.rest.len());
            let word = &self.rest[..end];
            self.rest = &self.rest[end..];
            return Some(Token::Word(word));
        }
        self.rest = &self.rest[c.len_utf8()..];
        Some(Token::Punct(c))
    }
}

#[cfg(test)]
mod tests {
    use super::scan;

    #[test]
    fn imports_are_read_and_comments_skipped() {
        let text = r#"// import "commented.proto";
edition = "2023";
/* import "block.proto"; */
import "a/b.proto";
import public "c.proto";
import weak 'd.proto';
import option "e.proto";
message M { string import = 1; }
option (x) = "import \"f.proto\"";
"#;
        assert_eq!(scan(text), ["a/b.proto", "c.proto", "d.proto", "e.proto"]);
    }

    #[test]
    fn only_a_first_statement_declares_an_edition() {
        use super::edition_line;
        assert_eq!(
            edition_line("// c\n/* x */\nedition = \"2023\";\n"),
            Some(3)
        );
        assert_eq!(
            edition_line("syntax = \"proto3\";\nenum E {\n  edition = 0;\n}\n"),
            None
        );
        assert_eq!(
            edition_line("/*\nedition = \"2023\";\n*/\nsyntax = \"proto2\";"),
            None
        );
        assert_eq!(edition_line("editions = 1;"), None);
    }

    /// The scan stops after the last `import` in the text, wherever that is: a real one
    /// at the end, one inside a comment or a string, or none at all.
    #[test]
    fn the_scan_finds_imports_wherever_the_last_import_word_is() {
        let body = "message M { int32 a = 1; }\n".repeat(50);
        let at_end = format!("syntax = \"proto3\";\n{body}import \"late.proto\";\n");
        assert_eq!(scan(&at_end), ["late.proto"]);
        let commented = format!("import \"a.proto\";\n{body}// important: import \"no.proto\"\n");
        assert_eq!(scan(&commented), ["a.proto"]);
        let split = format!("import \"a.proto\";\n{body}import\n  public\n  \"b.proto\";");
        assert_eq!(scan(&split), ["a.proto", "b.proto"]);
        assert!(scan(&body).is_empty());
        // An `import` word that ends the text, after a comment that holds one.
        assert_eq!(
            scan("/* import \"x.proto\" */ import 'y.proto'"),
            ["y.proto"]
        );
    }

    #[test]
    fn unterminated_text_ends_cleanly() {
        assert!(scan("import \"a.proto").len() == 1);
        assert!(scan("/* never closed").is_empty());
        assert!(scan("import").is_empty());
    }
}
