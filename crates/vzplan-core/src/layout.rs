//! What a format reader reports about one file: [`SourceLayout`] → [`ArrayLayout`] → [`ChunkTable`].

use crate::dtype::DType;
use crate::{ChunkList, DataRef};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// The format a source was read as, by its reader's name (`"hdf5"`, `"netcdf3"`, `"tiff"`): a
/// new reader brings its own name, so the model lists none but the ones its tests use.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Format(pub Cow<'static, str>);

impl Format {
    pub const HDF5: Format = Format(Cow::Borrowed("hdf5"));
    pub const NETCDF3: Format = Format(Cow::Borrowed("netcdf3"));
    pub const TIFF: Format = Format(Cow::Borrowed("tiff"));

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The tools that rewrite a file of a format (chunking, compression, types), whose commands a
/// finding's fix spells out. The reader that read the file says which ([`SourceLayout::rewriter`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rewriter {
    /// netCDF-C's `nccopy` (and NCO's `ncap2`, `ncatted`, `ncrename`): netCDF files.
    #[default]
    Nccopy,
    /// HDF5's `h5repack`: HDF5 files that are not netCDF-4.
    H5repack,
    /// GDAL's `gdal_translate`: rasters.
    Gdal,
}

/// One source file: where it is, how big, its identity for drift checks, and its arrays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceLayout {
    /// Canonical URL (`file:///abs/path` or `s3://bucket/key`), never with credentials.
    pub url: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// Last modification time, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
    pub format: Format,
    /// Root-group (global) attributes.
    #[serde(default)]
    pub attrs: Map<String, Value>,
    /// Nested groups' attributes, by path (`"grp/sub"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupLayout>,
    pub arrays: Vec<ArrayLayout>,
    /// Arrays the reader found but cannot describe as references, with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<ArrayProblem>,
    /// Other files this file's arrays have blocks in (an HDF5 external link's target, a virtual
    /// dataset's sources): a block whose source is `k > 0` lies in `linked[k - 1]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linked: Vec<LinkedSource>,
    /// The tools that rewrite this file, as its format's reader knows them: set by the scan and,
    /// for a layout line (which does not carry it), from the reader of its `format`.
    #[serde(skip)]
    pub rewriter: Rewriter,
}

/// A file another file's arrays reference, and its identity for drift checks:
///
/// ```json
/// {"url": "file:///data/run1/detector_0.h5", "size": 81920, "mtime": "2026-12-01T10:00:00Z"}
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkedSource {
    pub url: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
}

/// A nested group (the root group's attributes live in [`SourceLayout::attrs`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupLayout {
    pub path: String,
    #[serde(default)]
    pub attrs: Map<String, Value>,
}

/// An array the reader saw but cannot reference exactly (unsupported filter, datatype, layout…).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayProblem {
    pub path: String,
    pub reason: String,
    /// What kind of problem, so the planner can say how to fix it.
    #[serde(default, skip_serializing_if = "ProblemKind::is_storage")]
    pub kind: ProblemKind,
    /// The rewrite that makes it referenceable, when the reader knows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
}

/// A tool and its options that rewrite a file into one vzplan can reference, and the tag of the
/// new file's name; the planner adds the file and the output beside it:
///
/// ```json
/// {"args": "gdal_translate -ot CFloat32", "tag": "cfloat32"}
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rewrite {
    pub args: String,
    pub tag: String,
}

impl ArrayProblem {
    pub fn new(path: impl Into<String>, kind: ProblemKind, reason: impl Into<String>) -> Self {
        ArrayProblem {
            path: path.into(),
            reason: reason.into(),
            kind,
            rewrite: None,
        }
    }

    /// With the rewrite (tool and options, and the new file's tag) that makes it referenceable.
    pub fn rewrite(mut self, args: impl Into<String>, tag: impl Into<String>) -> Self {
        self.rewrite = Some(Rewrite {
            args: args.into(),
            tag: tag.into(),
        });
        self
    }
}

