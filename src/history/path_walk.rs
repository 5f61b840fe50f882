//! Where a path leads, the one rule for a commit's tree and for the working tree: walk it a
//! name at a time, follow each symbolic link by its *text* (relative to the folder it is in,
//! as the kernel does), refuse an absolute target or a `..` above the top (the repository's
//! edge), stop after [`MAX_HOPS`] links; a submodule or `.git` is no folder to enter. The
//! caller says what a name is in a folder ([`Step`]); the walk decides where it ends.

use std::collections::VecDeque;

use git2::Oid;

use super::links::{End, MAX_HOPS};

/// What a name is in a folder (the folder given by its id in a commit, by its real path
/// for the working tree).
pub(super) enum Step {
    Dir(Oid),
    File(Oid),
    /// A symbolic link and its target, if readable.
    Link(Option<String>),
    /// Nothing, or nothing to enter or read (a submodule, a device, `.git`).
    Missing,
}

/// Where `path`, relative to the folder `base` (a real path, `` for the top), leads from
/// `top` (the top folder's id); `look(folder id, real path of the folder, name)` says what
/// a name is. Never above the top.
pub(super) fn walk(
    top: Oid,
    base: &str,
    path: &str,
    mut look: impl FnMut(Oid, &[String], &str) -> Step,
) -> End {
    if path.starts_with('/') || path.contains('\0') {
        return End::Leaves;
    }
    let mut pending: VecDeque<String> = base
        .split('/')
        .chain(path.split('/'))
        .map(str::to_string)
        .collect();
    // The real folders walked so far, with their ids (the top first).
    let mut names: Vec<String> = Vec::new();
    let mut ids: Vec<Oid> = vec![top];
    let mut hops = 0;
    while let Some(part) = pending.pop_front() {
        match part.as_str() {
            "" | "." => continue,
            ".." => {
                if names.pop().is_none() {
                    return End::Leaves;
                }
                ids.pop();
                continue;
            }
            ".git" => return End::Missing,
            _ => {}
        }
        let here = ids.last().copied().unwrap_or(top);
        match look(here, &names, &part) {
            Step::Dir(id) => {
                names.push(part);
                ids.push(id);
            }
            Step::Link(target) => {
                hops += 1;
                if hops > MAX_HOPS {
                    return End::TooManyHops;
                }
                let Some(target) = target else {
                    return End::Missing;
                };
                if target.starts_with('/') || target.contains('\0') {
                    return End::Leaves;
                }
                for part in target.split('/').rev() {
                    pending.push_front(part.to_string());
                }
            }
            Step::File(id) => {
                if pending.iter().any(|p| !p.is_empty() && p != ".") {
                    return End::Missing; // a file used as a folder
                }
                names.push(part);
                return End::File {
                    real: names.join("/"),
                    id,
                };
            }
            Step::Missing => return End::Missing,
        }
    }
    let id = ids.last().copied().unwrap_or(top);
    let real = if names.is_empty() {
        ".".to_string()
    } else {
        names.join("/")
    };
    End::Dir { real, id }
}
