//! Reading a small file from a repository's working tree (`protolapse.toml`, `buf.yaml`,
//! `buf.work.yaml`, `buf.lock`, `Proto.toml`): only a regular file, inside the tree, of at
//! most [`CAP`] bytes. A committed link to `/dev/zero` or out of the repository, a FIFO or a
//! device is refused before anything is read from it (a FIFO would block, `/dev/zero` would
//! never end).

use std::io::Read;
use std::path::Path;

/// The largest configuration file read: 1 MiB.
pub const CAP: u64 = 1 << 20;

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("not found")]
    NotFound,
    #[error("not a regular file (a device, a FIFO or a folder): not read")]
    NotRegular,
    #[error("a link out of the repository: not read")]
    Outside,
    #[error("larger than {} KiB: not read", CAP / 1024)]
    TooLarge,
    #[error("{0}")]
    Io(String),
}

/// The text of `root/rel`, if it is a regular file inside `root` of at most [`CAP`] bytes.
pub fn read(root: &Path, rel: impl AsRef<Path>) -> Result<String, Refused> {
    let path = root.join(rel);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Refused::NotFound),
        Err(e) => return Err(Refused::Io(e.to_string())),
        Ok(_) => {}
    }
    let io = |e: std::io::Error| Refused::Io(e.to_string());
    // A link is followed only to a place inside the tree.
    let real = std::fs::canonicalize(&path).map_err(|_| Refused::Outside)?;
    let top = std::fs::canonicalize(root).map_err(io)?;
    if !real.starts_with(&top) {
        return Err(Refused::Outside);
    }
    let meta = std::fs::metadata(&real).map_err(io)?;
    if !meta.is_file() {
        return Err(Refused::NotRegular);
    }
    if meta.len() > CAP {
        return Err(Refused::TooLarge);
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&real)
        .map_err(io)?
        .take(CAP + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > CAP {
        return Err(Refused::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| Refused::Io("not UTF-8 text".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_small_regular_files_inside_the_tree_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("ok.toml"), "a = 1\n").unwrap();
        assert_eq!(read(root, "ok.toml").as_deref(), Ok("a = 1\n"));
        assert_eq!(read(root, "missing"), Err(Refused::NotFound));
        std::fs::write(root.join("big"), vec![b'x'; CAP as usize + 1]).unwrap();
        assert_eq!(read(root, "big"), Err(Refused::TooLarge));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/dev/zero", root.join("zero")).unwrap();
            assert_eq!(read(root, "zero"), Err(Refused::Outside));
            std::os::unix::fs::symlink("ok.toml", root.join("inside")).unwrap();
            assert_eq!(read(root, "inside").as_deref(), Ok("a = 1\n"));
            let outside = tempfile::tempdir().unwrap();
            std::fs::write(outside.path().join("secret"), "s").unwrap();
            std::os::unix::fs::symlink(outside.path().join("secret"), root.join("out")).unwrap();
            assert_eq!(read(root, "out"), Err(Refused::Outside));
            let fifo = root.join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert_eq!(read(root, "fifo"), Err(Refused::NotRegular));
            }
        }
        std::fs::create_dir(root.join("dir")).unwrap();
        assert_eq!(read(root, "dir"), Err(Refused::NotRegular));
    }
}
