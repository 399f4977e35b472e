//! The seam to the chunk-index and v2 B-tree modules (`chunks`, `btree2`): every call from the
//! object-level reader into them goes through here.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

pub use crate::btree2::records;
pub use crate::chunks::{
    btree1_chunks, btree2_chunks, extensible_array, fixed_array, implicit, single, Geometry,
};
