//! Test repositories built with the `git` command in temp dirs: sandboxed config (no user or
//! system config), pinned author, committer and dates.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Repo {
    pub dir: tempfile::TempDir,
    clock: i64,
}

impl Repo {
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = Repo {
            dir,
            clock: 1_700_000_000,
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn git(&self, args: &[&str]) -> String {
        let date = format!("{} +0000", self.clock);
        let out = Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    pub fn write(&self, path: &str, text: &str) -> &Self {
        let full = self.path().join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, text).expect("write");
        self
    }

    /// A symbolic link at `path` to `target`, as written (relative or absolute); `commit`
    /// records it as a link (mode 120000, the target as content).
    pub fn symlink(&self, path: &str, target: &str) -> &Self {
        let full = self.path().join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, full).expect("symlink");
        self
    }

    pub fn remove(&self, path: &str) -> &Self {
        std::fs::remove_file(self.path().join(path)).expect("remove");
        self
    }

    /// Commits everything, one day after the previous commit.
    /// Feeds a `git fast-import` stream: histories too large to build commit by commit.
    pub fn fast_import(&self, stream: &str) {
        use std::io::Write;
        let mut child = std::process::Command::new("git")
            .args(["fast-import", "--quiet"])
            .current_dir(self.path())
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("git fast-import");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stream.as_bytes())
            .expect("write");
        assert!(child.wait().expect("wait").success());
    }

    pub fn commit(&mut self, message: &str) -> String {
        self.clock += 86_400;
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }

    pub fn tag(&self, name: &str) -> &Self {
        self.git(&["tag", name]);
        self
    }

    pub fn annotated(&self, name: &str, message: &str) -> &Self {
        self.git(&["tag", "-a", name, "-m", message]);
        self
    }
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_protolapse"))
}

/// The on-disk cache of the binaries the tests run: never the user's. One folder under the
/// target directory, shared by the tests (warm runs must print what cold runs print); a
/// test about the cache itself passes its own with [`run_env`].
pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("protolapse-cache")
}

/// Runs the binary; returns (exit code, stdout, stderr).
pub fn run(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let dir = cache_dir();
    run_env(args, cwd, &[("PROTOLAPSE_CACHE_DIR", dir.as_os_str())])
}

/// Runs the binary with these environment variables; returns (exit code, stdout, stderr).
pub fn run_env(
    args: &[&str],
    cwd: &Path,
    vars: &[(&str, &std::ffi::OsStr)],
) -> (i32, String, String) {
    let out = Command::new(bin())
        .env("PROTOLAPSE_CACHE_DIR", cache_dir())
        .envs(vars.iter().copied())
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run protolapse");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// v1.0.0 declares `a.M`; v2.0.0 adds `b.M`: the short name `M` is unique in the older
/// version and ambiguous in the newer.
pub fn m_in_two_packages() -> Repo {
    let mut r = Repo::new();
    r.write("a.proto", &proto("a", "message M { int32 x = 1; }"));
    r.commit("one");
    r.tag("v1.0.0");
    r.write("b.proto", &proto("b", "message M { string y = 1; }"));
    r.commit("two");
    r.tag("v2.0.0");
    r
}

pub fn proto(package: &str, body: &str) -> String {
    format!("syntax = \"proto3\";\npackage {package};\n\n{body}\n")
}

/// Runs `args` with the on-disk cache in `dir`, or with `--no-cache` when None.
pub fn run_cached(args: &[&str], repo: &Path, dir: Option<&Path>) -> (i32, String, String) {
    match dir {
        Some(d) => run_env(args, repo, &[("PROTOLAPSE_CACHE_DIR", d.as_os_str())]),
        None => run_env(
            &[args, &["--no-cache"]].concat(),
            repo,
            &[] as &[(&str, &std::ffi::OsStr)],
        ),
    }
}

/// An on-disk cache entry's header: magic (16), format (4), kind (1), key (32), length (8),
/// SHA-256 of the payload (32).
pub const ENTRY_HEADER: usize = 16 + 4 + 1 + 32 + 8 + 32;

/// An entry's kind as a pack stores it (see `schema::store::entry`).
pub const KIND_SUMMARIES: u8 = 4;
pub const KIND_CHANGES: u8 = 5;

/// One entry of a cache pack: its kind and key (from the pack's index), and its bytes as
/// stored (its own header, then the payload).
#[derive(Clone)]
pub struct PackEntry {
    pub kind: u8,
    pub key: [u8; 32],
    pub bytes: Vec<u8>,
}

impl PackEntry {
    /// An entry holding `payload`, sealed as the store seals it.
    pub fn sealed(kind: u8, key: [u8; 32], payload: &[u8]) -> PackEntry {
        let mut bytes = b"protolapse-cache".to_vec();
        bytes.extend_from_slice(&protolapse::schema::store::FORMAT.to_le_bytes());
        bytes.push(kind);
        bytes.extend_from_slice(&key);
        bytes.extend_from_slice(&[0; ENTRY_HEADER - 16 - 4 - 1 - 32]);
        let mut e = PackEntry { kind, key, bytes };
        e.reseal(payload);
        e
    }

    pub fn payload(&self) -> &[u8] {
        &self.bytes[ENTRY_HEADER..]
    }

    /// Replaces the payload, sealed as the store seals it (its length and digest).
    pub fn reseal(&mut self, payload: &[u8]) {
        use sha2::{Digest, Sha256};
        let mut bytes = self.bytes[..ENTRY_HEADER - 40].to_vec();
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&Sha256::digest(payload));
        bytes.extend_from_slice(payload);
        self.bytes = bytes;
    }
}

