//! Our own schema model: plain, serializable, `Send + Sync` data that diff, rules,
//! fingerprints and the UI share. Ordered maps keep every walk deterministic.
//!
//! Content (what changes the meaning of the schema) and documentation (source locations and
//! comments) are kept apart, so that "the same content" is plain equality of [`Content`].

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

mod fields;
pub mod reads;

pub use fields::{Fields, FieldsIter};

/// A compiled and normalized version of a schema.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Schema {
    pub content: Content,
    /// Per file of the repository: source location and leading comment of every
    /// declaration, shared between versions that have the same blob (see [`Schema::doc`]).
    pub docs: BTreeMap<String, std::sync::Arc<FileDocs>>,
    /// SHA-256 (hex) over the normalized descriptor set (see `fingerprint`).
    pub fingerprint: String,
    /// The file declaring each extension, by full name (extensions are held by extendee):
    /// built the first time [`Schema::doc`] looks an extension up, since a transitive policy
    /// locates thousands of extension changes per pair.
    #[serde(skip)]
    extension_files: ExtensionFiles,
}

/// A look-up made once when first needed: not part of what a schema is (its `Debug` shows
/// nothing, so a schema prints alike whether it was looked into or not).
#[derive(Clone, Default)]
struct ExtensionFiles(std::sync::OnceLock<std::collections::HashMap<String, String>>);

impl std::fmt::Debug for ExtensionFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("..")
    }
}

/// Everything that defines the schema, without locations or comments.
#[derive(Debug, Clone, Serialize, Default, PartialEq, Eq)]
pub struct Content {
    pub files: BTreeMap<String, File>,
    /// Declarations are shared (`Arc`) between the versions whose files declare them alike
    /// (a set put together from its files' cached parts), so a version costs the maps, not
    /// a copy of every declaration, and comparing an unchanged one is a pointer compare.
    pub messages: BTreeMap<String, Arc<Message>>,
    pub enums: BTreeMap<String, Arc<Enum>>,
    pub services: BTreeMap<String, Arc<Service>>,
    /// Fields declared in `extend` blocks: extended message -> number -> extension. A pool
    /// holds at most one extension per (extendee, number).
    pub extensions: BTreeMap<String, BTreeMap<u32, Arc<Extension>>>,
}

impl Content {
    /// The message with this full name (its shared declaration, borrowed).
    pub fn message(&self, name: &str) -> Option<&Message> {
        self.messages.get(name).map(Arc::as_ref)
    }

    /// The enum with this full name.
    pub fn enum_(&self, name: &str) -> Option<&Enum> {
        self.enums.get(name).map(Arc::as_ref)
    }

    /// The service with this full name.
    pub fn service(&self, name: &str) -> Option<&Service> {
        self.services.get(name).map(Arc::as_ref)
    }

    /// The extensions of message `extendee`, by number.
    pub fn extensions_of(&self, extendee: &str) -> impl Iterator<Item = &Extension> {
        self.extensions
            .get(extendee)
            .into_iter()
            .flat_map(|m| m.values().map(Arc::as_ref))
    }

    /// Every extension, by extendee then number.
    pub fn all_extensions(&self) -> impl Iterator<Item = &Extension> {
        self.extensions
            .values()
            .flat_map(|m| m.values().map(Arc::as_ref))
    }

    /// The extension with this full name (a scan: extensions are indexed by extendee).
    pub fn extension(&self, full_name: &str) -> Option<&Extension> {
        self.all_extensions().find(|e| e.full_name == full_name)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, Eq)]
pub struct Doc {
    pub file: std::sync::Arc<str>,
    /// 1-based line of the declaration.
    pub line: u32,
    /// The leading comment, trimmed; empty if none.
    pub comment: Box<str>,
    /// The trailing comment (on the declaration's line or just below), trimmed; empty if
    /// none. Not compared by COMMENT_CHANGED; read for `protolapse:ignore` directives.
    pub trailing: Box<str>,
}

