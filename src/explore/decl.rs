//! Declarations as one line of proto text, for showing old and new side by side.

use crate::schema::graph::type_text;
use crate::schema::model::{EnumValue, Field, Message, Method, Options, Service};

fn options(opts: &[(String, String)]) -> String {
    if opts.is_empty() {
        String::new()
    } else {
        let inner: Vec<String> = opts.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        format!(" [{}]", inner.join(", "))
    }
}

fn other_options(o: &Options, skip: &[&str]) -> Vec<(String, String)> {
    o.iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `optional string label = 3 [json_name = "lbl", deprecated = true];`
pub fn field(f: &Field) -> String {
    let mut opts = Vec::new();
    let default_json = default_json_name(&f.name);
    if f.json_name != default_json && !f.json_name.is_empty() {
        opts.push(("json_name".to_string(), format!("\"{}\"", f.json_name)));
    }
    if let Some(d) = &f.default {
        opts.push(("default".to_string(), d.clone()));
    }
    if f.packed {
        opts.push(("packed".to_string(), "true".to_string()));
    }
    if f.deprecated {
        opts.push(("deprecated".to_string(), "true".to_string()));
    }
    opts.extend(other_options(
        &f.options,
        &["deprecated", "packed", "json_name", "default"],
    ));
    let oneof = f
        .oneof
        .as_ref()
        .map(|o| format!("oneof {o} {{ "))
        .unwrap_or_default();
    let close = if f.oneof.is_some() { " }" } else { "" };
    format!(
        "{oneof}{} {} = {}{};{close}",
        type_text(f),
        f.name,
        f.number,
        options(&opts)
    )
}

/// `NAME = 1 [deprecated = true];`
pub fn value(v: &EnumValue) -> String {
    let mut opts = Vec::new();
    if v.deprecated {
        opts.push(("deprecated".to_string(), "true".to_string()));
    }
    opts.extend(other_options(&v.options, &["deprecated"]));
    format!("{} = {}{};", v.name, v.number, options(&opts))
}

/// `rpc Get(GetRequest) returns (stream Flight);`
pub fn method(m: &Method) -> String {
    let stream = |s: bool| if s { "stream " } else { "" };
    format!(
        "rpc {}({}{}) returns ({}{});",
        m.name,
        stream(m.client_streaming),
        m.input,
        stream(m.server_streaming),
        m.output
    )
}

/// `message FlightPath` with its reservations: `message FlightPath { reserved 4, 8 to 9; }`
pub fn message(m: &Message) -> String {
    let mut parts = Vec::new();
    if !m.reserved_ranges.is_empty() {
        let r: Vec<String> = m
            .reserved_ranges
            .iter()
            .map(|(a, b)| {
                if a == b {
                    a.to_string()
                } else if *b >= 536_870_911 {
                    format!("{a} to max")
                } else {
                    format!("{a} to {b}")
                }
            })
            .collect();
        parts.push(format!("reserved {};", r.join(", ")));
    }
    if !m.reserved_names.is_empty() {
        let r: Vec<String> = m
            .reserved_names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect();
        parts.push(format!("reserved {};", r.join(", ")));
    }
    for o in m.oneofs.iter().filter(|o| !o.synthetic) {
        parts.push(format!("oneof {} {{ {} fields }}", o.name, o.fields.len()));
    }
    if parts.is_empty() {
        format!("message {}", m.full_name)
    } else {
        format!("message {} {{ {} }}", m.full_name, parts.join(" "))
    }
}

/// `service FlightService { 2 rpcs }`
pub fn service(s: &Service) -> String {
    let n = s.methods.len();
    format!(
        "service {} {{ {n} rpc{} }}",
        s.full_name,
        if n == 1 { "" } else { "s" }
    )
}

/// protoc's default JSON name: lowerCamelCase of the field name.
fn default_json_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

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

    #[test]
    fn json_names_follow_protoc() {
        assert_eq!(default_json_name("milli_kelvin"), "milliKelvin");
        assert_eq!(default_json_name("id"), "id");
    }
}