/// What a reader could not reference, by the kind of fix it needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// A storage layout or variant vzplan cannot reference (virtual, external, …).
    #[default]
    Storage,
    /// A filter (compression, checksum, transform) with no Zarr codec.
    Filter,
    /// A datatype the output cannot express.
    DataType,
    /// An attribute that cannot be written (the object itself is kept).
    Attribute,
    /// Records of an unlimited dimension written only partly into their chunk.
    PartialRecords,
    /// The metadata cannot be read (malformed, failed checksum, invalid layout line).
    Unreadable,
    /// A name or dimension that clashes with how the output is laid out.
    Naming,
    /// A link that leads nowhere (dangling) or that no reader follows (user-defined).
    Link,
    /// A file another file names (an HDF5 external link's target, a virtual dataset's source)
    /// that was not read: not named to vzplan, missing, or unreadable.
    LinkedFile,
}

impl ProblemKind {
    /// Every kind, in declaration order (for tests that go through them all: a new variant
    /// goes here too).
    pub const ALL: [ProblemKind; 9] = [
        ProblemKind::Storage,
        ProblemKind::Filter,
        ProblemKind::DataType,
        ProblemKind::Attribute,
        ProblemKind::PartialRecords,
        ProblemKind::Unreadable,
        ProblemKind::Naming,
        ProblemKind::Link,
        ProblemKind::LinkedFile,
    ];

    fn is_storage(&self) -> bool {
        *self == ProblemKind::Storage
    }
}

/// A named dimension of an array.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Dim {
    pub name: String,
    /// Unlimited (HDF5 max dim = UNLIMITED, netCDF record dimension).
    #[serde(default)]
    pub unlimited: bool,
}

impl Dim {
    pub fn new(name: impl Into<String>, unlimited: bool) -> Self {
        Dim {
            name: name.into(),
            unlimited,
        }
    }
}

/// Where a codec sits in a Zarr v3 chain: before `bytes` (array → array) or after it (bytes → bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodecStage {
    ArrayToArray,
    /// Takes the place of `bytes` (e.g. `imagecodecs_floatpred` for the TIFF floating-point
    /// predictor, which byte-shuffles as well as differences).
    ArrayToBytes,
    BytesToBytes,
}

/// One Zarr v3 codec, as it will appear in `zarr.json` (`{"name": …, "configuration": {…}}`).
/// The `bytes` codec itself is not listed: it follows from the dtype's byte order.
///
/// Cheap to keep per array: a known codec's name is static, and the common configurations
/// (zlib and zstd levels, shuffle element sizes, fletcher32) are one shared map each, where a
/// scan used to build four allocations for every codec of every array of every file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Codec {
    pub name: Cow<'static, str>,
    #[serde(default)]
    pub configuration: Arc<Map<String, Value>>,
    pub stage: CodecStage,
}

/// Equal names, stages and configurations; a shared configuration is equal by its pointer
/// (planning compares every file's codecs with the others').
impl PartialEq for Codec {
    fn eq(&self, other: &Self) -> bool {
        self.stage == other.stage
            && self.name == other.name
            && (Arc::ptr_eq(&self.configuration, &other.configuration)
                || self.configuration == other.configuration)
    }
}

/// Shared configurations, by a small parameter (a level, an element size).
type Shared<const N: usize> = [OnceLock<Arc<Map<String, Value>>>; N];
static ZLIB: Shared<10> = [const { OnceLock::new() }; 10];
static SHUFFLE: Shared<17> = [const { OnceLock::new() }; 17];
static ZSTD: Shared<23> = [const { OnceLock::new() }; 23];
static EMPTY: Shared<1> = [const { OnceLock::new() }; 1];

/// The map `make` builds, shared through `cells[i]` when there is such a cell.
fn shared<const N: usize>(
    cells: &'static Shared<N>,
    i: usize,
    make: impl FnOnce() -> Value,
) -> Arc<Map<String, Value>> {
    let build = || Arc::new(object(make()));
    match cells.get(i) {
        Some(cell) => Arc::clone(cell.get_or_init(build)),
        None => build(),
    }
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// A known codec's name as the static string, any other as its own.
fn codec_name(name: &str) -> Cow<'static, str> {
    crate::CodecId::ALL
        .iter()
        .find(|(_, n, _)| *n == name)
        .map_or_else(
            || Cow::Owned(name.to_string()),
            |(_, n, _)| Cow::Borrowed(*n),
        )
}

