//! One IFD → one [`ArrayLayout`]: dtype, shape, blocks (strips or tiles), codecs, attributes.
//!
//! TIFF 6.0 sections 3–8 (baseline fields and their defaults), 9 (PackBits), 13 (LZW),
//! 14 (Predictor), 15 (tiles), 19 (SampleFormat); Adobe Photoshop TIFF Technical Note 3
//! (floating-point predictor, Deflate 8); the ZSTD (50000) / LZMA (34925) codes from libtiff.
//!
//! TIFF 6.0: <https://www.itu.int/itudoc/itu-t/com16/tiff-fx/docs/tiff6.pdf>

use crate::built::{problem, Built, NotBuilt};
use crate::codecs::{codecs_for, jpeg_with_tables, Stored};
use crate::geo;
use crate::ifd::{Ifd, Tiff};
use crate::strips;
use crate::Options;
use serde_json::{json, Map, Value};
use vzplan_core::ProblemKind;
use vzplan_core::{
    ArrayLayout, ChunkData, ChunkEntry, ChunkTable, DType, Dim, EdgeStorage, Endian, Kind,
};

pub(crate) const NEW_SUBFILE_TYPE: u16 = 254;
pub(crate) const SUBFILE_TYPE: u16 = 255;
const IMAGE_WIDTH: u16 = 256;
const IMAGE_LENGTH: u16 = 257;
pub(crate) const BITS_PER_SAMPLE: u16 = 258;
const COMPRESSION: u16 = 259;
const PHOTOMETRIC: u16 = 262;
const FILL_ORDER: u16 = 266;
pub(crate) const STRIP_OFFSETS: u16 = 273;
const SAMPLES_PER_PIXEL: u16 = 277;
const ROWS_PER_STRIP: u16 = 278;
pub(crate) const STRIP_BYTE_COUNTS: u16 = 279;
const PLANAR_CONFIG: u16 = 284;
const PREDICTOR: u16 = 317;
const TILE_WIDTH: u16 = 322;
const TILE_LENGTH: u16 = 323;
pub(crate) const TILE_OFFSETS: u16 = 324;
pub(crate) const TILE_BYTE_COUNTS: u16 = 325;
pub(crate) const SUB_IFDS: u16 = 330;
pub(crate) const JPEG_TABLES: u16 = 347;
pub(crate) const SAMPLE_FORMAT: u16 = 339;
const T4_OPTIONS: u16 = 292;
pub(crate) const LERC_PARAMETERS: u16 = 50674;
const YCBCR_SUBSAMPLING: u16 = 530;
pub(crate) const GDAL_NODATA: u16 = 42113;
pub(crate) const GDAL_METADATA: u16 = 42112;

/// Largest JPEGTables we copy into the codec configuration (libtiff writes well under 1 KiB).
const MAX_JPEG_TABLES: u64 = 64 << 10;

/// What an IFD described, before it is named.
pub(crate) struct Image {
    pub layout: ArrayLayout,
    pub h: u64,
    pub w: u64,
    pub has_geo: bool,
    /// An attribute that could not be carried (the image itself is fine).
    pub attr_problem: Option<String>,
}

/// Image size, samples per pixel and the sample data type.
struct Samples {
    h: u64,
    w: u64,
    spp: u64,
    dtype: DType,
    /// Bits per sample as stored (fewer than the dtype's: packed integers).
    bits: u64,
}

/// How the samples are stored: interleaving, compression, and what decides the codec chain.
struct Format {
    planar: bool,
    compression: u64,
    stored: Stored,
    jpeg_tables: Option<Vec<u8>>,
}

/// The strip or tile grid and its offsets and byte counts.
struct Grid {
    tiled: bool,
    kind: &'static str,
    bh: u64,
    bw: u64,
    down: u64,
    across: u64,
    planes: u64,
    row_bytes: u64,
    offsets: Vec<u64>,
    counts: Vec<u64>,
}

