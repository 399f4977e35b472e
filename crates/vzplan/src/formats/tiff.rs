//! TIFF, BigTIFF and COG, read by `vzplan-tiff`.

use super::{words, FormatError, FormatReader, ReadOptions};
use vzplan_core::{Rewriter, SourceLayout};
use vzplan_io::RangeRead;

pub struct Tiff;

impl FormatReader for Tiff {
    fn name(&self) -> &'static str {
        "tiff"
    }

    fn kind(&self) -> &'static str {
        "TIFF"
    }

    fn describe_header(&self, r: &dyn RangeRead) -> Option<String> {
        vzplan_tiff::describe_header(&r.read_at(0, r.size().min(16)).ok()?)
    }

    fn rewriter(&self, _: &str) -> Rewriter {
        Rewriter::Gdal
    }

    fn sniff(&self, head: &[u8]) -> bool {
        vzplan_tiff::sniff(head)
    }

    fn read(&self, r: &dyn RangeRead, _: &ReadOptions<'_>) -> Result<SourceLayout, FormatError> {
        vzplan_tiff::read_layout(r).map_err(|e| {
            let (past, part) = match &e {
                vzplan_tiff::ReadError::Io(io) => (words::past_end(io), "its directory of images"),
                vzplan_tiff::ReadError::PastEnd {
                    need, size, data, ..
                } => (
                    Some((*need, *size)),
                    if *data {
                        "its image data"
                    } else {
                        "its directory of images"
                    },
                ),
                _ => (None, "its directory of images"),
            };
            FormatError::read_failed(r.url(), part, past, e)
        })
    }
}
