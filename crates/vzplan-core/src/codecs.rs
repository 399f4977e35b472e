//! The codecs vzplan writes, by identity: [`CodecId`] names each one once, with its Zarr v3 name
//! (the `name` of its `zarr.json` entry) and where its format is specified.
//!
//! A [`Codec`](crate::Codec) keeps its name as a string (the serde form of layouts written by
//! older versions, and any codec a future reader emits, must still parse); [`Codec::id`](crate::Codec::id) is the
//! typed view that code matching on codecs (e.g. `vzplan-patch`) uses instead of string literals.
//! Adding a codec = one variant and one row of [`CodecId::ALL`].
//!
//! ```
//! use vzplan_core::{Codec, CodecId};
//! let c: Codec = serde_json::from_str(
//!     r#"{"name": "numcodecs.zlib", "configuration": {"level": 6}, "stage": "bytes_to_bytes"}"#,
//! ).unwrap();
//! assert_eq!(c.id(), CodecId::Zlib);
//! assert_eq!(c.to_json().to_string(), r#"{"name":"numcodecs.zlib","configuration":{"level":6}}"#);
//! // The layout (serde) form is unchanged: the name stays a string.
//! assert_eq!(
//!     serde_json::to_string(&c).unwrap(),
//!     r#"{"name":"numcodecs.zlib","configuration":{"level":6},"stage":"bytes_to_bytes"}"#,
//! );
//! assert_eq!(CodecId::from_name("my_codec"), CodecId::Other("my_codec".into()));
//! ```

/// One codec, by identity. Unknown names are kept as [`CodecId::Other`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CodecId {
    /// zlib stream (RFC 1950): HDF5 deflate, TIFF Deflate (8, 32946).
    Zlib,
    /// HDF5 byte shuffle (numcodecs `Shuffle`).
    Shuffle,
    /// HDF5 Fletcher-32 checksum appended to the block (numcodecs `Fletcher32`).
    Fletcher32,
    /// Zarr v3 core `zstd` codec.
    Zstd,
    /// xz container (numcodecs `LZMA`, `format` 1): TIFF LZMA (34925).
    Lzma,
    /// Blosc (HDF5 filter 32001).
    Blosc,
    /// Zarr v3 `vlen-utf8` (variable-length strings).
    VlenUtf8,
    /// HDF5 szip / libaec, with the HDF5 header.
    Szip,
    /// HDF5 LZ4 filter (32004) framing.
    Lz4h5,
    /// HDF5 bitshuffle filter (32008).
    Bitshuffle,
    /// TIFF horizontal differencing (Predictor 2).
    Delta,
    /// TIFF floating-point predictor (Predictor 3).
    Floatpred,
    /// TIFF LZW (5).
    Lzw,
    /// TIFF PackBits (32773).
    Packbits,
    /// TIFF JPEG (7).
    Jpeg,
    /// TIFF FillOrder 2: the bits of each byte reversed (array → array, before `bytes`).
    Bitorder,
    /// TIFF packed integers of 1–31 bits (in place of `bytes`).
    Packints,
    /// TIFF CCITT modified Huffman RLE (2).
    Ccittrle,
    /// TIFF CCITT Group 3 fax (3).
    Ccittfax3,
    /// TIFF CCITT Group 4 fax (4).
    Ccittfax4,
    /// TIFF WebP (50001).
    Webp,
    /// TIFF PNG (34933).
    Png,
    /// TIFF JPEG 2000 (33003–33005, 34712).
    Jpeg2k,
    /// TIFF JPEG XL (50002, 52546).
    Jpegxl,
    /// TIFF JPEG XR (34934, 22610).
    Jpegxr,
    /// TIFF LERC (34887).
    Lerc,
    /// bzip2 stream: HDF5 bzip2 filter (307).
    Bz2,
    /// Raw LZF, without imagecodecs' size header: HDF5 LZF filter (32000).
    Lzf,
    /// Any other name.
    Other(String),
}

