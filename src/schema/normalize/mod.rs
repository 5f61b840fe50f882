//! A `prost-reflect` pool -> our [`Schema`] model: files, messages, enums and services here,
//! fields and extensions (where editions features decide the most) in `field`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

mod field;
mod memo;

use super::canon::Canon;
use super::diagnostic::Diagnostic;
use super::features::{self, Features};
use super::fingerprint;
use super::model::*;
use field::{extension, field};
pub(super) use memo::FileDecls;
pub use memo::Memo;
use prost_reflect::{
    DescriptorPool, DynamicMessage, EnumDescriptor, FileDescriptor, Kind, MessageDescriptor,
    ServiceDescriptor,
};

/// Builds the model of every file in `pool`. `own` holds the files of the set (name -> blob
/// id, docs, origin); the others (the compiler's well-known types) are external, and so are
/// the files of the set that are not under a proto root. `editions` holds the edition of each
/// editions file (their `syntax` was rewritten to proto2 for prost-reflect); every element's
/// features are resolved from it. What the model cannot hold (two extensions with one number,
/// which protoc rejects and protox links) goes to `diagnostics`. Also returns each file's
/// fingerprint digest (what the on-disk cache keeps per file); `by_protox` names the files
/// protox put into the pool (the digests depend on the compiler). A file normalized in an
/// earlier set with the same closure is taken from `memo` (see [`Memo`]).
pub fn normalize(
    pool: DescriptorPool,
    own: &HashMap<String, (String, Arc<FileDocs>, Origin)>,
    editions: &HashMap<String, i32>,
    local: &HashSet<String>,
    by_protox: &HashSet<String>,
    memo: &Memo,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Schema, HashMap<String, [u8; 32]>) {
    let mut schema = Schema::default();
    // First, while the model is not built: its encodings are the peak of a big file's load.
    let blobs: HashMap<&str, &str> = own
        .iter()
        .map(|(name, (blob, _, _))| (name.as_str(), blob.as_str()))
        .collect();
    let closure = fingerprint::closure_keys(&pool, &blobs, by_protox);
    let canon = Canon::new(&pool);
    let (fingerprint, digests, canonical) =
        fingerprint::of_pool(&pool, &closure, &memo.digests, &canon);
    schema.fingerprint = fingerprint;
    // Messages are gathered here and their map built once the pool is gone (below).
    let mut messages = Vec::with_capacity(pool.all_messages().len());
    for file in pool.files() {
        let origin = own
            .get(file.name())
            .map_or(Origin::WellKnown, |(_, _, o)| *o);
        if let Some((_, docs, _)) = own.get(file.name())
            && !docs.is_empty()
        {
            schema.docs.insert(file.name().to_string(), docs.clone());
        }
        let edition = editions.get(file.name()).copied();
        // Only a file whose options the set reads as prost-reflect's messages do.
        let key = closure
            .get(file.name())
            .filter(|_| canonical.contains(file.name()))
            .map(|k| memo::key(k, origin, edition));
        let decls = match key.as_ref().and_then(|k| memo.get(k)) {
            Some(held) => held,
            None => memo.put(key.as_ref(), file_decls(&file, origin, edition, local)),
        };
        let content = &mut schema.content;
        content
            .files
            .insert(decls.file.name.clone(), decls.file.clone());
        messages.extend(
            decls
                .messages
                .iter()
                .map(|m| (m.full_name.clone(), m.clone())),
        );
        for e in &decls.enums {
            content.enums.insert(e.full_name.clone(), e.clone());
        }
        for s in &decls.services {
            content.services.insert(s.full_name.clone(), s.clone());
        }
    }
    // Of two extensions with one number, the first by full name is kept, whatever the order.
    for e in pool.all_extensions() {
        let ext = std::sync::Arc::new(extension(&e, editions));
        let by_number = schema
            .content
            .extensions
            .entry(ext.extendee.clone())
            .or_default();
        let dropped = match by_number.get(&ext.field.number) {
            Some(kept) if kept.full_name < ext.full_name => ext,
            _ => match by_number.insert(ext.field.number, ext) {
                Some(replaced) => replaced,
                None => continue,
            },
        };
        let kept = by_number
            .get(&dropped.field.number)
            .map(|k| k.full_name.as_str())
            .unwrap_or_default();
        diagnostics.push(Diagnostic {
            file: dropped.file.clone(),
            line: 0,
            column: 0,
            message: format!(
                "extension `{}` uses number {} of {}, as `{kept}` does (protoc rejects this); \
                 only `{kept}` is compared",
                dropped.full_name, dropped.field.number, dropped.extendee
            ),
        });
    }
    // The map built in one go, beside what is left when the pool is gone: its nodes are
    // then full, where inserting one message at a time left them a third empty (with the
    // pool still there, that was a tenth of a 10 MB file's peak).
    drop(pool);
    schema.content.messages = messages.into_iter().collect();
    (schema, digests)
}

