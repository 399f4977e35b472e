//! The TIFF container: header, Image File Directories and tag values.
//!
//! TIFF 6.0 section 2 ("TIFF Structure": 8-byte header, IFD = 2-byte entry count, 12-byte entries,
//! 4-byte next-IFD offset; a value that fits in 4 bytes is stored in the entry itself) and BigTIFF
//! (version 43, 8-byte offsets: 8-byte entry count, 20-byte entries, values up to 8 bytes inline,
//! new types LONG8 16, SLONG8 17, IFD8 18). Every read is checked against the file size first, so
//! no allocation follows an untrusted count.
//!
//! TIFF 6.0: <https://www.itu.int/itudoc/itu-t/com16/tiff-fx/docs/tiff6.pdf>

use crate::ReadError;
use vzplan_io::RangeRead;

/// Most entries one IFD may have (classic TIFF cannot exceed 65535 anyway).
const MAX_ENTRIES: u64 = 1 << 16;

/// Tags whose values reading an image needs, fetched together by [`Tiff::prefetch_values`]:
/// the image's (besides the GeoTIFF tags, [`crate::geo::GEO_TAGS`]).
const PREFETCHED_TAGS: [u16; 11] = {
    use crate::image::*;
    [
        BITS_PER_SAMPLE,
        STRIP_OFFSETS,
        STRIP_BYTE_COUNTS,
        TILE_OFFSETS,
        TILE_BYTE_COUNTS,
        SUB_IFDS,
        SAMPLE_FORMAT,
        JPEG_TABLES,
        GDAL_METADATA,
        GDAL_NODATA,
        LERC_PARAMETERS,
    ]
};

/// Whether [`Tiff::prefetch_values`] asks for a tag's values.
fn prefetched(tag: u16) -> bool {
    PREFETCHED_TAGS.contains(&tag) || crate::geo::GEO_TAGS.iter().any(|(t, _)| *t == tag)
}

/// Where an entry's values lie ([`Tiff::span`]).
enum Span {
    /// In the entry's own field: this many bytes.
    Inline(usize),
    /// Out of line: offset and length.
    At(u64, u64),
}

/// Bytes [`Tiff::prefetch_values`] asks for at most.
const PREFETCH_BYTES: u64 = 16 << 20;

/// One IFD entry: tag, field type, count and the raw value/offset field.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub tag: u16,
    pub typ: u16,
    pub count: u64,
    /// The value/offset field (4 bytes classic, 8 BigTIFF), in file byte order.
    field: [u8; 8],
}

/// One Image File Directory.
#[derive(Clone, Debug)]
pub(crate) struct Ifd {
    /// Sorted by tag (the spec requires ascending order; we sort to be lenient).
    pub entries: Vec<Entry>,
    pub next: u64,
}

impl Ifd {
    pub fn get(&self, tag: u16) -> Option<&Entry> {
        self.entries
            .binary_search_by_key(&tag, |e| e.tag)
            .ok()
            .and_then(|i| self.entries.get(i))
    }
}

/// Size in bytes of one value of a TIFF field type, `None` for unknown types.
pub(crate) fn type_size(typ: u16) -> Option<u64> {
    Some(match typ {
        1 | 2 | 6 | 7 => 1,              // BYTE, ASCII, SBYTE, UNDEFINED
        3 | 8 => 2,                      // SHORT, SSHORT
        4 | 9 | 11 | 13 => 4,            // LONG, SLONG, FLOAT, IFD
        5 | 10 | 12 | 16 | 17 | 18 => 8, // RATIONAL, SRATIONAL, DOUBLE, LONG8, SLONG8, IFD8
        _ => return None,
    })
}

/// A TIFF file being read: byte order, offset width, and the byte source.
pub(crate) struct Tiff<'a> {
    pub r: &'a dyn RangeRead,
    pub url: String,
    pub size: u64,
    pub big: bool,
    pub le: bool,
    /// Bytes we may still read: a hostile file cannot make many IFDs re-read the same huge value.
    budget: std::cell::Cell<u64>,
}

