//! TIFF compression, predictor, FillOrder and bit depth → the Zarr v3 codec chain that decodes
//! the stored blocks to the samples tifffile reads, and the checks of what a codec decodes as the
//! TIFF writer meant it.
//!
//! | TIFF | Zarr v3 codec |
//! |---|---|
//! | Compression 1 | (none) |
//! | 8, 32946 Deflate | `numcodecs.zlib` (TIFF deflate is a zlib stream) |
//! | 50000 ZSTD | `zstd` (Zarr v3 core) |
//! | 34925 LZMA | `numcodecs.lzma` (xz container, `format` 1) |
//! | 5 LZW | `imagecodecs_lzw` |
//! | 32773 PackBits | `imagecodecs_packbits` (`numcodecs.packbits` is a boolean bit-packer, not TIFF PackBits) |
//! | Predictor 2 | `imagecodecs_delta` {axis: -1, or -2 for contiguous multi-sample blocks} before `bytes` (integers only) |
//! | Predictor 3 | `imagecodecs_floatpred` {axis: -1, dist: 1} in place of `bytes` (little-endian single-sample floats) |
//! | BitsPerSample 1–7, 9–15, 17–31 (unsigned) | `imagecodecs_packints` {bitspersample, runlen: block width × samples} in place of `bytes`: MSB-first, each block row starting on a byte; 1 bit reads as `bool`, wider as the next unsigned integer |
//! | FillOrder 2, uncompressed 8–64-bit samples | `imagecodecs_bitorder` before `bytes` |
//! | image codecs: JPEG, JPEG 2000, JPEG XL, JPEG XR, PNG, WebP, LERC, CCITT | one imagecodecs codec in place of `bytes`, by the table of `image_codecs.rs` |
//!
//! Every imagecodecs codec needs `Options::imagecodecs`. FillOrder 2 with any compression,
//! CCITT or packed samples stays a problem: the stored bytes would have to be bit-reversed before
//! decoding, and `imagecodecs_bitorder` is an array-to-array codec, applied after it; tifffile
//! ignores FillOrder for the image codecs, and so does the chain.

use crate::built::{problem, Built, NotBuilt};
use crate::image_codecs;
use crate::Options;
use serde_json::json;
use vzplan_core::{Codec, CodecId, CodecStage, DType, Endian, Kind, ProblemKind};

/// What of an image decides its codec chain.
pub(crate) struct Stored {
    pub compression: u64,
    pub predictor: u64,
    pub dtype: DType,
    /// Bits per sample as stored: fewer than the dtype's are packed integers.
    pub bits: u64,
    pub spp: u64,
    /// Samples per pixel of one block (1 when band-interleaved).
    pub chunky_spp: u64,
    pub planar: bool,
    pub photometric: Option<u64>,
    pub fill_order: u64,
    /// The block's width in pixels.
    pub block_width: u64,
    /// LercParameters (50674): the additional compression (0 none, 1 Deflate, 2 ZSTD).
    pub lerc_compression: u64,
    /// T4Options (292) of Group 3 fax.
    pub t4options: u64,
}

impl Stored {
    /// Samples packed below their dtype's width (1-bit `bool`, 12-bit `uint16`, …).
    pub fn packed(&self) -> bool {
        self.bits != 8 * self.dtype.size as u64
    }
}

/// JPEG (7) layouts imagecodecs' JPEG codec decodes to the stored samples, as tifffile does:
/// one-sample grayscale, and contiguous three-sample RGB or YCbCr (libjpeg converts YCbCr to RGB,
/// the samples tifffile and GDAL return).
pub(crate) fn jpeg_supported(
    spp: u64,
    planar: bool,
    photometric: Option<u64>,
) -> Result<(), String> {
    match (spp, planar, photometric.unwrap_or(1)) {
        (1, _, 0 | 1) => Ok(()),
        (3, false, 2 | 6) => Ok(()),
        (s, p, ph) => Err(format!(
            "JPEG is supported for grayscale and pixel-interleaved RGB/YCbCr images only ({s} samples, {}, Photometric {ph})",
            if p { "band-interleaved" } else { "pixel-interleaved" }
        )),
    }
}

