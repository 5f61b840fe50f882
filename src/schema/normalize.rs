//! A `prost-reflect` pool -> our [`Schema`] model.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use super::compile::Diagnostic;
use super::docs::FileDocs;
use super::features::{self, Features};
use super::fingerprint::{self, Memo};
use super::model::*;
use prost_reflect::{
    Cardinality as PCard, DescriptorPool, DynamicMessage, EnumDescriptor, ExtensionDescriptor,
    FieldDescriptor, FileDescriptor, Kind, MessageDescriptor, ServiceDescriptor,
};
use prost_types::FieldDescriptorProto;

/// Builds the model of every file in `pool`. `own` holds the files of the set (name -> blob
/// id, docs, origin); the others (the compiler's well-known types) are external, and so are
/// the files of the set that are not under a proto root. `editions` holds the edition of each
/// editions file (their `syntax` was rewritten to proto2 for prost-reflect); every element's
/// features are resolved from it. What the model cannot hold (two extensions with one number,
/// which protoc rejects and protox links) goes to `diagnostics`.
pub fn normalize(
    pool: &DescriptorPool,
    own: &HashMap<String, (String, Arc<FileDocs>, Origin)>,
    editions: &HashMap<String, i32>,
    local: &HashSet<String>,
    memo: &mut Memo,
    diagnostics: &mut Vec<Diagnostic>,
) -> Schema {
    let mut schema = Schema::default();
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
        let features = file_features(&file, edition);
        let mut ctx = Ctx {
            file: file.name().to_string(),
            edition,
            features,
            local,
            schema: &mut schema,
        };
        ctx.file(&file, origin);
        for m in file.messages() {
            ctx.message(&m);
        }
        for e in file.enums() {
            ctx.enumeration(&e);
        }
        for s in file.services() {
            ctx.service(&s);
        }
    }
    // Of two extensions with one number, the first by full name is kept, whatever the order.
    for e in pool.all_extensions() {
        let ext = extension(&e, editions);
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
    let blobs: HashMap<&str, &str> = own
        .iter()
        .map(|(name, (blob, _, _))| (name.as_str(), blob.as_str()))
        .collect();
    schema.fingerprint = fingerprint::of_pool(pool, &blobs, memo);
    schema
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
    schema: &'a mut Schema,
}

/// The features of an element: its scope's, with its own `features` option on top.
fn own_features(scope: Features, options: Option<DynamicMessage>) -> Features {
    scope.with_options(options.as_ref())
}

impl Ctx<'_> {
    fn file(&mut self, file: &FileDescriptor, origin: Origin) {
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
        self.schema.content.files.insert(
            file.name().to_string(),
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
            },
        );
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
        self.schema.content.messages.insert(
            m.full_name().to_string(),
            Message {
                full_name: m.full_name().to_string(),
                name: m.name().to_string(),
                file: self.file.clone(),
                parent: m.parent_message().map(|p| p.full_name().to_string()),
                fields,
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
            },
        );
        self.features = features;
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
        self.schema.content.enums.insert(
            e.full_name().to_string(),
            Enum {
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
            },
        );
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
        self.schema.content.services.insert(
            s.full_name().to_string(),
            Service {
                full_name: s.full_name().to_string(),
                name: s.name().to_string(),
                file: self.file.clone(),
                methods,
                options: if proto.options.is_some() {
                    options_text(&s.options(), MODELLED)
                } else {
                    Options::new()
                },
            },
        );
    }
}

fn scalar(kind: &Kind) -> Option<Scalar> {
    Some(match kind {
        Kind::Double => Scalar::Double,
        Kind::Float => Scalar::Float,
        Kind::Int32 => Scalar::Int32,
        Kind::Int64 => Scalar::Int64,
        Kind::Uint32 => Scalar::Uint32,
        Kind::Uint64 => Scalar::Uint64,
        Kind::Sint32 => Scalar::Sint32,
        Kind::Sint64 => Scalar::Sint64,
        Kind::Fixed32 => Scalar::Fixed32,
        Kind::Fixed64 => Scalar::Fixed64,
        Kind::Sfixed32 => Scalar::Sfixed32,
        Kind::Sfixed64 => Scalar::Sfixed64,
        Kind::Bool => Scalar::Bool,
        Kind::String => Scalar::String,
        Kind::Bytes => Scalar::Bytes,
        Kind::Message(_) | Kind::Enum(_) => return None,
    })
}