impl Codec {
    pub fn new(name: &str, stage: CodecStage, configuration: Value) -> Self {
        Codec {
            name: codec_name(name),
            configuration: Arc::new(object(configuration)),
            stage,
        }
    }
    fn with_shared(id: crate::CodecId, configuration: Arc<Map<String, Value>>) -> Self {
        Codec {
            name: id
                .known_name()
                .map_or_else(|| Cow::Owned(id.name().to_string()), Cow::Borrowed),
            configuration,
            stage: CodecStage::BytesToBytes,
        }
    }
    /// The typed identity of this codec (from its name; the serde form keeps the string).
    pub fn id(&self) -> crate::CodecId {
        crate::CodecId::from_name(&self.name)
    }
    /// HDF5 deflate and TIFF deflate are zlib streams (RFC 1950), not gzip.
    pub fn zlib(level: u32) -> Self {
        let config = shared(
            &ZLIB,
            level as usize,
            || serde_json::json!({"level": level}),
        );
        Self::with_shared(crate::CodecId::Zlib, config)
    }
    pub fn shuffle(elementsize: usize) -> Self {
        let config = shared(
            &SHUFFLE,
            elementsize,
            || serde_json::json!({"elementsize": elementsize}),
        );
        Self::with_shared(crate::CodecId::Shuffle, config)
    }
    pub fn fletcher32() -> Self {
        let config = shared(&EMPTY, 0, || serde_json::json!({}));
        Self::with_shared(crate::CodecId::Fletcher32, config)
    }
    /// Zarr v3's registered `zstd` codec (zarr-python's core `ZstdCodec`), not `numcodecs.zstd`.
    /// `checksum` only decides whether an encoder writes one; a frame that has one decodes either way.
    pub fn zstd(level: i32) -> Self {
        let i = usize::try_from(level).unwrap_or(usize::MAX);
        let config = shared(
            &ZSTD,
            i,
            || serde_json::json!({"level": level, "checksum": false}),
        );
        Self::with_shared(crate::CodecId::Zstd, config)
    }
    /// The `zarr.json` form: `{"name": …, "configuration": {…}}` (always with a configuration object).
    pub fn to_json(&self) -> Value {
        serde_json::json!({"name": self.name, "configuration": self.configuration})
    }
}

/// How the blocks at the array's far edge are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeStorage {
    /// Every block is stored at the full block shape; edge blocks are padded (HDF5 chunks, TIFF tiles).
    Padded,
    /// Edge blocks are stored at their logical extent (TIFF strips, netCDF-3 records).
    Exact,
}

/// The bytes of one block: a range of the source file, or bytes already encoded for the codec chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChunkData {
    Ref { offset: u64, length: u64 },
    Inline(#[serde(with = "b64")] Vec<u8>),
}

/// One stored block of an array's native grid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkEntry {
    /// Grid index: element offset divided by the block shape.
    pub index: Vec<u64>,
    pub data: ChunkData,
    /// HDF5 filter mask: bit i set = filter i of the pipeline was skipped for this block.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub filter_mask: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// An array's native block layout. Within one file the grid is regular: `block` per axis, the last
/// block of an axis overhanging the array's end ([`EdgeStorage`] says whether it is stored padded).
/// Blocks not listed are unallocated and read as the fill value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkTable {
    pub block: Vec<u64>,
    pub edges: EdgeStorage,
    /// Uncompressed and row-contiguous: a block may be cut between any two rows of axis 0
    /// (netCDF-3 fixed variables, uncompressed strips).
    #[serde(default)]
    pub splittable: bool,
    /// Allocated blocks, in row-major order of `index`.
    pub entries: ChunkList,
}

impl ChunkTable {
    /// Number of blocks along each axis for an array of `shape` (an axis of length 0 has 0 blocks).
    pub fn grid_shape(&self, shape: &[u64]) -> Vec<u64> {
        shape
            .iter()
            .zip(&self.block)
            .map(|(&n, &b)| if b == 0 { 0 } else { n.div_ceil(b) })
            .collect()
    }
}

