//! The rules, one module per family; each checks one thing and pushes [`crate::Finding`]s.
//!
//! - [`padded`]: a chunk stored padded may only be the last of its axis (and the rewrite that
//!   makes a file fit);
//! - [`mismatch`]: what must agree across files along every other axis;
//! - [`masks`]: chunks stored with filters skipped;
//! - [`sequence`]: the concat coordinate runs on across files (overlaps, repeats, gaps);
//! - [`grid`]: the final check of a planned grid.
//!
//! Mosaics have rules of their own in [`crate::mosaic`] (placement, staggered cuts, overlaps).

pub(crate) mod grid;
pub(crate) mod masks;
pub(crate) mod mismatch;
pub(crate) mod padded;
pub(crate) mod sequence;
