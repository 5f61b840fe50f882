//! Our own schema model: plain, serializable, `Send + Sync` data that diff, rules,
//! fingerprints and the UI share. Ordered maps keep every walk deterministic.
//!
//! Content (what changes the meaning of the schema) and documentation (source locations and
//! comments) are kept apart, so that "the same content" is plain equality of [`Content`].

use std::collections::BTreeMap;

use serde::Serialize;

/// A compiled and normalized version of a schema.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Schema {
    pub content: Content,
    /// Per file of the repository: source location and leading comment of every
    /// declaration, shared between versions that have the same blob (see [`Schema::doc`]).
    pub docs: BTreeMap<String, std::sync::Arc<super::docs::FileDocs>>,
    /// SHA-256 (hex) over the normalized descriptor set (see `fingerprint`).
    pub fingerprint: String,
}

/// Everything that defines the schema, without locations or comments.
#[derive(Debug, Clone, Serialize, Default, PartialEq, Eq)]
pub struct Content {
    pub files: BTreeMap<String, File>,
    pub messages: BTreeMap<String, Message>,
    pub enums: BTreeMap<String, Enum>,
    pub services: BTreeMap<String, Service>,
}

#[derive(Debug, Clone, Serialize, Default, PartialEq, Eq)]
pub struct Doc {
    pub file: String,
    /// 1-based line of the declaration.
    pub line: u32,
    /// The leading comment, trimmed; empty if none.
    pub comment: String,
    /// The trailing comment (on the declaration's line or just below), trimmed; empty if
    /// none. Not compared by COMMENT_CHANGED; read for `protolapse:ignore` directives.
    pub trailing: String,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct File {
    pub name: String,
    pub package: String,
    /// `proto2`, `proto3` or `editions`.
    pub syntax: String,
    pub imports: Vec<String>,
    pub public_imports: Vec<String>,
    pub options: Options,
    /// True for files that come from outside the repository (protox's well-known types).
    pub external: bool,
}

/// Option name -> value as text (`go_package` -> `"example.com/x"`; extensions in parentheses).
pub type Options = BTreeMap<String, String>;

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Message {
    pub full_name: String,
    pub name: String,
    pub file: String,
    /// The enclosing message, for nested declarations.
    pub parent: Option<String>,
    pub fields: BTreeMap<u32, Field>,
    pub oneofs: Vec<Oneof>,
    /// Reserved field numbers, as inclusive ranges.
    pub reserved_ranges: Vec<(u32, u32)>,
    pub reserved_names: Vec<String>,
    pub extension_ranges: Vec<(u32, u32)>,
    /// A synthetic `XxxEntry` message of a map field.
    pub map_entry: bool,
    pub options: Options,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Oneof {
    pub name: String,
    /// Field numbers, in declaration order.
    pub fields: Vec<u32>,
    /// The hidden oneof of a proto3 `optional` field.
    pub synthetic: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Field {
    pub number: u32,
    pub name: String,
    pub json_name: String,
    pub ty: FieldType,
    pub cardinality: Cardinality,
    /// For map fields: key and value types (then `ty` is the entry message).
    pub map: Option<(FieldType, FieldType)>,
    pub presence: Presence,
    /// The (non-synthetic) oneof this field belongs to.
    pub oneof: Option<String>,
    /// Declared with proto3 `optional`.
    pub proto3_optional: bool,
    /// The explicit default (proto2), as text.
    pub default: Option<String>,
    pub packed: bool,
    pub deprecated: bool,
    pub options: Options,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Scalar {
    Double,
    Float,
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Bool,
    String,
    Bytes,
}

impl Scalar {
    pub fn as_str(self) -> &'static str {
        match self {
            Scalar::Double => "double",
            Scalar::Float => "float",
            Scalar::Int32 => "int32",
            Scalar::Int64 => "int64",
            Scalar::Uint32 => "uint32",
            Scalar::Uint64 => "uint64",
            Scalar::Sint32 => "sint32",
            Scalar::Sint64 => "sint64",
            Scalar::Fixed32 => "fixed32",
            Scalar::Fixed64 => "fixed64",
            Scalar::Sfixed32 => "sfixed32",
            Scalar::Sfixed64 => "sfixed64",
            Scalar::Bool => "bool",
            Scalar::String => "string",
            Scalar::Bytes => "bytes",
        }
    }
}

/// A field's type, with message and enum names resolved to full names (no leading dot).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase", tag = "kind", content = "name")]
pub enum FieldType {
    Scalar(Scalar),
    Message(String),
    Enum(String),
    /// A proto2 group (a message, delimited encoding).
    Group(String),
}

impl FieldType {
    /// The referenced message or enum, if any.
    pub fn type_name(&self) -> Option<&str> {
        match self {
            FieldType::Scalar(_) => None,
            FieldType::Message(n) | FieldType::Enum(n) | FieldType::Group(n) => Some(n),
        }
    }
}

impl std::fmt::Display for FieldType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldType::Scalar(s) => f.write_str(s.as_str()),
            FieldType::Message(n) | FieldType::Enum(n) => f.write_str(n),
            FieldType::Group(n) => write!(f, "group {n}"),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Cardinality {
    Optional,
    Required,
    Repeated,
}

/// Whether "not set" can be told apart from the default value.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    /// Has a `has_` accessor: proto2 optional, proto3 `optional`, messages, oneof members.
    Explicit,
    /// proto3 singular scalars, and repeated fields.
    Implicit,
    /// proto2 `required`.
    Required,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Enum {
    pub full_name: String,
    pub name: String,
    pub file: String,
    pub parent: Option<String>,
    /// In declaration order (aliases may share a number).
    pub values: Vec<EnumValue>,
    /// Closed enums (proto2) drop unknown values into unknown fields; open ones keep them.
    pub closed: bool,
    pub reserved_ranges: Vec<(i32, i32)>,
    pub reserved_names: Vec<String>,
    pub options: Options,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct EnumValue {
    pub name: String,
    pub number: i32,
    pub deprecated: bool,
    pub options: Options,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Service {
    pub full_name: String,
    pub name: String,
    pub file: String,
    pub methods: BTreeMap<String, Method>,
    pub options: Options,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Method {
    pub name: String,
    pub input: String,
    pub output: String,
    pub client_streaming: bool,
    pub server_streaming: bool,
    pub deprecated: bool,
    pub options: Options,
}

impl Schema {
    /// The doc of an element: `pkg.Msg`, `pkg.Msg.field`, `pkg.Msg.oneof`, `pkg.Enum.VALUE`,
    /// `pkg.Svc`, `pkg.Svc.Method`, or a file name.
    pub fn doc(&self, element: &str) -> Option<&Doc> {
        let c = &self.content;
        let file_of = |name: &str| -> Option<&str> {
            c.messages
                .get(name)
                .map(|m| m.file.as_str())
                .or_else(|| c.enums.get(name).map(|e| e.file.as_str()))
                .or_else(|| c.services.get(name).map(|s| s.file.as_str()))
        };
        let file = if c.files.contains_key(element) {
            Some(element)
        } else {
            file_of(element).or_else(|| element.rsplit_once('.').and_then(|(p, _)| file_of(p)))
        }?;
        self.docs.get(file)?.get(element)
    }

    /// Files from the repository (not the well-known types protox supplies).
    pub fn own_files(&self) -> impl Iterator<Item = &File> {
        self.content.files.values().filter(|f| !f.external)
    }

    /// Messages declared in the repository's files, map entries excluded.
    pub fn own_messages(&self) -> impl Iterator<Item = &Message> {
        self.content.messages.values().filter(|m| {
            !m.map_entry && self.content.files.get(&m.file).is_some_and(|f| !f.external)
        })
    }

    /// Every message and service name (roots a user may pick).
    pub fn root_names(&self) -> Vec<&str> {
        self.own_messages()
            .map(|m| m.full_name.as_str())
            .chain(self.content.services.keys().map(String::as_str))
            .collect()
    }
}
