//! Bad files in plain words: what a file that no reader takes seems to be (by the magic numbers
//! of a few well-known formats), and a read past the end told as a truncated download.
//!
//! ```text
//! data/x.nc: not a netCDF, HDF5, TIFF or DMR++ file: it starts like a PNG image
//! data/y.nc: truncated: the header needs 8,223 bytes but the file has 7,938 (was the download interrupted?)
//! ```

use vzplan_io::IoError;

/// Bytes read from the start of a file that no reader recognised, to say what it looks like.
pub const SNIFF_BYTES: u64 = 64;

/// Well-known signatures at offset 0, checked in order.
const MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"PK\x05\x06", "a ZIP archive (empty)"),
    (b"\x1f\x8b", "a gzip-compressed file (gunzip it first)"),
    (b"BZh", "a bzip2-compressed file (bunzip2 it first)"),
    (b"\xfd7zXZ\x00", "an xz-compressed file (unxz it first)"),
    (
        b"\x28\xb5\x2f\xfd",
        "a zstd-compressed file (unzstd it first)",
    ),
    (b"GRIB", "a GRIB file"),
    (b"\x89HDF", "an HDF5 file (its signature is damaged)"),
    (b"\x0e\x03\x13\x01", "an HDF4 file"),
    (b"CDF", "a netCDF classic file of an unknown version"),
];

/// What `head` (a file's first bytes) looks like, when it is a well-known format or text.
pub fn looks_like(head: &[u8]) -> Option<&'static str> {
    if let Some((_, what)) = MAGIC.iter().find(|(m, _)| head.starts_with(m)) {
        return Some(what);
    }
    let text = std::str::from_utf8(head)
        .ok()
        .or_else(|| {
            // A multi-byte character cut at the end of the head is still text.
            let cut = head.len().saturating_sub(3);
            (cut..head.len()).find_map(|end| std::str::from_utf8(&head[..end]).ok())
        })
        .filter(|t| !t.is_empty())?;
    if text.chars().any(|c| c.is_control() && !c.is_whitespace()) {
        return None;
    }
    let start = text.trim_start().to_ascii_lowercase();
    Some(
        if start.starts_with("<!doctype html") || start.starts_with("<html") {
            "an HTML page (a login or error page saved instead of the data?)"
        } else if start.starts_with("<?xml") || start.starts_with('<') {
            "an XML document (an error message from a server?)"
        } else if start.starts_with('{') || start.starts_with('[') {
            "a JSON document"
        } else if start.starts_with("netcdf ") {
            "a CDL text file (make it a netCDF file with `ncgen -o out.nc FILE`)"
        } else {
            "a text file"
        },
    )
}

/// Where a read past the end of a file asked for `need` bytes (offset + length) of a file of
/// `size`: truncated when it starts inside the file, or not far past it; otherwise an offset
/// in the file is corrupt.
pub fn past_end(e: &IoError) -> Option<(u64, u64)> {
    match e {
        IoError::PastEnd {
            offset, len, size, ..
        } => Some((offset.saturating_add(*len), *size)),
        _ => None,
    }
}

/// Whether a read needing `need` bytes of a file of `size` bytes is told as truncation (the
/// file is cut short) rather than a corrupt offset: the read starts at most a few times the
/// file's size away.
pub fn is_truncation(need: u64, size: u64) -> bool {
    need <= size.saturating_mul(16).saturating_add(1 << 20)
}

/// `1143` → `1,143`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_heads_are_named() {
        assert_eq!(looks_like(b"\x89PNG\r\n\x1a\n\0\0"), Some("a PNG image"));
        assert_eq!(looks_like(b"GRIB\0\0"), Some("a GRIB file"));
        assert_eq!(looks_like(b"%PDF-1.7"), Some("a PDF document"));
        assert!(looks_like(b"<!DOCTYPE html><html>")
            .unwrap()
            .contains("HTML"));
        assert!(looks_like(b"  <?xml version=").unwrap().contains("XML"));
        assert_eq!(looks_like(b"this is a readme\n"), Some("a text file"));
        assert!(looks_like(b"netcdf x {\n").unwrap().contains("ncgen"));
        assert_eq!(looks_like(b"\x00\x01\x02\x03\xfe"), None);
        assert_eq!(looks_like(b""), None);
        // A character cut at the end of the head.
        assert_eq!(
            looks_like("caf\u{e9}".as_bytes().split_last().unwrap().1),
            Some("a text file")
        );
    }

    #[test]
    fn numbers_have_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1143), "1,143");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn far_past_the_end_is_not_truncation() {
        assert!(is_truncation(8223, 7938));
        assert!(!is_truncation(u64::MAX, 7938));
    }
}
