//! The import statements of a `.proto` file, read without a parser: enough to find the files
//! a version needs, not to judge the text (the compiler does that).

/// The paths named by the `import` statements of a `.proto` file's text (`import "x";`,
/// `import public "x";`, `import weak "x";`, edition 2024's `import option "x";`), in
/// order. Comments and other string literals are skipped; a statement that does not parse
/// is ignored.
pub(super) fn scan_imports(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') || b.get(i + 1) == Some(&b'*') => {
                i = skip_comment(b, i);
            }
            b'"' | b'\'' => i = string(b, i).map_or(b.len(), |(_, end)| end),
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let before = start.checked_sub(1).map(|p| b[p]);
                if &b[start..i] == b"import" && before != Some(b'.') {
                    let mut j = skip_space(b, i);
                    for modifier in [&b"public"[..], b"weak", b"option"] {
                        if b[j..].starts_with(modifier)
                            && !b
                                .get(j + modifier.len())
                                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                        {
                            j = skip_space(b, j + modifier.len());
                            break;
                        }
                    }
                    if let Some((path, end)) = string(b, j)
                        && b.get(skip_space(b, end)) == Some(&b';')
                    {
                        out.push(path);
                        i = end;
                    }
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The end of the comment that starts at `i` (`//` to the line's end, `/*` to `*/`).
fn skip_comment(b: &[u8], i: usize) -> usize {
    if b.get(i + 1) == Some(&b'/') {
        b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| i + p + 1)
    } else {
        b[i + 2..]
            .windows(2)
            .position(|w| w == b"*/")
            .map_or(b.len(), |p| i + 2 + p + 2)
    }
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&b'/') && matches!(b.get(i + 1), Some(b'/' | b'*')) {
            i = skip_comment(b, i);
        } else {
            return i;
        }
    }
}

/// The string literal starting at `i` (`"..."` or `'...'`, backslash escapes taken as the
/// escaped character) and the index after it; `None` when none starts there or it does not
/// end on its line.
fn string(b: &[u8], i: usize) -> Option<(String, usize)> {
    let quote = *b.get(i).filter(|c| **c == b'"' || **c == b'\'')?;
    let mut out = Vec::new();
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            c if c == quote => return Some((String::from_utf8_lossy(&out).into_owned(), j + 1)),
            b'\n' => return None,
            b'\\' => {
                out.push(*b.get(j + 1)?);
                j += 2;
            }
            c => {
                out.push(c);
                j += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_scanned_past_comments_and_strings() {
        let text = r#"syntax = "proto3";
// import "commented.proto";
/* import "block.proto"; */
import "a/b.proto";
import public 'c.proto' ;
import weak /* why */ "d.proto";
import option "o.proto";
import"e\".proto";
option (x).import = "no.proto";
message M { string import = 1; string s = 2 [default = "import \"f.proto\";"]; }
import "unterminated
"#;
        assert_eq!(
            scan_imports(text),
            ["a/b.proto", "c.proto", "d.proto", "o.proto", "e\".proto"]
        );
        assert!(scan_imports("import").is_empty());
        assert!(scan_imports("/* never closed import \"x.proto\";").is_empty());
        assert!(scan_imports("importx \"a.proto\";").is_empty());
    }
}