impl<'a> Tiff<'a> {
    /// Parses the header; returns the reader and the first IFD offset.
    pub fn open(r: &'a dyn RangeRead) -> Result<(Self, u64), ReadError> {
        let url = r.url().to_string();
        let size = r.size();
        if size < 8 {
            return Err(ReadError::NotTiff {
                url,
                what: format!("file is {size} bytes, too short for a TIFF header"),
            });
        }
        let head = r.read_at(0, size.min(16))?;
        let le = match head.get(0..2) {
            Some(b"II") => true,
            Some(b"MM") => false,
            _ => {
                return Err(ReadError::NotTiff {
                    url,
                    what: "no TIFF byte-order mark (II or MM) at offset 0".into(),
                })
            }
        };
        let mut t = Tiff {
            r,
            url,
            size,
            big: false,
            le,
            budget: std::cell::Cell::new(size.saturating_mul(2).saturating_add(16 << 20)),
        };
        let version = t.u16_at(&head, 2);
        let first = match version {
            42 => t.u32_at(&head, 4) as u64,
            43 => {
                t.big = true;
                if head.len() < 16 {
                    return Err(t.corrupt("BigTIFF header truncated (needs 16 bytes)"));
                }
                let bytesize = t.u16_at(&head, 4);
                let zero = t.u16_at(&head, 6);
                if bytesize != 8 || zero != 0 {
                    return Err(t.corrupt(format!(
                        "BigTIFF header has offset size {bytesize} and reserved {zero} (expected 8 and 0)"
                    )));
                }
                t.u64_at(&head, 8)
            }
            v => {
                return Err(ReadError::NotTiff {
                    url: t.url,
                    what: format!("TIFF version {v} is neither 42 (TIFF) nor 43 (BigTIFF)"),
                })
            }
        };
        if first == 0 {
            return Err(t.corrupt("the header's first IFD offset is 0: the file has no image"));
        }
        Ok((t, first))
    }

    /// A range that runs past the end of the file (to byte `need`).
    pub fn past_end(&self, what: String, need: u64, data: bool) -> ReadError {
        ReadError::PastEnd {
            url: self.url.clone(),
            what,
            need,
            size: self.size,
            data,
        }
    }

    pub fn corrupt(&self, what: impl Into<String>) -> ReadError {
        ReadError::Corrupt {
            url: self.url.clone(),
            what: what.into(),
        }
    }

    fn u16_at(&self, b: &[u8], at: usize) -> u16 {
        let mut x = [0u8; 2];
        if let Some(s) = b.get(at..at + 2) {
            x.copy_from_slice(s);
        }
        if self.le {
            u16::from_le_bytes(x)
        } else {
            u16::from_be_bytes(x)
        }
    }
    fn u32_at(&self, b: &[u8], at: usize) -> u32 {
        let mut x = [0u8; 4];
        if let Some(s) = b.get(at..at + 4) {
            x.copy_from_slice(s);
        }
        if self.le {
            u32::from_le_bytes(x)
        } else {
            u32::from_be_bytes(x)
        }
    }
    fn u64_at(&self, b: &[u8], at: usize) -> u64 {
        let mut x = [0u8; 8];
        if let Some(s) = b.get(at..at + 8) {
            x.copy_from_slice(s);
        }
        if self.le {
            u64::from_le_bytes(x)
        } else {
            u64::from_be_bytes(x)
        }
    }

