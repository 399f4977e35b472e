//! HDF5 filter pipelines (IV.A.2.l) → Zarr v3 codecs, in pipeline (= encode) order.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! Built-in filters: deflate (`numcodecs.zlib`: HDF5 deflate is a zlib stream), shuffle,
//! fletcher32, szip (`imagecodecs_szip` with `header`: HDF5 prefixes the stream with the
//! uncompressed size), and nbit when it stores every bit (a pass-through). Plugin filters:
//! - zstd (the core `zstd` codec) and Blosc (the Zarr v3 `blosc` codec: a chunk is one Blosc
//!   frame);
//! - LZ4 (`imagecodecs_lz4h5`: HDF5's LZ4 framing — big-endian total size, block size, then
//!   size-prefixed blocks — is not `numcodecs.lz4`'s, which prefixes one block with a
//!   little-endian size);
//! - bzip2 (`numcodecs.bz2`: a chunk is one bzip2 stream);
//! - LZF (`imagecodecs_lzf` with `header` false: a chunk is raw LZF, no size before it). That
//!   codec decodes into a buffer of eight times the stored size, so a chunk LZF shrank more than
//!   eightfold cannot be read; [`check_stored_sizes`] finds those. A chunk LZF cannot shrink is
//!   stored unfiltered with its filter-mask bit set (the filter is optional);
//! - bitshuffle (`imagecodecs_bitshuffle` in place of `bytes`, followed by `imagecodecs_lz4h5`
//!   when it compresses with LZ4: the plugin's LZ4 framing is the LZ4 filter's), on 1-byte
//!   elements only, see [`bitshuffle`].
//!
//! No Zarr codec decodes the others, each a problem that says why: Blosc2 (a chunk is a Blosc2
//! frame, see [`blosc2`]), ZFP (H5Z-ZFP stores the zfp stream without its header, see [`ZFP`]),
//! bitshuffle with zstd or on wider elements, nbit packing fewer bits than the type has,
//! scaleoffset and unknown filters.

use crate::messages::Filter;
use vzplan_core::{ChunkList, Codec, CodecId, CodecStage, DType, DataRef};

pub const SZIP: u16 = 4;
pub const NBIT: u16 = 5;
pub const BZIP2: u16 = 307;
pub const LZF: u16 = 32000;
pub const BLOSC: u16 = 32001;
pub const LZ4: u16 = 32004;
pub const BITSHUFFLE: u16 = 32008;
/// H5Z-ZFP writes the zfp header (magic, mode, scalar type, chunk shape) into the filter's
/// client data and each chunk's bit stream without it. `imagecodecs_zfp` reads at least the
/// header's magic and mode from the stream, even when told the shape and type, and
/// `numcodecs.zfpy` the whole header: neither decodes these chunks (with the header's bits put
/// before them, imagecodecs does).
pub const ZFP: u16 = 32013;
pub const BLOSC2: u16 = 32026;

/// How many times its stored size `imagecodecs_lzf` makes the buffer it decodes a chunk without
/// a size header into (imagecodecs 2026.10.10, `lzf_decode`).
pub const LZF_GROWTH: u64 = 8;

/// The codecs of `filters` for elements of `dtype` in chunks of `chunk_elems` elements, or why a
/// filter has none.
pub fn codecs(
    filters: &[Filter],
    dtype: &DType,
    chunk_elems: u64,
) -> std::result::Result<Vec<Codec>, String> {
    let esize = dtype.size;
    // One codec a filter but for bitshuffle (two); kept with the layout, so not grown by doubling.
    let mut out = Vec::with_capacity(filters.len());
    for (i, f) in filters.iter().enumerate() {
        let v = |k: usize| f.values.get(k).copied();
        match f.id {
            1 => out.push(Codec::zlib(v(0).unwrap_or(6).min(9))),
            2 => out.push(Codec::shuffle(esize)),
            3 => out.push(Codec::fletcher32()),
            32015 => out.push(Codec::zstd(v(0).map(|x| x as i32).unwrap_or(3))),
            // cd_values[1] "need not compress": the type is full precision and the filter
            // returns its input (H5Z__filter_nbit), so the chunks are the plain elements.
            NBIT if v(1) == Some(1) => {}
            NBIT => {
                return Err(format!(
                    "filter nbit (id {NBIT}) packs {} of {} bits per value; no Zarr codec unpacks HDF5 nbit",
                    v(6).unwrap_or(0),
                    esize * 8
                ))
            }
            SZIP => out.push(szip(f)?),
            BLOSC => out.push(blosc(f, esize)?),
            LZ4 => out.push(lz4h5()),
            BITSHUFFLE => out.extend(bitshuffle(f, i, dtype, chunk_elems)?),
            // cd_values[0]: the block size (1–9), which numcodecs calls the level.
            BZIP2 => out.push(Codec::new(
                CodecId::Bz2.name(),
                CodecStage::BytesToBytes,
                serde_json::json!({"level": v(0).unwrap_or(9).clamp(1, 9)}),
            )),
            LZF => out.push(Codec::new(
                CodecId::Lzf.name(),
                CodecStage::BytesToBytes,
                serde_json::json!({"header": false}),
            )),
            ZFP => {
                return Err(format!(
                    "filter zfp (id {ZFP}) stores each chunk as a zfp stream without its header, which H5Z-ZFP keeps in the filter's parameters; imagecodecs_zfp and numcodecs.zfpy read the header from the stream, so no Zarr codec decodes it"
                ))
            }
            BLOSC2 => return Err(blosc2(f, esize)),
            id => {
                let name = match id {
                    6 => "scaleoffset",
                    _ if !f.name.is_empty() => f.name.as_str(),
                    _ => "unknown",
                };
                return Err(format!("filter {name} (id {id}) has no Zarr codec"));
            }
        }
    }
    Ok(out)
}

