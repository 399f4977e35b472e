//! `--dmrpp`: a file's DMR++ sidecar (`granule.h5.dmrpp` beside `granule.h5`, as NASA Earthdata
//! publishes them) read in place of the file's own metadata. The references point at the file
//! the person gave, with its size and identity from a `stat` or a HEAD; its bytes are not read.
//! A file without a sidecar is scanned as usual, so a pile where only some granules have one is
//! still built whole.

use crate::formats::FormatError;
use crate::inputs::Input;
use crate::scan::{FileError, ScanOptions, Scanned};
use vzplan_io::{IoError, ObjectMeta, Stats};

/// The name a file's sidecar has.
pub fn sidecar_name(input: &str) -> String {
    format!("{input}.dmrpp")
}

/// The scan of `input` from its sidecar, or `None` when it has none (or is itself a DMR++).
pub(crate) fn scan(input: &Input, opts: &ScanOptions) -> Option<Scanned> {
    if input.name.ends_with(".dmrpp") {
        return None;
    }
    let sidecar = sidecar_name(&input.name);
    let r = match vzplan_io::open(&sidecar, &opts.io) {
        Ok(r) => r,
        Err(e) if e.is_missing() => return None,
        Err(e) => return Some(failed(input, e.into(), Stats::default())),
    };
    let result = granule_meta(input, opts)
        .map_err(FileError::from)
        .and_then(|meta| {
            vzplan_dmrpp::read_layout_of(r.as_ref(), &input.url, &meta).map_err(|e| match e {
                // An outage stays one (not a bad file): the run fails unless it may go on without.
                vzplan_dmrpp::Error::Io(io) => FileError::Read(FormatError::Io(io)),
                e => FileError::Read(FormatError::reader(e)),
            })
        });
    let result = match result {
        Ok(_) if r.stats().unreachable > 0 => Err(FileError::Unreachable {
            url: input.url.clone(),
            requests: r.stats().unreachable,
        }),
        result => result,
    };
    Some(Scanned {
        input: input.name.clone(),
        url: input.url.clone(),
        result,
        stats: r.stats(),
    })
}

/// The granule's size and identity: from the listing when it told them, else a `stat` of a local
/// file or a HEAD of an object.
fn granule_meta(input: &Input, opts: &ScanOptions) -> Result<ObjectMeta, IoError> {
    if let Some(m) = &input.meta {
        return Ok(m.clone());
    }
    crate::verify::meta_now(&input.name, &opts.io)
}

fn failed(input: &Input, e: FileError, stats: Stats) -> Scanned {
    Scanned {
        input: input.name.clone(),
        url: input.url.clone(),
        result: Err(e),
        stats,
    }
}
