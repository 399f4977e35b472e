//! The filter-mask rule: an HDF5 chunk stored with some filters skipped (a non-zero filter mask
//! in its chunk index entry, HDF5 File Format Specification III.A.2, "Filter Mask") cannot share
//! the array's codec chain; with `--patch` it is re-encoded inline instead.

use crate::fix::Target;
use crate::{Finding, FindingKind, Severity};
use vzplan_core::{ArrayLayout, Chunk, ChunkList};

/// Checks masks and returns the entry list's problems as findings.
pub(crate) fn check_masks(
    path: &str,
    url: &str,
    a: &ArrayLayout,
    findings: &mut Vec<Finding>,
) -> bool {
    check_masks_or_patch(path, url, &a.chunks.entries, false, findings)
}

/// As [`check_masks`]; with `patch`, blocks with filters skipped are accepted (and patched).
pub(crate) fn check_masks_or_patch(
    path: &str,
    url: &str,
    entries: &ChunkList,
    patch: bool,
    findings: &mut Vec<Finding>,
) -> bool {
    let bad: Vec<Chunk> = entries.masked().collect();
    if let (Some(e), true) = (bad.first(), patch) {
        findings.push(
            Finding::new(
                FindingKind::Patched,
                Severity::Info,
                format!(
                    "{} chunk(s) stored with filters skipped (mask {:#x}): re-encoded inline",
                    bad.len(),
                    e.filter_mask
                ),
            )
            .file(url)
            .array(path)
            .at(format!("chunk {:?}", e.index)),
        );
        return true;
    }
    if let Some(e) = bad.first() {
        // Filter masks exist only in HDF5 chunk indexes.
        let t = Target {
            url,
            rewriter: vzplan_core::Rewriter::H5repack,
        };
        findings.push(
            Finding::error(
                FindingKind::FilterMask,
                format!(
                    "{} chunk(s) were stored with filters skipped (mask {:#x}), so they cannot share the array's codecs",
                    bad.len(),
                    e.filter_mask
                ),
            )
            .file(url)
            .array(path)
            .at(format!("chunk {:?}", e.index))
            .fix(format!(
                "pass --patch to re-encode them inline, or rewrite the file so that every chunk is filtered, e.g. `h5repack {} {}`",
                t.file(),
                t.output("repacked")
            )),
        );
        return false;
    }
    true
}