/// Checks that `codecs` decode every chunk of `entries` (of `chunk_bytes` bytes each, decoded)
/// knowing their stored sizes: `imagecodecs_lzf` without a size header decodes into a buffer of
/// [`LZF_GROWTH`] times the stored bytes, so a chunk LZF shrank more than that fails. Chunks with
/// filters skipped are left to the filter-mask rule.
pub fn check_stored_sizes(
    codecs: &[Codec],
    chunk_bytes: u64,
    entries: &ChunkList,
) -> std::result::Result<(), String> {
    let Some(at) = codecs.iter().position(|c| c.id() == CodecId::Lzf) else {
        return Ok(());
    };
    // LZF's input: the chunk, and the checksum of each fletcher32 before it.
    let sums = codecs[..at]
        .iter()
        .filter(|c| c.id() == CodecId::Fletcher32)
        .count() as u64;
    let input = chunk_bytes.saturating_add(4 * sums);
    let mut first = None;
    let mut count = 0usize;
    for c in entries.iter() {
        let DataRef::Ref { length, .. } = c.data else {
            continue;
        };
        if c.filter_mask == 0 && length.saturating_mul(LZF_GROWTH) < input {
            count += 1;
            first.get_or_insert((c.index.to_vec(), length));
        }
    }
    match first {
        None => Ok(()),
        Some((index, length)) => Err(format!(
            "filter lzf (id {LZF}) shrank {count} chunk(s) more than {LZF_GROWTH}-fold (chunk {index:?}: {length} bytes for {input}); imagecodecs_lzf decodes a chunk without a size header into {LZF_GROWTH} times its stored size, so it cannot decode them"
        )),
    }
}

fn lz4h5() -> Codec {
    Codec::new(
        CodecId::Lz4h5.name(),
        CodecStage::BytesToBytes,
        serde_json::json!({}),
    )
}

/// szip client data after `set_local`: options mask, pixels per block, bits per pixel, pixels
/// per scanline.
fn szip(f: &Filter) -> std::result::Result<Codec, String> {
    let [mask, ppb, bpp, pps] =
        f.values
            .get(..4)
            .and_then(|s| s.try_into().ok())
            .ok_or(format!(
                "filter szip (id {SZIP}) without its four parameters"
            ))?;
    Ok(Codec::new(
        CodecId::Szip.name(),
        CodecStage::BytesToBytes,
        serde_json::json!({"options_mask": mask, "pixels_per_block": ppb,
            "bits_per_pixel": bpp, "pixels_per_scanline": pps, "header": true}),
    ))
}

