//! Declarations as proto text — the one renderer: the full declaration of a field, enum
//! value, rpc, message or service (options included), which the terminal UI shows old and
//! new side by side; and the short form a change records as its `old` and `new`
//! (`int32 x = 1`, `NAME = 2`), which reports and JSON show.

use super::graph::type_text;
use super::model::{EnumValue, Extension, Field, Message, Method, Options, Service};

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

/// `extend pkg.M { int32 name = 100; }`: an extension's full declaration.
pub fn extension(x: &Extension) -> String {
    format!("extend {} {{ {} }}", x.extendee, field(&x.field))
}

/// `int32 x = 1`: a field's short form.
pub fn field_short(f: &Field) -> String {
    format!("{} {} = {}", type_text(f), f.name, f.number)
}

/// `extend pkg.M { int32 pkg.name = 100 }`: an extension's short form, with its full name.
pub fn extension_short(e: &Extension) -> String {
    format!(
        "extend {} {{ {} {} = {} }}",
        e.extendee,
        type_text(&e.field),
        e.full_name,
        e.field.number
    )
}

/// `NAME = 2`: an enum value's short form.
pub fn value_short(v: &EnumValue) -> String {
    format!("{} = {}", v.name, v.number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_follow_protoc() {
        assert_eq!(default_json_name("milli_kelvin"), "milliKelvin");
        assert_eq!(default_json_name("id"), "id");
    }
}
