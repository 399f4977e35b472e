//! The height of an image codec's frame, read from its header: how many rows a strip holds, to
//! tell a short last strip from a padded one (the array-to-bytes codecs decode a frame only into a
//! chunk of its own shape).
//!
//! - WebP (50001): the RIFF `VP8 ` frame header (14-bit height), `VP8L` (14-bit height − 1) or
//!   `VP8X` canvas (24-bit height − 1); RFC 9649 sections 2.5–2.7.
//! - PNG (34933): IHDR, the first chunk (ISO/IEC 15948 section 11.2.2).
//! - JPEG 2000 (33003–33005, 34712): the codestream's SIZ marker segment, Ysiz − YOsiz (ITU-T
//!   T.800 A.5.1), bare or in a JP2 file's `jp2c` box.
//! - JPEG XL (50002, 52546): the codestream's SizeHeader and, when the image metadata transposes
//!   (orientation 5–8), its width (ISO/IEC 18181-1 sections A.2–A.3, bits LSB first), bare or
//!   in a container's `jxlc` / first `jxlp` box.
//! - JPEG XR (34934, 22610): the ImageHeight (0xBC81) entry of its TIFF-like directory (ITU-T
//!   T.832 A.5).
//! - LERC (34887): the Lerc2 header's row count (after the version and, from version 3, the
//!   checksum), also inside a zlib or ZSTD stream (LercParameters' additional compression), of
//!   which only the first bytes are decoded.
//!
//! Every parser reads within the slice it is given and returns `None` on anything unexpected.

use std::io::Read;

/// Rows of the frame in `data` (one strip of an image codec), or `None` when the codec is none of
/// these or its header cannot be read.
pub(crate) fn rows(compression: u64, data: &[u8]) -> Option<u64> {
    match compression {
        50001 => webp_rows(data),
        34933 => png_rows(data),
        33003..=33005 | 34712 => j2k_rows(data),
        50002 | 52546 => jxl_rows(data),
        34934 | 22610 => jxr_rows(data),
        34887 => lerc_rows(data),
        _ => None,
    }
}

fn le16(d: &[u8], at: usize) -> Option<u64> {
    Some(u16::from_le_bytes(d.get(at..at + 2)?.try_into().ok()?).into())
}

fn le32(d: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?).into())
}

fn le24(d: &[u8], at: usize) -> Option<u64> {
    let b = d.get(at..at + 3)?;
    Some(u64::from(b[0]) | u64::from(b[1]) << 8 | u64::from(b[2]) << 16)
}

fn be32(d: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_be_bytes(d.get(at..at + 4)?.try_into().ok()?).into())
}

fn webp_rows(d: &[u8]) -> Option<u64> {
    if d.get(0..4)? != b"RIFF" || d.get(8..12)? != b"WEBP" {
        return None;
    }
    match d.get(12..16)? {
        b"VP8 " if d.get(23..26)? == [0x9D, 0x01, 0x2A] => Some(le16(d, 28)? & 0x3FFF),
        b"VP8L" if *d.get(20)? == 0x2F => Some(((le32(d, 21)? >> 14) & 0x3FFF) + 1),
        b"VP8X" => Some(le24(d, 27)? + 1),
        _ => None,
    }
}

fn png_rows(d: &[u8]) -> Option<u64> {
    if d.get(0..8)? != b"\x89PNG\r\n\x1a\n" || d.get(12..16)? != b"IHDR" {
        return None;
    }
    be32(d, 20)
}

/// The payload of the first box of type `kind` in an ISO base media (JP2, JPEG XL) file.
/// Each box advances by at least 8 bytes, so the walk ends within `d.len() / 8` steps.
fn box_payload<'a>(d: &'a [u8], kind: &[u8; 4]) -> Option<&'a [u8]> {
    let mut at = 0usize;
    while d.len().saturating_sub(at) >= 8 {
        let size = be32(d, at)?;
        let (head, len) = match size {
            0 => (8, (d.len() - at) as u64),
            1 => (
                16,
                u64::from_be_bytes(d.get(at + 8..at + 16)?.try_into().ok()?),
            ),
            n => (8, n),
        };
        let len = usize::try_from(len).ok()?;
        if len < head {
            return None;
        }
        if d.get(at + 4..at + 8)? == kind {
            return d.get(at + head..at.checked_add(len)?.min(d.len()));
        }
        at = at.checked_add(len)?;
    }
    None
}

