//! One protoc call: the unit's texts mapped to their files ([`Texts`]), protoc run with a
//! time limit, its descriptor set read or its messages told by import path ([`Failure`]).

use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::super::diagnostic::Diagnostic;
use super::{EDITIONS_SINCE, Protoc};

/// protoc processes started by this process, for `bench`.
pub static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Import mappings longer than this in all go to protoc in a file of arguments.
const ARGS_INLINE: usize = 24 * 1024;

/// A unit that takes longer than this is stopped and reported.
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// The texts protoc reads, each written once to a temporary folder that lives as long as
/// this value (one load), as `t/HASH.proto` (a name protoc's messages show as a file's);
/// protoc runs in that folder, which holds nothing else but its outputs.
#[derive(Default)]
pub struct Texts {
    dir: OnceLock<Result<tempfile::TempDir, String>>,
    /// The file of each text, by SHA-256 of (path, text); written by whoever asks first.
    written: Mutex<HashMap<[u8; 32], TextFile>>,
}

/// Where one text was written, once, relative to the folder (or why it could not be).
type TextFile = Arc<OnceLock<Result<String, String>>>;

impl Texts {
    fn dir(&self) -> Result<&Path, String> {
        self.dir
            .get_or_init(|| {
                let dir = crate::scratch::folder(crate::scratch::Kind::Texts)
                    .map_err(|e| format!("cannot create a temporary folder for protoc: {e}"))?;
                std::fs::create_dir(dir.path().join("t"))
                    .map_err(|e| format!("cannot create a temporary folder for protoc: {e}"))?;
                Ok(dir)
            })
            .as_ref()
            .map(tempfile::TempDir::path)
            .map_err(Clone::clone)
    }

