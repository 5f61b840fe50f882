//! Compiling the `.proto` text of a version, sharing work across versions.
//!
//! Two compilers enter here, and only here. `protox` (`protox_link`) compiles in process
//! what it can read (proto2 and proto3): each distinct blob is parsed once (keyed by import
//! path and blob id), and each distinct file set is linked and normalized once (keyed by its
//! sorted (path, blob id, origin)). Files are linked one at a time into one pool: a file that
//! fails (a syntax error, a missing import, a symbol defined twice) is reported with its
//! reason and the rest of the version still loads. Google's `protoc` (`units`) compiles what
//! protox cannot read (editions files and the files that import them), by unit: one file
//! and its import closure, each distinct unit once (see [`super::protoc`]). Its descriptors
//! join the same pool.
//!
//! An import found neither in the version's files nor among the well-known types is looked
//! up in a small set of third-party protos embedded in the binary (googleapis, gogoproto,
//! protoc-gen-validate, protovalidate) — what `buf.yaml` dependencies most often name.
//!
//! Distinct file sets compile in parallel, a window of them at a time (`window`): their
//! blobs parse side by side, their protoc units run together, then each set is linked and
//! normalized on its own thread. Nothing a set gives depends on which sets compile beside
//! it or before it, so the results are those of a compile on one thread.

mod bounds;
mod compiled;
mod locate;
mod parse;
mod persist;
mod pool;
mod protox_link;
mod set;
mod shared;
#[cfg(test)]
mod tests;
mod units;
mod visibility;
mod window;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use protox::file::File;

use super::diagnostic::Diagnostic;
use super::model::{FileDocs, Origin};
use super::normalize::Memo;
use parse::{ParseKey, ParsedMap};
use units::{Unit, UnitKey};

pub use compiled::{Compiled, HowCompiled, SourceRef, Status};
pub use persist::DiskStats;

/// Time spent per phase, and how much work was shared. Parse, link and normalize add up
/// the time of every set (sets compile side by side: their sum exceeds the wall time);
/// protoc is the wall time of its phase.
#[derive(Debug, Clone, Default)]
pub struct CompileStats {
    pub parse: Duration,
    pub link: Duration,
    pub normalize: Duration,
    pub blobs_parsed: usize,
    pub sets_compiled: usize,
    pub sets_reused: usize,
    /// protoc units (a file and its import closure) compiled, reused, and the wall time of
    /// the protoc phase (units run in parallel).
    pub protoc_units: usize,
    pub protoc_reused: usize,
    /// Of the units compiled, those rejected with an import protoc rejected (its diagnostics
    /// inherited; most without a call of their own).
    pub protoc_inherited: usize,
    pub protoc: Duration,
    /// Files opened with protox (judged files of distinct sets).
    pub protox_files: usize,
    /// Declarations of a set compiled apart that were found equal to one held before and
    /// shared with it.
    pub decls_shared: usize,
    /// Files whose declarations were taken from an earlier set with the same closure, and
    /// files normalized in all (see `normalize::Memo`).
    pub files_memo: (usize, usize),
    /// The on-disk cache (all zero without it).
    pub disk: DiskStats,
}

impl CompileStats {
    /// Adds the counters and times of `other` (not the on-disk cache's, kept by the cache).
    pub fn add(&mut self, other: &CompileStats) {
        self.parse += other.parse;
        self.link += other.link;
        self.normalize += other.normalize;
        self.protoc += other.protoc;
        self.blobs_parsed += other.blobs_parsed;
        self.sets_compiled += other.sets_compiled;
        self.sets_reused += other.sets_reused;
        self.protoc_units += other.protoc_units;
        self.protoc_reused += other.protoc_reused;
        self.protoc_inherited += other.protoc_inherited;
        self.protox_files += other.protox_files;
        self.decls_shared += other.decls_shared;
    }
}

