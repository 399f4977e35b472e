//! The model every vzplan crate shares. No I/O happens here.
//!
//! A format reader turns one file into a [`SourceLayout`]: its arrays ([`ArrayLayout`]), each with a
//! dtype, a shape, a codec chain written as Zarr v3 codec JSON ([`Codec`]) and a [`ChunkTable`] that
//! maps every stored block of the file's native (regular) block grid to a byte range. The planner
//! combines layouts into one [rectilinear grid](grid) per array and the emitter writes them out.
//!
//! Layouts serialize to JSON (one line per file in `vzplan scan` output), so scanning can be sharded
//! across machines and planned later without touching the sources.

pub mod chunks;
pub mod codecs;
pub mod dtype;
pub mod grid;
mod keys;
pub mod layout;
pub mod text;

pub use chunks::{Chunk, ChunkList, DataRef, LengthColumn, Move, PlainColumns, RankMismatch};
pub use codecs::CodecId;
pub use dtype::{DType, Endian, Kind};
pub use grid::{edges_from_json, edges_to_json, AxisEdges, GridError};
pub use keys::{KeyColumn, KeyIter, KeyRef};
pub use layout::{
    struct_data_type, ArrayLayout, ArrayProblem, ChunkData, ChunkEntry, ChunkTable, Codec,
    CodecStage, Dim, EdgeStorage, Field, Format, GroupLayout, LinkedSource, ProblemKind, Rewriter,
    SourceLayout,
};