    /// Reads `len` bytes at `offset` after checking the range against the file size.
    pub fn read(&self, offset: u64, len: u64, what: &str) -> Result<Vec<u8>, ReadError> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => {
                let left = self.budget.get();
                if len > left {
                    return Err(self.corrupt(format!(
                        "reading {what} would exceed the metadata read budget (twice the file size): the IFDs reference the same data over and over"
                    )));
                }
                self.budget.set(left - len);
                Ok(self.r.read_at(offset, len)?)
            }
            _ => Err(self.past_end(
                format!(
                    "{what} at offset {offset} ({len} bytes) runs past the end of the file ({} bytes): truncated or corrupt",
                    self.size
                ),
                offset.saturating_add(len),
                false,
            )),
        }
    }

    /// Reads the IFD at `offset`.
    pub fn read_ifd(&self, offset: u64) -> Result<Ifd, ReadError> {
        let (count_size, entry_size, next_size) = if self.big {
            (8u64, 20u64, 8u64)
        } else {
            (2, 12, 4)
        };
        let cb = self.read(offset, count_size, "IFD entry count")?;
        let count = if self.big {
            self.u64_at(&cb, 0)
        } else {
            self.u16_at(&cb, 0) as u64
        };
        if count > MAX_ENTRIES {
            return Err(self.corrupt(format!(
                "IFD at offset {offset} claims {count} entries (at most {MAX_ENTRIES} accepted)"
            )));
        }
        let body_len = count * entry_size + next_size; // cannot overflow: count ≤ 2^16
        let body = self.read(offset + count_size, body_len, "IFD entries")?;
        let mut entries = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            let at = i * entry_size as usize;
            let tag = self.u16_at(&body, at);
            let typ = self.u16_at(&body, at + 2);
            let (cnt, field_at, field_len) = if self.big {
                (self.u64_at(&body, at + 4), at + 12, 8)
            } else {
                (self.u32_at(&body, at + 4) as u64, at + 8, 4)
            };
            let mut field = [0u8; 8];
            if let Some(s) = body.get(field_at..field_at + field_len) {
                field[..field_len].copy_from_slice(s);
            }
            entries.push(Entry {
                tag,
                typ,
                count: cnt,
                field,
            });
        }
        let next_at = (count * entry_size) as usize;
        let next = if self.big {
            self.u64_at(&body, next_at)
        } else {
            self.u32_at(&body, next_at) as u64
        };
        // Duplicate tags: keep the first (libtiff ignores later duplicates).
        entries.sort_by_key(|e| e.tag);
        entries.dedup_by_key(|e| e.tag);
        Ok(Ifd { entries, next })
    }

    /// A hint: the out-of-line values of `ifds` that reading their images needs (offsets and byte
    /// counts, sample formats, JPEG tables, GeoTIFF and GDAL tags) asked for in one batch, so
    /// that on object storage the pages of a file cost one round trip for them together instead
    /// of one per value. Values past the file are left to the reads that report them; at most
    /// [`PREFETCH_BYTES`] are asked for.
    pub fn prefetch_values(&self, ifds: &[Ifd]) {
        if !self.r.prefetches() {
            return;
        }
        let mut ranges = Vec::new();
        let mut total = 0u64;
        // Masks' values are not read (a mask is left out): their IFDs give none.
        let images = ifds.iter().filter(|ifd| !self.is_mask(ifd));
        let needed = images.flat_map(|ifd| &ifd.entries);
        for e in needed.filter(|e| prefetched(e.tag)) {
            let Ok(Span::At(offset, len)) = self.span(e) else {
                continue;
            };
            let within = offset.checked_add(len).is_some_and(|end| end <= self.size);
            // A value past the file, or past what is left to ask for, is left to its read.
            if within && total.saturating_add(len) <= PREFETCH_BYTES {
                total += len;
                ranges.push((offset, len));
            }
        }
        self.r.prefetch(&ranges);
    }

    /// Whether an IFD is a transparency mask (NewSubfileType bit 2).
    fn is_mask(&self, ifd: &Ifd) -> bool {
        let nst = self.uint(ifd, crate::image::NEW_SUBFILE_TYPE);
        matches!(nst, Ok(Some(n)) if n & 4 != 0)
    }

    /// Where an entry's values lie: in the entry itself (their length), or out of line.
    fn span(&self, e: &Entry) -> Result<Span, ReadError> {
        let size = type_size(e.typ).ok_or_else(|| {
            self.corrupt(format!("tag {} has unknown field type {}", e.tag, e.typ))
        })?;
        let total = e
            .count
            .checked_mul(size)
            .ok_or_else(|| self.corrupt(format!("tag {} count {} overflows", e.tag, e.count)))?;
        let inline = if self.big { 8 } else { 4 };
        if total <= inline {
            return Ok(Span::Inline(total as usize));
        }
        let offset = if self.big {
            self.u64_at(&e.field, 0)
        } else {
            self.u32_at(&e.field, 0) as u64
        };
        Ok(Span::At(offset, total))
    }

    /// The raw bytes of an entry's values (inline or out of line), or an error naming the tag.
    pub fn raw(&self, e: &Entry) -> Result<Vec<u8>, ReadError> {
        match self.span(e)? {
            Span::Inline(n) => Ok(e.field[..n].to_vec()),
            Span::At(offset, total) => self.read(offset, total, &format!("value of tag {}", e.tag)),
        }
    }

    /// Unsigned integer values (BYTE, SHORT, LONG, LONG8, IFD, IFD8; also UNDEFINED as bytes).
    pub fn uints(&self, e: &Entry) -> Result<Vec<u64>, ReadError> {
        let raw = self.raw(e)?;
        let size = type_size(e.typ).unwrap_or(1) as usize;
        let conv: fn(&Self, &[u8]) -> u64 = match e.typ {
            1 | 7 => |_, b| b[0] as u64,
            3 => |t, b| t.u16_at(b, 0) as u64,
            4 | 13 => |t, b| t.u32_at(b, 0) as u64,
            16 | 18 => |t, b| t.u64_at(b, 0),
            _ => {
                return Err(self.corrupt(format!(
                    "tag {} has field type {}, expected an unsigned integer type",
                    e.tag, e.typ
                )))
            }
        };
        Ok(raw.chunks_exact(size).map(|b| conv(self, b)).collect())
    }

    /// The first unsigned value of a tag, if present.
    pub fn uint(&self, ifd: &Ifd, tag: u16) -> Result<Option<u64>, ReadError> {
        match ifd.get(tag) {
            None => Ok(None),
            Some(e) if e.count == 0 => Ok(None),
            Some(e) => Ok(self.uints(e)?.first().copied()),
        }
    }

    /// Numeric values of any numeric type, as f64 (rationals divided out).
    pub fn floats(&self, e: &Entry) -> Result<Vec<f64>, ReadError> {
        let raw = self.raw(e)?;
        let size = type_size(e.typ).unwrap_or(1) as usize;
        let mut out = Vec::with_capacity(raw.len() / size.max(1));
        for b in raw.chunks_exact(size) {
            let v = match e.typ {
                1 | 7 => b[0] as f64,
                6 => b[0] as i8 as f64,
                3 => self.u16_at(b, 0) as f64,
                8 => self.u16_at(b, 0) as i16 as f64,
                4 | 13 => self.u32_at(b, 0) as f64,
                9 => self.u32_at(b, 0) as i32 as f64,
                16 | 18 => self.u64_at(b, 0) as f64,
                17 => self.u64_at(b, 0) as i64 as f64,
                11 => f32::from_bits(self.u32_at(b, 0)) as f64,
                12 => f64::from_bits(self.u64_at(b, 0)),
                5 => self.u32_at(b, 0) as f64 / self.u32_at(b, 4) as f64,
                10 => self.u32_at(b, 0) as i32 as f64 / self.u32_at(b, 4) as i32 as f64,
                _ => {
                    return Err(self.corrupt(format!(
                        "tag {} has field type {}, expected a numeric type",
                        e.tag, e.typ
                    )))
                }
            };
            out.push(v);
        }
        Ok(out)
    }

    /// ASCII values, trailing NULs removed (several NUL-separated strings are kept joined by NUL).
    pub fn ascii(&self, e: &Entry) -> Result<String, ReadError> {
        let raw = self.raw(e)?;
        let s: String = raw.iter().map(|&b| b as char).collect();
        Ok(s.trim_end_matches('\0').to_string())
    }
}
