//! File formats: one [`FormatReader`] per format, tried in the order of [`FORMATS`]. Everything
//! the rest of vzplan knows about a format comes from its reader: its name (the `format` of a
//! layout), the word messages call it by, how its header is described (`vzplan info`), and the
//! tools that rewrite its files (the commands of fixes).
//!
//! To add a format: its reader crate, a file here implementing the trait over it (copy
//! `tiff.rs`), and one line in [`FORMATS`] (docs/architecture.md has the steps).

mod dmrpp;
mod hdf5;
mod netcdf3;
mod tiff;
pub mod words;

use vzplan_core::SourceLayout;
use vzplan_io::{IoError, RangeRead};

/// Bytes read from the start of a file to pick its format, unless a format asks for more
/// ([`FormatReader::head_bytes`]).
pub const HEAD_BYTES: u64 = 8;

/// What the readers take besides the file.
#[derive(Clone, Copy)]
pub struct ReadOptions<'a> {
    /// Target chunk size when merging netCDF-3 records or cutting fixed variables.
    pub chunk_bytes: u64,
    /// Opens the files a file names (HDF5 external links, virtual datasets' sources), if the
    /// run allows it; `None`: such links are problems and nothing else is read.
    pub linker: Option<&'a dyn vzplan_io::Linker>,
}

impl Default for ReadOptions<'_> {
    fn default() -> Self {
        ReadOptions {
            chunk_bytes: 4 << 20,
            linker: None,
        }
    }
}

impl std::fmt::Debug for ReadOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOptions")
            .field("chunk_bytes", &self.chunk_bytes)
            .field("linker", &self.linker.is_some())
            .finish()
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
    #[error("{url}: not a {} file (unknown signature {signature:02x?})", kinds())]
    Unknown { url: String, signature: Vec<u8> },
    /// No reader takes it, and its first bytes are those of a well-known format (or text).
    #[error("{url}: not a {} file: it starts like {what}", kinds())]
    LooksLike { url: String, what: &'static str },
    /// A read ran past the end of the file, not far: the file was cut short.
    #[error(
        "{url}: truncated: {part} needs {} bytes but the file has {} (was the download interrupted?)",
        words::thousands(*need),
        words::thousands(*size)
    )]
    Truncated {
        url: String,
        /// What was being read ("the header", "its metadata").
        part: &'static str,
        need: u64,
        size: u64,
    },
}

impl FormatError {
    /// Wraps a reader crate's error.
    pub fn reader(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        FormatError::Reader(Box::new(e))
    }

    /// Wraps a reader crate's error, told as [`FormatError::Truncated`] when it is a read that
    /// needed `past_end = (bytes, size)` of a file cut short.
    pub fn read_failed(
        url: &str,
        part: &'static str,
        past_end: Option<(u64, u64)>,
        e: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        match past_end {
            Some((need, size)) if words::is_truncation(need, size) => FormatError::Truncated {
                url: url.to_string(),
                part,
                need,
                size,
            },
            _ => FormatError::reader(e),
        }
    }
}

/// One file format.
pub trait FormatReader: Sync {
    /// Short name, the `format` of its layouts ("netcdf3", "tiff", "hdf5").
    fn name(&self) -> &'static str;
    /// What a person calls such a file ("netCDF", "HDF5", "TIFF").
    fn kind(&self) -> &'static str;
    /// The variant of a file of this format, from its header (`HDF5 superblock v2`, `BigTIFF`).
    fn describe_header(&self, r: &dyn RangeRead) -> Option<String>;
    /// The tools that rewrite the file at `url` (the commands of a finding's fix).
    fn rewriter(&self, url: &str) -> vzplan_core::Rewriter;
    /// Whether the first [`FormatReader::head_bytes`] bytes (fewer for a short file, more when
    /// another format asks for more) carry the signature.
    fn sniff(&self, head: &[u8]) -> bool;
    /// How many first bytes [`FormatReader::sniff`] needs: [`HEAD_BYTES`] for a magic number, more
    /// for a text format whose root element may follow a declaration and comments (DMR++).
    fn head_bytes(&self) -> u64 {
        HEAD_BYTES
    }
    /// Reads the file's layout.
    fn read(&self, r: &dyn RangeRead, opts: &ReadOptions<'_>) -> Result<SourceLayout, FormatError>;
    /// Whether the signature may sit past the head (HDF5: after a user block), so that the
    /// format is tried on a file no format recognised.
    fn signature_may_be_later(&self) -> bool {
        false
    }
}

/// Every format. Their signatures differ, so the first whose [`FormatReader::sniff`] matches a
/// file's head reads it; a format whose signature can sit later (HDF5, after a user block) is
/// also tried on files whose head nothing recognised.
pub static FORMATS: &[&dyn FormatReader] =
    &[&netcdf3::NetCdf3, &hdf5::Hdf5, &tiff::Tiff, &dmrpp::Dmrpp];

/// The reader of layouts whose `format` is `name`.
pub fn reader(name: &str) -> Option<&'static dyn FormatReader> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// Every format's word, as messages list them: `netCDF, HDF5, TIFF or DMR++`.
pub fn kinds() -> String {
    let words: Vec<&str> = FORMATS.iter().map(|f| f.kind()).collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => words.concat(),
    }
}

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
    let want = formats
        .iter()
        .map(|f| f.head_bytes())
        .max()
        .unwrap_or(HEAD_BYTES);
    // A view of the cached bytes where the reader caches them: no copy of the head per file.
    let head = r.read_bytes(0, r.size().min(want))?;
    let with_rewriter = |f: &dyn FormatReader, mut l: SourceLayout| {
        l.rewriter = f.rewriter(&l.url);
        l
    };
    if let Some(f) = formats.iter().find(|f| f.sniff(&head)) {
        return f.read(r, opts).map(|l| with_rewriter(*f, l));
    }
    for f in formats.iter().filter(|f| f.signature_may_be_later()) {
        if let Ok(l) = f.read(r, opts) {
            return Ok(with_rewriter(*f, l));
        }
    }
    if head.is_empty() {
        return Err(FormatError::Empty {
            url: r.url().to_string(),
        });
    }
    let longer = r.read_at(0, r.size().min(words::SNIFF_BYTES))?;
    if let Some(what) = words::looks_like(&longer) {
        return Err(FormatError::LooksLike {
            url: r.url().to_string(),
            what,
        });
    }
    Err(FormatError::Unknown {
        url: r.url().to_string(),
        signature: head.iter().take(4).copied().collect(),
    })
}
