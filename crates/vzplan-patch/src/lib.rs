//! `--patch`: the few chunks that cannot be referenced as byte ranges are materialised instead —
//! read, decoded, cut to the extent the grid needs, re-encoded with the array's codec chain, and
//! written inline (`"base64:…"`) in the refs.
//!
//! Two cases reach here (design.md, "The rules of a rectilinear grid", rules 1 and 6):
//! - a compressed block stored **padded** that would sit in the middle of the combined array: only
//!   its first rows along the concat axis are kept;
//! - a block stored with some filters **skipped** (HDF5 filter mask): it is decoded with the filters
//!   that were applied and re-encoded with all of them.
//!
//! This is the one place besides scanning that reads source bytes, and only those chunks. The
//! codecs implemented are the HDF5 ones, one module each in [`codec`] (`numcodecs.shuffle`,
//! `numcodecs.zlib`, `numcodecs.fletcher32`); anything else leaves the array out with a finding,
//! as without `--patch`.

pub mod codec;

pub use codec::fletcher32;
use std::sync::Arc;
use vzplan_core::{Codec, CodecStage, DType, DataRef};
use vzplan_io::{IoError, RangeRead};
use vzplan_plan::{Finding, FindingKind, Plan};

#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("codec {0} cannot be re-encoded by vzplan")]
    Codec(String),
    #[error("{0}")]
    Io(#[from] IoError),
    #[error("decoding failed: {0}")]
    Decode(String),
    /// The zlib stream failed to inflate or deflate (kept typed; same message as `Decode`).
    #[error("decoding failed: {0}")]
    Zlib(#[source] std::io::Error),
    #[error("Fletcher-32 checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    Checksum { stored: u32, computed: u32 },
    #[error("decoded {got} bytes, expected {want}")]
    Size { got: usize, want: usize },
}

/// Decodes stored bytes: the codecs in reverse, skipping those whose bit is set in `skipped`.
pub fn decode(
    codecs: &[Codec],
    skipped: u32,
    dtype: &DType,
    data: &[u8],
    want: usize,
) -> Result<Vec<u8>, PatchError> {
    // Bounded by the decoded size the block must have, plus room for checksums that were
    // applied before compression (netCDF-C puts fletcher32 first).
    let bound = want + 4 * codecs.len() + 1;
    let mut buf = data.to_vec();
    for (i, c) in codecs.iter().enumerate().rev() {
        if i < 32 && skipped & (1 << i) != 0 {
            continue;
        }
        buf = stage(c)?.decode(c, dtype, buf, bound)?;
    }
    if buf.len() != want {
        return Err(PatchError::Size {
            got: buf.len(),
            want,
        });
    }
    Ok(buf)
}

/// Encodes raw element bytes with the whole codec chain.
pub fn encode(codecs: &[Codec], dtype: &DType, raw: &[u8]) -> Result<Vec<u8>, PatchError> {
    let mut buf = raw.to_vec();
    for c in codecs {
        buf = stage(c)?.encode(c, dtype, buf)?;
    }
    Ok(buf)
}

/// The implementation of a bytes-to-bytes codec (the only stage HDF5 filters have).
fn stage(c: &Codec) -> Result<&'static dyn codec::PatchCodec, PatchError> {
    match c.stage {
        CodecStage::BytesToBytes => codec::find(c),
        _ => Err(PatchError::Codec(c.name.to_string())),
    }
}