/// Builds the array of one IFD, or says why not: the whole file is bad, or only this image.
pub(crate) fn build(t: &Tiff, ifd: &Ifd, opts: &Options) -> Built<Image> {
    let s = samples(t, ifd)?;
    let mut f = format(t, ifd, &s)?;
    let g = grid(t, ifd, &s, &f)?;
    f.stored.block_width = g.bw;
    let mut codecs = codecs_for(&f.stored, opts)?;
    let (edges, dropped) = edge_storage(t, ifd, &s, &f, &g)?;
    let entries = entries(t, &s, &f, &g, edges, &dropped)?;
    let (
        Samples {
            h, w, spp, dtype, ..
        },
        planar,
    ) = (s, f.planar);
    let (bh, bw) = (g.bh, g.bw);
    let (dims, shape, block) = if planar {
        (vec!["band", "y", "x"], vec![spp, h, w], vec![1, bh, bw])
    } else if spp > 1 {
        (vec!["y", "x", "band"], vec![h, w, spp], vec![bh, bw, spp])
    } else {
        (vec!["y", "x"], vec![h, w], vec![bh, bw])
    };
    let mut attrs = Map::new();
    let has_geo = geo::geo_attrs(t, ifd, h, w, &mut attrs)?;
    let mut fill_value = None;
    if let Some(e) = ifd.get(GDAL_NODATA) {
        let s = t.ascii(e)?;
        match nodata(&s, dtype) {
            Some((json, bytes)) => {
                attrs.insert("_FillValue".into(), json);
                fill_value = Some(bytes);
            }
            None => {
                attrs.insert("GDAL_NODATA".into(), json!(s));
            }
        }
    }
    let attr_problem = match ifd.get(GDAL_METADATA) {
        Some(e) => crate::gdal_metadata::scale_offset(&t.ascii(e)?, spp, &mut attrs),
        None => None,
    };
    if let Some(tables) = &f.jpeg_tables {
        jpeg_with_tables(&mut codecs, tables);
    }
    // Raw samples cut between rows stay raw samples (not so packed ones, or reversed bits).
    let splittable = f.compression == 1 && !g.tiled && !planar && codecs.is_empty();
    let layout = ArrayLayout {
        path: String::new(),
        dims: dims.into_iter().map(|d| Dim::new(d, false)).collect(),
        shape,
        dtype,
        fill_value,
        attrs,
        codecs,
        chunks: ChunkTable {
            block,
            edges,
            splittable,
            entries: entries.into(),
        },
        values: None,
        fields: Vec::new(),
    };
    Ok(Image {
        layout,
        h,
        w,
        has_geo,
        attr_problem,
    })
}

/// ImageWidth/ImageLength, SamplesPerPixel, BitsPerSample and SampleFormat → size and dtype.
fn samples(t: &Tiff, ifd: &Ifd) -> Built<Samples> {
    let Some(w) = t.uint(ifd, IMAGE_WIDTH)? else {
        problem!(Unreadable: "ImageWidth (256) is missing")
    };
    let Some(h) = t.uint(ifd, IMAGE_LENGTH)? else {
        problem!(Unreadable: "ImageLength (257) is missing")
    };
    if w == 0 || h == 0 {
        problem!(Unreadable: "the image is empty ({h} × {w} pixels)");
    }
    let spp = t.uint(ifd, SAMPLES_PER_PIXEL)?.unwrap_or(1);
    if spp == 0 || spp > 1 << 16 {
        problem!(Unreadable: "SamplesPerPixel {spp} is not supported");
    }
    let bps = per_sample(t, ifd, BITS_PER_SAMPLE, spp)?;
    if bps.is_empty() || bps.iter().any(|&b| b != bps[0]) {
        problem!(DataType: "mixed BitsPerSample {bps:?} per sample is not supported");
    }
    let sf = per_sample(t, ifd, SAMPLE_FORMAT, spp)?;
    if sf.is_empty() || sf.iter().any(|&b| b != sf[0]) {
        problem!(DataType: "mixed SampleFormat {sf:?} per sample is not supported");
    }
    let endian = if t.le { Endian::Little } else { Endian::Big };
    let dtype = match (sf[0], bps[0]) {
        (1, 8 | 16 | 32 | 64) => DType::new(Kind::UInt, (bps[0] / 8) as usize, endian),
        // Packed integers, as tifffile reads them: 1 bit as bool, wider as the next integer.
        (1, 1) => DType::new(Kind::Bool, 1, endian),
        (1, 2..=7) => DType::new(Kind::UInt, 1, endian),
        (1, 9..=15) => DType::new(Kind::UInt, 2, endian),
        (1, 17..=31) => DType::new(Kind::UInt, 4, endian),
        (2, 8 | 16 | 32 | 64) => DType::new(Kind::Int, (bps[0] / 8) as usize, endian),
        (3, 16 | 32 | 64) => DType::new(Kind::Float, (bps[0] / 8) as usize, endian),
        (4, b) => {
            problem!(DataType: "SampleFormat 4 (undefined) with {b}-bit samples is not supported")
        }
        (6, 64 | 128) => DType::new(Kind::Complex, (bps[0] / 8) as usize, endian),
        (5, b) => {
            return Err(NotBuilt::Rewrite {
                kind: ProblemKind::DataType,
                reason: format!(
                    "complex integer samples (SampleFormat 5, {b} bits: GDAL's CInt{}) have no Zarr data type; complex floats do",
                    b / 2
                ),
                rewrite: ("gdal_translate -ot CFloat32", "cfloat32"),
            })
        }
        (6, b) => {
            problem!(DataType: "{b}-bit complex samples (SampleFormat 6) have no Zarr data type")
        }
        (f, b) => problem!(DataType: "{b}-bit samples (SampleFormat {f}) have no Zarr data type"),
    };
    Ok(Samples {
        h,
        w,
        spp,
        dtype,
        bits: bps[0],
    })
}

