//! A protoc unit's output: protoc's descriptor set cut into units and rewritten for
//! prost-reflect ([`run_unit`]), and the units joined to a version's pool ([`join`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use prost::Message as _;
use prost_reflect::DescriptorPool;

use super::super::super::diagnostic::Diagnostic;
use super::super::super::docs;
use super::super::super::features;
use super::super::super::model::FileDocs;
use super::super::super::protoc::{self, Failure};
use super::super::super::wire::{self, EDITION, FILE, SOURCE_CODE_INFO, SYNTAX};
use super::super::visibility::local_symbols;
use super::{Target, Unit, UnitKey, closure};

/// The head of a `FileDescriptorProto`: enough to rewrite it and follow its imports.
#[derive(Clone, PartialEq, prost::Message)]
struct FileHead {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, repeated, tag = "3")]
    dependency: Vec<String>,
    #[prost(string, optional, tag = "12")]
    syntax: Option<String>,
    #[prost(int32, optional, tag = "14")]
    edition: Option<i32>,
}

/// One file of a protoc unit's output, rewritten for prost-reflect.
#[derive(Debug)]
pub(super) struct UnitFile {
    pub(super) name: String,
    /// A `FileDescriptorProto`, without source info; `syntax = "editions"` rewritten to
    /// proto2 (prost-reflect reads proto2 and proto3 only), the edition kept in `edition`.
    bytes: Vec<u8>,
    edition: Option<i32>,
    /// Messages and enums that edition 2024's visibility makes local (not importable).
    local: Vec<String>,
}

#[derive(Debug)]
pub(in super::super) struct UnitOut {
    /// The closure, dependencies first (shared between the units of one protoc call).
    pub(super) files: Vec<Arc<UnitFile>>,
    /// Docs of the unit's target.
    docs: Arc<FileDocs>,
}

/// What joining the units to a pool gave: the targets that joined (with their docs), and
/// the editions of the files added.
#[derive(Default)]
pub(in super::super) struct Joined {
    pub done: Vec<(String, Arc<FileDocs>)>,
    pub editions: HashMap<String, i32>,
    /// Full names of the messages and enums made local by edition 2024's visibility.
    pub local: HashSet<String>,
}

