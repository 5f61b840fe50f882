//! Two declarations split into tokens, each marked where it differs from the other, for
//! showing old and new side by side.

/// A piece of a declaration, and whether it differs from the other side.
pub type Token = (String, bool);

/// Splits two declarations into tokens and marks the tokens of each that the other lacks
/// (a longest-common-subsequence over whitespace-separated tokens).
pub fn token_diff(old: &str, new: &str) -> (Vec<Token>, Vec<Token>) {
    let a: Vec<&str> = split_keep(old);
    let b: Vec<&str> = split_keep(new);
    let (n, m) = (a.len(), b.len());
    // Large inputs: mark nothing rather than spend quadratic time.
    if n * m > 40_000 {
        return (
            a.iter().map(|t| (t.to_string(), false)).collect(),
            b.iter().map(|t| (t.to_string(), false)).collect(),
        );
    }
    let mut l = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            l[i][j] = if a[i] == b[j] {
                l[i + 1][j + 1] + 1
            } else {
                l[i + 1][j].max(l[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ka = vec![false; n];
    let mut kb = vec![false; m];
    while i < n && j < m {
        if a[i] == b[j] {
            ka[i] = true;
            kb[j] = true;
            i += 1;
            j += 1;
        } else if l[i + 1][j] >= l[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    let mark = |toks: &[&str], keep: &[bool]| {
        toks.iter()
            .zip(keep)
            .map(|(t, k)| (t.to_string(), !k && !t.trim().is_empty()))
            .collect()
    };
    (mark(&a, &ka), mark(&b, &kb))
}

/// Tokens and the whitespace between them, so that joining them gives the text back.
fn split_keep(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, c) in s.char_indices() {
        let space = c.is_whitespace();
        match in_space {
            Some(prev) if prev != space => {
                out.push(&s[start..i]);
                start = i;
            }
            _ => {}
        }
        in_space = Some(space);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_diff_marks_what_differs() {
        let (a, b) = token_diff("uint32 passengers = 6;", "sint32 passengers = 6;");
        let marked: Vec<&str> = a.iter().filter(|t| t.1).map(|t| t.0.as_str()).collect();
        assert_eq!(marked, ["uint32"]);
        let marked: Vec<&str> = b.iter().filter(|t| t.1).map(|t| t.0.as_str()).collect();
        assert_eq!(marked, ["sint32"]);
        let joined: String = b.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(joined, "sint32 passengers = 6;");
    }
}