impl CodecId {
    /// Every known codec: identity, Zarr v3 name, specification of its stream format.
    pub const ALL: &'static [(CodecId, &'static str, &'static str)] = &[
        (
            CodecId::Zlib,
            "numcodecs.zlib",
            "https://www.rfc-editor.org/rfc/rfc1950",
        ),
        (
            CodecId::Shuffle,
            "numcodecs.shuffle",
            "https://numcodecs.readthedocs.io/en/stable/filter/shuffle.html",
        ),
        (
            CodecId::Fletcher32,
            "numcodecs.fletcher32",
            "https://numcodecs.readthedocs.io/en/stable/checksum32.html",
        ),
        (
            CodecId::Zstd,
            "zstd",
            "https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/zstd",
        ),
        (
            CodecId::Lzma,
            "numcodecs.lzma",
            "https://numcodecs.readthedocs.io/en/stable/compression/lzma.html",
        ),
        (
            CodecId::Blosc,
            "blosc",
            "https://zarr-specs.readthedocs.io/en/latest/v3/codecs/blosc/index.html",
        ),
        (
            CodecId::VlenUtf8,
            "vlen-utf8",
            "https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/vlen-utf8",
        ),
        (
            CodecId::Szip,
            "imagecodecs_szip",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Lz4h5,
            "imagecodecs_lz4h5",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Bitshuffle,
            "imagecodecs_bitshuffle",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Delta,
            "imagecodecs_delta",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Floatpred,
            "imagecodecs_floatpred",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Lzw,
            "imagecodecs_lzw",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Packbits,
            "imagecodecs_packbits",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Jpeg,
            "imagecodecs_jpeg",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Bitorder,
            "imagecodecs_bitorder",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Packints,
            "imagecodecs_packints",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Ccittrle,
            "imagecodecs_ccittrle",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Ccittfax3,
            "imagecodecs_ccittfax3",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Ccittfax4,
            "imagecodecs_ccittfax4",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Webp,
            "imagecodecs_webp",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Png,
            "imagecodecs_png",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Jpeg2k,
            "imagecodecs_jpeg2k",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Jpegxl,
            "imagecodecs_jpegxl",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Jpegxr,
            "imagecodecs_jpegxr",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Lerc,
            "imagecodecs_lerc",
            "https://github.com/cgohlke/imagecodecs",
        ),
        (
            CodecId::Bz2,
            "numcodecs.bz2",
            "https://numcodecs.readthedocs.io/en/stable/compression/bz2.html",
        ),
        (
            CodecId::Lzf,
            "imagecodecs_lzf",
            "https://github.com/cgohlke/imagecodecs",
        ),
    ];

    /// The id of a Zarr v3 codec name ([`CodecId::Other`] when unknown).
    pub fn from_name(name: &str) -> CodecId {
        Self::ALL
            .iter()
            .find(|(_, n, _)| *n == name)
            .map_or_else(|| CodecId::Other(name.to_string()), |(id, _, _)| id.clone())
    }

    /// The Zarr v3 name written to `zarr.json`.
    pub fn name(&self) -> &str {
        match self {
            CodecId::Other(n) => n,
            id => id.known_name().unwrap_or(""),
        }
    }

    /// The name of a codec vzplan knows, as the static string (`None` for [`CodecId::Other`]).
    pub fn known_name(&self) -> Option<&'static str> {
        Self::ALL
            .iter()
            .find(|(k, _, _)| k == self)
            .map(|(_, n, _)| *n)
    }

    /// Where the codec's stream format is specified (`None` for [`CodecId::Other`]).
    pub fn spec(&self) -> Option<&'static str> {
        Self::ALL
            .iter()
            .find(|(k, _, _)| k == self)
            .map(|(_, _, s)| *s)
    }
}

#[cfg(test)]
mod tests {
    use super::CodecId;

    #[test]
    fn names_round_trip() {
        for (id, name, _) in CodecId::ALL {
            assert_eq!(&CodecId::from_name(name), id);
            assert_eq!(id.name(), *name);
            assert_eq!(id.known_name(), Some(*name));
            assert!(id.spec().is_some());
        }
        let other = CodecId::from_name("numcodecs.zfpy");
        assert_eq!(other.name(), "numcodecs.zfpy");
        assert_eq!(other.spec(), None);
        assert_eq!(other.known_name(), None);
    }
}
