//! netCDF classic (CDF-1, CDF-2, CDF-5), read by `vzplan-netcdf3`.

use super::{words, FormatError, FormatReader, ReadOptions};
use vzplan_core::{Rewriter, SourceLayout};
use vzplan_io::RangeRead;

pub struct NetCdf3;

impl FormatReader for NetCdf3 {
    fn name(&self) -> &'static str {
        "netcdf3"
    }

    fn kind(&self) -> &'static str {
        "netCDF"
    }

    fn describe_header(&self, r: &dyn RangeRead) -> Option<String> {
        vzplan_netcdf3::describe_header(&r.read_at(0, r.size().min(16)).ok()?)
    }

    fn rewriter(&self, _: &str) -> Rewriter {
        Rewriter::Nccopy
    }

    fn sniff(&self, head: &[u8]) -> bool {
        vzplan_netcdf3::sniff(head)
    }

    fn read(&self, r: &dyn RangeRead, opts: &ReadOptions<'_>) -> Result<SourceLayout, FormatError> {
        let o = vzplan_netcdf3::Options {
            chunk_bytes: opts.chunk_bytes,
        };
        vzplan_netcdf3::read_layout(r, &o).map_err(|e| {
            use vzplan_netcdf3::ReadError as E;
            let past = match &e {
                E::Truncated {
                    offset, need, size, ..
                } => Some((offset.saturating_add(*need), *size)),
                E::Io(io) => words::past_end(io),
                E::Geometry {
                    source:
                        vzplan_netcdf3::GeometryError::PastEnd {
                            end: Some(end),
                            size,
                            ..
                        },
                    ..
                } => {
                    let past = Some((*end, *size));
                    return FormatError::read_failed(r.url(), "its data", past, e);
                }
                _ => None,
            };
            FormatError::read_failed(r.url(), "the header", past, e)
        })
    }
}