fn field_type(f: &FieldDescriptor) -> FieldType {
    kind_type(&f.kind(), f.is_group())
}

fn kind_type(kind: &Kind, group: bool) -> FieldType {
    match kind {
        Kind::Message(m) if group => FieldType::Group(m.full_name().to_string()),
        Kind::Message(m) => FieldType::Message(m.full_name().to_string()),
        Kind::Enum(e) => FieldType::Enum(e.full_name().to_string()),
        other => FieldType::Scalar(scalar(other).unwrap_or(Scalar::Bytes)),
    }
}

/// What fields and extensions have in common, read the same way from either descriptor.
struct Common<'a> {
    proto: &'a FieldDescriptorProto,
    kind: Kind,
    group: bool,
    cardinality: PCard,
    json_name: &'a str,
    /// The options as a message, only when some are set (decoding them costs).
    options: Option<DynamicMessage>,
}

/// The parts of a field model that fields and extensions share; map, presence and oneof
/// are the caller's. `features` are the field's resolved features (for proto2 and proto3,
/// their syntax's defaults: an explicit `[packed = ...]` is read here, as prost-reflect decides
/// packing before the options are interpreted); `editions` says the file is an editions file,
/// whose delimited message fields are groups on the wire.
fn common(c: Common<'_>, features: Features, editions: bool) -> Field {
    let proto = c.proto;
    let packable = !matches!(c.kind, Kind::Message(_) | Kind::String | Kind::Bytes);
    let packed = c.cardinality == PCard::Repeated
        && packable
        && proto
            .options
            .as_ref()
            .and_then(|o| o.packed)
            .unwrap_or(features.repeated_field_encoding == features::PACKED);
    let delimited = editions
        && matches!(c.kind, Kind::Message(ref m) if !m.is_map_entry())
        && features.message_encoding == features::DELIMITED;
    Field {
        number: u32::try_from(proto.number()).unwrap_or(0),
        name: proto.name().to_string(),
        json_name: c.json_name.to_string(),
        ty: kind_type(&c.kind, c.group || delimited),
        cardinality: match c.cardinality {
            PCard::Optional => Cardinality::Optional,
            PCard::Required => Cardinality::Required,
            PCard::Repeated => Cardinality::Repeated,
        },
        map: None,
        presence: Presence::Implicit,
        oneof: None,
        proto3_optional: proto.proto3_optional(),
        default: proto.default_value.clone(),
        packed,
        utf8_verified: c.kind == Kind::String && features.utf8_validation == features::VERIFY,
        deprecated: proto.options.as_ref().is_some_and(|o| o.deprecated()),
        options: c
            .options
            .map(|o| options_text(&o, MODELLED_FIELD))
            .unwrap_or_default(),
    }
}