fn syntax_of(file: &FileDescriptor) -> &str {
    match file.file_descriptor_proto().syntax.as_deref() {
        Some("proto3") => "proto3",
        Some("editions") => "editions",
        _ => "proto2",
    }
}

/// Options the model holds in fields of its own, per element kind: never compared as option
/// text. `features` everywhere (resolved into presence, encoding, closedness, ...).
const MODELLED: &[&str] = &["features"];
const MODELLED_MESSAGE: &[&str] = &["map_entry", "features"];
const MODELLED_FIELD: &[&str] = &["deprecated", "packed", "features"];
const MODELLED_DEPRECATED: &[&str] = &["deprecated", "features"];

struct Ctx<'a> {
    file: String,
    /// The edition of an editions file (None for proto2 and proto3).
    edition: Option<i32>,
    /// The features of the current scope (file, then each enclosing message).
    features: Features,
    /// Messages and enums made local by edition 2024's visibility.
    local: &'a HashSet<String>,
    /// The file's declarations so far.
    messages: Vec<Arc<Message>>,
    enums: Vec<Arc<Enum>>,
    services: Vec<Arc<Service>>,
}

/// What a file declares (its messages, enums and services), and its entry.
fn file_decls(
    file: &FileDescriptor,
    origin: Origin,
    edition: Option<i32>,
    local: &HashSet<String>,
) -> FileDecls {
    let mut ctx = Ctx {
        file: file.name().to_string(),
        edition,
        features: file_features(file, edition),
        local,
        messages: Vec::new(),
        enums: Vec::new(),
        services: Vec::new(),
    };
    for m in file.messages() {
        ctx.message(&m);
    }
    for e in file.enums() {
        ctx.enumeration(&e);
    }
    for s in file.services() {
        ctx.service(&s);
    }
    FileDecls {
        file: ctx.file(file, origin),
        messages: ctx.messages,
        enums: ctx.enums,
        services: ctx.services,
    }
}

/// The features of an element: its scope's, with its own `features` option on top.
fn own_features(scope: Features, options: Option<DynamicMessage>) -> Features {
    scope.with_options(options.as_ref())
}

