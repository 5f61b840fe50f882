//! Fields and extensions: type, cardinality, presence, packing, UTF-8 and delimited
//! encoding, from prost-reflect's descriptors and the resolved editions features.

use std::collections::HashMap;

use prost_reflect::{
    Cardinality as PCard, DynamicMessage, ExtensionDescriptor, FieldDescriptor, Kind,
};
use prost_types::FieldDescriptorProto;

use super::super::features::{self, Features};
use super::super::model::*;
use super::{MODELLED_FIELD, file_features, options_text, own_features};

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
pub(super) fn extension(e: &ExtensionDescriptor, editions: &HashMap<String, i32>) -> Extension {
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

/// A field of a message. In an editions file, presence, cardinality (`LEGACY_REQUIRED`) and
/// encoding come from the resolved features; in proto2 and proto3 from the syntax, as
/// prost-reflect reads it.
pub(super) fn field(f: &FieldDescriptor, features: Features, editions: bool) -> Field {
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
