//! Corrupt copies of real fixtures: truncations, byte flips, IFD loops, missing tags. The reader
//! must never panic; whole-file errors name the URL.

use std::path::Path;
use vzplan_io::MemObject;

const URL: &str = "mem://bad.tif";

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/tiff")
            .join(name),
    )
    .unwrap()
}

fn read(bytes: Vec<u8>) -> Result<vzplan_core::SourceLayout, vzplan_tiff::ReadError> {
    vzplan_tiff::read_layout(&MemObject::new(URL, bytes))
}

const SAMPLES: [&str; 8] = [
    "cog_chain.tif",
    "bigtiff_u16.tif",
    "bigendian_big_pred2_u16.tif",
    "geotiff_f32.tif",
    "strips_deflate_i16.tif",
    "planar_sep_u8.tif",
    "lzw_u16.tif",
    "multipage_f32.tif",
];

#[test]
fn truncations_never_panic() {
    for name in SAMPLES {
        let b = fixture(name);
        let mut cuts: Vec<usize> = (0..b.len().min(600)).collect();
        cuts.extend((600..b.len()).step_by(23));
        for cut in cuts {
            match read(b[..cut].to_vec()) {
                Ok(l) => assert!(l.arrays.len() + l.problems.len() <= 8),
                Err(e) => {
                    let s = e.to_string();
                    assert!(s.starts_with(URL), "{name} cut {cut}: {s}");
                }
            }
        }
    }
    let e = read(Vec::new()).unwrap_err().to_string();
    assert!(e.contains("too short"), "{e}");
}

#[test]
fn truncated_data_is_an_error() {
    // Cut inside the tile data that follows the IFDs (cog: metadata first, data last).
    let b = fixture("tiled_u16.tif");
    let e = read(b[..b.len() - 100].to_vec()).unwrap_err().to_string();
    assert!(e.starts_with(URL) && e.contains("past the end"), "{e}");
}

#[test]
fn byte_flips_never_panic() {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for name in SAMPLES {
        let orig = fixture(name);
        // Bias the flips to the metadata (header and IFDs) where parsing happens.
        let hot = orig.len().min(1024);
        for _ in 0..700 {
            let mut b = orig.clone();
            for _ in 0..1 + next() % 4 {
                let at = if next() % 4 == 0 {
                    (next() % orig.len() as u64) as usize
                } else {
                    (next() % hot as u64) as usize
                };
                b[at] ^= 1 << (next() % 8);
                if next() % 8 == 0 {
                    b[at] = [0x00, 0xff, 0x7f, 0x80][(next() % 4) as usize];
                }
            }
            if let Err(e) = read(b) {
                assert!(e.to_string().starts_with(URL));
            }
        }
    }
}

/// Offsets of the main-chain IFDs and of each one's next-IFD field (classic little-endian TIFF).
fn chain(b: &[u8]) -> Vec<(usize, usize)> {
    let u16at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as usize;
    let u32at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
    let mut out = Vec::new();
    let mut off = u32at(4);
    while off != 0 {
        let next_field = off + 2 + 12 * u16at(off);
        out.push((off, next_field));
        off = u32at(next_field);
    }
    out
}

#[test]
fn ifd_cycles_are_errors() {
    let mut b = fixture("multipage_f32.tif");
    let c = chain(&b);
    assert_eq!(c.len(), 3);
    let first = c[0].0 as u32;
    let last_next = c[2].1;
    b[last_next..last_next + 4].copy_from_slice(&first.to_le_bytes());
    let e = read(b).unwrap_err().to_string();
    assert!(e.starts_with(URL) && e.contains("loops"), "{e}");

    // A self-loop in a BigTIFF: the first IFD's next offset points at itself.
    let mut b = fixture("bigtiff_u16.tif");
    let first = u64::from_le_bytes(b[8..16].try_into().unwrap()) as usize;
    let n = u64::from_le_bytes(b[first..first + 8].try_into().unwrap()) as usize;
    let next = first + 8 + 20 * n;
    b[next..next + 8].copy_from_slice(&(first as u64).to_le_bytes());
    let e = read(b).unwrap_err().to_string();
    assert!(e.contains("loops"), "{e}");
}

/// Renames `tag` in the first IFD of a classic little-endian TIFF (so it reads as missing).
fn drop_tag(b: &mut [u8], tag: u16) {
    let (ifd, _) = chain(b)[0];
    let n = u16::from_le_bytes([b[ifd], b[ifd + 1]]) as usize;
    for k in 0..n {
        let at = ifd + 2 + 12 * k;
        if u16::from_le_bytes([b[at], b[at + 1]]) == tag {
            b[at..at + 2].copy_from_slice(&65000u16.to_le_bytes());
            return;
        }
    }
    panic!("tag {tag} not found");
}

#[test]
fn missing_tags_are_problems_or_defaults() {
    let problem = |name: &str, tag: u16| {
        let mut b = fixture(name);
        drop_tag(&mut b, tag);
        let l = read(b).unwrap();
        assert!(
            l.arrays.iter().all(|a| a.path != "0"),
            "{name} without {tag}"
        );
        (l.problems[0].reason.clone(), l.problems[0].kind)
    };
    // A tag the image cannot be read without: a malformed file (its fix: a good copy), never a
    // type to convert or a layout to rewrite.
    let malformed = |name: &str, tag: u16, what: &str| {
        let (reason, kind) = problem(name, tag);
        assert!(reason.contains(what), "{name} without {tag}: {reason}");
        assert_eq!(
            kind,
            vzplan_core::ProblemKind::Unreadable,
            "{name} without {tag}"
        );
    };
    malformed("strips_u8.tif", 256, "ImageWidth (256)");
    malformed("strips_u8.tif", 257, "ImageLength (257)");
    malformed("strips_u8.tif", 273, "StripOffsets (273)");
    malformed("strips_deflate_i16.tif", 279, "StripByteCounts (279)");
    malformed("tiled_u16.tif", 322, "TileWidth");
    // RowsPerStrip defaults to ImageLength: then the 4 strip offsets do not fit one strip.
    malformed("strips_u8.tif", 278, "StripOffsets has 4 entries");

    // Uncompressed strips without StripByteCounts: derived (libtiff does the same).
    let mut b = fixture("strips_u8.tif");
    drop_tag(&mut b, 279);
    let l = read(b).unwrap();
    assert_eq!(l.arrays[0].chunks.entries.len(), 4);
    // BitsPerSample missing → 1 bit (TIFF 6.0 default): packed bool samples, as tifffile reads
    // them, not bytes.
    let mut b = fixture("strips_u8.tif");
    drop_tag(&mut b, 258);
    let a = read(b).unwrap().arrays.remove(0);
    assert_eq!(a.dtype.kind, vzplan_core::Kind::Bool);
    assert_eq!(a.codecs[0].name, "imagecodecs_packints");
    // SampleFormat missing → unsigned (the default): still an array.
    let mut b = fixture("strips_deflate_i16.tif");
    drop_tag(&mut b, 339);
    let l = read(b).unwrap();
    assert_eq!(l.arrays[0].dtype.kind, vzplan_core::Kind::UInt);
}

#[test]
fn not_tiff() {
    for bytes in [
        b"\x89HDF\r\n\x1a\n\0\0\0\0\0\0\0\0".to_vec(),
        b"CDF\x01\0\0\0\0".to_vec(),
        b"II\x2b\0\x04\0\0\0\0\0\0\0\0\0\0\0".to_vec(),
        b"II*\0\0\0\0\0".to_vec(),
    ] {
        let e = read(bytes).unwrap_err().to_string();
        assert!(e.starts_with(URL), "{e}");
    }
}
