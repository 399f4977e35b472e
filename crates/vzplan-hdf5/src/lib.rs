//! vzplan-hdf5
