//! vzplan-hdf5 (in progress)
pub mod ctx;
pub mod error;
