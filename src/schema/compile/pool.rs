//! A pool that is safe to read after files failed to join it.
//!
//! prost-reflect 0.16 undoes a file that fails to join a pool (a link error in protox, a
//! protoc descriptor that does not load), but leaves that file's extensions in the lists of
//! the messages they extend (its rollback compares extension indices with the message
//! count). Reading the options of anything those messages describe then indexes past the
//! pool's extensions and panics: one file extending `google.protobuf.FieldOptions` with a
//! typo in it took every command down. A pool whose extension lists do not add up is built
//! again from its own files, which all joined it once.

use prost_reflect::DescriptorPool;

/// Every extension appears in exactly one message's list (its extendee's), so the lists add
/// up to the pool's extensions exactly when none is left over from a rolled-back file.
fn consistent(pool: &DescriptorPool) -> bool {
    let listed: usize = pool.all_messages().map(|m| m.extensions().len()).sum();
    listed == pool.all_extensions().len()
}

/// `pool`, or the same files in a fresh pool when a rollback left it unsound; the error says
/// why it could not be rebuilt (then nothing of it may be read).
pub(super) fn sound(pool: DescriptorPool) -> Result<DescriptorPool, String> {
    if consistent(&pool) {
        return Ok(pool);
    }
    // The encoding keeps every option as it was set (custom ones included).
    let rebuilt = DescriptorPool::decode(pool.encode_to_vec().as_slice())
        .map_err(|e| format!("the compiled files could not be gathered again: {e}"))?;
    if consistent(&rebuilt) {
        Ok(rebuilt)
    } else {
        Err("the compiled files could not be gathered again consistently".into())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cache, Origin, SourceRef, Status};

    #[test]
    fn a_rolled_back_extension_leaves_custom_options_readable() {
        let src = |path, text| SourceRef {
            path,
            blob: path,
            text: Ok(text),
            origin: Origin::Root,
        };
        let head = "syntax = \"proto2\";\nimport \"google/protobuf/descriptor.proto\";\n";
        let a = format!(
            "{head}package a;\nextend google.protobuf.FieldOptions {{ optional int32 ax = 50001; }}\n\
             message A {{ optional int32 f = 1 [(ax) = 7]; }}\n"
        );
        // Fails to link after its extension joined FieldOptions' list.
        let b = format!(
            "{head}package b;\nextend google.protobuf.FieldOptions {{ optional int32 bx = 50002; }}\n\
             message B {{ optional Unknown u = 1; }}\n"
        );
        let out = Cache::new().compile(&[src("a.proto", &a), src("b.proto", &b)]);
        assert_eq!(out.status, Status::Partial, "{:?}", out.diagnostics);
        let f = &out.schema.content.messages["a.A"].fields[&1];
        assert_eq!(
            f.options.get("(a.ax)").map(String::as_str),
            Some("7"),
            "{f:?}"
        );
        assert_eq!(out.diagnostics.len(), 1, "{:?}", out.diagnostics);
    }
}