fn j2k_rows(d: &[u8]) -> Option<u64> {
    let cs = if d.get(0..4)? == [0xFF, 0x4F, 0xFF, 0x51] {
        d
    } else {
        box_payload(d, b"jp2c")?
    };
    if cs.get(0..4)? != [0xFF, 0x4F, 0xFF, 0x51] {
        return None;
    }
    // SOC, SIZ marker, Lsiz, Rsiz, Xsiz, Ysiz, XOsiz, YOsiz.
    be32(cs, 12)?.checked_sub(be32(cs, 20)?)
}

/// JPEG XL's bit reader: bits LSB first within each byte.
struct Bits<'a> {
    d: &'a [u8],
    at: usize,
}

impl Bits<'_> {
    fn u(&mut self, n: usize) -> Option<u64> {
        let mut v = 0u64;
        for k in 0..n {
            let byte = *self.d.get(self.at / 8)?;
            v |= u64::from((byte >> (self.at % 8)) & 1) << k;
            self.at += 1;
        }
        Some(v)
    }
    /// The U32 of a SizeHeader dimension: 1 + Bits(9 | 13 | 18 | 30) by a 2-bit selector.
    fn dim(&mut self) -> Option<u64> {
        let n = [9, 13, 18, 30][self.u(2)? as usize];
        Some(self.u(n)? + 1)
    }
}

fn jxl_rows(d: &[u8]) -> Option<u64> {
    let cs = if d.get(0..2)? == [0xFF, 0x0A] {
        d
    } else {
        match box_payload(d, b"jxlc") {
            Some(c) => c,
            None => box_payload(d, b"jxlp")?.get(4..)?, // a part: its index, then codestream
        }
    };
    if cs.get(0..2)? != [0xFF, 0x0A] {
        return None;
    }
    let mut b = Bits { d: cs, at: 16 };
    let small = b.u(1)? == 1;
    let h = if small { (b.u(5)? + 1) * 8 } else { b.dim()? };
    let ratio = b.u(3)?;
    let w = match ratio {
        0 if small => (b.u(5)? + 1) * 8,
        0 => b.dim()?,
        r => {
            let (num, den) =
                [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)][(r - 1) as usize];
            h * num / den
        }
    };
    // ImageMetadata: all_default, then extra_fields, then orientation − 1 (3 bits).
    let orientation = if b.u(1)? == 1 || b.u(1)? == 0 {
        1
    } else {
        b.u(3)? + 1
    };
    Some(if orientation > 4 { w } else { h })
}

fn jxr_rows(d: &[u8]) -> Option<u64> {
    if d.get(0..4)? != [0x49, 0x49, 0xBC, 0x01] {
        return None;
    }
    let ifd = usize::try_from(le32(d, 4)?).ok()?;
    let n = le16(d, ifd)?;
    // Entries of 12 bytes each; the loop is bounded by those present.
    for i in 0..n as usize {
        let at = ifd.checked_add(2 + 12 * i)?;
        if le16(d, at)? == 0xBC81 {
            return match le16(d, at + 2)? {
                3 => le16(d, at + 8),
                4 => le32(d, at + 8),
                1 => d.get(at + 8).map(|&b| b.into()),
                _ => None,
            };
        }
    }
    None
}

/// Bytes of a LERC blob's header read through a zlib or ZSTD wrapping.
const LERC_HEAD: u64 = 64;

