//! A pool that is safe to read after files failed to join it.
//!
//! prost-reflect 0.16 undoes a file that fails to join a pool (a link error in protox, a
//! protoc descriptor that does not load), but leaves that file's extensions in the lists of
//! the messages they extend (its rollback compares extension indices with the message
//! count). Reading the options of anything those messages describe then indexes past the
//! pool's extensions and panics: one file extending `google.protobuf.FieldOptions` with a
//! typo in it took every command down. (The same comparison drops valid extensions when the
//! pool has more extensions than messages: their options would silently go unread.) A pool
//! whose extension lists do not add up is built again from its own files, which all joined
//! it once.

use std::collections::HashMap;

use prost_reflect::DescriptorPool;

use super::super::diagnostic::Diagnostic;

/// Every extension appears in exactly one message's list, its extendee's: each list is as
/// long as the extensions of that message exactly when no rolled-back file left one over
/// (or, with the rollback's other mistake, took a valid one away).
fn consistent(pool: &DescriptorPool) -> bool {
    let mut expected: HashMap<String, usize> = HashMap::new();
    for e in pool.all_extensions() {
        *expected
            .entry(e.containing_message().full_name().to_string())
            .or_default() += 1;
    }
    pool.all_messages().all(|m| {
        // Only the list's length is read: an entry may index past the pool's extensions.
        m.extensions().len() == expected.get(m.full_name()).copied().unwrap_or(0)
    })
}

/// `pool`, or the same files in a fresh pool when a rollback left it unsound; an empty pool,
/// with a diagnostic that says why, when it cannot be rebuilt (nothing of it may be read).
pub(super) fn sound(pool: DescriptorPool, diagnostics: &mut Vec<Diagnostic>) -> DescriptorPool {
    if consistent(&pool) {
        return pool;
    }
    // The encoding keeps every option as it was set (custom ones included).
    let why = match DescriptorPool::decode(pool.encode_to_vec().as_slice()) {
        Ok(rebuilt) if consistent(&rebuilt) => return rebuilt,
        Ok(_) => "they are not consistent".to_string(),
        Err(e) => e.to_string(),
    };
    diagnostics.push(Diagnostic {
        file: String::new(),
        line: 0,
        column: 0,
        message: format!(
            "nothing of this version is read: its compiled files could not be gathered again \
             after a file failed ({why}; please report this)"
        ),
    });
    DescriptorPool::new()
}

#[cfg(test)]
mod tests {
    use super::super::{Cache, Origin, SourceRef, Status};

    /// `a.proto` declares `n` extensions of FieldOptions and sets the last on a field; `b.proto`
    /// fails to link after its own extension of FieldOptions joined the pool.
    fn last_option_after_a_rollback(n: usize) -> Option<String> {
        let src = |path, text| SourceRef {
            path,
            blob: path,
            text: Ok(text),
            origin: Origin::Root,
        };
        let head = "syntax = \"proto2\";\nimport \"google/protobuf/descriptor.proto\";\n";
        let exts: String = (0..n)
            .map(|i| format!("optional int32 x{i} = {};\n", 50_001 + i))
            .collect();
        let last = n - 1;
        let a = format!(
            "{head}package a;\nextend google.protobuf.FieldOptions {{ {exts} }}\n\
             message A {{ optional int32 f = 1 [(x{last}) = 7]; }}\n"
        );
        let b = format!(
            "{head}package b;\nextend google.protobuf.FieldOptions {{ optional int32 bx = 40000; }}\n\
             message B {{ optional Unknown u = 1; }}\n"
        );
        let out = Cache::new().compile(&[src("a.proto", &a), src("b.proto", &b)]);
        assert_eq!(out.status, Status::Partial, "{:?}", out.diagnostics);
        assert_eq!(out.diagnostics.len(), 1, "{:?}", out.diagnostics);
        let f = &out.schema.content.messages["a.A"].fields[&1];
        f.options.get(&format!("(a.x{last})")).cloned()
    }

    #[test]
    fn a_rolled_back_extension_leaves_custom_options_readable() {
        // Fewer extensions than messages: b's was left listed (a panic when read).
        assert_eq!(last_option_after_a_rollback(1).as_deref(), Some("7"));
        // More extensions than messages: a's later ones were dropped (silently unread).
        assert_eq!(last_option_after_a_rollback(100).as_deref(), Some("7"));
    }
}