    /// The file holding `text` (the text of import path `path`), written the first time:
    /// `t/HASH.proto`, relative to the folder (protoc runs there, so no character of the
    /// folder's own path, such as a `:` in TMPDIR, reaches its import paths).
    fn file(&self, path: &str, text: &str) -> Result<String, String> {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update((path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(text.as_bytes());
        let key: [u8; 32] = h.finalize().into();
        let cell = self
            .written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(key)
            .or_default()
            .clone();
        cell.get_or_init(|| {
            let name: String = key.iter().map(|b| format!("{b:02x}")).collect();
            let name = format!("t/{name}.proto");
            std::fs::write(self.dir()?.join(&name), text)
                .map_err(|e| format!("cannot write `{path}` for protoc: {e}"))?;
            Ok(name)
        })
        .clone()
    }
}

/// Why a protoc call gave no descriptors.
#[derive(Debug, Clone)]
pub struct Failure {
    pub diagnostics: Vec<Diagnostic>,
    /// protoc read the files and rejected them, as opposed to not being run or not finishing.
    /// A file protoc rejects is rejected wherever it is imported, so its importers are too.
    pub rejected: bool,
}

impl Failure {
    /// protoc was not run on `file`, or did not finish, for `message`.
    pub fn not_run(file: &str, message: String) -> Self {
        Failure {
            diagnostics: vec![Diagnostic {
                file: file.to_string(),
                line: 0,
                column: 0,
                message,
            }],
            rejected: false,
        }
    }
}

/// Compiles `targets` with the files of their import closures (`(import path, text)`,
/// targets included) to a serialized `FileDescriptorSet` (imports included, dependencies
/// first, with source info), or the diagnostics protoc printed.
pub fn compile_unit(
    texts: &Texts,
    protoc: &Protoc,
    targets: &[&str],
    files: &[(&str, &str)],
) -> Result<Vec<u8>, Failure> {
    let target = targets.first().copied().unwrap_or("");
    let fail = |message: String| Failure::not_run(target, message);
    // Each text is read where it was written once for the load: protoc maps its import path
    // to that file (`-Ipath=file`), so a call makes no folder of its own.
    let mut cmd = Command::new(&protoc.program);
    let mut named: HashMap<String, &str> = HashMap::new();
    let mut maps: Vec<String> = Vec::with_capacity(files.len());
    for (path, text) in files {
        if safe_relative(path).is_none() {
            return Err(fail(format!(
                "import path `{path}` is not a plain relative path; protoc is not run on it"
            )));
        }
        if path.contains([':', '=', ';', '\n', '\r']) {
            return Err(fail(format!(
                "import path `{path}` holds `:`, `;`, `=` or a line break, which protoc reads \
                 as separators in its import paths; protoc is not run on it"
            )));
        }
        let file = texts.file(path, text).map_err(fail)?;
        maps.push(format!("-I{path}={file}"));
        named.insert(file, path);
    }
    let dir = texts.dir().map_err(fail)?;
    static OUTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = OUTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = Removed(dir.join(format!("out-{n}.binpb")));
    // A long list goes through a file of arguments (one per line), under any platform's
    // limit on a command line (Windows: 32 KiB).
    let _args = if maps.iter().map(|m| m.len() + 1).sum::<usize>() > ARGS_INLINE {
        let at = Removed(dir.join(format!("args-{n}.txt")));
        std::fs::write(&at.0, maps.join("\n"))
            .map_err(|e| fail(format!("cannot write protoc's arguments: {e}")))?;
        cmd.arg(format!("@args-{n}.txt"));
        Some(at)
    } else {
        cmd.args(&maps);
        None
    };
    cmd.current_dir(dir)
        .arg("--include_imports")
        .arg("--include_source_info")
        .arg(format!("--descriptor_set_out={}", out.0.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if protoc.major >= 22 || protoc.major == 0 {
        // Keep source-retention options: edition 2024's default_symbol_visibility is one.
        cmd.arg("--retain_options");
    }
    if let Some(include) = &protoc.include {
        cmd.arg(format!("-I{}", include.display()));
    }
    // protoc reads `-x` as a flag and `@x` as a file of more flags: neither is a file name.
    if let Some(bad) = targets.iter().find(|t| t.starts_with(['-', '@'])) {
        return Err(Failure::not_run(
            bad,
            "a file name starting with `-` or `@` would be read by protoc as flags; not compiled"
                .into(),
        ));
    }
    cmd.args(targets);
    CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut child = cmd.spawn().map_err(|e| {
        fail(format!(
            "cannot run protoc ({}, from {}): {e}; set PROTOC to the path of Google's protoc",
            protoc.program.display(),
            protoc.source
        ))
    })?;
    // Read stderr on a thread so a chatty protoc never blocks on a full pipe (past 1 MiB
    // it is read and dropped); its end (protoc exiting) wakes the wait at once, where a
    // poll would sleep past it: a history makes hundreds of calls.
    let mut stderr = child.stderr.take();
    let (ended, end) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.take(1 << 20).read_to_end(&mut bytes);
            let _ = std::io::copy(s, &mut std::io::sink());
        }
        let _ = ended.send(());
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let deadline = Instant::now() + TIME_LIMIT;
    let _ = end.recv_timeout(TIME_LIMIT);
    let mut nap = Duration::from_micros(100);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!(
                    "protoc took more than {} s and was stopped",
                    TIME_LIMIT.as_secs()
                ));
            }
            // Its stderr closed as it exited: the status follows within moments.
            Ok(None) => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(10));
            }
            Err(e) => break Err(format!("waiting for protoc: {e}")),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    let status = status.map_err(fail)?;
    if !status.success() {
        let mut diagnostics: Vec<Diagnostic> = stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| parse_line(l, target))
            .map(|mut d| {
                if let Some(path) = named.get(&d.file) {
                    d.file = path.to_string();
                }
                d
            })
            .collect();
        // Rejected: protoc exited and said why in a file it read (not killed, not a word on
        // its set-up, which says nothing of the files and must not pass to their importers).
        let given: std::collections::HashSet<&str> = named.values().copied().collect();
        let rejected =
            status.code().is_some() && diagnostics.iter().any(|d| given.contains(d.file.as_str()));
        if diagnostics.is_empty() {
            diagnostics = fail(format!("protoc failed ({status}) without a message")).diagnostics;
        }
        if (1..EDITIONS_SINCE).contains(&protoc.major)
            && let Some(first) = diagnostics.first_mut()
        {
            first.message.push_str(&format!(
                " (the protoc used, {} from {}, is version {}: editions need protoc {EDITIONS_SINCE} or newer; unset PROTOC to use the bundled one)",
                protoc.program.display(),
                protoc.source,
                protoc.major
            ));
        }
        return Err(Failure {
            diagnostics,
            rejected,
        });
    }
    std::fs::read(&out.0).map_err(|e| fail(format!("cannot read protoc's output: {e}")))
}

