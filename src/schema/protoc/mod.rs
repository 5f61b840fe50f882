//! Google's `protoc`, for what protox cannot read (editions files, and the files that import
//! them). protoc reads sources from disk only: each distinct text of a load is written once
//! to a temporary folder ([`Texts`]) — never into the repository — and a call maps each import
//! path of its unit (one file and its import closure) to its text's file (`-Ipath=file`).
//! A call makes no folder of its own: a history's hundreds of calls once created and deleted
//! thousands of files and folders, and the file system's inode allocator slowed every later
//! creation down (a fifth of a cold protobuf load's CPU, then 3% with the texts linked into
//! a folder per call). Which protoc:
//! `PROTOC` from the environment, else the one the `protoc-bin-vendored` crate ships for
//! this platform (its path is recorded at build time and checked before use).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

mod run;

use run::CALLS;
pub use run::{Failure, Texts, compile_unit};

/// The protoc to run, and the folder of its bundled `google/protobuf/*.proto`.
#[derive(Debug, Clone)]
pub struct Protoc {
    pub program: PathBuf,
    pub include: Option<PathBuf>,
    /// Where it came from (`PROTOC`, `vendored`), for `log` and `bench`.
    pub source: &'static str,
    /// Its version (`libprotoc 36.2` -> 36; `libprotoc 3.21.12` -> 3), 0 when unknown.
    pub major: u32,
}

/// The major version `protoc --version` prints (`libprotoc 36.2` -> 36), 0 when unknown.
fn major_version(program: &Path) -> u32 {
    Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            let v = text.split_whitespace().nth(1)?.to_string();
            v.split('.').next()?.parse().ok()
        })
        .unwrap_or(0)
}

/// The oldest protoc that reads `edition = "2023"`.
const EDITIONS_SINCE: u32 = 27;

/// The protoc found for this process (looked up once), or why there is none.
pub fn locate() -> Result<&'static Protoc, &'static str> {
    static FOUND: OnceLock<Result<Protoc, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| find(std::env::var_os("PROTOC").map(PathBuf::from)))
        .as_ref()
        .map_err(String::as_str)
}

/// Which protoc runs (path, version, size and time of the program), or why none does.
pub fn identity() -> &'static [u8; 32] {
    static ID: OnceLock<[u8; 32]> = OnceLock::new();
    ID.get_or_init(|| {
        let mut h = Sha256::new();
        match locate() {
            Ok(p) => {
                h.update(p.program.to_string_lossy().as_bytes());
                h.update([0]);
                h.update(p.major.to_le_bytes());
                if let Some(i) = &p.include {
                    h.update(i.to_string_lossy().as_bytes());
                }
                h.update([0]);
                if let Ok(meta) = std::fs::metadata(&p.program) {
                    crate::schema::store::stamp(&mut h, &meta);
                }
            }
            Err(why) => h.update(format!("none: {why}").as_bytes()),
        }
        h.finalize().into()
    })
}

/// Which protoc runs, as text for `bench` and `log` (`vendored protoc (path)`, or why none).
pub fn source() -> String {
    match locate() {
        Ok(p) => format!(
            "{} calls of {} protoc {}",
            CALLS.load(std::sync::atomic::Ordering::Relaxed),
            p.source,
            p.program.display()
        ),
        Err(why) => format!("no protoc: {why}"),
    }
}

fn find(from_env: Option<PathBuf>) -> Result<Protoc, String> {
    let vendored_include = Some(PathBuf::from(env!("PROTOLAPSE_VENDORED_PROTOC_INCLUDE")))
        .filter(|p| !p.as_os_str().is_empty() && p.is_dir());
    if let Some(program) = from_env.filter(|p| !p.as_os_str().is_empty()) {
        return Ok(Protoc {
            major: major_version(&program),
            program,
            include: vendored_include,
            source: "PROTOC",
        });
    }
    let vendored = PathBuf::from(env!("PROTOLAPSE_VENDORED_PROTOC"));
    if vendored.as_os_str().is_empty() {
        return Err(
            "no protoc is bundled for this platform; set PROTOC to the path of \
                    Google's protoc (version 27 or newer reads editions) to compile editions files"
                .into(),
        );
    }
    if !vendored.is_file() {
        return Err(format!(
            "the protoc bundled at build time is gone ({}; was the cargo registry cleaned?); \
             set PROTOC to the path of Google's protoc, or reinstall protolapse",
            vendored.display()
        ));
    }
    Ok(Protoc {
        major: major_version(&vendored),
        program: vendored,
        include: vendored_include,
        source: "vendored",
    })
}

#[cfg(test)]
mod defaults_tests {
    use super::*;

    /// The embedded feature defaults are exactly what the protoc we ship writes.
    #[test]
    fn embedded_defaults_are_protocs() {
        let protoc = locate().expect("the vendored protoc");
        let include = protoc.include.clone().expect("the vendored includes");
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("defaults.binpb");
        let status = Command::new(&protoc.program)
            .arg(format!("--edition_defaults_out={}", out.display()))
            .arg("--edition_defaults_minimum=PROTO2")
            .arg("--edition_defaults_maximum=2026")
            .arg(format!("-I{}", include.display()))
            .arg("google/protobuf/descriptor.proto")
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            std::fs::read(out).unwrap(),
            include_bytes!("../../../assets/editions/feature-set-defaults.binpb")
        );
    }
}