/// The C-order sub-block `[0..keep[0], 0..keep[1], …]` of a decoded block of shape `stored`.
pub fn cut(raw: &[u8], elem: usize, stored: &[u64], keep: &[u64]) -> Vec<u8> {
    if stored == keep {
        return raw.to_vec();
    }
    let rank = stored.len();
    // Contiguous run: the trailing axes kept whole, times the first axis not kept whole.
    let mut inner = elem;
    let mut axis = rank;
    while axis > 0 && keep[axis - 1] == stored[axis - 1] {
        axis -= 1;
        inner *= stored[axis] as usize;
    }
    if axis == 0 {
        return raw.to_vec();
    }
    // Axis `axis - 1` is the innermost one cut; the runs are its kept part, whole trailing axes.
    let run = keep[axis - 1] as usize * inner;
    let outer: Vec<u64> = keep[..axis - 1].to_vec();
    let strides: Vec<usize> = (0..axis - 1)
        .map(|i| stored[i + 1..axis].iter().product::<u64>() as usize * inner)
        .collect();
    let count: u64 = outer.iter().product();
    let mut out = Vec::with_capacity(count as usize * run);
    let mut idx = vec![0u64; outer.len()];
    for _ in 0..count {
        let base: usize = idx
            .iter()
            .zip(&strides)
            .map(|(&i, &s)| i as usize * s)
            .sum();
        if let Some(src) = raw.get(base..base + run) {
            out.extend_from_slice(src);
        }
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < outer[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// Opens a source by URL for reading its patched chunks.
pub type Opener<'a> = dyn Fn(&str) -> Result<Arc<dyn RangeRead>, IoError> + 'a;

/// Materialises every planned patch; an array whose patch fails is left out with a finding.
/// Returns the number of chunks patched and the inline bytes they take.
pub fn apply(plan: &mut Plan, open: &Opener) -> (usize, u64) {
    let mut patched = 0;
    let mut inline_bytes = 0;
    let mut failed: Vec<(usize, Finding)> = Vec::new();
    let mut readers: std::collections::HashMap<usize, Arc<dyn RangeRead>> = Default::default();
    for (ai, a) in plan.arrays.iter_mut().enumerate() {
        let patches = std::mem::take(&mut a.patches);
        for p in patches {
            let Some(chunk) = a.chunks.get(p.chunk) else {
                continue;
            };
            let url = plan
                .sources
                .get(chunk.source)
                .map(|s| s.url.clone())
                .unwrap_or_default();
            let result = (|| -> Result<Vec<u8>, PatchError> {
                let DataRef::Ref { offset, length } = chunk.data else {
                    return Err(PatchError::Decode("not a byte range".into()));
                };
                let r = match readers.get(&chunk.source) {
                    Some(r) => r.clone(),
                    None => {
                        let r = open(&url)?;
                        readers.insert(chunk.source, r.clone());
                        r
                    }
                };
                let stored = r.read_at(offset, length)?;
                let want = p.stored.iter().product::<u64>() as usize * a.dtype.size;
                let raw = decode(&a.codecs, p.skipped, &a.dtype, &stored, want)?;
                let kept = cut(&raw, a.dtype.size, &p.stored, &p.keep);
                encode(&a.codecs, &a.dtype, &kept)
            })();
            match result {
                Ok(bytes) => {
                    patched += 1;
                    inline_bytes += bytes.len() as u64;
                    a.chunks.set_inline(p.chunk, bytes);
                }
                Err(e) => {
                    let f = Finding::error(
                        FindingKind::Unsupported,
                        format!("cannot patch chunk {:?}: {e}", a.chunks.key(p.chunk)),
                    )
                    .file(&url)
                    .array(&a.path);
                    failed.push((ai, f));
                    break;
                }
            }
        }
    }
    let mut drop: Vec<usize> = failed.iter().map(|(i, _)| *i).collect();
    drop.sort_unstable();
    drop.dedup();
    for (_, f) in failed {
        plan.findings.push(f);
    }
    for i in drop.into_iter().rev() {
        let a = plan.arrays.remove(i);
        // Its chunks are not re-encoded after all: the planner's "re-encoded inline" notes go.
        plan.findings
            .retain(|f| !(f.kind == FindingKind::Patched && f.array.as_ref() == Some(&a.path)));
        plan.left_out.push(a.path);
    }
    (patched, inline_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vzplan_core::{Endian, Kind};

    #[test]
    fn decodes_real_hdf5_fletcher32_chunks() {
        // `y` in h5_scales.h5 (written by h5py): >f8, chunks of 3, shuffle + deflate + fletcher32.
        // Decoding verifies HDF5's stored checksums; the values must be the coordinate's.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/hdf5/h5_scales.h5"
        );
        let r = vzplan_io::open_local(path).unwrap();
        let l = vzplan_hdf5::read_layout(&r).unwrap();
        let y = l.arrays.iter().find(|a| a.path == "y").unwrap();
        assert!(y.codecs.iter().any(|c| c.name == "numcodecs.fletcher32"));
        let mut all = Vec::new();
        for e in &y.chunks.entries {
            let vzplan_core::DataRef::Ref { offset, length } = e.data else {
                panic!()
            };
            let stored = r.read_at(offset, length).unwrap();
            let raw = decode(&y.codecs, e.filter_mask, &y.dtype, &stored, 3 * 8).unwrap();
            // Re-encoding gives a block that decodes to the same values (zlib bytes may differ).
            let again = encode(&y.codecs, &y.dtype, &raw).unwrap();
            assert_eq!(decode(&y.codecs, 0, &y.dtype, &again, 3 * 8).unwrap(), raw);
            all.extend(raw);
        }
        let n = y.shape[0] as usize * 8;
        assert_eq!(&all[..n], &y.values.as_ref().unwrap()[..]);
    }

    #[test]
    fn codec_chain_round_trips_and_cuts() {
        let f4 = DType::new(Kind::Float, 4, Endian::Little);
        let codecs = vec![Codec::shuffle(4), Codec::zlib(4), Codec::fletcher32()];
        let raw: Vec<u8> = (0..(5 * 3 * 2))
            .flat_map(|i| (i as f32).to_le_bytes())
            .collect();
        let enc = encode(&codecs, &f4, &raw).unwrap();
        assert_eq!(decode(&codecs, 0, &f4, &enc, raw.len()).unwrap(), raw);
        // Skipping the middle filter (zlib) when stored: decode must skip it too.
        let partial = encode(&[Codec::shuffle(4), Codec::fletcher32()], &f4, &raw).unwrap();
        assert_eq!(
            decode(&codecs, 0b010, &f4, &partial, raw.len()).unwrap(),
            raw
        );
        // netCDF-C's order: the checksum first, then shuffle and deflate over data + checksum.
        let nc = vec![Codec::fletcher32(), Codec::shuffle(4), Codec::zlib(4)];
        let enc_nc = encode(&nc, &f4, &raw).unwrap();
        assert_eq!(decode(&nc, 0, &f4, &enc_nc, raw.len()).unwrap(), raw);
        let mut bad = enc.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert!(matches!(
            decode(&codecs, 0, &f4, &bad, raw.len()),
            Err(PatchError::Checksum { .. })
        ));
        // Keep the first 2 of 5 rows of a [5, 3, 2] block.
        let kept = cut(&raw, 4, &[5, 3, 2], &[2, 3, 2]);
        assert_eq!(kept, raw[..2 * 3 * 2 * 4].to_vec());
        // Keep [5, 2, 2]: strided.
        let kept = cut(&raw, 4, &[5, 3, 2], &[5, 2, 2]);
        let want: Vec<u8> = (0..5)
            .flat_map(|r| (0..4).map(move |k| r * 6 + k))
            .flat_map(|i| (i as f32).to_le_bytes())
            .collect();
        assert_eq!(kept, want);
        assert!(matches!(
            encode(&[Codec::zstd(1)], &f4, &raw),
            Err(PatchError::Codec(_))
        ));
    }
}