/// A blob as protox parsed it, or the imports of one it cannot read (an editions file, or
/// syntax newer than protox's parser), with protox's reason in the second case.
#[derive(Clone)]
enum Parsed {
    Protox(Arc<File>, Arc<FileDocs>),
    Protoc(Arc<Vec<String>>, Option<Diagnostic>),
}

impl Parsed {
    fn imports(&self) -> Vec<String> {
        match self {
            Parsed::Protox(f, _) => f.file_descriptor_proto().dependency.clone(),
            Parsed::Protoc(i, _) => i.as_ref().clone(),
        }
    }
}

/// A file set's identity: its sorted (path, blob, origin) — where a file came from decides
/// whether it is judged.
type SetKey = Vec<(String, String, Origin)>;

fn set_key(files: &[SourceRef<'_>]) -> SetKey {
    let mut key: SetKey = files
        .iter()
        .map(|f| (f.path.to_string(), f.blob.to_string(), f.origin))
        .collect();
    key.sort();
    key
}

/// The shared compiler: keep one for a whole history. It uses the on-disk cache when the
/// process turned it on (`store::configure`).
#[derive(Default)]
pub struct Cache {
    parsed: ParsedMap,
    sets: HashMap<SetKey, Arc<Compiled>>,
    units: HashMap<UnitKey, Unit>,
    /// What protoc rejected and compiled so far: where the next units run.
    known: units::Known,
    /// The texts protoc reads, written once for the whole history.
    texts: super::protoc::Texts,
    /// Each file's declarations and fingerprint digest, by its closure (see `normalize::Memo`).
    normalized: Memo,
    /// The declarations of the sets compiled (or read from the on-disk cache) so far,
    /// shared with the sets to come.
    shared: Arc<Mutex<shared::Shared>>,
    /// How many more versions read each planned (path, blob) (see [`Cache::plan`]): a parse
    /// no later version reads is dropped as soon as its file set is gathered.
    uses_left: HashMap<ParseKey, usize>,
    /// Windows compiled so far (the first ones are smaller: see `window`).
    windows: usize,
    /// The on-disk cache, when on.
    disk: Option<Arc<persist::Disk>>,
    pub stats: CompileStats,
}

impl Cache {
    /// Says which files each version to come will compile, in any order: a parse is then
    /// kept only while a version still to be compiled reads it (a 10 MB file's parse is a
    /// sixth of its load's peak). Without a plan every parse is kept.
    pub fn plan<'a>(&mut self, versions: impl IntoIterator<Item = &'a [SourceRef<'a>]>) {
        for files in versions {
            for f in files {
                *self.uses_left.entry(parse::key_of(f)).or_default() += 1;
            }
        }
    }

    /// Compiles a file set, or returns the result of an equal set compiled before.
    pub fn compile(&mut self, files: &[SourceRef<'_>]) -> Arc<Compiled> {
        self.compile_window(&[files])
            .pop()
            .unwrap_or_else(|| Arc::new(Compiled::internal_error("no result", files)))
    }

    /// Drops the parses of `files` that no planned version still reads. A spent blob keeps
    /// its count at zero: parsed again (a set the on-disk cache could not put together after
    /// compiling part of it is compiled whole), it is dropped again.
    fn forget_spent(&mut self, files: &[SourceRef<'_>]) {
        for f in files {
            let key = parse::key_of(f);
            if self.uses_left.get(&key) == Some(&0) {
                // What the on-disk cache keeps of a parse (its record) outlives it.
                if let (Some(Ok(p)), Some(disk)) = (self.parsed.remove(&key), self.disk.as_ref()) {
                    disk.remember(key, &p);
                }
            }
        }
    }

    /// One more version reads `files`: the parses it reads are spent one use more.
    fn spend(&mut self, files: &[SourceRef<'_>]) {
        for f in files {
            if let Some(n) = self.uses_left.get_mut(&parse::key_of(f)) {
                *n = n.saturating_sub(1);
            }
        }
    }
}
