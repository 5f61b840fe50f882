//! Fingerprints: SHA-256 over a deterministic encoding of the normalized descriptors.
//!
//! The whole set: every file of the pool in topological order (imports first) with a
//! lexicographic tie-break, each encoded as its `FileDescriptorProto` with `source_code_info`
//! (field 9) removed, so comments and layout do not count, and its custom options hashed
//! apart in an order-independent way (a map's entries in any order hash the same);
//! the set's digest is SHA-256 over the files' names and digests in that order. A file's
//! digest is memoized by its closure key ([`closure_keys`]: its blob and those of its import
//! closure, what linking it depends on, and which compiler put each of those files into the
//! pool) and whether the pool has custom options, for a file whose options its set reads as
//! prost-reflect's own messages do (`canon`; its options then say the same whichever
//! `descriptor.proto` the pool holds): all its digest then depends on. So a file shared by
//! many versions is encoded once, and a version's fingerprint does not depend on which
//! versions were compiled before it or beside it.
//! A root closure: the model of each reached message, enum and service, in name order, each
//! message followed by the extensions declared for it (none: nothing added, so a closure
//! without extensions keeps the fingerprint it had before extensions were modelled).
//!
//! A fingerprint match is a hint; "unchanged" is decided by comparing content.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use super::canon::{Canon, option_fields};
use super::wire::{SOURCE_CODE_INFO, strip_fields};
use prost_reflect::DescriptorPool;
use sha2::{Digest, Sha256};

use super::model::Content;

/// File digests by the digest of what they depend on (see [`of_pool`]), shared by the sets
/// that compile side by side, each with the option fields its file holds; only a file its
/// set reads the options of as prost-reflect's messages do is held or taken (see
/// `canon`). An entry taken is a function of its key alone, so which set puts it there
/// first changes nothing.
#[derive(Default)]
pub struct Memo(Mutex<HashMap<[u8; 32], Held>>);

/// A file's digest and the option fields it holds.
type Held = ([u8; 32], Arc<[(u8, u32)]>);

