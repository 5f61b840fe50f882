//! One entry on disk (in a pack, `pack.rs`): a header that says what it is, then the
//! payload.
//!
//! ```text
//! magic "protolapse-cache" (16) | format u32 LE | kind u8 | key (32) | length u64 LE |
//! SHA-256 of the payload (32) | payload
//! ```
//! An entry is trusted only when every part of the header matches what was asked for and
//! the payload has exactly its length and digest.

use sha2::{Digest, Sha256};

/// The version of the entries' layout and of what they hold (the model, the keys). Bump it
/// whenever the model or the way a file is normalized changes.
pub const FORMAT: u32 = 3;

const MAGIC: &[u8; 16] = b"protolapse-cache";
pub(super) const HEADER: usize = 16 + 4 + 1 + 32 + 8 + 32;
/// No entry we write is larger (a part of a 16 MiB file is well under it): a larger file is
/// not ours.
pub const MAX_ENTRY: u64 = 1 << 30;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// What a file's key needs from its blob: its imports, and which compiler reads it.
    Record,
    /// A file's part of the model, as compiled and normalized in its import closure.
    Part,
    /// What a whole file set compiled to, when that cannot be told from its files' parts
    /// (diagnostics): the outcome and the keys of its files' parts.
    Set,
    /// What the policies need of pairs of versions (`judge::PairSummary`), by the pair's
    /// compiled contents, for one scope and one set of ignores.
    Summaries,
    /// The changes of one pair of versions (`judge`), by everything the list depends on.
    Changes,
}

impl Kind {
    pub(super) fn byte(self) -> u8 {
        match self {
            Kind::Record => 1,
            Kind::Part => 2,
            Kind::Set => 3,
            Kind::Summaries => 4,
            Kind::Changes => 5,
        }
    }

    pub(super) fn of_byte(b: u8) -> Option<Kind> {
        [
            Kind::Record,
            Kind::Part,
            Kind::Set,
            Kind::Summaries,
            Kind::Changes,
        ]
        .into_iter()
        .find(|k| k.byte() == b)
    }
}

/// The header of an entry holding `payload` (written before it: the payload, often large,
/// is never copied into one buffer with its header).
pub(super) fn header(kind: Kind, key: &[u8; 32], payload: &[u8]) -> [u8; HEADER] {
    let mut out = [0u8; HEADER];
    let fields: [&[u8]; 6] = [
        MAGIC,
        &FORMAT.to_le_bytes(),
        &[kind.byte()],
        key,
        &(payload.len() as u64).to_le_bytes(),
        &Sha256::digest(payload),
    ];
    let mut at = 0;
    for field in fields {
        out[at..at + field.len()].copy_from_slice(field);
        at += field.len();
    }
    out
}

/// An entry's payload, as read (the bytes of the entry, the payload past its header).
pub struct Payload {
    bytes: Vec<u8>,
    start: usize,
}

impl Payload {
    /// A payload held apart from any header (an entry not written yet).
    pub(super) fn bare(bytes: Vec<u8>) -> Payload {
        Payload { bytes, start: 0 }
    }
}

impl std::ops::Deref for Payload {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.bytes.get(self.start..).unwrap_or_default()
    }
}

/// The payload of an entry, when it is sound and is the entry of `kind` and `key`.
pub(super) fn open(bytes: Vec<u8>, kind: Kind, key: &[u8; 32]) -> Option<Payload> {
    let (magic, rest) = bytes.split_first_chunk::<16>()?;
    let (format, rest) = rest.split_first_chunk::<4>()?;
    let (k, rest) = rest.split_first()?;
    let (stored_key, rest) = rest.split_first_chunk::<32>()?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (digest, payload) = rest.split_first_chunk::<32>()?;
    let sound = magic == MAGIC
        && u32::from_le_bytes(*format) == FORMAT
        && *k == kind.byte()
        && stored_key == key
        && u64::from_le_bytes(*len) == payload.len() as u64
        && Sha256::digest(payload).as_slice() == digest;
    sound.then_some(Payload {
        bytes,
        start: HEADER,
    })
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seal(kind: Kind, key: &[u8; 32], payload: &[u8]) -> Vec<u8> {
        [&header(kind, key, payload)[..], payload].concat()
    }

    fn opened(bytes: &[u8], kind: Kind, key: &[u8; 32]) -> Option<Vec<u8>> {
        open(bytes.to_vec(), kind, key).map(|p| p.to_vec())
    }

    #[test]
    fn an_entry_opens_only_as_itself_and_whole() {
        let key = [7u8; 32];
        let sealed = seal(Kind::Part, &key, b"payload");
        assert_eq!(opened(&sealed, Kind::Part, &key), Some(b"payload".to_vec()));
        assert_eq!(opened(&sealed, Kind::Record, &key), None);
        assert_eq!(opened(&sealed, Kind::Part, &[8u8; 32]), None);
        for cut in 0..sealed.len() {
            assert_eq!(
                opened(&sealed[..cut], Kind::Part, &key),
                None,
                "cut at {cut}"
            );
        }
        let mut flipped = sealed.clone();
        if let Some(last) = flipped.last_mut() {
            *last ^= 1;
        }
        assert_eq!(opened(&flipped, Kind::Part, &key), None);
        let mut longer = sealed;
        longer.push(0);
        assert_eq!(opened(&longer, Kind::Part, &key), None);
        let empty = seal(Kind::Set, &key, b"");
        assert_eq!(opened(&empty, Kind::Set, &key), Some(Vec::new()));
    }
}
