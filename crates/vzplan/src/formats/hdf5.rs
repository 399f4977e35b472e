//! HDF5 and netCDF-4, read by `vzplan-hdf5`.

use super::{words, FormatError, FormatReader, ReadOptions};
use vzplan_core::{Rewriter, SourceLayout};
use vzplan_io::RangeRead;

pub struct Hdf5;

impl FormatReader for Hdf5 {
    fn name(&self) -> &'static str {
        "hdf5"
    }

    fn kind(&self) -> &'static str {
        "HDF5"
    }

    fn describe_header(&self, r: &dyn RangeRead) -> Option<String> {
        vzplan_hdf5::describe_header(r)
    }

    /// netCDF-4 files are HDF5; nccopy keeps their netCDF view intact, so a file named like one
    /// is rewritten with it, any other with h5repack.
    fn rewriter(&self, url: &str) -> Rewriter {
        let lower = url.to_ascii_lowercase();
        let netcdf = [".nc", ".nc4", ".cdf", ".netcdf"];
        match netcdf.iter().any(|e| lower.ends_with(e)) {
            true => Rewriter::Nccopy,
            false => Rewriter::H5repack,
        }
    }

    fn sniff(&self, head: &[u8]) -> bool {
        vzplan_hdf5::sniff(head)
    }

    fn read(&self, r: &dyn RangeRead, opts: &ReadOptions<'_>) -> Result<SourceLayout, FormatError> {
        let read = match opts.linker {
            Some(linker) => vzplan_hdf5::read_layout_linked(r, linker),
            None => vzplan_hdf5::read_layout(r),
        };
        read.map_err(|e| {
            let past = match &e.source {
                vzplan_hdf5::Error::Io(io) => words::past_end(io),
                // A structure cut off by the end of a file small enough to be read whole.
                vzplan_hdf5::Error::Truncated { need, have, .. } if *have as u64 == r.size() => {
                    Some((*need as u64, r.size()))
                }
                _ => None,
            };
            FormatError::read_failed(r.url(), "its metadata", past, e)
        })
    }

    /// The superblock may follow a user block (at 512, 1024, 2048, … bytes).
    fn signature_may_be_later(&self) -> bool {
        true
    }
}