/// Shared JPEGTables (347, an abbreviated JPEG stream of quantisation and Huffman tables) go into
/// the `imagecodecs_jpeg` configuration as base64, where imagecodecs' codec reads `tables`.
pub(crate) fn jpeg_with_tables(codecs: &mut [Codec], tables: &[u8]) {
    use base64::Engine;
    for c in codecs.iter_mut().filter(|c| c.id() == CodecId::Jpeg) {
        let b64 = base64::engine::general_purpose::STANDARD.encode(tables);
        std::sync::Arc::make_mut(&mut c.configuration).insert("tables".into(), json!(b64));
    }
}

pub(crate) fn compression_name(c: u64) -> String {
    let name = match c {
        1 => "none",
        2 => "CCITT RLE",
        3 => "CCITT Group 3",
        4 => "CCITT Group 4",
        5 => "LZW",
        6 => "old-style JPEG",
        7 => "JPEG",
        8 => "Adobe Deflate",
        32773 => "PackBits",
        32946 => "Deflate",
        33003..=33005 | 34712 => "JPEG 2000",
        34887 => "LERC",
        34925 => "LZMA",
        34933 => "PNG",
        34934 | 22610 => "JPEG XR",
        50000 => "ZSTD",
        50001 => "WebP",
        50002 | 52546 => "JPEG XL",
        _ => "unknown",
    };
    format!("{name} ({c})")
}

/// A problem unless imagecodecs' codecs are enabled.
pub(crate) fn needs_ic(opts: &Options, what: &str) -> Built<()> {
    if opts.imagecodecs {
        Ok(())
    } else {
        problem!(Filter: "{what} needs an imagecodecs Zarr codec, and imagecodecs codecs are disabled")
    }
}

/// The Zarr v3 codec chain (encode order, without `bytes`) of an image's blocks.
pub(crate) fn codecs_for(s: &Stored, opts: &Options) -> Built<Vec<Codec>> {
    if image_codecs::is_image(s.compression) {
        return image_codecs::chain(s, opts);
    }
    if s.compression == 6 {
        problem!(Filter: "compression {} has no Zarr v3 codec zarr-python can read", compression_name(6));
    }
    let mut out = Vec::new();
    fill_order(s, opts, &mut out)?;
    predictor(s, opts, &mut out)?;
    if s.packed() {
        packints(s, opts, &mut out)?;
    }
    compressor(s, opts, &mut out)?;
    Ok(out)
}

/// FillOrder 2 (bits of each byte stored least significant first): `imagecodecs_bitorder` on
/// uncompressed byte-aligned samples, where reversing the decoded samples' bytes is reversing
/// the stored ones.
fn fill_order(s: &Stored, opts: &Options, out: &mut Vec<Codec>) -> Built<()> {
    if s.fill_order != 2 {
        return Ok(());
    }
    let before = if s.compression != 1 {
        format!(
            "decompressing its {} stream",
            compression_name(s.compression)
        )
    } else if s.packed() {
        format!("unpacking its {}-bit samples", s.bits)
    } else {
        needs_ic(opts, "FillOrder 2 (bits in reversed order)")?;
        out.push(Codec::new(
            CodecId::Bitorder.name(),
            CodecStage::ArrayToArray,
            json!({}),
        ));
        return Ok(());
    };
    Err(fill_order_problem(&before))
}

/// FillOrder 2 where the stored bytes must be bit-reversed before anything decodes them.
pub(crate) fn fill_order_problem(before: &str) -> NotBuilt {
    NotBuilt::Rewrite {
        kind: ProblemKind::Filter,
        reason: format!(
            "FillOrder 2 (bits in reversed order) has no Zarr codec here: the stored bytes must be bit-reversed before {before}, and imagecodecs_bitorder (array → array) reverses them only after decoding"
        ),
        rewrite: ("gdal_translate -co COMPRESS=DEFLATE", "fillorder1"),
    }
}

