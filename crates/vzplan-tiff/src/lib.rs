//! vzplan-tiff