/// An extension: extendee, scope and file, and its field. A singular extension always has
/// explicit presence (`HasExtension`), whatever the syntax of the file declaring it.
fn extension(e: &ExtensionDescriptor, editions: &HashMap<String, i32>) -> Extension {
    let file = e.parent_file();
    let edition = editions.get(file.name()).copied();
    let mut scope = file_features(&file, edition);
    let mut parents = Vec::new();
    let mut parent = e.parent_message();
    while let Some(p) = parent {
        parent = p.parent_message();
        parents.push(p);
    }
    for p in parents.iter().rev() {
        scope = own_features(
            scope,
            (edition.is_some() && p.descriptor_proto().options.is_some()).then(|| p.options()),
        );
    }
    let options = e
        .field_descriptor_proto()
        .options
        .is_some()
        .then(|| e.options());
    let features = if edition.is_some() {
        scope.with_options(options.as_ref())
    } else {
        scope
    };
    let mut field = common(
        Common {
            proto: e.field_descriptor_proto(),
            kind: e.kind(),
            group: e.is_group(),
            cardinality: e.cardinality(),
            json_name: e.json_name(),
            options,
        },
        features,
        edition.is_some(),
    );
    field.number = e.number();
    field.name = e.name().to_string();
    field.presence = if e.cardinality() == PCard::Repeated {
        Presence::Implicit
    } else {
        Presence::Explicit
    };
    Extension {
        full_name: e.full_name().to_string(),
        extendee: e.containing_message().full_name().to_string(),
        scope: e.parent_message().map(|m| m.full_name().to_string()),
        file: file.name().to_string(),
        field,
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
    features::defaults(base).unwrap_or_default().with_options(
        (edition.is_some() && file.file_descriptor_proto().options.is_some())
            .then(|| file.options())
            .as_ref(),
    )
}

/// A field of a message. In an editions file, presence, cardinality (`LEGACY_REQUIRED`) and
/// encoding come from the resolved features; in proto2 and proto3 from the syntax, as
/// prost-reflect reads it.
fn field(f: &FieldDescriptor, features: Features, editions: bool) -> Field {
    let map = match f.kind() {
        Kind::Message(entry) if f.is_map() => Some((
            field_type(&entry.map_entry_key_field()),
            field_type(&entry.map_entry_value_field()),
        )),
        _ => None,
    };
    let in_oneof = f.containing_oneof().is_some();
    let required = if editions {
        // Message and group fields may be LEGACY_REQUIRED too (proto2's `required Sub s`);
        // only IMPLICIT is refused for them.
        f.cardinality() != PCard::Repeated
            && !in_oneof
            && features.field_presence == features::LEGACY_REQUIRED
    } else {
        f.is_required()
    };
    let presence = if required {
        Presence::Required
    } else if !editions {
        if f.supports_presence() {
            Presence::Explicit
        } else {
            Presence::Implicit
        }
    } else if f.cardinality() == PCard::Repeated {
        Presence::Implicit
    } else if in_oneof
        || matches!(f.kind(), Kind::Message(_))
        || features.field_presence != features::IMPLICIT
    {
        Presence::Explicit
    } else {
        Presence::Implicit
    };
    let string = FieldType::Scalar(Scalar::String);
    let utf8_map = map
        .as_ref()
        .is_some_and(|(k, v)| *k == string || *v == string)
        && features.utf8_validation == features::VERIFY;
    let mut out = Field {
        number: f.number(),
        name: f.name().to_string(),
        map,
        presence,
        oneof: f
            .containing_oneof()
            .filter(|o| !o.is_synthetic())
            .map(|o| o.name().to_string()),
        ..common(
            Common {
                proto: f.field_descriptor_proto(),
                kind: f.kind(),
                group: f.is_group(),
                cardinality: f.cardinality(),
                json_name: f.json_name(),
                options: f
                    .field_descriptor_proto()
                    .options
                    .is_some()
                    .then(|| f.options()),
            },
            features,
            editions,
        )
    };
    if required {
        out.cardinality = Cardinality::Required;
    }
    out.utf8_verified |= utf8_map;
    out
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

/// An option value as text format, enum values by name (`CORD`, not `1`).
fn value_text(kind: &Kind, value: &prost_reflect::Value) -> String {
    use prost_reflect::Value;
    let name = |n: i32| match kind {
        Kind::Enum(e) => e
            .get_value(n)
            .map_or_else(|| n.to_string(), |v| v.name().to_string()),
        _ => n.to_string(),
    };
    match value {
        Value::EnumNumber(n) => name(*n),
        Value::List(items) if matches!(kind, Kind::Enum(_)) => {
            let items: Vec<String> = items
                .iter()
                .map(|v| v.as_enum_number().map_or_else(|| v.to_string(), name))
                .collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}