fn predictor(s: &Stored, opts: &Options, out: &mut Vec<Codec>) -> Built<()> {
    match s.predictor {
        1 => {}
        2 if s.compression == 1 => {
            problem!(Filter: "Predictor 2 without compression is not supported");
        }
        2 if s.packed() => {
            problem!(Filter: "Predictor 2 (horizontal differencing) on {}-bit samples is not supported: libtiff differences 8-, 16-, 32- and 64-bit samples only", s.bits);
        }
        2 => {
            if s.dtype.kind == Kind::Float {
                // libtiff differences the samples' bit patterns as integers; imagecodecs_delta
                // would difference float values, so no codec chain reads this back.
                return Err(NotBuilt::Rewrite {
                    kind: ProblemKind::Filter,
                    reason: "Predictor 2 (horizontal differencing) on floating-point samples has no Zarr codec: libtiff differences their bit patterns as integers; imagecodecs_floatpred reads the floating-point predictor".into(),
                    rewrite: ("gdal_translate -co COMPRESS=DEFLATE -co PREDICTOR=3", "floatpred"),
                });
            }
            needs_ic(opts, "Predictor 2 (horizontal differencing)")?;
            let axis = if s.chunky_spp > 1 { -2 } else { -1 };
            out.push(Codec::new(
                CodecId::Delta.name(),
                CodecStage::ArrayToArray,
                json!({"axis": axis, "dist": 1}),
            ));
        }
        3 => {
            let d = s.dtype;
            if d.kind != Kind::Float || s.chunky_spp > 1 || d.endian != Endian::Little {
                problem!(Filter: "Predictor 3 (floating point) is supported for little-endian single-sample float images only");
            }
            if s.compression == 1 {
                problem!(Filter: "Predictor 3 without compression is not supported");
            }
            needs_ic(opts, "Predictor 3 (floating point)")?;
            // Replaces `bytes`: the predictor differences and byte-shuffles whole rows.
            out.push(Codec::new(
                CodecId::Floatpred.name(),
                CodecStage::ArrayToBytes,
                json!({"axis": -1, "dist": 1}),
            ));
        }
        p => problem!(Filter: "Predictor {p} has no Zarr codec"),
    }
    Ok(())
}

/// Packed integers (TIFF 6.0 section 3: MSB first; libtiff starts each row of a block on a
/// byte): `imagecodecs_packints` with the row length in samples as its run length, in place of
/// `bytes`, as tifffile unpacks them.
fn packints(s: &Stored, opts: &Options, out: &mut Vec<Codec>) -> Built<()> {
    needs_ic(opts, &format!("{}-bit samples", s.bits))?;
    let runlen = s
        .block_width
        .checked_mul(s.chunky_spp)
        .ok_or(NotBuilt::Problem(
            ProblemKind::Unreadable,
            "the block row length overflows".into(),
        ))?;
    out.push(Codec::new(
        CodecId::Packints.name(),
        CodecStage::ArrayToBytes,
        json!({"bitspersample": s.bits, "runlen": runlen}),
    ));
    Ok(())
}

/// The bytes → bytes compressor.
fn compressor(s: &Stored, opts: &Options, out: &mut Vec<Codec>) -> Built<()> {
    let c = s.compression;
    let ic = |id: CodecId, out: &mut Vec<Codec>| -> Built<()> {
        needs_ic(opts, &format!("compression {}", compression_name(c)))?;
        out.push(Codec::new(id.name(), CodecStage::BytesToBytes, json!({})));
        Ok(())
    };
    match c {
        1 => {}
        8 | 32946 => out.push(Codec::zlib(6)),
        50000 => out.push(Codec::zstd(0)),
        34925 => out.push(Codec::new(
            CodecId::Lzma.name(),
            CodecStage::BytesToBytes,
            json!({"format": 1, "check": -1, "preset": null, "filters": null}),
        )),
        5 => ic(CodecId::Lzw, out)?,
        32773 => ic(CodecId::Packbits, out)?,
        c => {
            problem!(Filter:
                "compression {} has no Zarr v3 codec zarr-python can read",
                compression_name(c)
            )
        }
    }
    Ok(())
}