impl Ctx<'_> {
    fn file(&self, file: &FileDescriptor, origin: Origin) -> File {
        let proto = file.file_descriptor_proto();
        let public: HashSet<i32> = proto.public_dependency.iter().copied().collect();
        let options = if proto.options.is_some() {
            options_text(&file.options(), MODELLED)
        } else {
            Options::new()
        };
        let syntax = match self.edition {
            Some(e) => format!("edition {}", features::edition_name(e)),
            None => syntax_of(file).to_string(),
        };
        File {
            name: file.name().to_string(),
            package: file.package_name().to_string(),
            syntax,
            edition: self.edition.and_then(features::edition_year),
            imports: proto.dependency.clone(),
            public_imports: proto
                .dependency
                .iter()
                .enumerate()
                .filter(|(i, _)| i32::try_from(*i).is_ok_and(|i| public.contains(&i)))
                .map(|(_, d)| d.clone())
                .collect(),
            options,
            external: origin != Origin::Root,
            origin,
        }
    }

    fn message(&mut self, m: &MessageDescriptor) {
        let proto = m.descriptor_proto();
        let scope = self.features;
        let editions = self.edition.is_some();
        let features = own_features(
            scope,
            (editions && proto.options.is_some()).then(|| m.options()),
        );
        let mut fields = BTreeMap::new();
        for f in m.fields() {
            let field_features = own_features(
                features,
                (editions && f.field_descriptor_proto().options.is_some()).then(|| f.options()),
            );
            fields.insert(
                f.number(),
                field(&f, field_features, self.edition.is_some()),
            );
        }
        let oneofs = m
            .oneofs()
            .map(|o| Oneof {
                name: o.name().to_string(),
                fields: o.fields().map(|f| f.number()).collect(),
                synthetic: o.is_synthetic(),
            })
            .collect();
        let options = if proto.options.is_some() {
            options_text(&m.options(), MODELLED_MESSAGE)
        } else {
            Options::new()
        };
        self.messages.push(Arc::new(Message {
            full_name: m.full_name().to_string(),
            name: m.name().to_string(),
            file: self.file.clone(),
            parent: m.parent_message().map(|p| p.full_name().to_string()),
            fields: fields.into_iter().collect(),
            oneofs,
            reserved_ranges: m
                .reserved_ranges()
                .map(|r| (r.start, r.end.saturating_sub(1)))
                .collect(),
            reserved_names: m.reserved_names().map(str::to_string).collect(),
            extension_ranges: m
                .extension_ranges()
                .map(|r| (r.start, r.end.saturating_sub(1)))
                .collect(),
            map_entry: m.is_map_entry(),
            json_legacy: features.json_format == features::LEGACY_BEST_EFFORT,
            exported: !self.local.contains(m.full_name()),
            options,
        }));
        self.features = features;
        // Recursion per nested message: at most `compile::bounds::MAX_DEPTH` levels, the
        // nesting any compiled text may have (protox stops at 31).
        for child in m.child_messages() {
            self.message(&child);
        }
        for e in m.child_enums() {
            self.enumeration(&e);
        }
        self.features = scope;
    }

    fn enumeration(&mut self, e: &EnumDescriptor) {
        // In declaration order: `values()` sorts by number and puts a later alias before an
        // earlier one, while JSON writers use the first name declared for a number.
        let values = e
            .enum_descriptor_proto()
            .value
            .iter()
            .filter_map(|p| e.get_value_by_name(p.name()))
            .map(|v| {
                let proto = v.enum_value_descriptor_proto();
                EnumValue {
                    name: v.name().to_string(),
                    number: v.number(),
                    deprecated: proto.options.as_ref().is_some_and(|o| o.deprecated()),
                    options: if proto.options.is_some() {
                        options_text(&v.options(), MODELLED_DEPRECATED)
                    } else {
                        Options::new()
                    },
                }
            })
            .collect();
        let proto = e.enum_descriptor_proto();
        let features = own_features(
            self.features,
            (self.edition.is_some() && proto.options.is_some()).then(|| e.options()),
        );
        self.enums.push(Arc::new(Enum {
            full_name: e.full_name().to_string(),
            name: e.name().to_string(),
            file: self.file.clone(),
            parent: e.parent_message().map(|p| p.full_name().to_string()),
            values,
            closed: features.enum_type == features::CLOSED,
            json_legacy: features.json_format == features::LEGACY_BEST_EFFORT,
            exported: !self.local.contains(e.full_name()),
            reserved_ranges: e
                .reserved_ranges()
                .map(|r| (*r.start(), *r.end()))
                .collect(),
            reserved_names: e.reserved_names().map(str::to_string).collect(),
            options: if proto.options.is_some() {
                options_text(&e.options(), MODELLED)
            } else {
                Options::new()
            },
        }));
    }

    fn service(&mut self, s: &ServiceDescriptor) {
        let mut methods = BTreeMap::new();
        for m in s.methods() {
            let proto = m.method_descriptor_proto();
            methods.insert(
                m.name().to_string(),
                Method {
                    name: m.name().to_string(),
                    input: m.input().full_name().to_string(),
                    output: m.output().full_name().to_string(),
                    client_streaming: m.is_client_streaming(),
                    server_streaming: m.is_server_streaming(),
                    deprecated: proto.options.as_ref().is_some_and(|o| o.deprecated()),
                    options: if proto.options.is_some() {
                        options_text(&m.options(), MODELLED_DEPRECATED)
                    } else {
                        Options::new()
                    },
                },
            );
        }
        let proto = s.service_descriptor_proto();
        self.services.push(Arc::new(Service {
            full_name: s.full_name().to_string(),
            name: s.name().to_string(),
            file: self.file.clone(),
            methods,
            options: if proto.options.is_some() {
                options_text(&s.options(), MODELLED)
            } else {
                Options::new()
            },
        }));
    }
}