/// A per-sample tag's values (BitsPerSample, SampleFormat; 1 when absent), as tifffile and libtiff
/// read them: the first SamplesPerPixel values when the tag lists more.
fn per_sample(t: &Tiff, ifd: &Ifd, tag: u16, spp: u64) -> Built<Vec<u64>> {
    let mut v = match ifd.get(tag) {
        Some(e) => t.uints(e)?,
        None => vec![1],
    };
    v.truncate(usize::try_from(spp).unwrap_or(usize::MAX));
    Ok(v)
}

/// PlanarConfiguration, Compression, Predictor, FillOrder, the codec tags and the YCbCr checks:
/// what decides the codec chain.
fn format(t: &Tiff, ifd: &Ifd, s: &Samples) -> Built<Format> {
    let spp = s.spp;
    let planar = match t.uint(ifd, PLANAR_CONFIG)?.unwrap_or(1) {
        _ if spp == 1 => false,
        1 => false,
        2 => true,
        p => problem!(Storage: "PlanarConfiguration {p} is not 1 (contiguous) or 2 (separate)"),
    };
    let compression = t.uint(ifd, COMPRESSION)?.unwrap_or(1);
    let photometric = t.uint(ifd, PHOTOMETRIC)?;
    if photometric == Some(6) && compression != 7 {
        let sub = match ifd.get(YCBCR_SUBSAMPLING) {
            Some(e) => t.uints(e)?,
            None => vec![2, 2],
        };
        if sub.get(0..2) != Some(&[1, 1]) {
            problem!(Filter: "YCbCr chroma subsampling {sub:?} is not supported");
        }
    }
    if ifd.get(JPEG_TABLES).is_some() && compression == 6 {
        problem!(Filter: "old-style JPEG (6) with JPEGTables (347) has no Zarr codec");
    }
    let jpeg_tables = match ifd.get(JPEG_TABLES) {
        Some(e) if compression == 7 => {
            if e.count > MAX_JPEG_TABLES {
                problem!(Filter:
                    "JPEGTables (347) holds {} bytes, more than {MAX_JPEG_TABLES}",
                    e.count
                );
            }
            Some(t.raw(e)?)
        }
        _ => None,
    };
    // LercParameters: [version, additional compression].
    let lerc_compression = match ifd.get(LERC_PARAMETERS) {
        Some(e) if compression == 34887 => t.uints(e)?.get(1).copied().unwrap_or(0),
        _ => 0,
    };
    let stored = Stored {
        compression,
        predictor: t.uint(ifd, PREDICTOR)?.unwrap_or(1),
        dtype: s.dtype,
        bits: s.bits,
        spp,
        chunky_spp: if planar { 1 } else { spp },
        planar,
        photometric,
        fill_order: t.uint(ifd, FILL_ORDER)?.unwrap_or(1),
        block_width: 0,
        lerc_compression,
        t4options: t.uint(ifd, T4_OPTIONS)?.unwrap_or(0),
    };
    Ok(Format {
        planar,
        compression,
        stored,
        jpeg_tables,
    })
}

