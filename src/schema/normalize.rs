//! A `prost-reflect` pool -> our [`Schema`] model.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use super::docs::FileDocs;
use super::fingerprint::{self, Memo};
use super::model::*;
use prost_reflect::{
    Cardinality as PCard, DescriptorPool, DynamicMessage, EnumDescriptor, FieldDescriptor,
    FileDescriptor, Kind, MessageDescriptor, ServiceDescriptor,
};

/// Builds the model of every file in `pool`. `own` holds the repository's files (name ->
/// blob id, docs); the others (protox's well-known types) are marked external.
pub fn normalize(
    pool: &DescriptorPool,
    own: &HashMap<String, (String, Arc<FileDocs>)>,
    memo: &mut Memo,
) -> Schema {
    let mut schema = Schema::default();
    for file in pool.files() {
        let external = !own.contains_key(file.name());
        if let Some((_, docs)) = own.get(file.name()) {
            schema.docs.insert(file.name().to_string(), docs.clone());
        }
        let mut ctx = Ctx {
            file: file.name().to_string(),
            closed: syntax_of(&file) == "proto2",
            schema: &mut schema,
        };
        ctx.file(&file, external);
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
    let blobs: HashMap<&str, &str> = own
        .iter()
        .map(|(name, (blob, _))| (name.as_str(), blob.as_str()))
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

struct Ctx<'a> {
    file: String,
    closed: bool,
    schema: &'a mut Schema,
}

impl Ctx<'_> {
    fn file(&mut self, file: &FileDescriptor, external: bool) {
        let proto = file.file_descriptor_proto();
        let public: HashSet<i32> = proto.public_dependency.iter().copied().collect();
        let options = if proto.options.is_some() {
            options_text(&file.options(), &[])
        } else {
            Options::new()
        };
        self.schema.content.files.insert(
            file.name().to_string(),
            File {
                name: file.name().to_string(),
                package: file.package_name().to_string(),
                syntax: syntax_of(file).to_string(),
                imports: proto.dependency.clone(),
                public_imports: proto
                    .dependency
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i32::try_from(*i).is_ok_and(|i| public.contains(&i)))
                    .map(|(_, d)| d.clone())
                    .collect(),
                options,
                external,
            },
        );
    }

    fn message(&mut self, m: &MessageDescriptor) {
        let proto = m.descriptor_proto();
        let mut fields = BTreeMap::new();
        for f in m.fields() {
            fields.insert(f.number(), field(&f, !self.closed));
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
            options_text(&m.options(), &["map_entry"])
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
                options,
            },
        );
        for child in m.child_messages() {
            self.message(&child);
        }
        for e in m.child_enums() {
            self.enumeration(&e);
        }
    }

    fn enumeration(&mut self, e: &EnumDescriptor) {
        let values = e
            .values()
            .map(|v| {
                let proto = v.enum_value_descriptor_proto();
                EnumValue {
                    name: v.name().to_string(),
                    number: v.number(),
                    deprecated: proto.options.as_ref().is_some_and(|o| o.deprecated()),
                    options: if proto.options.is_some() {
                        options_text(&v.options(), &["deprecated"])
                    } else {
                        Options::new()
                    },
                }
            })
            .collect();
        let proto = e.enum_descriptor_proto();
        self.schema.content.enums.insert(
            e.full_name().to_string(),
            Enum {
                full_name: e.full_name().to_string(),
                name: e.name().to_string(),
                file: self.file.clone(),
                parent: e.parent_message().map(|p| p.full_name().to_string()),
                values,
                closed: self.closed,
                reserved_ranges: e
                    .reserved_ranges()
                    .map(|r| (*r.start(), *r.end()))
                    .collect(),
                reserved_names: e.reserved_names().map(str::to_string).collect(),
                options: if proto.options.is_some() {
                    options_text(&e.options(), &[])
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
                        options_text(&m.options(), &["deprecated"])
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
                    options_text(&s.options(), &[])
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

/// `proto3` selects the packed default (prost-reflect decides packing before the options are
/// interpreted, so it misses an explicit `[packed = true]` in proto2; we read it here).
fn field(f: &FieldDescriptor, proto3: bool) -> Field {
    let proto = f.field_descriptor_proto();
    let packable = !matches!(f.kind(), Kind::Message(_) | Kind::String | Kind::Bytes);
    let packed = f.cardinality() == PCard::Repeated
        && packable
        && proto
            .options
            .as_ref()
            .and_then(|o| o.packed)
            .unwrap_or(proto3);
    let map = match f.kind() {
        Kind::Message(entry) if f.is_map() => Some((
            field_type(&entry.map_entry_key_field()),
            field_type(&entry.map_entry_value_field()),
        )),
        _ => None,
    };
    let presence = if f.is_required() {
        Presence::Required
    } else if f.supports_presence() {
        Presence::Explicit
    } else {
        Presence::Implicit
    };
    Field {
        number: f.number(),
        name: f.name().to_string(),
        json_name: f.json_name().to_string(),
        ty: field_type(f),
        cardinality: match f.cardinality() {
            PCard::Optional => Cardinality::Optional,
            PCard::Required => Cardinality::Required,
            PCard::Repeated => Cardinality::Repeated,
        },
        map,
        presence,
        oneof: f
            .containing_oneof()
            .filter(|o| !o.is_synthetic())
            .map(|o| o.name().to_string()),
        proto3_optional: proto.proto3_optional(),
        default: proto.default_value.clone(),
        packed,
        deprecated: proto.options.as_ref().is_some_and(|o| o.deprecated()),
        options: if proto.options.is_some() {
            options_text(&f.options(), &["deprecated", "packed"])
        } else {
            Options::new()
        },
    }
}

/// Set options (standard and extensions) as `name -> value text`, minus those we model.
fn options_text(options: &DynamicMessage, skip: &[&str]) -> Options {
    let mut out = Options::new();
    for (field, value) in options.fields() {
        if skip.contains(&field.name()) || field.name() == "uninterpreted_option" {
            continue;
        }
        out.insert(field.name().to_string(), value.to_string());
    }
    for (ext, value) in options.extensions() {
        out.insert(format!("({})", ext.full_name()), value.to_string());
    }
    out
}