impl Memo {
    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Held>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The fingerprint of a pool, with the digest of each of its files, and the files whose
/// options the set reads as prost-reflect's messages do (`canon`); `closure` holds each
/// file's closure key ([`closure_keys`]), which with whether the pool has custom options
/// keys the memo of digests.
pub fn of_pool(
    pool: &DescriptorPool,
    closure: &HashMap<String, [u8; 32]>,
    memo: &Memo,
    canon: &Canon<'_>,
) -> (String, HashMap<String, [u8; 32]>, HashSet<String>) {
    // Custom options exist only where something extends an options message.
    let custom_options = pool.all_extensions().any(|x| {
        let extended = x.containing_message();
        extended.package_name() == "google.protobuf" && extended.name().ends_with("Options")
    });
    let mut digests = HashMap::new();
    let mut canonical = HashSet::new();
    let mut deps = BTreeMap::new();
    for file in pool.files() {
        let key = closure.get(file.name()).map(|key| -> [u8; 32] {
            let mut h = Sha256::new();
            h.update(key);
            h.update([u8::from(custom_options)]);
            h.finalize().into()
        });
        let found = key.and_then(|k| memo.held().get(&k).cloned());
        let (digest, reads_alike) = match found {
            Some((digest, fields)) if canon.holds(&fields) => (digest, true),
            // Not held, or held from a set that read its options otherwise.
            _ => {
                let bytes = file.encode_to_vec();
                let fields: Arc<[(u8, u32)]> = option_fields(&bytes).into();
                let digest = file_digest(&file, bytes, custom_options);
                let reads_alike = canon.holds(&fields);
                if let Some(k) = key
                    && reads_alike
                {
                    memo.held().entry(k).or_insert((digest, fields));
                }
                (digest, reads_alike)
            }
        };
        if reads_alike {
            canonical.insert(file.name().to_string());
        }
        digests.insert(file.name().to_string(), digest);
        deps.insert(
            file.name().to_string(),
            file.dependencies().map(|d| d.name().to_string()).collect(),
        );
    }
    (of_digests(&deps, &digests), digests, canonical)
}

/// The fingerprint of a set of files from each file's imports and digest: every file in
/// topological order (imports first) with a lexicographic tie-break; SHA-256 over the
/// files' names and digests in that order. A file without a digest is left out.
pub fn of_digests(
    deps: &BTreeMap<String, Vec<String>>,
    digests: &HashMap<String, [u8; 32]>,
) -> String {
    let mut hasher = Sha256::new();
    for name in topological(deps) {
        let Some(digest) = digests.get(&name) else {
            continue;
        };
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update(digest);
    }
    hex(&hasher.finalize())
}

/// A file's digest: its descriptor without source info; where a custom option holds a map,
/// with custom options dropped (re-encoded as `prost_types`, which keeps the options protobuf
/// defines), then every element's custom options, hashed canonically. The compiler's own encoding of a custom
/// option is not canonical: a map-valued option comes out in hash-map order, a different
/// order on each run (protobuf's v36.0 fingerprints changed from one run to the next).
fn file_digest(
    file: &prost_reflect::FileDescriptor,
    bytes: Vec<u8>,
    custom_options: bool,
) -> [u8; 32] {
    use prost::Message;
    // Files protox linked carry no source info: no copy without it to make.
    let stripped = if super::wire::fields(&bytes).any(|(n, _, _)| n == SOURCE_CODE_INFO) {
        strip_fields(&bytes, &[SOURCE_CODE_INFO])
    } else {
        bytes
    };
    if !custom_options {
        return Sha256::digest(&stripped).into();
    }
    let options = element_options(file);
    // Only a map's entries come out in a varying order: other files keep their exact bytes
    // (the typed re-encoding below drops fields prost-types does not know).
    if !options
        .iter()
        .any(|(_, o)| o.extensions().any(|(_, v)| has_map(v, 0)))
    {
        return Sha256::digest(&stripped).into();
    }
    let mut h = Sha256::new();
    match prost_types::FileDescriptorProto::decode(stripped.as_slice()) {
        Ok(typed) => h.update(typed.encode_to_vec()),
        Err(_) => h.update(&stripped),
    }
    for (element, options) in options {
        let mut custom: Vec<_> = options.extensions().collect();
        if custom.is_empty() {
            continue;
        }
        custom.sort_by_key(|(ext, _)| ext.number());
        h.update(element.as_bytes());
        h.update([0]);
        for (ext, value) in custom {
            h.update(ext.full_name().as_bytes());
            h.update([0]);
            h.update(value_digest(value, 0));
        }
    }
    h.finalize().into()
}

/// Every element of a file with its options, in declaration order.
fn element_options(
    file: &prost_reflect::FileDescriptor,
) -> Vec<(String, prost_reflect::DynamicMessage)> {
    let mut out = vec![(file.name().to_string(), file.options())];
    let mut enums: Vec<prost_reflect::EnumDescriptor> = file.enums().collect();
    let mut extensions: Vec<prost_reflect::ExtensionDescriptor> = file.extensions().collect();
    let mut stack: Vec<prost_reflect::MessageDescriptor> = file.messages().collect();
    while let Some(m) = stack.pop() {
        out.push((m.full_name().to_string(), m.options()));
        out.extend(m.fields().map(|f| (f.full_name().to_string(), f.options())));
        out.extend(m.oneofs().map(|o| (o.full_name().to_string(), o.options())));
        enums.extend(m.child_enums());
        extensions.extend(m.child_extensions());
        stack.extend(m.child_messages());
    }
    for e in enums {
        out.push((e.full_name().to_string(), e.options()));
        out.extend(e.values().map(|v| (v.full_name().to_string(), v.options())));
    }
    out.extend(
        extensions
            .iter()
            .map(|x| (x.full_name().to_string(), x.options())),
    );
    for s in file.services() {
        out.push((s.full_name().to_string(), s.options()));
        out.extend(
            s.methods()
                .map(|m| (m.full_name().to_string(), m.options())),
        );
    }
    out
}

/// Whether an option value holds a map, at any depth.
fn has_map(value: &prost_reflect::Value, depth: usize) -> bool {
    use prost_reflect::Value;
    match value {
        _ if depth > MAX_VALUE_DEPTH => false,
        Value::Map(_) => true,
        Value::List(items) => items.iter().any(|v| has_map(v, depth + 1)),
        Value::Message(m) => {
            m.fields().any(|(_, v)| has_map(v, depth + 1))
                || m.extensions().any(|(_, v)| has_map(v, depth + 1))
        }
        _ => false,
    }
}

/// Deeper option values than this are not walked (the compile step bounds nesting to 64).
const MAX_VALUE_DEPTH: usize = 100;

/// A digest of an option value that does not depend on the order of a map's entries.
fn value_digest(value: &prost_reflect::Value, depth: usize) -> [u8; 32] {
    use prost_reflect::Value;
    let mut h = Sha256::new();
    match value {
        _ if depth > MAX_VALUE_DEPTH => h.update(b"deep"),
        Value::Message(m) => {
            h.update(b"m");
            let mut fields: Vec<(u32, &Value)> = m.fields().map(|(f, v)| (f.number(), v)).collect();
            fields.extend(m.extensions().map(|(x, v)| (x.number(), v)));
            fields.sort_by_key(|(n, _)| *n);
            for (n, v) in fields {
                h.update(n.to_le_bytes());
                h.update(value_digest(v, depth + 1));
            }
            for u in m.unknown_fields() {
                h.update(format!("{u:?}").as_bytes());
            }
        }
        Value::List(items) => {
            h.update(b"l");
            for v in items {
                h.update(value_digest(v, depth + 1));
            }
        }
        Value::Map(map) => {
            h.update(b"p");
            let mut entries: Vec<([u8; 32], [u8; 32])> = map
                .iter()
                .map(|(k, v)| {
                    (
                        value_digest(&Value::from(k.clone()), depth + 1),
                        value_digest(v, depth + 1),
                    )
                })
                .collect();
            entries.sort_unstable();
            for (k, v) in entries {
                h.update(k);
                h.update(v);
            }
        }
        scalar => h.update(format!("{scalar:?}").as_bytes()),
    }
    h.finalize().into()
}

/// Each file's closure key: SHA-256 over its name, its blob (none for the compiler's own
/// files, fixed for a process), which compiler put it into the pool (protox and protoc
/// describe one file differently: protoc fills in more), and the closure keys of its
/// imports in order — everything linking it depends on. A pool holds a file's imports before
/// it, so one pass in pool order computes them all; a file whose import has no key (none
/// should) gets none.
pub fn closure_keys(
    pool: &DescriptorPool,
    blobs: &HashMap<&str, &str>,
    by_protox: &HashSet<String>,
) -> HashMap<String, [u8; 32]> {
    let mut keys: HashMap<String, [u8; 32]> = HashMap::new();
    'files: for file in pool.files() {
        let name = file.name();
        let mut h = Sha256::new();
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        let blob = blobs.get(name).copied().unwrap_or_default();
        h.update((blob.len() as u64).to_le_bytes());
        h.update(blob.as_bytes());
        h.update([u8::from(by_protox.contains(name))]);
        for dep in file.dependencies() {
            let Some(k) = keys.get(dep.name()) else {
                continue 'files;
            };
            h.update(k);
        }
        keys.insert(name.to_string(), h.finalize().into());
    }
    keys
}