/// The strip or tile grid, with offsets and byte counts checked against it.
fn grid(t: &Tiff, ifd: &Ifd, s: &Samples, f: &Format) -> Built<Grid> {
    let (h, w, spp) = (s.h, s.w, s.spp);
    let tiled = [TILE_WIDTH, TILE_LENGTH, TILE_OFFSETS]
        .iter()
        .any(|&tag| ifd.get(tag).is_some());
    let (bh, bw, off_tag, cnt_tag) = if tiled {
        let (Some(tw), Some(tl)) = (t.uint(ifd, TILE_WIDTH)?, t.uint(ifd, TILE_LENGTH)?) else {
            problem!(Unreadable: "a tiled image needs both TileWidth (322) and TileLength (323)");
        };
        if tw == 0 || tl == 0 {
            problem!(Unreadable: "tile size {tl} × {tw} is empty");
        }
        (tl, tw, TILE_OFFSETS, TILE_BYTE_COUNTS)
    } else {
        let rps = t.uint(ifd, ROWS_PER_STRIP)?.unwrap_or(h);
        if rps == 0 {
            problem!(Unreadable: "RowsPerStrip is 0");
        }
        (rps.min(h), w, STRIP_OFFSETS, STRIP_BYTE_COUNTS)
    };
    let down = h.div_ceil(bh);
    let across = w.div_ceil(bw);
    let planes = if f.planar { spp } else { 1 };
    let chunky_spp = if f.planar { 1 } else { spp };
    let n = down
        .checked_mul(across)
        .and_then(|x| x.checked_mul(planes))
        .unwrap_or(u64::MAX);
    let kind = if tiled { "Tile" } else { "Strip" };
    let Some(oe) = ifd.get(off_tag) else {
        problem!(Unreadable: "{kind}Offsets ({off_tag}) is missing");
    };
    if oe.count != n {
        problem!(
            Unreadable: "{kind}Offsets has {} entries, the image needs {n}",
            oe.count
        );
    }
    let offsets = t.uints(oe)?;
    // Packed samples: each block row starts on a byte (TIFF 6.0 section 3, BitsPerSample).
    let row_bytes = bw
        .checked_mul(chunky_spp)
        .and_then(|x| x.checked_mul(s.bits))
        .map(|bits| bits.div_ceil(8))
        .ok_or_else(|| t.corrupt("block row size overflows"))?;
    // A full block's size must fit (strips.rs multiplies the two unchecked).
    row_bytes
        .checked_mul(bh)
        .ok_or_else(|| t.corrupt("block size overflows"))?;
    let counts = match ifd.get(cnt_tag) {
        Some(e) => {
            if e.count != n {
                problem!(
                    Unreadable: "{kind}ByteCounts has {} entries, the image needs {n}",
                    e.count
                );
            }
            t.uints(e)?
        }
        None if f.compression == 1 => {
            // Absent byte counts (a TIFF 6.0 violation libtiff tolerates): derive them.
            (0..n)
                .map(|i| {
                    let r = i % down;
                    let rows = if tiled { bh } else { bh.min(h - r * bh) };
                    rows * row_bytes
                })
                .collect()
        }
        None => problem!(Unreadable: "{kind}ByteCounts ({cnt_tag}) is missing"),
    };
    Ok(Grid {
        tiled,
        kind,
        bh,
        bw,
        down,
        across,
        planes,
        row_bytes,
        offsets,
        counts,
    })
}

/// Edge storage: tiles are padded (TIFF 6.0 section 15); strips are normally short, but some
/// writers pad the last one, so measure it when the image height is not a multiple. Also returns
/// the empty padded blocks to drop.
fn edge_storage(
    t: &Tiff,
    ifd: &Ifd,
    s: &Samples,
    f: &Format,
    g: &Grid,
) -> Built<(EdgeStorage, Vec<usize>)> {
    if g.tiled {
        return Ok((EdgeStorage::Padded, Vec::new()));
    }
    let fill = match ifd.get(GDAL_NODATA) {
        Some(e) => nodata(&t.ascii(e)?, s.dtype).map(|(_, b)| b),
        None => None,
    }
    .unwrap_or_else(|| vec![0; s.dtype.size]);
    let st = strips::Strips {
        h: s.h,
        rows_per_strip: g.bh,
        down: g.down,
        planes: g.planes,
        row_bytes: g.row_bytes,
        compression: f.compression,
        offsets: &g.offsets,
        counts: &g.counts,
        fill: &fill,
    };
    strips::last_strips(t, &st)
}