/// A file removed when dropped (protoc's output, once read or not).
struct Removed(PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `a/b.proto:12:5: message` -> a diagnostic there; anything else is the target's.
fn parse_line(line: &str, target: &str) -> Diagnostic {
    let mut parts = line.splitn(4, ':');
    if let (Some(file), Some(l), Some(c), Some(message)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
        && let (Ok(l), Ok(c)) = (l.trim().parse::<u32>(), c.trim().parse::<u32>())
    {
        return Diagnostic {
            file: file.to_string(),
            line: l,
            column: c,
            message: message.trim().to_string(),
        };
    }
    let (file, message) = match line.split_once(": ") {
        Some((f, m)) if f.ends_with(".proto") => (f.to_string(), m.to_string()),
        _ => (target.to_string(), line.to_string()),
    };
    Diagnostic {
        file,
        line: 0,
        column: 0,
        message,
    }
}

/// The path if it is relative and made of plain names only (no `..`, no root, no drive).
fn safe_relative(path: &str) -> Option<&Path> {
    let p = Path::new(path);
    (!path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::super::{find, locate};
    use super::*;

    #[test]
    fn diagnostics_keep_file_line_and_column() {
        let d = parse_line("a/b.proto:12:5: Expected \";\".", "x.proto");
        assert_eq!((d.file.as_str(), d.line, d.column), ("a/b.proto", 12, 5));
        assert_eq!(d.message, "Expected \";\".");
        let d = parse_line("c.proto: File not found.", "x.proto");
        assert_eq!((d.file.as_str(), d.line), ("c.proto", 0));
        let d = parse_line("something odd", "x.proto");
        assert_eq!(d.file, "x.proto");
    }

    #[test]
    fn only_plain_relative_paths_are_written() {
        assert!(safe_relative("a/b.proto").is_some());
        for bad in [
            "../x.proto",
            "/etc/x.proto",
            "a/../../x.proto",
            "",
            "./a.proto",
        ] {
            assert!(safe_relative(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_missing_protoc_is_named_with_the_way_out() {
        let found = find(Some(PathBuf::from("/nonexistent/protoc"))).unwrap();
        assert_eq!((found.source, found.major), ("PROTOC", 0));
        let e = compile_unit(
            &Texts::default(),
            &found,
            &["a.proto"],
            &[("a.proto", "edition = \"2023\";")],
        )
        .unwrap_err();
        assert!(e.diagnostics[0].message.contains("PROTOC"), "{e:?}");
        // Not run is not rejected: importers run on their own.
        assert!(!e.rejected);
    }

    /// Two calls that read the same texts write each once, and compile alike; another text
    /// of one path is a file of its own; the folder goes with the value.
    #[test]
    fn each_text_is_written_once_for_every_call() {
        let protoc = locate().expect("the vendored protoc");
        let a = "edition = \"2023\";\npackage p;\nimport \"b.proto\";\nmessage A { B b = 1; }\n";
        let b = "edition = \"2023\";\npackage p;\nmessage B { int32 n = 1; }\n";
        let texts = Texts::default();
        let files = [("a.proto", a), ("b.proto", b)];
        let first = compile_unit(&texts, protoc, &["a.proto"], &files).unwrap();
        let second = compile_unit(&texts, protoc, &["a.proto"], &files).unwrap();
        assert_eq!(first, second);
        let written = |t: &Texts| t.written.lock().unwrap().len();
        assert_eq!(written(&texts), 2);
        let b2 = b.replace("int32", "int64");
        let third = compile_unit(
            &texts,
            protoc,
            &["a.proto"],
            &[("a.proto", a), ("b.proto", &b2)],
        );
        assert_ne!(third.unwrap(), first);
        assert_eq!(written(&texts), 3);
        let dir = texts.dir().unwrap().to_path_buf();
        // The texts, and no output left behind.
        assert_eq!(std::fs::read_dir(dir.join("t")).unwrap().count(), 3);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        drop(texts);
        assert!(!dir.exists());
    }

    /// A unit of many files hands protoc its import paths in a file of arguments, which
    /// goes with the call; what protoc says of something other than the files it read (a
    /// target it was not given) is not a rejection of them.
    #[test]
    fn long_argument_lists_and_set_up_failures() {
        let protoc = locate().expect("the vendored protoc");
        let texts = Texts::default();
        let paths: Vec<String> = (0..300)
            .map(|i| format!("a_rather_long_folder_name_for_the_test_{i}/file_number_{i}.proto"))
            .collect();
        let bodies: Vec<String> = (0..300)
            .map(|i| format!("edition = \"2023\";\npackage p{i};\nmessage M{i} {{}}\n"))
            .collect();
        let mut files: Vec<(&str, &str)> = paths
            .iter()
            .map(String::as_str)
            .zip(bodies.iter().map(String::as_str))
            .collect();
        let imports: String = paths.iter().map(|p| format!("import \"{p}\";\n")).collect();
        let top = format!("edition = \"2023\";\npackage top;\n{imports}message Top {{}}\n");
        files.push(("top.proto", &top));
        let joined: usize = files.iter().map(|(p, _)| p.len() + 80).sum();
        assert!(joined > ARGS_INLINE);
        let set = compile_unit(&texts, protoc, &["top.proto"], &files).expect("compiles");
        assert!(set.len() > 300 * 20);
        let dir = texts.dir().unwrap().to_path_buf();
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "only t/ is left"
        );

        let e = compile_unit(&texts, protoc, &["not_given.proto"], &files[..1]).unwrap_err();
        assert!(!e.rejected, "{e:?}");
    }

    /// protoc names the files it read by where they are on disk: its diagnostics are told
    /// by import path again, with or without a line.
    #[test]
    fn diagnostics_name_import_paths_not_the_texts_files() {
        let protoc = locate().expect("the vendored protoc");
        let texts = Texts::default();
        let bad =
            "edition = \"2023\";\npackage p;\nmessage B {\n  int32 n = 1;\n  int32 m = 1;\n}\n";
        let a = "edition = \"2023\";\npackage p;\nimport \"d/b.proto\";\nmessage A { B b = 1; }\n";
        let e = compile_unit(
            &texts,
            protoc,
            &["a.proto"],
            &[("a.proto", a), ("d/b.proto", bad)],
        )
        .unwrap_err();
        assert!(e.rejected);
        let d = &e.diagnostics[0];
        assert_eq!((d.file.as_str(), d.line), ("d/b.proto", 5), "{e:?}");
        assert!(e.diagnostics.iter().any(|d| d.file == "a.proto"), "{e:?}");
        // An unknown option on a map field is reported on its entry too, without a line.
        let c = "edition = \"2023\";\npackage p;\nmessage M { map<string, string> m = 1 [features.no_such = NONE]; }\n";
        let e = compile_unit(&texts, protoc, &["c.proto"], &[("c.proto", c)]).unwrap_err();
        assert!(e.diagnostics.iter().any(|d| d.line == 0), "{e:?}");
        let dir = texts.dir().unwrap().display().to_string();
        for d in &e.diagnostics {
            assert_eq!(d.file, "c.proto", "{e:?}");
            assert!(!d.message.contains(&dir), "{e:?}");
        }
    }
}
