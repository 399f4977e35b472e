//! TIFF compression and predictor → the Zarr v3 codec chain that decodes the stored blocks, and
//! the checks of what a codec decodes as the TIFF writer meant it.

use crate::built::{problem, Built, NotBuilt};
use crate::Options;
use serde_json::json;
use vzplan_core::{Codec, CodecId, CodecStage, DType, Endian, Kind, ProblemKind};

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

/// The Zarr v3 codec chain (encode order, without `bytes`) for a compression and predictor.
///
/// | TIFF | Zarr v3 codec |
/// |---|---|
/// | Compression 1 | (none) |
/// | 8, 32946 Deflate | `numcodecs.zlib` (TIFF deflate is a zlib stream) |
/// | 50000 ZSTD | `zstd` (Zarr v3 core) |
/// | 34925 LZMA | `numcodecs.lzma` (xz container, `format` 1) |
/// | 5 LZW | `imagecodecs_lzw` (only with `Options::imagecodecs`) |
/// | 32773 PackBits | `imagecodecs_packbits` (only with `Options::imagecodecs`; `numcodecs.packbits` is a boolean bit-packer, not TIFF PackBits) |
/// | Predictor 2 | `imagecodecs_delta` {axis: -1, or -2 for contiguous multi-sample blocks} before `bytes` (integers only; only with `Options::imagecodecs`) |
///
/// | Predictor 3 | `imagecodecs_floatpred` {axis: -1, dist: 1} in place of `bytes` (`CodecStage::ArrayToBytes`; little-endian single-sample floats only; only with `Options::imagecodecs`) |
///
/// | 7 JPEG | `imagecodecs_jpeg` in place of `bytes` (8-bit grayscale, or pixel-interleaved RGB/YCbCr; shared JPEGTables as its base64 `tables`, added by `jpeg_with_tables`; only with `Options::imagecodecs`) |
///
/// Everything else is a problem: band-interleaved JPEG, old-style JPEG, WebP, JPEG 2000/XL, PNG and LERC
/// decode through imagecodecs array → bytes codecs whose colour handling vzplan does not verify;
/// CCITT has no Zarr codec.
pub(crate) fn codecs_for(
    compression: u64,
    predictor: u64,
    dtype: DType,
    chunky_spp: u64,
    opts: &Options,
) -> Built<Vec<Codec>> {
    let needs_ic = |what: String| -> Built<()> {
        if opts.imagecodecs {
            Ok(())
        } else {
            problem!(Filter: "{what} needs an imagecodecs Zarr codec, and imagecodecs codecs are disabled")
        }
    };
    let mut out = Vec::new();
    match predictor {
        1 => {}
        2 if compression == 1 => {
            problem!(Filter: "Predictor 2 without compression is not supported");
        }
        2 => {
            if dtype.kind == Kind::Float {
                // libtiff differences the samples' bit patterns as integers; imagecodecs_delta
                // would difference float values, so no codec chain reads this back.
                return Err(NotBuilt::Rewrite {
                    kind: ProblemKind::Filter,
                    reason: "Predictor 2 (horizontal differencing) on floating-point samples has no Zarr codec: libtiff differences their bit patterns as integers; imagecodecs_floatpred reads the floating-point predictor".into(),
                    rewrite: ("gdal_translate -co COMPRESS=DEFLATE -co PREDICTOR=3", "floatpred"),
                });
            }
            needs_ic("Predictor 2 (horizontal differencing)".into())?;
            let axis = if chunky_spp > 1 { -2 } else { -1 };
            out.push(Codec::new(
                CodecId::Delta.name(),
                CodecStage::ArrayToArray,
                json!({"axis": axis, "dist": 1}),
            ));
        }
        3 => {
            if dtype.kind != Kind::Float || chunky_spp > 1 || dtype.endian != Endian::Little {
                problem!(Filter: "Predictor 3 (floating point) is supported for little-endian single-sample float images only");
            }
            if compression == 1 {
                problem!(Filter: "Predictor 3 without compression is not supported");
            }
            needs_ic("Predictor 3 (floating point)".into())?;
            // Replaces `bytes`: the predictor differences and byte-shuffles whole rows.
            out.push(Codec::new(
                CodecId::Floatpred.name(),
                CodecStage::ArrayToBytes,
                json!({"axis": -1, "dist": 1}),
            ));
        }
        p => problem!(Filter: "Predictor {p} has no Zarr codec"),
    }
    match compression {
        1 => {}
        8 | 32946 => out.push(Codec::zlib(6)),
        50000 => out.push(Codec::zstd(0)),
        34925 => out.push(Codec::new(
            CodecId::Lzma.name(),
            CodecStage::BytesToBytes,
            json!({"format": 1, "check": -1, "preset": null, "filters": null}),
        )),
        5 => {
            needs_ic(format!("compression {}", compression_name(5)))?;
            out.push(Codec::new(
                CodecId::Lzw.name(),
                CodecStage::BytesToBytes,
                json!({}),
            ));
        }
        32773 => {
            needs_ic(format!("compression {}", compression_name(32773)))?;
            out.push(Codec::new(
                CodecId::Packbits.name(),
                CodecStage::BytesToBytes,
                json!({}),
            ));
        }
        7 if predictor == 1 && dtype.size == 1 && dtype.kind == Kind::UInt => {
            // 8-bit samples; the sample layouts are checked by `jpeg_supported`, shared tables
            // are added by `jpeg_with_tables`.
            needs_ic(format!("compression {}", compression_name(7)))?;
            out.push(Codec::new(
                CodecId::Jpeg.name(),
                CodecStage::ArrayToBytes,
                json!({}),
            ));
        }
        6 | 7 | 33003..=33005 | 34712 | 34887 | 34933 | 34934 | 22610 | 50001 | 50002 | 52546 => {
            problem!(Filter:
                "compression {} decodes only with an imagecodecs array-to-bytes codec, which the codec chain model cannot express",
                compression_name(compression)
            );
        }
        c => {
            problem!(Filter:
                "compression {} has no Zarr v3 codec zarr-python can read",
                compression_name(c)
            )
        }
    }
    Ok(out)
}
