//! The seam to the chunk-index and v2 B-tree modules (`chunks`, `btree2`): every call from the
//! object-level reader into them goes through here.

pub use crate::btree2::records;
pub use crate::chunks::{
    btree1_chunks, btree2_chunks, extensible_array, fixed_array, implicit, single, Geometry,
};
