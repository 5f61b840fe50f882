//! Edition 2024's symbol visibility (`local` / `export` and `default_symbol_visibility`),
//! read from protoc's descriptors: which messages and enums other files may not import.

use prost::Message as _;

use super::super::features;

/// The parts of a `FileDescriptorProto` that say which symbols are local (edition 2024's
/// `local`/`export` and `default_symbol_visibility`). prost-reflect's bundled descriptor.proto
/// predates them, so they are read with prost directly (tags from descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
struct VisFile {
    #[prost(string, optional, tag = "2")]
    package: Option<String>,
    #[prost(message, repeated, tag = "4")]
    message_type: Vec<VisMessage>,
    #[prost(message, repeated, tag = "5")]
    enum_type: Vec<VisEnum>,
    #[prost(message, optional, tag = "8")]
    options: Option<VisFileOptions>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct VisFileOptions {
    #[prost(message, optional, tag = "50")]
    features: Option<features::FeatureSetProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct VisMessage {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(message, repeated, tag = "3")]
    nested_type: Vec<VisMessage>,
    #[prost(message, repeated, tag = "4")]
    enum_type: Vec<VisEnum>,
    #[prost(int32, optional, tag = "11")]
    visibility: Option<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct VisEnum {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(int32, optional, tag = "6")]
    visibility: Option<i32>,
}

/// `VISIBILITY_LOCAL` and `VISIBILITY_EXPORT`.
const LOCAL: i32 = 1;
const EXPORT: i32 = 2;

/// Full names of the messages and enums of a file (edition `edition`) that are local: marked
/// `local`, or unmarked where the file's `default_symbol_visibility` makes them local.
pub(super) fn local_symbols(bytes: &[u8], edition: i32) -> Vec<String> {
    let Ok(file) = VisFile::decode(bytes) else {
        return Vec::new();
    };
    let mut default = features::defaults(edition).unwrap_or_default();
    if let Some(set) = file.options.as_ref().and_then(|o| o.features.as_ref()) {
        default = default.merged_proto(set);
    }
    let mode = default.default_symbol_visibility;
    let is_local = |explicit: Option<i32>, top: bool| match explicit {
        Some(LOCAL) => true,
        Some(EXPORT) => false,
        _ => match mode {
            features::EXPORT_ALL | 0 => false,
            features::EXPORT_TOP_LEVEL => !top,
            _ => true,
        },
    };
    let prefix = file.package.clone().filter(|p| !p.is_empty());
    let full = |scope: &Option<String>, name: &Option<String>| match scope {
        Some(s) => format!("{s}.{}", name.as_deref().unwrap_or("")),
        None => name.clone().unwrap_or_default(),
    };
    let mut out = Vec::new();
    for e in &file.enum_type {
        if is_local(e.visibility, true) {
            out.push(full(&prefix, &e.name));
        }
    }
    // Iterative walk: nesting comes from the repository.
    let mut stack: Vec<(&VisMessage, Option<String>, bool)> = file
        .message_type
        .iter()
        .map(|m| (m, prefix.clone(), true))
        .collect();
    while let Some((m, scope, top)) = stack.pop() {
        let name = full(&scope, &m.name);
        if is_local(m.visibility, top) {
            out.push(name.clone());
        }
        for e in &m.enum_type {
            if is_local(e.visibility, false) {
                out.push(format!("{name}.{}", e.name.as_deref().unwrap_or("")));
            }
        }
        for n in &m.nested_type {
            stack.push((n, Some(name.clone()), false));
        }
    }
    out.sort();
    out
}
