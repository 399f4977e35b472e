//! Decoded lengths of compressed blocks, to tell a short last strip from a padded one.
//!
//! Spec: TIFF Revision 6.0, <https://www.itu.int/itudoc/itu-t/com16/tiff-fx/docs/tiff6.pdf>.
//!
//! Only the *length* is computed, with a cap (`limit`): decoding stops once `limit` bytes would be
//! produced, so a hostile block cannot make us allocate or loop without bound.
//! - Deflate (Compression 8 / 32946): zlib stream, inflated into a sink by flate2.
//! - LZW (5): TIFF 6.0 section 13, MSB-first codes of 9–12 bits with "early change"; only string
//!   lengths are tracked (a new table entry is one longer than the previous code's string).
//! - PackBits (32773): TIFF 6.0 section 9.
//! - ZSTD (50000): the frame header's Frame_Content_Size (RFC 8878 §3.1.1.1), when present.
//! - JPEG (7): the frame header (SOFn: precision, lines, samples per line, components; ITU-T
//!   T.81 §B.2.2); libtiff writes a short last strip as a frame of fewer lines.
//! - LZMA (34925): the .xz stream's index (xz file format 1.1.0 §4: stream footer → Backward
//!   Size → index records of (unpadded size, uncompressed size)), for a single-stream file.

use std::io::Read;

/// The decoded length of `data`, capped at `limit` (returns `Some(limit)` if it reaches it), or
/// `None` when it cannot be determined (corrupt data, or a codec we cannot measure).
pub(crate) fn decoded_len(compression: u64, data: &[u8], limit: u64) -> Option<u64> {
    match compression {
        8 | 32946 => deflate_len(data, limit),
        5 => lzw_len(data, limit),
        32773 => Some(packbits_len(data, limit)),
        50000 => zstd_content_size(data)
            .map(|n| n.min(limit))
            .or_else(|| zstd_len(data, limit)),
        34925 => xz_uncompressed_size(data).map(|n| n.min(limit)),
        7 => jpeg_frame_len(data).map(|n| n.min(limit)),
        _ => None,
    }
}

/// Whether `data` decodes to exactly `len` bytes that repeat `pattern` (one element of the fill
/// value); `None` for codecs we do not decode here (only Deflate).
pub(crate) fn holds_only(compression: u64, data: &[u8], len: u64, pattern: &[u8]) -> Option<bool> {
    if !matches!(compression, 8 | 32946) || pattern.is_empty() {
        return None;
    }
    // Streamed through a fixed buffer: the decoded size is never allocated.
    let mut dec = flate2::read::ZlibDecoder::new(data).take(len.saturating_add(1));
    let mut buf = [0u8; 1 << 16];
    let mut at: u64 = 0;
    loop {
        let n = dec.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            if pattern.get((at % pattern.len() as u64) as usize) != Some(&b) {
                return Some(false);
            }
            at += 1;
        }
    }
    Some(at == len)
}

fn deflate_len(data: &[u8], limit: u64) -> Option<u64> {
    let mut dec = flate2::read::ZlibDecoder::new(data).take(limit);
    std::io::copy(&mut dec, &mut std::io::sink()).ok()
}

fn packbits_len(data: &[u8], limit: u64) -> u64 {
    let mut out: u64 = 0;
    let mut i = 0usize;
    while i < data.len() && out < limit {
        let n = data[i] as i8;
        i += 1;
        if n >= 0 {
            let k = n as usize + 1;
            let k = k.min(data.len() - i);
            out += k as u64;
            i += k;
        } else if n != -128 {
            if i >= data.len() {
                break;
            }
            out += (1 - n as i64) as u64;
            i += 1;
        }
    }
    out.min(limit)
}