/// Chunk entries, row-major over (plane, row, column).
fn entries(
    t: &Tiff,
    s: &Samples,
    f: &Format,
    g: &Grid,
    edges: EdgeStorage,
    dropped: &[usize],
) -> Built<Vec<ChunkEntry>> {
    let (kind, down, across, bh) = (g.kind, g.down, g.across, g.bh);
    let uncompressed = f.compression == 1;
    let short_rows = s.h % bh;
    let mut entries = Vec::with_capacity(g.offsets.len());
    for (i, (&off, &cnt)) in g.offsets.iter().zip(&g.counts).enumerate() {
        let i = i as u64;
        let (p, r, c) = (i / (down * across), (i / across) % down, i % across);
        if cnt == 0 || dropped.contains(&(i as usize)) {
            continue; // unallocated (sparse) or empty padded block: reads as the fill value
        }
        if off == 0 {
            problem!(Unreadable: "{kind} {i} has offset 0 but {cnt} bytes");
        }
        let len = if uncompressed {
            let rows =
                if !g.tiled && r == down - 1 && short_rows != 0 && edges == EdgeStorage::Exact {
                    short_rows
                } else {
                    bh
                };
            let need = rows * g.row_bytes;
            if cnt < need {
                problem!(Unreadable: "{kind} {i} stores {cnt} bytes, fewer than the {need} an uncompressed block needs");
            }
            need
        } else {
            cnt
        };
        if off.checked_add(len).is_none_or(|end| end > t.size) {
            return Err(NotBuilt::File(t.past_end(
                format!(
                    "{kind} {i} at offset {off} ({len} bytes) runs past the end of the file ({} bytes): truncated",
                    t.size
                ),
                off.saturating_add(len),
                true,
            )));
        }
        let index = if f.planar {
            vec![p, r, c]
        } else if s.spp > 1 {
            vec![r, c, 0]
        } else {
            vec![r, c]
        };
        entries.push(ChunkEntry {
            index,
            data: ChunkData::Ref {
                offset: off,
                length: len,
            },
            filter_mask: 0,
        });
    }
    Ok(entries)
}

/// GDAL_NODATA (an ASCII number) as a `_FillValue` JSON value and its raw bytes, when the dtype
/// can hold it exactly.
fn nodata(s: &str, dtype: DType) -> Option<(Value, Vec<u8>)> {
    let s = s.trim().trim_end_matches('\0');
    let v: f64 = match s.to_ascii_lowercase().as_str() {
        "nan" | "-nan" => f64::NAN,
        "inf" | "+inf" | "infinity" => f64::INFINITY,
        "-inf" | "-infinity" => f64::NEG_INFINITY,
        other => other.parse().ok()?,
    };
    let le = dtype.endian == Endian::Little;
    let bytes: Vec<u8> = match (dtype.kind, dtype.size) {
        (Kind::Float, 4) => {
            let f = v as f32;
            if !(f as f64 == v || v.is_nan()) {
                return None;
            }
            if le {
                f.to_le_bytes().to_vec()
            } else {
                f.to_be_bytes().to_vec()
            }
        }
        (Kind::Float, 8) => {
            if le {
                v.to_le_bytes().to_vec()
            } else {
                v.to_be_bytes().to_vec()
            }
        }
        (Kind::Int | Kind::UInt, n) => {
            if v.fract() != 0.0 || !v.is_finite() {
                return None;
            }
            let (lo, hi) = if dtype.kind == Kind::Int {
                (
                    -(2f64.powi(8 * n as i32 - 1)),
                    2f64.powi(8 * n as i32 - 1) - 1.0,
                )
            } else {
                (0.0, 2f64.powi(8 * n as i32) - 1.0)
            };
            if v < lo || v > hi {
                return None;
            }
            let x = v as i128 as u128; // two's complement, low bytes
            let all = x.to_le_bytes();
            let mut b = all[..n].to_vec();
            if !le {
                b.reverse();
            }
            b
        }
        _ => return None,
    };
    Some((geo::num(v), bytes))
}
