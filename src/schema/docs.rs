//! Source locations and leading comments of every declaration of one file, read from the
//! parsed (not yet linked) descriptor's source info. They depend on the file's text alone
//! (and on the compiler that read it), so they are computed once per blob and shared by
//! every version that has it; their [`source`] says so.

use std::sync::Arc;

use prost_types::source_code_info::Location;
use prost_types::{EnumDescriptorProto, FileDescriptorProto};
use sha2::{Digest, Sha256};

use super::model::{Doc, FileDocs};

/// Which compiler read a file's source info.
#[derive(Clone, Copy, Debug)]
pub enum ReadBy {
    Protox,
    /// The protoc this process runs (its identity is part of the source).
    Protoc,
}

/// What a file's docs are a function of: protolapse's build (the code below), the compiler
/// that read the file, its path (docs name their file) and its blob (equal blobs are equal
/// texts). Computed in place of hashing the docs: a few bytes, where the docs of protobuf's
/// history are megabytes of comments.
pub fn source(by: ReadBy, path: &str, blob: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(super::store::build_id());
    match by {
        ReadBy::Protox => h.update(b"protox\0"),
        ReadBy::Protoc => {
            h.update(b"protoc\0");
            h.update(super::protoc::identity());
        }
    }
    h.update((path.len() as u64).to_le_bytes());
    h.update(path.as_bytes());
    h.update(blob.as_bytes());
    h.finalize().into()
}

// Field numbers in descriptor.proto, used in source paths.
const FILE_MESSAGE: i32 = 4;
const FILE_ENUM: i32 = 5;
const FILE_SERVICE: i32 = 6;
const FILE_EXTENSION: i32 = 7;
const FILE_SYNTAX: i32 = 12;
const MESSAGE_FIELD: i32 = 2;
const MESSAGE_NESTED: i32 = 3;
const MESSAGE_ENUM: i32 = 4;
const MESSAGE_EXTENSION: i32 = 6;
const MESSAGE_ONEOF: i32 = 8;
const ENUM_VALUE: i32 = 2;
const SERVICE_METHOD: i32 = 2;

/// The doc a location gives.
fn doc(file: &Arc<str>, l: &Location) -> Doc {
    let line = l
        .span
        .first()
        .and_then(|l| u32::try_from(*l).ok())
        .unwrap_or(0)
        + 1;
    let text = |c: &Option<String>| c.as_deref().unwrap_or("").trim().into();
    Doc {
        file: file.clone(),
        line,
        comment: text(&l.leading_comments),
        trailing: text(&l.trailing_comments),
    }
}

/// The declaration a source path names (`pkg.Msg.field`, the file name for the syntax
/// statement), or None for a path that names no declaration (a name's span, an option, a
/// reserved range). A loop over nested messages: as deep as the text, which
/// `compile::bounds` keeps to `MAX_DEPTH` levels.
fn element(file: &FileDescriptorProto, path: &[i32]) -> Option<String> {
    let at = |i: &i32| usize::try_from(*i).ok();
    let package = file.package();
    match path {
        [FILE_SYNTAX] => Some(file.name().to_string()),
        [FILE_EXTENSION, i] => Some(join(package, file.extension.get(at(i)?)?.name())),
        [FILE_ENUM, i, rest @ ..] => enumeration(package, file.enum_type.get(at(i)?)?, rest),
        [FILE_SERVICE, i, rest @ ..] => {
            let s = file.service.get(at(i)?)?;
            let name = join(package, s.name());
            match rest {
                [] => Some(name),
                [SERVICE_METHOD, j] => Some(join(&name, s.method.get(at(j)?)?.name())),
                _ => None,
            }
        }
        [FILE_MESSAGE, i, rest @ ..] => {
            let mut m = file.message_type.get(at(i)?)?;
            let mut name = join(package, m.name());
            let mut rest = rest;
            loop {
                return match rest {
                    [] => Some(name),
                    [MESSAGE_FIELD, j] => Some(join(&name, m.field.get(at(j)?)?.name())),
                    [MESSAGE_EXTENSION, j] => Some(join(&name, m.extension.get(at(j)?)?.name())),
                    [MESSAGE_ONEOF, j] => Some(join(&name, m.oneof_decl.get(at(j)?)?.name())),
                    [MESSAGE_ENUM, j, r @ ..] => enumeration(&name, m.enum_type.get(at(j)?)?, r),
                    [MESSAGE_NESTED, j, r @ ..] => {
                        m = m.nested_type.get(at(j)?)?;
                        name = join(&name, m.name());
                        rest = r;
                        continue;
                    }
                    _ => None,
                };
            }
        }
        _ => None,
    }
}

fn enumeration(scope: &str, e: &EnumDescriptorProto, rest: &[i32]) -> Option<String> {
    let name = join(scope, e.name());
    match rest {
        [] => Some(name),
        [ENUM_VALUE, k] => Some(join(&name, e.value.get(usize::try_from(*k).ok()?)?.name())),
        _ => None,
    }
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

/// Docs of every declaration of a parsed file, taking its source info (which no one reads
/// after): one pass over its locations, each freed as soon as its doc is made (a table of
/// them by path was a tenth of a 10 MB file's peak). Of two locations of one path, the last
/// is kept. `source`: what the file was read from (see [`source`]).
pub fn of_file(file: &mut FileDescriptorProto, source: [u8; 32]) -> FileDocs {
    let Some(info) = file.source_code_info.take() else {
        return FileDocs::new(Some(source), Default::default());
    };
    let name: Arc<str> = file.name().into();
    // Every declaration's path has an even length, but the syntax statement's.
    let declaration = |l: &Location| l.path.len().is_multiple_of(2) || l.path == [FILE_SYNTAX];
    let mut docs = Vec::with_capacity(info.location.iter().filter(|l| declaration(l)).count());
    for l in info.location {
        if declaration(&l)
            && let Some(element) = element(file, &l.path)
        {
            docs.push((element, doc(&name, &l)));
        }
    }
    // Built in one go: the map's nodes are then full, where inserting one at a time left
    // them a third to a half empty. Of equal keys, collecting keeps the last.
    FileDocs::new(Some(source), docs.into_iter().collect())
}
