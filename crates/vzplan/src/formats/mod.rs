//! File formats: one [`FormatReader`] per format, tried in the order of [`FORMATS`].
//!
//! To add a format: copy one of the files here (e.g. `tiff.rs`) to `<x>.rs`, implement the trait
//! over the new reader crate, and add one line to [`FORMATS`].

mod hdf5;
mod netcdf3;
mod tiff;

use vzplan_core::SourceLayout;
use vzplan_io::{IoError, RangeRead};

/// Bytes read from the start of a file to pick its format.
pub const HEAD_BYTES: u64 = 8;

/// What the readers take besides the file.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// Target chunk size when merging netCDF-3 records or cutting fixed variables.
    pub chunk_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            chunk_bytes: 4 << 20,
        }
    }
}

/// Why a file's layout could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// Reading the first bytes failed.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The format's reader failed (its own error, message kept as is).
    #[error("{0}")]
    Reader(Box<dyn std::error::Error + Send + Sync>),
    #[error("{url}: empty file")]
    Empty { url: String },
    #[error("{url}: not a netCDF, HDF5 or TIFF file (unknown signature {signature:02x?})")]
    Unknown { url: String, signature: Vec<u8> },
}

impl FormatError {
    /// Wraps a reader crate's error.
    pub fn reader(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        FormatError::Reader(Box::new(e))
    }
}

/// One file format.
pub trait FormatReader: Sync {
    /// Short name ("netcdf3", "tiff", "hdf5").
    fn name(&self) -> &'static str;
    /// Whether the first [`HEAD_BYTES`] bytes (fewer for a short file) carry the signature.
    fn sniff(&self, head: &[u8]) -> bool;
    /// Reads the file's layout.
    fn read(&self, r: &dyn RangeRead, opts: &ReadOptions) -> Result<SourceLayout, FormatError>;
    /// Whether the signature may sit past the head (HDF5: after a user block), so that the
    /// format is tried on a file no format recognised.
    fn signature_may_be_later(&self) -> bool {
        false
    }
}

/// Every format, in the order they are tried. HDF5 last: its signature can sit after a user
/// block, so it is also tried on files whose head nothing recognised.
pub static FORMATS: &[&dyn FormatReader] = &[&netcdf3::NetCdf3, &tiff::Tiff, &hdf5::Hdf5];

/// Reads one file's layout with the first format that recognises it.
pub fn read_layout(r: &dyn RangeRead, opts: &ReadOptions) -> Result<SourceLayout, FormatError> {
    read_layout_with(FORMATS, r, opts)
}

/// [`read_layout`] over a given list of formats.
pub fn read_layout_with(
    formats: &[&dyn FormatReader],
    r: &dyn RangeRead,
    opts: &ReadOptions,
) -> Result<SourceLayout, FormatError> {
    let head = r.read_at(0, r.size().min(HEAD_BYTES))?;
    if let Some(f) = formats.iter().find(|f| f.sniff(&head)) {
        return f.read(r, opts);
    }
    for f in formats.iter().filter(|f| f.signature_may_be_later()) {
        if let Ok(l) = f.read(r, opts) {
            return Ok(l);
        }
    }
    if head.is_empty() {
        return Err(FormatError::Empty {
            url: r.url().to_string(),
        });
    }
    Err(FormatError::Unknown {
        url: r.url().to_string(),
        signature: head.iter().take(4).copied().collect(),
    })
}