/// The features of a file: its edition's (or syntax's) defaults and, for an editions file,
/// its `features` option (proto2 and proto3 files cannot set features).
fn file_features(file: &FileDescriptor, edition: Option<i32>) -> Features {
    let base = edition.unwrap_or(if syntax_of(file) == "proto3" {
        features::EDITION_PROTO3
    } else {
        features::EDITION_PROTO2
    });
    own_features(
        features::defaults(base).unwrap_or_default(),
        (edition.is_some() && file.file_descriptor_proto().options.is_some())
            .then(|| file.options()),
    )
}

/// Set options (standard and extensions) as `name -> value text`, minus those we model.
fn options_text(options: &DynamicMessage, skip: &[&str]) -> Options {
    let mut out = Options::new();
    for (field, value) in options.fields() {
        if skip.contains(&field.name()) || field.name() == "uninterpreted_option" {
            continue;
        }
        out.insert(field.name().to_string(), value_text(&field.kind(), value));
    }
    for (ext, value) in options.extensions() {
        out.insert(
            format!("({})", ext.full_name()),
            value_text(&ext.kind(), value),
        );
    }
    out
}

/// An option value as text format, enum values by name (`CORD`, not `1`). prost-reflect's
/// own text format writes a map in its hash order, which differs from run to run: maps are
/// written here with their entries in key order, so that equal options give equal text (and
/// equal fingerprints).
fn value_text(kind: &Kind, value: &prost_reflect::Value) -> String {
    let mut out = String::new();
    write_value(&mut out, Some(kind), value);
    out
}

/// Recursion per nested value: at most `compile::bounds::MAX_DEPTH` levels, the nesting any
/// compiled text may have (option paths included), far below what a thread's stack holds.
fn write_value(out: &mut String, kind: Option<&Kind>, value: &prost_reflect::Value) {
    use prost_reflect::Value;
    match value {
        Value::EnumNumber(n) => match kind {
            Some(Kind::Enum(e)) => match e.get_value(*n) {
                Some(v) => out.push_str(v.name()),
                None => out.push_str(&n.to_string()),
            },
            _ => out.push_str(&n.to_string()),
        },
        Value::List(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, kind, v);
            }
            out.push(']');
        }
        Value::Map(map) => {
            let value_kind = kind
                .and_then(|k| k.as_message())
                .map(|m| m.map_entry_value_field().kind());
            let mut entries: Vec<(String, String)> = map
                .iter()
                .map(|(k, v)| {
                    let mut text = String::new();
                    write_field_value(&mut text, value_kind.as_ref(), v);
                    (Value::from(k.clone()).to_string(), text)
                })
                .collect();
            entries.sort();
            out.push('[');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&format!("{{key:{k},value{v}}}"));
            }
            out.push(']');
        }
        // `Any` is written expanded by prost-reflect; everything else field by field.
        Value::Message(m)
            if prost_reflect::ReflectMessage::descriptor(m).full_name()
                != "google.protobuf.Any" =>
        {
            let mut fields: Vec<(u32, String, Kind, &Value)> = m
                .fields()
                .map(|(f, v)| {
                    let name = match f.kind() {
                        Kind::Message(t) if f.is_group() => t.name().to_string(),
                        _ => f.name().to_string(),
                    };
                    (f.number(), name, f.kind(), v)
                })
                .chain(
                    m.extensions()
                        .map(|(x, v)| (x.number(), format!("[{}]", x.full_name()), x.kind(), v)),
                )
                .collect();
            fields.sort_by_key(|f| f.0);
            out.push('{');
            for (i, (_, name, kind, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(name);
                write_field_value(out, Some(kind), v);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A field's value after its name: `:value`, or a message directly (`name{...}`).
fn write_field_value(out: &mut String, kind: Option<&Kind>, value: &prost_reflect::Value) {
    if !matches!(value, prost_reflect::Value::Message(_)) {
        out.push(':');
    }
    write_value(out, kind, value);
}
