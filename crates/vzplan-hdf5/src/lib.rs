//! vzplan-hdf5 (in progress)
pub mod btree2;
pub mod chunks;
pub mod ctx;
pub mod error;
