//! The codecs `--patch` can decode and re-encode, one module each, found by [`CodecId`] in
//! [`REGISTRY`]. Adding one = a module implementing [`PatchCodec`] and one line in the registry;
//! a codec not listed leaves the array out with a finding, as without `--patch`.

mod fletcher32;
mod shuffle;
mod zlib;

use crate::PatchError;
use vzplan_core::{Codec, CodecId, DType};

pub use fletcher32::fletcher32;

/// A bytes-to-bytes codec `--patch` implements.
pub trait PatchCodec: Sync {
    /// Which codec this is.
    fn id(&self) -> CodecId;
    /// Decodes `buf`; `bound` caps the decoded size (untrusted input never decodes beyond it).
    fn decode(
        &self,
        c: &Codec,
        dtype: &DType,
        buf: Vec<u8>,
        bound: usize,
    ) -> Result<Vec<u8>, PatchError>;
    /// Encodes `buf` with `c`'s configuration.
    fn encode(&self, c: &Codec, dtype: &DType, buf: Vec<u8>) -> Result<Vec<u8>, PatchError>;
}

/// Every codec `--patch` implements.
pub static REGISTRY: &[&dyn PatchCodec] =
    &[&zlib::Zlib, &shuffle::Shuffle, &fletcher32::Fletcher32];

/// The implementation of `c`, if any.
pub fn find(c: &Codec) -> Result<&'static dyn PatchCodec, PatchError> {
    let id = c.id();
    REGISTRY
        .iter()
        .copied()
        .find(|p| p.id() == id)
        .ok_or_else(|| PatchError::Codec(c.name.to_string()))
}
