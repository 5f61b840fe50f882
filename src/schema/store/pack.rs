//! A pack: entries written together, in one file. A run that compiles a history keeps a few
//! thousand entries (protobuf's 384 tags: 2,486); one file each cost a file creation and a
//! rename apiece, and, once removed by `cache clear` or eviction, slowed the next run's
//! creations down for a while (the file system scans the inodes freed recently). A run
//! writes a pack per few MiB instead.
//!
//! ```text
//! magic "protolapse-packs" (16) | format u32 LE |
//! entries, each laid out as entry.rs says (header, payload) |
//! index: per entry, kind u8 | key (32) | offset u64 LE | length u64 LE |
//! trailer: index offset u64 LE | entries u64 LE | SHA-256 of the index (32) |
//! magic "protolapse-index" (16)
//! ```
//! A pack is trusted as a whole only when its head and trailer match and its index has its
//! digest; each entry is checked again when read (its own header and digest).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::entry::{self, FORMAT, HEADER, Kind, MAX_ENTRY};

const HEAD: &[u8; 16] = b"protolapse-packs";
const TAIL: &[u8; 16] = b"protolapse-index";
const HEAD_LEN: u64 = 16 + 4;
const TRAILER: u64 = 8 + 8 + 32 + 16;
const SLOT: u64 = 1 + 32 + 8 + 8;
/// The extension of a pack's file name.
pub(super) const EXT: &str = "pack";

/// Where an entry lies in its pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slot {
    pub kind: Kind,
    pub key: [u8; 32],
    pub at: u64,
    pub len: u64,
}

/// Writes `entries` as one pack in `dir` (a temporary file renamed into place: no run ever
/// sees half a pack); returns its path and where each entry lies.
pub(super) fn write(
    dir: &Path,
    entries: &[(Kind, [u8; 32], Vec<u8>)],
) -> io::Result<(PathBuf, Vec<Slot>)> {
    let mut tmp = tempfile::Builder::new().prefix(".tmp").tempfile_in(dir)?;
    let mut slots = Vec::with_capacity(entries.len());
    let mut index = Vec::with_capacity(entries.len() * SLOT as usize);
    let digest = {
        let mut out = io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        out.write_all(HEAD)?;
        out.write_all(&FORMAT.to_le_bytes())?;
        let mut at = HEAD_LEN;
        for (kind, key, payload) in entries {
            out.write_all(&entry::header(*kind, key, payload))?;
            out.write_all(payload)?;
            let len = (HEADER + payload.len()) as u64;
            index.push(kind.byte());
            index.extend_from_slice(key);
            index.extend_from_slice(&at.to_le_bytes());
            index.extend_from_slice(&len.to_le_bytes());
            slots.push(Slot {
                kind: *kind,
                key: *key,
                at,
                len,
            });
            at += len;
        }
        let digest = Sha256::digest(&index);
        out.write_all(&index)?;
        out.write_all(&at.to_le_bytes())?;
        out.write_all(&(entries.len() as u64).to_le_bytes())?;
        out.write_all(&digest)?;
        out.write_all(TAIL)?;
        out.flush()?;
        digest
    };
    // Named by its index: two runs that wrote the same entries write the same pack.
    let name = format!("{}.{EXT}", entry::hex(&digest[..16]));
    let path = dir.join(name);
    // A pack of this name holds these very entries: another run wrote it first (where it
    // cannot be replaced while open, as on Windows, that is as good).
    if let Err(e) = tmp.persist(&path)
        && !path.is_file()
    {
        return Err(e.error);
    }
    Ok((path, slots))
}

/// Why a file is not read as a pack, or an entry not read from one.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NotOpened {
    /// A pack of another layout (another protolapse): not ours to judge.
    OtherFormat,
    /// It could not be read now (gone since it was listed, out of file handles, no
    /// permission): nothing is known about it.
    Unreadable,
    /// Truncated, corrupt or foreign.
    Unsound,
}

/// No pack we write holds more entries (a pack is a few MiB; merged ones, 64 MiB at most).
const MAX_SLOTS: u64 = 1 << 20;

/// A pack's file, opened for reading; only a regular file is opened (a named pipe would
/// block, a link lead outside the folder).
pub(super) struct Reader(File);

impl Reader {
    pub(super) fn open(path: &Path) -> Result<Reader, NotOpened> {
        let meta = std::fs::symlink_metadata(path).map_err(|_| NotOpened::Unreadable)?;
        if !meta.is_file() {
            return Err(NotOpened::Unsound);
        }
        File::open(path)
            .map(Reader)
            .map_err(|_| NotOpened::Unreadable)
    }

    /// `len` bytes from `at` (never more than an entry's largest size).
    pub(super) fn read(&mut self, at: u64, len: u64) -> Result<Vec<u8>, NotOpened> {
        let len = usize::try_from(len)
            .ok()
            .filter(|l| *l as u64 <= MAX_ENTRY)
            .ok_or(NotOpened::Unsound)?;
        let mut buf = vec![0u8; len];
        let unread = |e: io::Error| match e.kind() {
            io::ErrorKind::UnexpectedEof => NotOpened::Unsound,
            _ => NotOpened::Unreadable,
        };
        self.0.seek(SeekFrom::Start(at)).map_err(unread)?;
        self.0.read_exact(&mut buf).map_err(unread)?;
        Ok(buf)
    }
}

