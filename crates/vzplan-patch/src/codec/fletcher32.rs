//! `numcodecs.fletcher32`: HDF5's Fletcher-32 checksum filter (id 3), appended little-endian
//! (H5_checksum_fletcher32 in the HDF5 library; numcodecs `Fletcher32`).
//!
//! ```json
//! {"name": "numcodecs.fletcher32", "configuration": {}}
//! ```

use super::PatchCodec;
use crate::PatchError;
use vzplan_core::{Codec, CodecId, DType};

pub struct Fletcher32;

impl PatchCodec for Fletcher32 {
    fn id(&self) -> CodecId {
        CodecId::Fletcher32
    }

    fn decode(&self, _: &Codec, _: &DType, buf: Vec<u8>, _: usize) -> Result<Vec<u8>, PatchError> {
        if buf.len() < 4 {
            return Err(PatchError::Decode(
                "Fletcher-32 block shorter than its checksum".into(),
            ));
        }
        let (body, tail) = buf.split_at(buf.len() - 4);
        let stored = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
        let computed = fletcher32(body);
        if stored != computed {
            return Err(PatchError::Checksum { stored, computed });
        }
        Ok(body.to_vec())
    }

    fn encode(&self, _: &Codec, _: &DType, mut buf: Vec<u8>) -> Result<Vec<u8>, PatchError> {
        let sum = fletcher32(&buf);
        buf.extend_from_slice(&sum.to_le_bytes());
        Ok(buf)
    }
}

/// HDF5's Fletcher-32 (H5_checksum_fletcher32): sums of big-endian 16-bit words, reduced mod
/// 65535 in blocks of 360 words; an odd trailing byte counts as the high byte of a word.
pub fn fletcher32(data: &[u8]) -> u32 {
    let (mut s1, mut s2) = (0u32, 0u32);
    for block in data.chunks(720) {
        for w in block.chunks(2) {
            let v = if w.len() == 2 {
                (u32::from(w[0]) << 8) | u32::from(w[1])
            } else {
                u32::from(w[0]) << 8
            };
            s1 += v;
            s2 += s1;
        }
        s1 = (s1 & 0xffff) + (s1 >> 16);
        s2 = (s2 & 0xffff) + (s2 >> 16);
    }
    s1 = (s1 & 0xffff) + (s1 >> 16);
    s2 = (s2 & 0xffff) + (s2 >> 16);
    (s2 << 16) | s1
}