/// Adds each target's unit to `pool`; a target whose unit failed gets diagnostics.
pub(in super::super) fn join(
    pool: &mut DescriptorPool,
    units: &HashMap<UnitKey, Unit>,
    targets: &[Target<'_>],
    diagnostics: &mut Vec<Diagnostic>,
) -> Joined {
    let mut joined = Joined::default();
    for t in targets.iter().filter(|t| t.judged) {
        let Some(unit) = units.get(&t.key) else {
            continue;
        };
        match (unit.as_ref(), &t.protox_error) {
            // A file protox could not parse either: protox's reason reads better.
            (Err(_), Some(d)) => diagnostics.push(d.clone()),
            (Err(f), None) => {
                diagnostics.extend(f.diagnostics.iter().map(|d| in_target(d, t.path)));
            }
            (Ok(out), _) => match add_unit(pool, out, &mut joined.editions, &mut joined.local) {
                Ok(()) => joined.done.push((t.path.to_string(), out.docs.clone())),
                Err(d) => {
                    // An error on the file itself without a place: its edition statement.
                    let (line, column) = if d.line == 0 && d.file == t.path {
                        (t.edition_line, u32::from(t.edition_line > 0))
                    } else {
                        (d.line, d.column)
                    };
                    diagnostics.push(Diagnostic {
                        file: t.path.to_string(),
                        line,
                        column,
                        message: d.message,
                    });
                }
            },
        }
    }
    joined
}

/// A protoc diagnostic on the unit of `target`: one about an imported file says so, so that
/// it is not read as that file failing (it may well have compiled with protox).
fn in_target(d: &Diagnostic, target: &str) -> Diagnostic {
    if d.file == target || d.file.is_empty() {
        return d.clone();
    }
    let at = match d.line {
        0 => d.file.clone(),
        l => format!("{}:{l}:{}", d.file, d.column),
    };
    Diagnostic {
        file: target.to_string(),
        line: 0,
        column: 0,
        message: format!("protoc rejects its import {at}: {}", d.message),
    }
}

/// Runs protoc on `units` (with `sources`, their import closures) and rewrites its
/// output for prost-reflect; one unit per target, in the order given.
pub(super) fn run_unit(
    texts: &protoc::Texts,
    protoc: &protoc::Protoc,
    units: &[&Target<'_>],
    sources: &[(&str, &str)],
) -> Result<Vec<UnitOut>, Failure> {
    let targets: Vec<&str> = units.iter().map(|t| t.path).collect();
    let first = targets.first().copied().unwrap_or("");
    let bytes = protoc::compile_unit(texts, protoc, &targets, sources)?;
    let fail = |message: String| Failure::not_run(first, message);
    // Every file of the output once, dependencies first (protoc's order). Only the head of
    // each file is decoded; editions files get `syntax` rewritten and `edition` dropped on
    // the wire, every file loses its source info, custom options stay as they are.
    let mut all: Vec<Arc<UnitFile>> = Vec::new();
    let mut deps: HashMap<String, Vec<String>> = HashMap::new();
    let mut docs_of: HashMap<String, Arc<FileDocs>> = HashMap::new();
    for (number, _, payload) in wire::fields(&bytes) {
        let (FILE, Some(file)) = (number, payload) else {
            continue;
        };
        let head = FileHead::decode(file)
            .map_err(|e| fail(format!("cannot read protoc's descriptor set: {e}")))?;
        let name = head.name.unwrap_or_default();
        if let Some(t) = units.iter().find(|t| t.path == name)
            && let Ok(mut full) = prost_types::FileDescriptorProto::decode(file)
        {
            let source = docs::source(docs::ReadBy::Protoc, t.path, &t.key.1);
            docs_of.insert(name.clone(), Arc::new(docs::of_file(&mut full, source)));
        }
        deps.insert(name.clone(), head.dependency);
        let editions = head.syntax.as_deref() == Some("editions");
        let edition = head.edition.filter(|_| editions);
        let mut bytes = wire::strip_fields(
            file,
            if editions {
                &[SOURCE_CODE_INFO, SYNTAX, EDITION]
            } else {
                &[SOURCE_CODE_INFO]
            },
        );
        if editions {
            // prost-reflect reads proto2 and proto3 only; the features say the rest.
            wire::push_bytes(&mut bytes, SYNTAX, b"proto2");
        }
        let local = edition
            .map(|e| local_symbols(&bytes, e))
            .unwrap_or_default();
        all.push(Arc::new(UnitFile {
            name,
            bytes,
            edition,
            local,
        }));
    }
    let by_name: HashMap<&str, usize> = all
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    let mut outs = Vec::with_capacity(targets.len());
    for target in targets {
        let docs = docs_of.get(target).cloned().unwrap_or_default();
        // The target's closure, in the output's order.
        let wanted = closure(target, |p| deps.get(p));
        let mut idx: Vec<usize> = wanted
            .iter()
            .filter_map(|n| by_name.get(n.as_str()).copied())
            .collect();
        idx.sort_unstable();
        if !by_name.contains_key(target) {
            return Err(fail(format!("protoc's output lacks `{target}`")));
        }
        let files = idx
            .into_iter()
            .filter_map(|i| all.get(i).cloned())
            .collect();
        outs.push(UnitOut { files, docs });
    }
    Ok(outs)
}

/// Adds a unit's files that the pool does not have yet; an edition without known feature
/// defaults is refused (never a guessed meaning).
fn add_unit(
    pool: &mut DescriptorPool,
    out: &UnitOut,
    editions: &mut HashMap<String, i32>,
    local: &mut HashSet<String>,
) -> Result<(), Diagnostic> {
    for f in &out.files {
        if pool.get_file_by_name(&f.name).is_some() {
            continue;
        }
        if let Some(e) = f.edition
            && features::defaults(e).is_none()
        {
            return Err(Diagnostic {
                file: f.name.clone(),
                line: 0,
                column: 0,
                message: format!(
                    "edition {} is newer than the editions protolapse knows the feature \
                     defaults of (up to {}): what its fields mean on the wire cannot be told \
                     without guessing, so the file is not judged",
                    features::edition_name(e),
                    features::newest_known()
                ),
            });
        }
        pool.decode_file_descriptor_proto(f.bytes.as_slice())
            .map_err(|e| Diagnostic {
                file: f.name.clone(),
                line: 0,
                column: 0,
                message: format!("protoc's descriptor does not load: {e}"),
            })?;
        if let Some(e) = f.edition {
            editions.insert(f.name.clone(), e);
        }
        local.extend(f.local.iter().cloned());
    }
    Ok(())
}
