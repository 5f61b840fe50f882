//! buf's breaking rule ids and categories, as data: what a `buf.yaml` may name, and which
//! buf rules check the same thing under other names (see `buf_breaking`).

/// buf's categories, as `use` and `except` name them.
pub(super) const CATEGORIES: &[&str] = &["FILE", "PACKAGE", "WIRE_JSON", "WIRE", "CSR"];

/// Every breaking rule id buf 1.75 knows (v1beta1, v1 and v2 configurations, deprecated ones
/// included: `buf config ls-breaking-rules --include-deprecated`), so that a typo is an
/// error, not a silent no-op.
pub(super) const BUF_RULES: &[&str] = &[
    "ENUM_NO_DELETE",
    "ENUM_SAME_JSON_FORMAT",
    "ENUM_SAME_TYPE",
    "ENUM_VALUE_NO_DELETE",
    "ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED",
    "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED",
    "ENUM_VALUE_SAME_NAME",
    "EXTENSION_MESSAGE_NO_DELETE",
    "EXTENSION_NO_DELETE",
    "FIELD_NO_DELETE",
    "FIELD_NO_DELETE_UNLESS_NAME_RESERVED",
    "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED",
    "FIELD_SAME_CARDINALITY",
    "FIELD_SAME_CPP_STRING_TYPE",
    "FIELD_SAME_CTYPE",
    "FIELD_SAME_DEFAULT",
    "FIELD_SAME_JAVA_UTF8_VALIDATION",
    "FIELD_SAME_JSON_NAME",
    "FIELD_SAME_JSTYPE",
    "FIELD_SAME_LABEL",
    "FIELD_SAME_NAME",
    "FIELD_SAME_ONEOF",
    "FIELD_SAME_TYPE",
    "FIELD_SAME_UTF8_VALIDATION",
    "FIELD_WIRE_COMPATIBLE_CARDINALITY",
    "FIELD_WIRE_COMPATIBLE_TYPE",
    "FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY",
    "FIELD_WIRE_JSON_COMPATIBLE_TYPE",
    "FILE_NO_DELETE",
    "FILE_SAME_CC_ENABLE_ARENAS",
    "FILE_SAME_CC_GENERIC_SERVICES",
    "FILE_SAME_CSHARP_NAMESPACE",
    "FILE_SAME_GO_PACKAGE",
    "FILE_SAME_JAVA_GENERIC_SERVICES",
    "FILE_SAME_JAVA_MULTIPLE_FILES",
    "FILE_SAME_JAVA_OUTER_CLASSNAME",
    "FILE_SAME_JAVA_PACKAGE",
    "FILE_SAME_JAVA_STRING_CHECK_UTF8",
    "FILE_SAME_OBJC_CLASS_PREFIX",
    "FILE_SAME_OPTIMIZE_FOR",
    "FILE_SAME_PACKAGE",
    "FILE_SAME_PHP_CLASS_PREFIX",
    "FILE_SAME_PHP_GENERIC_SERVICES",
    "FILE_SAME_PHP_METADATA_NAMESPACE",
    "FILE_SAME_PHP_NAMESPACE",
    "FILE_SAME_PY_GENERIC_SERVICES",
    "FILE_SAME_RUBY_PACKAGE",
    "FILE_SAME_SWIFT_PREFIX",
    "FILE_SAME_SYNTAX",
    "MESSAGE_NO_DELETE",
    "MESSAGE_NO_REMOVE_STANDARD_DESCRIPTOR_ACCESSOR",
    "MESSAGE_SAME_JSON_FORMAT",
    "MESSAGE_SAME_MESSAGE_SET_WIRE_FORMAT",
    "MESSAGE_SAME_REQUIRED_FIELDS",
    "ONEOF_NO_DELETE",
    "PACKAGE_ENUM_NO_DELETE",
    "PACKAGE_EXTENSION_NO_DELETE",
    "PACKAGE_MESSAGE_NO_DELETE",
    "PACKAGE_NO_DELETE",
    "PACKAGE_SERVICE_NO_DELETE",
    "RESERVED_ENUM_NO_DELETE",
    "RESERVED_MESSAGE_NO_DELETE",
    "RPC_NO_DELETE",
    "RPC_SAME_CLIENT_STREAMING",
    "RPC_SAME_IDEMPOTENCY_LEVEL",
    "RPC_SAME_REQUEST_TYPE",
    "RPC_SAME_RESPONSE_TYPE",
    "RPC_SAME_SERVER_STREAMING",
    "SERVICE_NO_DELETE",
];

/// buf rules that check the same thing under another name or category: naming one names
/// the protolapse rules whose nearest buf rule is any of its family (`FIELD_SAME_TYPE` and
/// `FIELD_WIRE_COMPATIBLE_TYPE` are both our FIELD_TYPE_CHANGED, ...).
/// (The file option rules, `FILE_SAME_GO_PACKAGE`, `FILE_SAME_JAVA_PACKAGE`..., are one family
/// too: [`file_option`] tells them from the list above.)
pub(super) const FAMILIES: &[&[&str]] = &[
    &[
        "FIELD_NO_DELETE",
        "FIELD_NO_DELETE_UNLESS_NAME_RESERVED",
        "FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED",
    ],
    &[
        "ENUM_VALUE_NO_DELETE",
        "ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED",
        "ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED",
    ],
    &[
        "FIELD_SAME_TYPE",
        "FIELD_WIRE_COMPATIBLE_TYPE",
        "FIELD_WIRE_JSON_COMPATIBLE_TYPE",
    ],
    &[
        "FIELD_SAME_CARDINALITY",
        "FIELD_SAME_LABEL",
        "FIELD_WIRE_COMPATIBLE_CARDINALITY",
        "FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY",
    ],
    &[
        "FIELD_SAME_CPP_STRING_TYPE",
        "FIELD_SAME_CTYPE",
        "FIELD_SAME_JSTYPE",
    ],
    &[
        "FIELD_SAME_UTF8_VALIDATION",
        "FIELD_SAME_JAVA_UTF8_VALIDATION",
    ],
    &[
        "MESSAGE_SAME_MESSAGE_SET_WIRE_FORMAT",
        "MESSAGE_NO_REMOVE_STANDARD_DESCRIPTOR_ACCESSOR",
    ],
    &["RPC_SAME_CLIENT_STREAMING", "RPC_SAME_SERVER_STREAMING"],
    &["MESSAGE_NO_DELETE", "PACKAGE_MESSAGE_NO_DELETE"],
    &["ENUM_NO_DELETE", "PACKAGE_ENUM_NO_DELETE"],
    &["SERVICE_NO_DELETE", "PACKAGE_SERVICE_NO_DELETE"],
    &["EXTENSION_NO_DELETE", "PACKAGE_EXTENSION_NO_DELETE"],
    &["FILE_NO_DELETE", "PACKAGE_NO_DELETE"],
];

/// A buf rule about one file option (`FILE_SAME_GO_PACKAGE`, ...): all are our
/// FILE_OPTION_CHANGED. Not the package or syntax rules, which have rules of their own.
pub(super) fn file_option(buf_id: &str) -> bool {
    buf_id.starts_with("FILE_SAME_") && !matches!(buf_id, "FILE_SAME_PACKAGE" | "FILE_SAME_SYNTAX")
}
