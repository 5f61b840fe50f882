//! Source locations and leading comments of every declaration of one file, read from the
//! parsed (not yet linked) descriptor's source info. They depend on the file's text alone,
//! so they are computed once per blob and shared by every version that has it.

use std::collections::HashMap;

use prost_types::source_code_info::Location;
use prost_types::{DescriptorProto, EnumDescriptorProto, FileDescriptorProto};

use super::model::{Doc, FileDocs};

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

struct Walk<'a> {
    file: &'a str,
    locations: HashMap<&'a [i32], &'a Location>,
    out: FileDocs,
}

impl Walk<'_> {
    fn add(&mut self, element: String, path: &[i32]) {
        if let Some(l) = self.locations.get(path) {
            let line = l
                .span
                .first()
                .and_then(|l| u32::try_from(*l).ok())
                .unwrap_or(0)
                + 1;
            let comment = l
                .leading_comments
                .as_deref()
                .unwrap_or("")
                .trim()
                .to_string();
            let trailing = l
                .trailing_comments
                .as_deref()
                .unwrap_or("")
                .trim()
                .to_string();
            self.out.insert(
                element,
                Doc {
                    file: self.file.to_string(),
                    line,
                    comment,
                    trailing,
                },
            );
        }
    }

    /// Recursion per nested message: at most `compile::bounds::MAX_DEPTH` levels, the
    /// nesting any compiled text may have.
    fn message(&mut self, scope: &str, m: &DescriptorProto, path: &mut Vec<i32>) {
        let name = join(scope, m.name());
        self.add(name.clone(), path);
        for (i, f) in m.field.iter().enumerate() {
            path.extend([MESSAGE_FIELD, i as i32]);
            self.add(join(&name, f.name()), path);
            path.truncate(path.len() - 2);
        }
        for (i, x) in m.extension.iter().enumerate() {
            path.extend([MESSAGE_EXTENSION, i as i32]);
            self.add(join(&name, x.name()), path);
            path.truncate(path.len() - 2);
        }
        for (i, o) in m.oneof_decl.iter().enumerate() {
            path.extend([MESSAGE_ONEOF, i as i32]);
            self.add(join(&name, o.name()), path);
            path.truncate(path.len() - 2);
        }
        for (i, nested) in m.nested_type.iter().enumerate() {
            path.extend([MESSAGE_NESTED, i as i32]);
            self.message(&name, nested, path);
            path.truncate(path.len() - 2);
        }
        for (i, e) in m.enum_type.iter().enumerate() {
            path.extend([MESSAGE_ENUM, i as i32]);
            self.enumeration(&name, e, path);
            path.truncate(path.len() - 2);
        }
    }

    fn enumeration(&mut self, scope: &str, e: &EnumDescriptorProto, path: &mut Vec<i32>) {
        let name = join(scope, e.name());
        self.add(name.clone(), path);
        for (i, v) in e.value.iter().enumerate() {
            path.extend([ENUM_VALUE, i as i32]);
            self.add(join(&name, v.name()), path);
            path.truncate(path.len() - 2);
        }
    }
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

/// Docs of every declaration of a parsed file.
pub fn of_file(file: &FileDescriptorProto) -> FileDocs {
    let Some(info) = &file.source_code_info else {
        return FileDocs::new();
    };
    let mut walk = Walk {
        file: file.name(),
        locations: info
            .location
            .iter()
            .map(|l| (l.path.as_slice(), l))
            .collect(),
        out: FileDocs::new(),
    };
    walk.add(file.name().to_string(), &[FILE_SYNTAX]);
    let package = file.package();
    let mut path = Vec::new();
    for (i, m) in file.message_type.iter().enumerate() {
        path.extend([FILE_MESSAGE, i as i32]);
        walk.message(package, m, &mut path);
        path.clear();
    }
    for (i, e) in file.enum_type.iter().enumerate() {
        path.extend([FILE_ENUM, i as i32]);
        walk.enumeration(package, e, &mut path);
        path.clear();
    }
    for (i, x) in file.extension.iter().enumerate() {
        walk.add(join(package, x.name()), &[FILE_EXTENSION, i as i32]);
    }
    for (i, s) in file.service.iter().enumerate() {
        let name = join(package, s.name());
        walk.add(name.clone(), &[FILE_SERVICE, i as i32]);
        for (j, m) in s.method.iter().enumerate() {
            walk.add(
                join(&name, m.name()),
                &[FILE_SERVICE, i as i32, SERVICE_METHOD, j as i32],
            );
        }
    }
    walk.out
}