/// The pack at `path`, opened, and where its entries lie; or why it is not read.
pub(super) fn open(path: &Path) -> Result<(Reader, Vec<Slot>), NotOpened> {
    let mut file = Reader::open(path)?;
    let len = file.0.metadata().map_err(|_| NotOpened::Unreadable)?.len();
    if len < HEAD_LEN + TRAILER {
        return Err(NotOpened::Unsound);
    }
    let head = file.read(0, HEAD_LEN)?;
    let (magic, format) = head.split_at(HEAD.len());
    if magic != HEAD {
        return Err(NotOpened::Unsound);
    }
    if format != FORMAT.to_le_bytes() {
        return Err(NotOpened::OtherFormat);
    }
    let trailer = file.read(len - TRAILER, TRAILER)?;
    let slots = index(&mut file, len, &trailer).ok_or(NotOpened::Unsound)?;
    Ok((file, slots))
}

/// The index a pack's trailer describes, checked.
fn index(file: &mut Reader, len: u64, trailer: &[u8]) -> Option<Vec<Slot>> {
    let (index_at, rest) = trailer.split_first_chunk::<8>()?;
    let (count, rest) = rest.split_first_chunk::<8>()?;
    let (digest, magic) = rest.split_first_chunk::<32>()?;
    let (index_at, count) = (u64::from_le_bytes(*index_at), u64::from_le_bytes(*count));
    let index_len = count.checked_mul(SLOT)?;
    let fits = index_at >= HEAD_LEN && index_at.checked_add(index_len)? == len - TRAILER;
    if magic != TAIL || !fits || count > MAX_SLOTS {
        return None;
    }
    let index = file.read(index_at, index_len).ok()?;
    if Sha256::digest(&index).as_slice() != digest {
        return None;
    }
    index
        .chunks_exact(SLOT as usize)
        .map(|s| {
            let (kind, rest) = s.split_first()?;
            let (key, rest) = rest.split_first_chunk::<32>()?;
            let (at, rest) = rest.split_first_chunk::<8>()?;
            let (l, _) = rest.split_first_chunk::<8>()?;
            let (at, l) = (u64::from_le_bytes(*at), u64::from_le_bytes(*l));
            let inside = at >= HEAD_LEN && at.checked_add(l)? <= index_at;
            (inside && l >= HEADER as u64 && l <= MAX_ENTRY).then_some(Slot {
                kind: Kind::of_byte(*kind)?,
                key: *key,
                at,
                len: l,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> Vec<(Kind, [u8; 32], Vec<u8>)> {
        vec![
            (Kind::Part, [1; 32], b"first".to_vec()),
            (Kind::Changes, [2; 32], Vec::new()),
            (Kind::Record, [3; 32], vec![9; 5000]),
        ]
    }

    #[test]
    fn a_pack_reads_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let (path, slots) = write(dir.path(), &entries()).unwrap();
        let (mut file, read) = open(&path).unwrap();
        assert_eq!(read, slots);
        for (slot, (kind, key, payload)) in read.iter().zip(entries()) {
            let bytes = file.read(slot.at, slot.len).unwrap();
            let opened = entry::open(bytes, kind, &key).map(|p| p.to_vec());
            assert_eq!(opened, Some(payload));
        }
    }

    /// A pack cut anywhere, with any byte of its head, index or trailer changed, or of
    /// another format, is not opened.
    #[test]
    fn a_damaged_pack_is_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let (path, slots) = write(dir.path(), &entries()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let spoiled = dir.path().join("spoiled.pack");
        let index_at = slots.last().map_or(0, |s| s.at + s.len) as usize;
        for cut in 0..bytes.len() {
            std::fs::write(&spoiled, &bytes[..cut]).unwrap();
            assert_eq!(
                open(&spoiled).err(),
                Some(NotOpened::Unsound),
                "cut at {cut}"
            );
        }
        let framing = (0..HEAD_LEN as usize).chain(index_at..bytes.len());
        for at in framing {
            let mut b = bytes.clone();
            b[at] ^= 1;
            std::fs::write(&spoiled, &b).unwrap();
            let expected = match at {
                16..20 => NotOpened::OtherFormat,
                _ => NotOpened::Unsound,
            };
            assert_eq!(open(&spoiled).err(), Some(expected), "byte {at} flipped");
        }
        std::fs::write(&spoiled, b"#!/bin/sh\necho hello\n").unwrap();
        assert_eq!(open(&spoiled).err(), Some(NotOpened::Unsound));
        std::fs::remove_file(&spoiled).unwrap();
        assert_eq!(open(&spoiled).err(), Some(NotOpened::Unreadable), "gone");
        std::fs::create_dir(&spoiled).unwrap();
        assert_eq!(open(&spoiled).err(), Some(NotOpened::Unsound), "a folder");
    }
}
