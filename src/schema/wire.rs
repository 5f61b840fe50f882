//! The protobuf wire format at its plainest: walking the top-level fields of an encoded
//! message, to drop or pick fields of descriptors without decoding them (source info for
//! fingerprints; `syntax` and `edition` of protoc's editions descriptors).

/// Field numbers of `FileDescriptorSet.file` and of `FileDescriptorProto` (descriptor.proto).
pub const FILE: u64 = 1;
pub const SOURCE_CODE_INFO: u64 = 9;
pub const SYNTAX: u64 = 12;
pub const EDITION: u64 = 14;

/// The top-level fields of `bytes`: (field number, the whole field's bytes, its payload for a
/// length-delimited field). Stops at the first malformed field.
pub fn fields(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8], Option<&[u8]>)> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let key = varint(bytes, &mut pos)?;
        let (len, delimited) = match key & 7 {
            0 => (varint(bytes, &mut pos).map(|_| 0)?, false),
            1 => (8, false),
            2 => (usize::try_from(varint(bytes, &mut pos)?).ok()?, true),
            5 => (4, false),
            _ => return None,
        };
        let payload_start = pos;
        let end = pos.checked_add(len).filter(|e| *e <= bytes.len())?;
        pos = end;
        Some((
            key >> 3,
            &bytes[start..end],
            delimited.then(|| &bytes[payload_start..end]),
        ))
    })
}

/// `bytes` without any top-level occurrence of the fields `numbers`. On malformed input the
/// rest is kept as it is.
pub fn strip_fields(bytes: &[u8], numbers: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut used = 0;
    for (number, whole, _) in fields(bytes) {
        used += whole.len();
        if !numbers.contains(&number) {
            out.extend_from_slice(whole);
        }
    }
    out.extend_from_slice(bytes.get(used..).unwrap_or_default());
    out
}

/// Appends a length-delimited field.
pub fn push_bytes(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
    push_varint(out, (number << 3) | 2);
    push_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_walked_and_rebuilt() {
        // field 1 "ab", field 9 (len 1), field 2 varint 150
        let msg = [0x0a, 2, b'a', b'b', 0x4a, 1, 0xff, 0x10, 0x96, 0x01];
        let got: Vec<(u64, Option<&[u8]>)> = fields(&msg).map(|(n, _, p)| (n, p)).collect();
        assert_eq!(
            got,
            [(1, Some(&b"ab"[..])), (9, Some(&[0xff][..])), (2, None)]
        );
        let mut out = strip_fields(&msg, &[1, 9]);
        push_bytes(&mut out, 12, b"proto2");
        assert_eq!(
            out,
            [
                0x10, 0x96, 0x01, 0x62, 6, b'p', b'r', b'o', b't', b'o', b'2'
            ]
        );
        // A truncated field is kept as it is.
        assert_eq!(strip_fields(&[0x0a, 9, b'a'], &[1]), [0x0a, 9, b'a']);
    }
}
