//! TIFF compressions whose blocks are whole images of another format: each decodes through one
//! imagecodecs Zarr v3 codec in place of `bytes` (`CodecStage::ArrayToBytes`), the decoder
//! tifffile calls for it, which returns the block's samples in the chunk's shape.
//!
//! | Compression | Zarr v3 codec | samples it decodes | samples per pixel of a block |
//! |---|---|---|---|
//! | 7 JPEG | `imagecodecs_jpeg` {tables: JPEGTables, base64} | uint8 | 1 (gray), 3 (RGB, YCbCr → RGB) |
//! | 33003–33005, 34712 JPEG 2000 | `imagecodecs_jpeg2k` | (u)int8, (u)int16, (u)int32 | any |
//! | 50002, 52546 JPEG XL | `imagecodecs_jpegxl` | uint8, uint16, float16, float32 | any |
//! | 34934, 22610 JPEG XR | `imagecodecs_jpegxr` | uint8, uint16, float16, float32 | 1, 3, 4 |
//! | 34933 PNG | `imagecodecs_png` | uint8, uint16 | 1–4 |
//! | 50001 WebP | `imagecodecs_webp` ({hasalpha: true} with 4 samples: libwebp drops an opaque alpha, tifffile asks for it back) | uint8 | 3, 4 |
//! | 34887 LERC | `imagecodecs_lerc`, then `numcodecs.zlib` or `zstd` as LercParameters (50674) says | (u)int8–32, float32, float64 | any |
//! | 2 CCITT RLE, 3 Group 3, 4 Group 4 | `imagecodecs_ccittrle`, `imagecodecs_ccittfax3` {t4options: T4Options}, `imagecodecs_ccittfax4` | 1-bit, read as bool (no inversion for WhiteIsZero, as tifffile and GDAL) | 1 |
//!
//! Band-interleaved images decode one sample per block (not WebP, nor the JPEG layouts
//! `jpeg_supported` refuses). A predictor with an image codec is a problem (writers do not
//! combine them, and tifffile ignores one), and so is any other sample type or sample count: it
//! is not what the codec decodes. FillOrder is ignored, as tifffile does, except before CCITT,
//! where the stored bytes would have to be bit-reversed first.

use crate::built::{problem, Built, NotBuilt};
use crate::codecs::{compression_name, fill_order_problem, jpeg_supported, needs_ic, Stored};
use crate::Options;
use serde_json::json;
use vzplan_core::{Codec, CodecId, CodecStage, Kind, ProblemKind};

/// What one image codec decodes.
struct ImageCodec {
    id: CodecId,
    /// Sample types its decoder returns: (kind, bytes).
    dtypes: &'static [(Kind, usize)],
    /// Samples per pixel of a block it decodes (empty: any).
    samples: &'static [u64],
}

const BOOL: (Kind, usize) = (Kind::Bool, 1);
const U8: (Kind, usize) = (Kind::UInt, 1);
const I8: (Kind, usize) = (Kind::Int, 1);
const U16: (Kind, usize) = (Kind::UInt, 2);
const I16: (Kind, usize) = (Kind::Int, 2);
const U32: (Kind, usize) = (Kind::UInt, 4);
const I32: (Kind, usize) = (Kind::Int, 4);
const F16: (Kind, usize) = (Kind::Float, 2);
const F32: (Kind, usize) = (Kind::Float, 4);
const F64: (Kind, usize) = (Kind::Float, 8);