/// One array of a source: an HDF5 dataset, a netCDF variable, a TIFF image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrayLayout {
    /// Path inside the file without a leading slash: `tas`, `grp/sub/v`.
    pub path: String,
    pub dims: Vec<Dim>,
    pub shape: Vec<u64>,
    pub dtype: DType,
    /// One element in the dtype's byte order; `None` when the file defines none (Zarr then gets 0).
    #[serde(default, with = "b64opt", skip_serializing_if = "Option::is_none")]
    pub fill_value: Option<Vec<u8>>,
    /// User-visible attributes (format-internal ones such as `DIMENSION_LIST` already dropped).
    #[serde(default)]
    pub attrs: Map<String, Value>,
    /// Codecs after (or before) `bytes`, in encode order.
    #[serde(default)]
    pub codecs: Vec<Codec>,
    pub chunks: ChunkTable,
    /// The decoded element bytes (dtype byte order), read only for small coordinate variables.
    #[serde(default, with = "b64opt", skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<u8>>,
    /// A `struct` element's fields, packed in order (empty for every other kind).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
}

/// One field of a `struct` element: its name and its number type (in the element's byte order).
///
/// ```json
/// {"name": "speed", "dtype": {"kind": "float", "size": 4, "endian": "little"}}
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    pub dtype: DType,
}

/// The Zarr v3 `struct` data type of packed `fields` (zarr-python's form), or `None` when a field
/// has no Zarr name:
///
/// ```json
/// {"name": "struct", "configuration": {"fields": [{"name": "speed", "data_type": "float32"}]}}
/// ```
pub fn struct_data_type(fields: &[Field]) -> Option<Value> {
    let list: Option<Vec<Value>> = fields
        .iter()
        .map(|f| {
            let t = f.dtype.zarr_data_type()?;
            Some(serde_json::json!({"name": f.name, "data_type": t}))
        })
        .collect();
    Some(serde_json::json!({"name": "struct", "configuration": {"fields": list?}}))
}

impl ArrayLayout {
    pub fn dim_names(&self) -> Vec<&str> {
        self.dims.iter().map(|d| d.name.as_str()).collect()
    }
    /// Bytes of one full block, decoded.
    pub fn block_bytes(&self) -> u64 {
        self.chunks.block.iter().product::<u64>() * self.dtype.size as u64
    }
    /// Bytes the array's allocated blocks take in the file (inline blocks count their own bytes).
    pub fn stored_bytes(&self) -> u64 {
        self.chunks
            .entries
            .iter()
            .map(|e| match e.data {
                DataRef::Ref { length, .. } => length,
                DataRef::Inline(d) => d.len() as u64,
            })
            .sum()
    }
    /// The coordinate values as f64, when the reader kept them.
    pub fn values_f64(&self) -> Option<Vec<f64>> {
        self.values
            .as_deref()
            .and_then(|v| self.dtype.decode_all_f64(v))
    }
}

pub(crate) mod b64 {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(v))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .map_err(serde::de::Error::custom)
    }
}

mod b64opt {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(v)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(s) => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map(Some)
                .map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::{Endian, Kind};

    #[test]
    fn layout_round_trips_through_json() {
        let a = ArrayLayout {
            path: "tas".into(),
            dims: vec![Dim::new("time", true), Dim::new("lat", false)],
            shape: vec![10, 3],
            dtype: DType::new(Kind::Float, 4, Endian::Little),
            fill_value: Some(vec![0, 0, 192, 127]),
            attrs: Map::new(),
            codecs: vec![Codec::shuffle(4), Codec::zlib(4)],
            chunks: ChunkTable {
                block: vec![4, 3],
                edges: EdgeStorage::Padded,
                splittable: false,
                entries: vec![
                    ChunkEntry {
                        index: vec![0, 0],
                        data: ChunkData::Ref {
                            offset: 100,
                            length: 20,
                        },
                        filter_mask: 0,
                    },
                    ChunkEntry {
                        index: vec![1, 0],
                        data: ChunkData::Inline(vec![1, 2, 3]),
                        filter_mask: 2,
                    },
                ]
                .into(),
            },
            values: None,
            fields: Vec::new(),
        };
        let s = serde_json::to_string(&a).unwrap();
        let b: ArrayLayout = serde_json::from_str(&s).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.chunks.grid_shape(&a.shape), vec![3, 1]);
    }
}
