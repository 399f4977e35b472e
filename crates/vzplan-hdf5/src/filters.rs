//! HDF5 filter pipelines (IV.A.2.l) → Zarr v3 codecs, in pipeline (= encode) order.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! Built-in filters: deflate (`numcodecs.zlib`: HDF5 deflate is a zlib stream), shuffle,
//! fletcher32, szip (`imagecodecs_szip` with `header`: HDF5 prefixes the stream with the
//! uncompressed size), and nbit when it stores every bit (a pass-through). Plugin filters: zstd,
//! Blosc (the Zarr v3 `blosc` codec: a chunk is one Blosc frame), LZ4 (`imagecodecs_lz4h5`:
//! HDF5's LZ4 framing — big-endian total size, block size, then size-prefixed blocks — is not
//! `numcodecs.lz4`'s, which prefixes one block with a little-endian size) and bitshuffle
//! (`imagecodecs_bitshuffle` in place of `bytes`, followed by `imagecodecs_lz4h5` when it
//! compresses with LZ4: the plugin's LZ4 framing is the LZ4 filter's) — for 1-byte elements
//! only, see [`bitshuffle`].

use crate::messages::Filter;
use vzplan_core::{Codec, CodecId, CodecStage, DType};

pub const SZIP: u16 = 4;
pub const NBIT: u16 = 5;
pub const BLOSC: u16 = 32001;
pub const LZ4: u16 = 32004;
pub const BITSHUFFLE: u16 = 32008;

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
            id => {
                let name = match id {
                    6 => "scaleoffset",
                    32000 => "lzf",
                    _ if !f.name.is_empty() => f.name.as_str(),
                    _ => "unknown",
                };
                return Err(format!("filter {name} (id {id}) has no Zarr codec"));
            }
        }
    }
    Ok(out)
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

/// bitshuffle client data: major, minor version, element size, block size (elements, 0 = the
/// library's default), compression (0 none, 2 LZ4, 3 zstd).
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
    if dtype.size != 1 {
        // imagecodecs 2026.10.10's Zarr 3 codec passes the chunk as a uint8 array, and
        // bitshuffle_decode then takes the array's item size (1) over the `itemsize` argument:
        // wider elements come back scrambled (shown by scripts/readback.py on filters.h5).
        return Err(format!(
            "{what} on {}-byte elements: imagecodecs_bitshuffle (imagecodecs 2026.10.10) unshuffles with an item size of 1 and returns wrong values; no other Zarr v3 codec reads bitshuffle",
            dtype.size
        ));
    }
    let blocksize = v(3).unwrap_or(0);
    let shuffle = Codec::new(
        CodecId::Bitshuffle.name(),
        CodecStage::ArrayToBytes,
        serde_json::json!({"blocksize": blocksize}),
    );
    match v(4).unwrap_or(0) {
        0 => Ok(vec![shuffle]),
        2 if chunk_elems.is_multiple_of(8) => Ok(vec![shuffle, lz4h5()]),
        2 => Err(format!(
            "{what} with LZ4 on chunks of {chunk_elems} elements: the last {} elements are stored after the LZ4 blocks, unframed, which imagecodecs_lz4h5 does not read",
            chunk_elems % 8
        )),
        c => Err(format!(
            "{what} with compression {c} (zstd or unknown): no Zarr codec reads its framing"
        )),
    }
}
