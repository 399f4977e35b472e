//! OPeNDAP DMR++ sidecars, read by `vzplan-dmrpp`: the layout is the granule's (its URL from
//! `dmrpp:href`), the granule itself is never read.

use super::{words, FormatError, FormatReader, ReadOptions};
use vzplan_core::{Rewriter, SourceLayout};
use vzplan_io::RangeRead;

pub struct Dmrpp;

impl FormatReader for Dmrpp {
    fn name(&self) -> &'static str {
        "dmrpp"
    }

    fn kind(&self) -> &'static str {
        "DMR++"
    }

    fn describe_header(&self, r: &dyn RangeRead) -> Option<String> {
        let head = r.read_at(0, r.size().min(vzplan_dmrpp::HEAD_BYTES)).ok()?;
        vzplan_dmrpp::describe_header(&head)
    }

    /// A finding's fix rewrites the granule (the layout's URL), then its DMR++ is made anew:
    /// the granule is HDF5, or netCDF-4 when named like one.
    fn rewriter(&self, url: &str) -> Rewriter {
        super::hdf5::Hdf5.rewriter(url)
    }

    fn sniff(&self, head: &[u8]) -> bool {
        vzplan_dmrpp::sniff(head)
    }

    /// The XML root and its namespaces may follow a declaration and comments.
    fn head_bytes(&self) -> u64 {
        vzplan_dmrpp::HEAD_BYTES
    }

    fn read(&self, r: &dyn RangeRead, opts: &ReadOptions<'_>) -> Result<SourceLayout, FormatError> {
        vzplan_dmrpp::read_layout(r, opts.linker).map_err(|e| {
            let past = match &e {
                vzplan_dmrpp::Error::Io(io) => words::past_end(io),
                _ => None,
            };
            FormatError::read_failed(r.url(), "the DMR++", past, e)
        })
    }
}