/// Blosc client data: filter revision, Blosc version, type size, chunk bytes, level, shuffle,
/// compressor. Decoding reads all of that from each frame; the configuration is for writers.
fn blosc(f: &Filter, esize: usize) -> std::result::Result<Codec, String> {
    let v = |k: usize| f.values.get(k).copied();
    let cname = match v(6).unwrap_or(0) {
        0 => "blosclz",
        1 => "lz4",
        2 => "lz4hc",
        4 => "zlib",
        5 => "zstd",
        c => {
            return Err(format!(
                "filter blosc (id {BLOSC}) with compressor {c} (snappy or unknown), which the Zarr blosc codec does not name"
            ))
        }
    };
    let shuffle = match v(5).unwrap_or(1) {
        0 => "noshuffle",
        1 => "shuffle",
        2 => "bitshuffle",
        s => return Err(format!("filter blosc (id {BLOSC}) with shuffle mode {s}")),
    };
    let typesize = v(2).map(|t| t as usize).filter(|&t| t > 0).unwrap_or(esize);
    Ok(Codec::new(
        CodecId::Blosc.name(),
        CodecStage::BytesToBytes,
        serde_json::json!({"cname": cname, "clevel": v(4).unwrap_or(5).min(9),
            "shuffle": shuffle, "typesize": typesize, "blocksize": 0}),
    ))
}

/// Blosc2 client data: filter revision, block size, type size, chunk bytes, level, filter,
/// compressor, then for chunks of two or more dimensions their rank and shape. The plugin stores
/// each chunk as a Blosc2 frame (cframe), never as the bare Blosc2 chunk `imagecodecs_blosc2`
/// decodes; a chunk of two or more dimensions as a b2nd frame of opaque elements.
fn blosc2(f: &Filter, esize: usize) -> String {
    let what = format!("filter blosc2 (id {BLOSC2})");
    let typesize = f.values.get(2).map_or(esize as u32, |&t| t);
    match f.values.get(7) {
        Some(&rank) if rank >= 2 => format!(
            "{what} stores each {rank}-D chunk as a b2nd frame of opaque {typesize}-byte elements (numpy `|V{typesize}`): imagecodecs_b2nd returns that opaque type, which zarr-python does not convert to the array's, and imagecodecs_blosc2 reads a bare Blosc2 chunk, not a frame; no Zarr codec decodes it"
        ),
        _ => format!(
            "{what} stores each chunk as a Blosc2 frame (cframe) around one Blosc2 chunk: imagecodecs_blosc2 reads a bare Blosc2 chunk, not a frame, and imagecodecs_b2nd needs the b2nd metalayer the plugin writes only for chunks of two or more dimensions; no Zarr codec decodes it"
        ),
    }
}

/// bitshuffle client data: major, minor version, element size, block size (elements, 0 = the
/// library's default), compression (0 none, 2 LZ4, 3 zstd), zstd level.
fn bitshuffle(
    f: &Filter,
    index: usize,
    dtype: &DType,
    chunk_elems: u64,
) -> std::result::Result<Vec<Codec>, String> {
    let v = |k: usize| f.values.get(k).copied();
    let what = format!("filter bitshuffle (id {BITSHUFFLE})");
    if index != 0 {
        return Err(format!(
            "{what} after another filter: its Zarr codec takes the place of `bytes`, so it must come first"
        ));
    }
    let compressor = match v(4).unwrap_or(0) {
        0 => None,
        2 if chunk_elems.is_multiple_of(8) => Some(lz4h5()),
        2 => return Err(format!(
            "{what} with LZ4 on chunks of {chunk_elems} elements: the last {} elements are stored after the LZ4 blocks, unframed, which imagecodecs_lz4h5 does not read",
            chunk_elems % 8
        )),
        // Seen in the chunks: an 8-byte big-endian total size, a 4-byte big-endian block size,
        // then each block as a 4-byte big-endian size and one zstd frame.
        3 => return Err(format!(
            "{what} with zstd frames its blocks as HDF5's LZ4 filter does (big-endian total size and block size, then each block with its size before it), but each block is a zstd frame: imagecodecs_lz4h5 reads that framing around LZ4 blocks only and zstd reads one bare frame, so no Zarr codec decodes it"
        )),
        c => return Err(format!("{what} with compression {c}, which the plugin does not define")),
    };
    if dtype.size != 1 {
        // imagecodecs 2026.10.10's Zarr 3 codec hands bitshuffle_decode the chunk as a uint8
        // array, whose item size (1) it takes over the `itemsize` argument: wider elements come
        // back scrambled (tests/conformance/test_hdf5_plugins.py shows it).
        return Err(format!(
            "{what} on {}-byte elements: imagecodecs_bitshuffle (imagecodecs 2026.10.10) unshuffles with an item size of 1 and returns wrong values; no other Zarr v3 codec reads bitshuffle",
            dtype.size
        ));
    }
    let shuffle = Codec::new(
        CodecId::Bitshuffle.name(),
        CodecStage::ArrayToBytes,
        serde_json::json!({"blocksize": v(3).unwrap_or(0)}),
    );
    Ok(std::iter::once(shuffle).chain(compressor).collect())
}