/// Kahn's algorithm over files and their imports, ready files taken in name order.
fn topological(files: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut pending: BTreeMap<&str, BTreeSet<String>> = files
        .iter()
        .map(|(name, imports)| {
            let deps = imports
                .iter()
                .filter(|d| files.contains_key(d.as_str()))
                .cloned()
                .collect();
            (name.as_str(), deps)
        })
        .collect();
    let mut out = Vec::with_capacity(files.len());
    while !pending.is_empty() {
        let ready: Vec<&str> = pending
            .iter()
            .filter(|(_, deps)| deps.is_empty())
            .map(|(n, _)| *n)
            .collect();
        // A cycle cannot come out of a compiled pool; take the rest in name order anyway.
        let ready = if ready.is_empty() {
            pending.keys().copied().collect()
        } else {
            ready
        };
        for name in &ready {
            pending.remove(name);
        }
        for deps in pending.values_mut() {
            for name in &ready {
                deps.remove(*name);
            }
        }
        out.extend(ready.into_iter().map(str::to_string));
    }
    out
}

/// The fingerprint of the given messages and enums of `content` (a root closure).
pub fn of_types<'a>(content: &Content, names: impl IntoIterator<Item = &'a str>) -> String {
    let names: BTreeSet<&str> = names.into_iter().collect();
    let mut hasher = Sha256::new();
    for name in names {
        let encoded = if let Some(m) = content.messages.get(name) {
            let extensions: Vec<_> = content.extensions_of(name).collect();
            serde_json::to_vec(m).and_then(|mut bytes| {
                if !extensions.is_empty() {
                    bytes.extend(serde_json::to_vec(&extensions)?);
                }
                Ok(bytes)
            })
        } else if let Some(e) = content.enums.get(name) {
            serde_json::to_vec(e)
        } else if let Some(s) = content.services.get(name) {
            serde_json::to_vec(s)
        } else {
            continue;
        };
        let Ok(encoded) = encoded else { continue };
        hasher.update((encoded.len() as u64).to_le_bytes());
        hasher.update(&encoded);
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::super::wire::strip_fields;

    #[test]
    fn strips_only_the_given_top_level_field() {
        // field 1 (len 2 "ab"), field 9 (len 1), field 2 varint 150
        let msg = [0x0a, 2, b'a', b'b', 0x4a, 1, 0xff, 0x10, 0x96, 0x01];
        assert_eq!(
            strip_fields(&msg, &[9]),
            [0x0a, 2, b'a', b'b', 0x10, 0x96, 0x01]
        );
        assert_eq!(strip_fields(&msg, &[7]), msg);
    }
}
