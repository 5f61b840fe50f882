//! Editions features, resolved: the edition's defaults (taken from protobuf itself), then the
//! `features` set on the file, each enclosing message and the element, innermost last.
//!
//! The defaults are the `FeatureSetDefaults` that Google's protoc writes with
//! `--edition_defaults_out` (`assets/editions/feature-set-defaults.binpb`, checked against
//! the vendored protoc by a test), not a hand-typed table. proto2 and proto3 files resolve
//! through the same table (their legacy defaults), so a file migrated to an edition without
//! changing behaviour resolves to the same features.

use std::sync::OnceLock;

use prost_reflect::{DynamicMessage, ReflectMessage};

/// The defaults protoc 36 writes for editions PROTO2 to 2026 (the newest it accepts).
const DEFAULTS: &[u8] = include_bytes!("../../assets/editions/feature-set-defaults.binpb");

/// `google.protobuf.Edition` numbers.
pub const EDITION_PROTO2: i32 = 998;
pub const EDITION_PROTO3: i32 = 999;

/// The six features that change what a schema means, as `google.protobuf.FeatureSet` enum
/// numbers (0 = unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features {
    /// 1 EXPLICIT, 2 IMPLICIT, 3 LEGACY_REQUIRED.
    pub field_presence: i32,
    /// 1 OPEN, 2 CLOSED.
    pub enum_type: i32,
    /// 1 PACKED, 2 EXPANDED.
    pub repeated_field_encoding: i32,
    /// 2 VERIFY, 3 NONE.
    pub utf8_validation: i32,
    /// 1 LENGTH_PREFIXED, 2 DELIMITED.
    pub message_encoding: i32,
    /// 1 ALLOW, 2 LEGACY_BEST_EFFORT.
    pub json_format: i32,
    /// Edition 2024's `default_symbol_visibility`: 1 EXPORT_ALL, 2 EXPORT_TOP_LEVEL,
    /// 3 LOCAL_ALL, 4 STRICT. A file-level, source-retention feature: read from protoc's
    /// output (run with `--retain_options`), not through prost-reflect's older descriptor.
    pub default_symbol_visibility: i32,
}

pub const EXPLICIT: i32 = 1;
pub const IMPLICIT: i32 = 2;
pub const LEGACY_REQUIRED: i32 = 3;
pub const CLOSED: i32 = 2;
pub const PACKED: i32 = 1;
pub const VERIFY: i32 = 2;
pub const DELIMITED: i32 = 2;
pub const LEGACY_BEST_EFFORT: i32 = 2;
pub const EXPORT_ALL: i32 = 1;
pub const EXPORT_TOP_LEVEL: i32 = 2;

impl Features {
    fn slots(&mut self) -> [&mut i32; 7] {
        [
            &mut self.field_presence,
            &mut self.enum_type,
            &mut self.repeated_field_encoding,
            &mut self.utf8_validation,
            &mut self.message_encoding,
            &mut self.json_format,
            &mut self.default_symbol_visibility,
        ]
    }

    /// These features with those of the `features` field of an options message on top.
    /// proto2 and proto3 files cannot set features (protoc refuses them): callers pass their
    /// options only for editions files. Read from the options' bytes, not through the pool's
    /// `descriptor.proto`: a repository's own older copy may not know `features`.
    pub fn with_options(self, options: Option<&DynamicMessage>) -> Self {
        use prost::Message as _;
        let Some(options) = options else {
            return self;
        };
        let tag = match options.descriptor().full_name() {
            "google.protobuf.FileOptions" => 50,
            "google.protobuf.MessageOptions" => 12,
            "google.protobuf.FieldOptions" => 21,
            "google.protobuf.EnumOptions" => 7,
            "google.protobuf.EnumValueOptions" => 2,
            "google.protobuf.OneofOptions" => 1,
            _ => return self,
        };
        let bytes = options.encode_to_vec();
        super::wire::fields(&bytes)
            .filter(|(number, _, _)| *number == tag)
            .filter_map(|(_, _, payload)| FeatureSetProto::decode(payload?).ok())
            .fold(self, |f, set| f.merged_proto(&set))
    }
}