fn lzw_len(data: &[u8], limit: u64) -> Option<u64> {
    // Old-style (pre-TIFF 6.0, LSB-first) LZW starts with 0x00 0x01; we do not measure it.
    if data.len() >= 2 && data[0] == 0 && data[1] & 1 == 1 {
        return None;
    }
    const CLEAR: usize = 256;
    const EOI: usize = 257;
    let mut lens = vec![0u32; 4096];
    for l in lens.iter_mut().take(256) {
        *l = 1;
    }
    let mut width = 9u32;
    let mut next = 258usize;
    let mut prev: Option<u32> = None;
    let mut bitpos: u64 = 0;
    let total_bits = data.len() as u64 * 8;
    let mut out: u64 = 0;
    loop {
        if bitpos + width as u64 > total_bits {
            break; // ran out of data without EOI: libtiff tolerates this
        }
        let mut code = 0usize;
        for k in 0..width as u64 {
            let b = bitpos + k;
            let byte = data[(b / 8) as usize];
            let bit = (byte >> (7 - (b % 8))) & 1;
            code = (code << 1) | bit as usize;
        }
        bitpos += width as u64;
        if code == EOI {
            break;
        }
        if code == CLEAR {
            width = 9;
            next = 258;
            prev = None;
            continue;
        }
        let len = match prev {
            None => {
                if code >= 256 {
                    return None;
                }
                1
            }
            Some(p) => {
                let l = if code < next {
                    lens[code]
                } else if code == next {
                    p + 1
                } else {
                    return None;
                };
                if next < lens.len() {
                    lens[next] = p + 1;
                    next += 1;
                }
                l
            }
        };
        out += len as u64;
        if out >= limit {
            return Some(limit);
        }
        prev = Some(len);
        if next + 1 >= (1usize << width) && width < 12 {
            width += 1;
        }
    }
    Some(out)
}

/// Decoded bytes of an 8-bit JPEG stream: lines × samples per line × components of its first
/// SOFn marker segment. Markers are walked by their lengths up to the first frame header.
fn jpeg_frame_len(d: &[u8]) -> Option<u64> {
    if d.get(0..2)? != [0xFF, 0xD8] {
        return None;
    }
    let mut at = 2usize;
    // Each step advances by at least 2 bytes, so the loop ends within d.len() / 2 steps.
    while at + 4 <= d.len() {
        if d[at] != 0xFF {
            return None;
        }
        let marker = d[at + 1];
        if marker == 0xFF {
            at += 1; // fill byte
            continue;
        }
        let len = u16::from_be_bytes([d[at + 2], d[at + 3]]) as usize;
        if len < 2 {
            return None;
        }
        let is_sof = (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            let seg = d.get(at + 4..at + 2 + len)?;
            let (precision, lines) = (
                *seg.first()?,
                u16::from_be_bytes([*seg.get(1)?, *seg.get(2)?]),
            );
            let width = u16::from_be_bytes([*seg.get(3)?, *seg.get(4)?]);
            let comps = *seg.get(5)?;
            if precision != 8 || lines == 0 {
                return None; // 12-bit samples, or the height comes later in a DNL marker
            }
            return Some(lines as u64 * width as u64 * comps as u64);
        }
        if marker == 0xDA || marker == 0xD9 {
            return None; // scan data before any frame header
        }
        at += 2 + len;
    }
    None
}

/// The decoded length of ZSTD frames that do not record it (GDAL writes such frames): decoded,
/// streamed into nothing, at most `limit` bytes. The decoder reserves the frame's declared window
/// up front, so a window above what a strip can need (a few bytes may declare 100 MiB) is not
/// decoded.
fn zstd_len(data: &[u8], limit: u64) -> Option<u64> {
    if zstd_window(data)? > limit.max(MAX_ZSTD_WINDOW) {
        return None;
    }
    let mut src = data;
    let dec = ruzstd::decoding::StreamingDecoder::new(&mut src).ok()?;
    let mut dec = dec.take(limit);
    std::io::copy(&mut dec, &mut std::io::sink()).ok()
}

/// The largest ZSTD window decoded to measure a strip when the strip itself is smaller (zstd
/// picks windows of 512 KiB to 8 MiB at the levels GDAL uses, whatever the input's size).
const MAX_ZSTD_WINDOW: u64 = 8 << 20;

/// A ZSTD frame's window size (RFC 8878 3.1.1.1.2), from its header; `None` when the header is
/// not a frame's or says a single segment (whose size is its content size).
fn zstd_window(d: &[u8]) -> Option<u64> {
    if d.get(0..4)? != [0x28, 0xB5, 0x2F, 0xFD] {
        return None;
    }
    let fhd = *d.get(4)?;
    if (fhd >> 5) & 1 == 1 {
        return None;
    }
    let wd = *d.get(5)?;
    let base = 1u64 << (10 + u32::from(wd >> 3));
    Some(base + (base / 8) * u64::from(wd & 7))
}