fn lerc_rows(d: &[u8]) -> Option<u64> {
    let head = if d.starts_with(b"Lerc2 ") {
        d.get(..d.len().min(LERC_HEAD as usize))?.to_vec()
    } else if d.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        if !crate::probe::zstd_small_window(d) {
            return None;
        }
        let mut src = d;
        let dec = ruzstd::decoding::StreamingDecoder::new(&mut src).ok()?;
        prefix(dec)?
    } else if d.len() >= 2
        && d[0] & 0x0F == 8
        && u16::from_be_bytes([d[0], d[1]]).is_multiple_of(31)
    {
        prefix(flate2::read::ZlibDecoder::new(d))?
    } else {
        return None;
    };
    if !head.starts_with(b"Lerc2 ") {
        return None;
    }
    let version = le32(&head, 6)?;
    let rows_at = if version >= 3 { 14 } else { 10 };
    le32(&head, rows_at)
}

/// The first `LERC_HEAD` decoded bytes of a stream (fewer if it ends), or `None` on an error.
fn prefix(r: impl Read) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    r.take(LERC_HEAD).read_to_end(&mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&[0, 0, 0, 45, 0, 0, 0, 5]);
        assert_eq!(rows(34933, &png), Some(5));
        let mut j2k = vec![0xFF, 0x4F, 0xFF, 0x51, 0, 41, 0, 0];
        j2k.extend_from_slice(&[0, 0, 0, 45, 0, 0, 0, 21, 0, 0, 0, 0, 0, 0, 0, 16]);
        assert_eq!(rows(34712, &j2k), Some(5));
        // VP8L: 45 × 5 (width − 1 = 44 in bits 0–13, height − 1 = 4 in bits 14–27).
        let bits: u32 = 44 | (4 << 14);
        let mut webp = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        webp.extend_from_slice(&bits.to_le_bytes());
        assert_eq!(rows(50001, &webp), Some(5));
        let mut lerc = b"Lerc2 ".to_vec();
        for v in [4u32, 0xDEAD, 5, 45] {
            lerc.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(rows(34887, &lerc), Some(5));
        // JPEG XL, small SizeHeader: height 8 × (0 + 1), ratio 1; default metadata.
        assert_eq!(
            rows(50002, &[0xFF, 0x0A, 0b0100_0001, 0b0000_0010]),
            Some(8)
        );
    }

    #[test]
    fn garbage_is_none() {
        for c in [50001, 34933, 34712, 50002, 34934, 34887, 1] {
            for d in [
                &[][..],
                &[0xFF; 3],
                b"RIFF\0\0\0\0WEBPVP8X",
                b"II\xbc\x01\xff\xff\xff\xff",
            ] {
                assert_eq!(rows(c, d), None, "{c}");
            }
        }
        // Random bytes behind each format's magic: never a panic.
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let magics: [&[u8]; 9] = [
            b"RIFF\0\0\0\0WEBPVP8 ",
            b"RIFF\0\0\0\0WEBPVP8L",
            b"\x89PNG\r\n\x1a\n",
            &[0xFF, 0x4F, 0xFF, 0x51],
            &[0, 0, 0, 0x0C, b'J', b'X', b'L', b' '],
            &[0xFF, 0x0A],
            &[0x49, 0x49, 0xBC, 0x01],
            b"Lerc2 ",
            &[0x78, 0x9C],
        ];
        for _ in 0..2000 {
            for (m, c) in magics.iter().zip([
                50001, 50001, 34933, 34712, 50002, 50002, 34934, 34887, 34887,
            ]) {
                let mut d = m.to_vec();
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                d.extend((0..state % 40).map(|i| (state >> (i % 56)) as u8));
                let _ = rows(c, &d);
            }
        }
        // A box claiming to be shorter than its header ends the walk.
        assert_eq!(
            box_payload(&[0, 0, 0, 4, b'j', b'x', b'l', b'c'], b"jxlc"),
            None
        );
        // A 64-bit box size that carries the walk to the end of the address space ends it too.
        let mut huge = vec![0, 0, 0, 1, b'f', b't', b'y', b'p'];
        huge.extend_from_slice(&(u64::MAX - 3).to_be_bytes());
        assert_eq!(box_payload(&huge, b"jxlc"), None);
    }
}