/// The docs of one file: element name (`pkg.Msg`, `pkg.Msg.field`, `pkg.Enum.VALUE`,
/// `pkg.Svc.Method`, an extension's full name `pkg.ext` or `pkg.Msg.ext`, or the file name
/// for the file itself) -> its doc, read as a map; and what they were read from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDocs {
    source: Option<[u8; 32]>,
    by_element: BTreeMap<String, Doc>,
}

impl FileDocs {
    /// The docs `by_element`, read from `source` (see [`FileDocs::source`]): only where
    /// they are read, so that one source never names two different docs.
    pub(crate) fn new(source: Option<[u8; 32]>, by_element: BTreeMap<String, Doc>) -> Self {
        FileDocs { source, by_element }
    }

    /// What the docs are a function of, when known: SHA-256 over protolapse's build, the
    /// compiler that read the file, its path and its blob (`docs::source`). Docs of one
    /// source are equal, so a key can take the source for the docs (`judge`'s stored change
    /// lists) instead of hashing every comment.
    pub fn source(&self) -> Option<[u8; 32]> {
        self.source
    }
}

impl std::ops::Deref for FileDocs {
    type Target = BTreeMap<String, Doc>;

    fn deref(&self) -> &Self::Target {
        &self.by_element
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct File {
    pub name: String,
    pub package: String,
    /// `proto2`, `proto3`, or `edition 2023` / `edition 2024` for an editions file (text).
    pub syntax: String,
    /// The edition of an editions file, as its year (2023, 2024, 2026); None for proto2 and
    /// proto3. What code decides on; `syntax` is what people read.
    pub edition: Option<u32>,
    pub imports: Vec<String>,
    pub public_imports: Vec<String>,
    pub options: Options,
    /// True for files that are not judged in whole-schema scope: every origin but
    /// [`Origin::Root`]. A type in them that a root reaches is still compared.
    pub external: bool,
    /// Where the file came from.
    pub origin: Origin,
}

pub use crate::origin::Origin;

/// Option name -> value as text (`go_package` -> `"example.com/x"`; extensions in parentheses).
pub type Options = BTreeMap<String, String>;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Message {
    pub full_name: String,
    pub name: String,
    pub file: String,
    /// The enclosing message, for nested declarations.
    pub parent: Option<String>,
    pub fields: Fields,
    pub oneofs: Vec<Oneof>,
    /// Reserved field numbers, as inclusive ranges.
    pub reserved_ranges: Vec<(u32, u32)>,
    pub reserved_names: Vec<String>,
    pub extension_ranges: Vec<(u32, u32)>,
    /// A synthetic `XxxEntry` message of a map field.
    pub map_entry: bool,
    /// `json_format = LEGACY_BEST_EFFORT` (proto2's default): JSON name conflicts are allowed.
    pub json_legacy: bool,
    /// Other files may import it: false for a `local` type of edition 2024 and later.
    pub exported: bool,
    pub options: Options,
}

impl Message {
    /// A message without fields, options or reserved parts (`name`: the last part of
    /// `full_name`), declared in `file`.
    pub fn empty(full_name: &str, file: &str) -> Message {
        Message {
            full_name: full_name.to_string(),
            name: full_name
                .rsplit('.')
                .next()
                .unwrap_or(full_name)
                .to_string(),
            file: file.to_string(),
            parent: None,
            fields: Fields::default(),
            oneofs: Vec::new(),
            reserved_ranges: Vec::new(),
            reserved_names: Vec::new(),
            extension_ranges: Vec::new(),
            map_entry: false,
            json_legacy: false,
            exported: true,
            options: Options::default(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Oneof {
    pub name: String,
    /// Field numbers, in declaration order.
    pub fields: Vec<u32>,
    /// The hidden oneof of a proto3 `optional` field.
    pub synthetic: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
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
    /// A string field (or a map with a string key or value) whose parsers reject invalid
    /// UTF-8: proto3's and editions' default (`utf8_validation = VERIFY`), not proto2's.
    pub utf8_verified: bool,
    pub deprecated: bool,
    pub options: Options,
}

/// A field declared in an `extend` block: it lives in the number space of the message it
/// extends (inside one of that message's extension ranges) but is declared elsewhere, at file
/// level or inside a message, often in another file or package. On the wire it is a field
/// like any other; in ProtoJSON its key is its full name in brackets, `"[pkg.name]"`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Extension {
    /// `pkg.name`, or `pkg.Scope.name` when declared inside message `pkg.Scope`.
    pub full_name: String,
    /// The extended message (`pkg.Extendable`, `google.protobuf.FieldOptions`).
    pub extendee: String,
    /// The message the extension is declared in; None when declared at file level.
    pub scope: Option<String>,
    /// The file that declares it.
    pub file: String,
    /// Number, short name, type, cardinality, presence (always explicit for a singular
    /// extension), packed, default, deprecated and options, as for a field; `json_name` is
    /// the ProtoJSON key `[pkg.name]`. Never a map, never in a oneof.
    pub field: Field,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
/// In JSON `{"kind": "message", "name": "pkg.M"}`; in a binary format (the on-disk cache,
/// which cannot read a tagged enum back) a plain enum.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Cardinality {
    Optional,
    Required,
    Repeated,
}

/// Whether "not set" can be told apart from the default value.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    /// Has a `has_` accessor: proto2 optional, proto3 `optional`, messages, oneof members.
    Explicit,
    /// proto3 singular scalars, and repeated fields.
    Implicit,
    /// proto2 `required`.
    Required,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Enum {
    pub full_name: String,
    pub name: String,
    pub file: String,
    pub parent: Option<String>,
    /// In declaration order (aliases may share a number).
    pub values: Vec<EnumValue>,
    /// Closed enums (proto2) drop unknown values into unknown fields; open ones keep them.
    pub closed: bool,
    /// `json_format = LEGACY_BEST_EFFORT` (proto2's default).
    pub json_legacy: bool,
    /// Other files may import it: false for a `local` type of edition 2024 and later.
    pub exported: bool,
    pub reserved_ranges: Vec<(i32, i32)>,
    pub reserved_names: Vec<String>,
    pub options: Options,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EnumValue {
    pub name: String,
    pub number: i32,
    pub deprecated: bool,
    pub options: Options,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Service {
    pub full_name: String,
    pub name: String,
    pub file: String,
    pub methods: BTreeMap<String, Method>,
    pub options: Options,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
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
    /// `pkg.Svc`, `pkg.Svc.Method`, an extension (`pkg.ext`, `pkg.Msg.ext`), or a file name.
    pub fn doc(&self, element: &str) -> Option<&Doc> {
        let c = &self.content;
        if c.files.contains_key(element) {
            return self.docs.get(element)?.get(element);
        }
        let file_of = |name: &str| -> Option<&str> {
            c.messages
                .get(name)
                .map(|m| m.file.as_str())
                .or_else(|| c.enums.get(name).map(|e| e.file.as_str()))
                .or_else(|| c.services.get(name).map(|s| s.file.as_str()))
        };
        // The declaration itself, or its parent (a field, value, method, or an extension
        // declared in a message); else an extension declared at file level, in one of the
        // files of its package.
        let in_file = |file: Option<&str>| self.docs.get(file?)?.get(element);
        let parent = element.rsplit_once('.').map_or("", |(p, _)| p);
        let extension_file = || {
            self.extension_files
                .0
                .get_or_init(|| {
                    c.all_extensions()
                        .map(|x| (x.full_name.clone(), x.file.clone()))
                        .collect()
                })
                .get(element)
                .map(String::as_str)
        };
        in_file(file_of(element))
            .or_else(|| in_file(file_of(parent)))
            .or_else(|| in_file(extension_file()))
            .or_else(|| {
                c.files
                    .values()
                    .filter(|f| f.package == parent)
                    .find_map(|f| in_file(Some(&f.name)))
            })
    }

    /// Files from the repository (not the well-known types protox supplies).
    pub fn own_files(&self) -> impl Iterator<Item = &File> {
        self.content.files.values().filter(|f| !f.external)
    }

    /// Messages declared in the repository's files, map entries excluded.
    pub fn own_messages(&self) -> impl Iterator<Item = &Message> {
        self.content.messages.values().map(Arc::as_ref).filter(|m| {
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