/// Whether a ZSTD frame declares a window (or, for a single segment, a content size) small enough
/// to decode its first bytes.
pub(crate) fn zstd_small_window(d: &[u8]) -> bool {
    match zstd_window(d) {
        Some(w) => w <= MAX_ZSTD_WINDOW,
        None => zstd_content_size(d).is_some_and(|n| n <= MAX_ZSTD_WINDOW),
    }
}

fn zstd_content_size(d: &[u8]) -> Option<u64> {
    if d.get(0..4)? != [0x28, 0xB5, 0x2F, 0xFD] {
        return None;
    }
    let fhd = *d.get(4)?;
    let fcs_flag = fhd >> 6;
    let single_segment = (fhd >> 5) & 1 == 1;
    let did_flag = fhd & 3;
    let mut at = 5usize;
    if !single_segment {
        at += 1; // Window_Descriptor
    }
    at += [0usize, 1, 2, 4][did_flag as usize];
    let fcs_len = match fcs_flag {
        0 => {
            if single_segment {
                1
            } else {
                return None; // content size not recorded
            }
        }
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let b = d.get(at..at + fcs_len)?;
    let mut v: u64 = 0;
    for (i, &x) in b.iter().enumerate() {
        v |= (x as u64) << (8 * i);
    }
    if fcs_len == 2 {
        v += 256;
    }
    Some(v)
}

fn xz_uncompressed_size(d: &[u8]) -> Option<u64> {
    if d.get(0..6)? != [0xFD, b'7', b'z', b'X', b'Z', 0x00] || d.len() < 24 {
        return None;
    }
    let footer = &d[d.len() - 12..];
    if &footer[10..12] != b"YZ" {
        return None; // stream padding or concatenated streams: not measured
    }
    let backward = u32::from_le_bytes([footer[4], footer[5], footer[6], footer[7]]) as usize;
    let index_size = (backward + 1) * 4;
    let start = (d.len() - 12).checked_sub(index_size)?;
    let index = &d[start..d.len() - 12];
    if index.first() != Some(&0) {
        return None;
    }
    let mut at = 1usize;
    let varint = |at: &mut usize| -> Option<u64> {
        let mut v: u64 = 0;
        for shift in (0..63).step_by(7) {
            let b = *index.get(*at)?;
            *at += 1;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    let records = varint(&mut at)?;
    let mut total: u64 = 0;
    for _ in 0..records.min(index.len() as u64) {
        let _unpadded = varint(&mut at)?;
        total = total.checked_add(varint(&mut at)?)?;
    }
    Some(total)
}

#[cfg(test)]
mod zstd_tests {
    use super::*;

    #[test]
    fn a_zstd_frame_declaring_a_huge_window_is_not_decoded() {
        // Deliberately forged: magic, a descriptor with no content size and not single-segment,
        // and a window descriptor of 2^(10+30) bytes, then garbage.
        let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 30 << 3, 0, 0, 0];
        assert_eq!(zstd_window(&frame), Some(1 << 40));
        assert_eq!(zstd_len(&frame, 4096), None);
        assert_eq!(decoded_len(50000, &frame, 4096), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packbits_lengths() {
        // TIFF 6.0 section 9 example: literal run, repeat run, no-op.
        let data = [0xFEu8, 0xAA, 0x02, 0x80, 0x00, 0x2A, 0x80, 0x00];
        assert_eq!(packbits_len(&data, 1000), 3 + 3);
        assert_eq!(packbits_len(&data, 4), 4);
        assert_eq!(packbits_len(&[0x7f], 1000), 0);
    }

    #[test]
    fn hostile_inputs_terminate() {
        for seed in 0..200u32 {
            let data: Vec<u8> = (0..64u32)
                .map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed * 97) >> 7) as u8)
                .collect();
            let _ = lzw_len(&data, 1 << 20);
            let _ = packbits_len(&data, 1 << 20);
            let _ = deflate_len(&data, 1 << 20);
            let _ = zstd_content_size(&data);
            let mut jpeg = vec![0xFF, 0xD8];
            jpeg.extend_from_slice(&data);
            let _ = jpeg_frame_len(&jpeg);
            let mut xz = vec![0xFD, b'7', b'z', b'X', b'Z', 0x00];
            xz.extend_from_slice(&data);
            let _ = xz_uncompressed_size(&xz);
        }
    }
}