/// `google.protobuf.FeatureSetDefaults` as protoc 36 writes it. prost-reflect's bundled
/// descriptor.proto predates `overridable_features` / `fixed_features`, so the three messages
/// are read with prost directly (tags from descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
struct FeatureSetDefaults {
    #[prost(message, repeated, tag = "1")]
    defaults: Vec<EditionDefault>,
    #[prost(int32, optional, tag = "5")]
    maximum_edition: Option<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct EditionDefault {
    #[prost(int32, optional, tag = "3")]
    edition: Option<i32>,
    #[prost(message, optional, tag = "4")]
    overridable_features: Option<FeatureSetProto>,
    #[prost(message, optional, tag = "5")]
    fixed_features: Option<FeatureSetProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct FeatureSetProto {
    #[prost(int32, optional, tag = "1")]
    field_presence: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    enum_type: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    repeated_field_encoding: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    utf8_validation: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    message_encoding: Option<i32>,
    #[prost(int32, optional, tag = "6")]
    json_format: Option<i32>,
    #[prost(int32, optional, tag = "8")]
    default_symbol_visibility: Option<i32>,
}

impl Features {
    pub(super) fn merged_proto(mut self, set: &FeatureSetProto) -> Self {
        let values = [
            set.field_presence,
            set.enum_type,
            set.repeated_field_encoding,
            set.utf8_validation,
            set.message_encoding,
            set.json_format,
            set.default_symbol_visibility,
        ];
        for (value, slot) in values.into_iter().zip(self.slots()) {
            if let Some(n) = value.filter(|n| *n != 0) {
                *slot = n;
            }
        }
        self
    }
}

/// The defaults per edition, oldest first, and the newest edition they cover.
struct Table {
    defaults: Vec<(i32, Features)>,
    maximum: i32,
}

fn table() -> &'static Table {
    use prost::Message as _;
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let parsed = FeatureSetDefaults::decode(DEFAULTS).unwrap_or_default();
        let mut defaults: Vec<(i32, Features)> = parsed
            .defaults
            .iter()
            .map(|d| {
                let mut f = Features::default();
                for part in [&d.fixed_features, &d.overridable_features]
                    .into_iter()
                    .flatten()
                {
                    f = f.merged_proto(part);
                }
                (d.edition.unwrap_or(0), f)
            })
            .collect();
        defaults.sort_by_key(|(e, _)| *e);
        Table {
            defaults,
            maximum: parsed.maximum_edition.unwrap_or(0),
        }
    })
}

/// The default features of `edition`, or `None` for an edition newer than the table (never a
/// guess: the caller reports the file as not judged).
pub fn defaults(edition: i32) -> Option<Features> {
    let t = table();
    if edition > t.maximum {
        return None;
    }
    t.defaults
        .iter()
        .rev()
        .find(|(e, _)| *e <= edition)
        .map(|(_, f)| *f)
}

/// The newest edition protolapse has defaults for, as text (`2024`).
pub fn newest_known() -> String {
    edition_name(table().maximum)
}

/// The year of an edition (2023 for `EDITION_2023`), for the editions protolapse has
/// defaults for.
pub fn edition_year(edition: i32) -> Option<u32> {
    match edition {
        1000 => Some(2023),
        1001 => Some(2024),
        1002 => Some(2026),
        _ => None,
    }
}

/// `2023` for 1000, `proto2` for 998, else the number.
pub fn edition_name(edition: i32) -> String {
    match edition {
        EDITION_PROTO2 => "proto2".into(),
        EDITION_PROTO3 => "proto3".into(),
        1000 => "2023".into(),
        1001 => "2024".into(),
        1002 => "2026".into(),
        9999 => "UNSTABLE".into(),
        n => format!("#{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_protoc() {
        let p2 = defaults(EDITION_PROTO2).unwrap();
        let p3 = defaults(EDITION_PROTO3).unwrap();
        let e23 = defaults(1000).unwrap();
        assert_eq!(
            (p2.field_presence, p2.enum_type, p2.utf8_validation),
            (EXPLICIT, CLOSED, 3)
        );
        assert_eq!(
            (p3.field_presence, p3.enum_type, p3.repeated_field_encoding),
            (IMPLICIT, 1, PACKED)
        );
        assert_eq!((e23.field_presence, e23.enum_type), (EXPLICIT, 1));
        assert_eq!(e23.json_format, 1);
        assert_eq!(e23.default_symbol_visibility, EXPORT_ALL);
        assert_eq!(
            defaults(1001).unwrap().default_symbol_visibility,
            EXPORT_TOP_LEVEL
        );
        assert!(defaults(1001).is_some());
        let (e24, e26) = (defaults(1001).unwrap(), defaults(1002).unwrap());
        assert_eq!(
            (e26.field_presence, e26.enum_type, e26.utf8_validation),
            (e24.field_presence, e24.enum_type, e24.utf8_validation)
        );
        assert_eq!(e26.default_symbol_visibility, 4, "2026 is STRICT");
        assert_eq!(defaults(9999), None, "UNSTABLE is past the table");
    }
}