/// A pack's index: per entry, kind (1), key (32), offset (8), length (8); its trailer:
/// index offset (8), entries (8), SHA-256 of the index (32), magic (16). See
/// `schema::store::pack`.
const PACK_SLOT: usize = 1 + 32 + 8 + 8;
const PACK_TRAILER: usize = 8 + 8 + 32 + 16;
const PACK_HEAD: usize = 16 + 4;

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

/// The packs of the cache in `dir`, each with its entries.
pub fn cache_packs(dir: &Path) -> Vec<(PathBuf, Vec<PackEntry>)> {
    let mut packs: Vec<PathBuf> = std::fs::read_dir(dir.join("entries"))
        .expect("the cache's entries")
        .flatten()
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pack"))
        .collect();
    packs.sort();
    packs
        .into_iter()
        .map(|path| {
            let b = std::fs::read(&path).unwrap();
            let trailer = b.len() - PACK_TRAILER;
            let (index_at, count) = (u64_at(&b, trailer), u64_at(&b, trailer + 8));
            let entries = (0..count)
                .map(|i| {
                    let slot = &b[index_at + i * PACK_SLOT..][..PACK_SLOT];
                    let (at, len) = (u64_at(slot, 33), u64_at(slot, 41));
                    PackEntry {
                        kind: slot[0],
                        key: slot[1..33].try_into().unwrap(),
                        bytes: b[at..at + len].to_vec(),
                    }
                })
                .collect();
            (path, entries)
        })
        .collect()
}

/// Writes the pack at `path` holding `entries` (their bytes as given), its index sealed.
pub fn write_pack(path: &Path, entries: &[PackEntry]) {
    use sha2::{Digest, Sha256};
    let mut out = b"protolapse-packs".to_vec();
    out.extend_from_slice(&protolapse::schema::store::FORMAT.to_le_bytes());
    let mut index = Vec::new();
    for e in entries {
        index.push(e.kind);
        index.extend_from_slice(&e.key);
        index.extend_from_slice(&(out.len() as u64).to_le_bytes());
        index.extend_from_slice(&(e.bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&e.bytes);
    }
    assert!(out.len() >= PACK_HEAD);
    let index_at = out.len() as u64;
    out.extend_from_slice(&index);
    out.extend_from_slice(&index_at.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&index));
    out.extend_from_slice(b"protolapse-index");
    std::fs::write(path, out).unwrap();
}

/// Rewrites every pack of the cache in `dir`, `f` changing its entries.
pub fn rewrite_packs(dir: &Path, mut f: impl FnMut(&mut PackEntry)) {
    for (path, mut entries) in cache_packs(dir) {
        entries.iter_mut().for_each(&mut f);
        write_pack(&path, &entries);
    }
}

/// The entries of one kind in the cache in `dir`.
pub fn cache_entries(dir: &Path, kind: u8) -> Vec<PackEntry> {
    cache_packs(dir)
        .into_iter()
        .flat_map(|(_, entries)| entries)
        .filter(|e| e.kind == kind)
        .collect()
}
