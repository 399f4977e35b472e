//! `numcodecs.zlib`: HDF5's deflate filter (id 1), an RFC 1950 zlib stream
//! (<https://www.rfc-editor.org/rfc/rfc1950>), through flate2.
//!
//! ```json
//! {"name": "numcodecs.zlib", "configuration": {"level": 4}}
//! ```

use super::PatchCodec;
use crate::PatchError;
use std::io::{Read, Write};
use vzplan_core::{Codec, CodecId, DType};

pub struct Zlib;

impl PatchCodec for Zlib {
    fn id(&self) -> CodecId {
        CodecId::Zlib
    }

    fn decode(
        &self,
        _: &Codec,
        _: &DType,
        buf: Vec<u8>,
        bound: usize,
    ) -> Result<Vec<u8>, PatchError> {
        let mut out = Vec::with_capacity(bound);
        flate2::read::ZlibDecoder::new(&buf[..])
            .take(bound as u64)
            .read_to_end(&mut out)
            .map_err(PatchError::Zlib)?;
        Ok(out)
    }

    fn encode(&self, c: &Codec, _: &DType, buf: Vec<u8>) -> Result<Vec<u8>, PatchError> {
        let level = c
            .configuration
            .get("level")
            .and_then(|v| v.as_u64())
            .unwrap_or(6)
            .min(9);
        let mut e =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level as u32));
        e.write_all(&buf).map_err(PatchError::Zlib)?;
        e.finish().map_err(PatchError::Zlib)
    }
}
