//! `numcodecs.shuffle`: HDF5's byte shuffle filter (id 2): the k-th bytes of every element
//! together (HDF5 User's Guide, "Shuffle Filter"); a trailing partial element stays in place.
//!
//! ```json
//! {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}}
//! ```

use super::PatchCodec;
use crate::PatchError;
use vzplan_core::{Codec, CodecId, DType};

pub struct Shuffle;

impl PatchCodec for Shuffle {
    fn id(&self) -> CodecId {
        CodecId::Shuffle
    }

    fn decode(
        &self,
        c: &Codec,
        dtype: &DType,
        buf: Vec<u8>,
        _: usize,
    ) -> Result<Vec<u8>, PatchError> {
        Ok(shuffle(&buf, elementsize(c, dtype), false))
    }

    fn encode(&self, c: &Codec, dtype: &DType, buf: Vec<u8>) -> Result<Vec<u8>, PatchError> {
        Ok(shuffle(&buf, elementsize(c, dtype), true))
    }
}

fn elementsize(c: &Codec, dtype: &DType) -> usize {
    c.configuration
        .get("elementsize")
        .and_then(|v| v.as_u64())
        .map_or(dtype.size, |v| v as usize)
}

fn shuffle(data: &[u8], es: usize, forward: bool) -> Vec<u8> {
    if es <= 1 || data.len() < es {
        return data.to_vec();
    }
    let n = data.len() / es;
    let mut out = data.to_vec(); // trailing partial element stays in place
    for i in 0..n {
        for j in 0..es {
            if forward {
                out[j * n + i] = data[i * es + j];
            } else {
                out[i * es + j] = data[j * n + i];
            }
        }
    }
    out
}