fn codec(compression: u64) -> Option<ImageCodec> {
    let (id, dtypes, samples): (_, &'static [_], &'static [_]) = match compression {
        2 => (CodecId::Ccittrle, &[BOOL], &[1]),
        3 => (CodecId::Ccittfax3, &[BOOL], &[1]),
        4 => (CodecId::Ccittfax4, &[BOOL], &[1]),
        7 => (CodecId::Jpeg, &[U8], &[1, 3]),
        33003..=33005 | 34712 => (CodecId::Jpeg2k, &[U8, I8, U16, I16, U32, I32], &[]),
        50002 | 52546 => (CodecId::Jpegxl, &[U8, U16, F16, F32], &[]),
        34934 | 22610 => (CodecId::Jpegxr, &[U8, U16, F16, F32], &[1, 3, 4]),
        34933 => (CodecId::Png, &[U8, U16], &[1, 2, 3, 4]),
        50001 => (CodecId::Webp, &[U8], &[3, 4]),
        34887 => (CodecId::Lerc, &[U8, I8, U16, I16, U32, I32, F32, F64], &[]),
        _ => return None,
    };
    Some(ImageCodec {
        id,
        dtypes,
        samples,
    })
}

/// Whether blocks of this compression are images an imagecodecs array-to-bytes codec decodes.
pub(crate) fn is_image(compression: u64) -> bool {
    codec(compression).is_some()
}

/// The codec chain of an image codec's blocks: the codec in place of `bytes`, and for LERC the
/// compressor LercParameters names after it.
pub(crate) fn chain(s: &Stored, opts: &Options) -> Built<Vec<Codec>> {
    let Some(ic) = codec(s.compression) else {
        problem!(Filter: "compression {} is not an image codec", compression_name(s.compression));
    };
    let name = compression_name(s.compression);
    if s.predictor != 1 {
        problem!(Filter: "Predictor {} with compression {name} is not supported: tifffile ignores a predictor on image codecs", s.predictor);
    }
    let bits_ok = if ic.dtypes == [BOOL] {
        s.bits == 1
    } else {
        !s.packed()
    };
    if !bits_ok || !ic.dtypes.contains(&(s.dtype.kind, s.dtype.size)) {
        problem!(Filter: "compression {name} decodes {} samples, not {}-bit {} samples", list(ic.dtypes), s.bits, kind_name(s.dtype.kind));
    }
    if s.compression == 7 {
        jpeg_supported(s.spp, s.planar, s.photometric)
            .map_err(|why| NotBuilt::Problem(ProblemKind::Filter, why))?;
    }
    if !ic.samples.is_empty() && !ic.samples.contains(&s.chunky_spp) {
        problem!(Filter:
            "compression {name} holds {} samples per pixel in a block, not {} ({})",
            counts(ic.samples),
            s.chunky_spp,
            if s.planar { "band-interleaved" } else { "pixel-interleaved" }
        );
    }
    if s.fill_order == 2 && ic.dtypes == [BOOL] {
        return Err(fill_order_problem(&format!(
            "the {name} decoder reads them"
        )));
    }
    needs_ic(opts, &format!("compression {name}"))?;
    let config = match s.compression {
        3 => json!({"t4options": s.t4options}),
        50001 if s.chunky_spp == 4 => json!({"hasalpha": true}),
        _ => json!({}),
    };
    let mut out = vec![Codec::new(ic.id.name(), CodecStage::ArrayToBytes, config)];
    if s.compression == 34887 {
        match s.lerc_compression {
            0 => {}
            1 => out.push(Codec::zlib(6)),
            2 => out.push(Codec::zstd(0)),
            n => {
                problem!(Filter: "LercParameters (50674) names additional compression {n}, which has no Zarr codec (0 none, 1 Deflate, 2 ZSTD)")
            }
        }
    }
    Ok(out)
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Bool => "bool",
        Kind::Int => "signed integer",
        Kind::UInt => "unsigned integer",
        Kind::Float => "floating-point",
        Kind::Complex => "complex",
        _ => "other",
    }
}

fn list(dtypes: &[(Kind, usize)]) -> String {
    let names: Vec<String> = dtypes
        .iter()
        .map(|&(k, n)| match k {
            Kind::Bool => "1-bit".to_string(),
            Kind::Int => format!("int{}", 8 * n),
            Kind::UInt => format!("uint{}", 8 * n),
            _ => format!("float{}", 8 * n),
        })
        .collect();
    names.join(", ")
}

fn counts(samples: &[u64]) -> String {
    let v: Vec<String> = samples.iter().map(u64::to_string).collect();
    v.join(" or ")
}
