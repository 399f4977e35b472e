//! `vzplan info`: one file's layout as a person wants to see it (what `h5ls -v`, `ncdump -hs` or
//! `tiffinfo` show), plus what matters for virtual references: padded edge chunks, allocated
//! chunks, stored bytes.
//!
//! Built from the [`SourceLayout`] a reader returns, plus the file's first bytes for the format
//! version (the layout does not carry it). The chunk index type (B-tree v1/v2, fixed or extensible
//! array) is not in the layout either, so it is not shown.

use crate::formats::FormatError;
use crate::scan::{scan_one, ScanOptions};
use serde::Serialize;
use vzplan_core::layout::{EdgeStorage, Format};
use vzplan_core::text::shown;
use vzplan_core::DataRef;
use vzplan_core::SourceLayout;
use vzplan_io::RangeRead;

/// One file's layout, for printing or `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct FileInfo {
    pub url: String,
    pub size: u64,
    /// `hdf5`, `netcdf3`, `tiff`.
    pub format: Format,
    /// The variant and version read from the file's header: `netCDF classic CDF-1`, `HDF5
    /// superblock v2`, `BigTIFF`…; `None` when the header is not where expected.
    pub version: Option<String>,
    pub variables: Vec<VarInfo>,
    /// Arrays the reader found but cannot reference, with why.
    pub problems: Vec<ProblemInfo>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProblemInfo {
    pub path: String,
    pub reason: String,
}

/// One variable (dataset, image).
#[derive(Clone, Debug, Serialize)]
pub struct VarInfo {
    pub path: String,
    pub dims: Vec<String>,
    /// Unlimited dimensions, by name.
    pub unlimited: Vec<String>,
    /// numpy-style dtype (`<f4`).
    pub dtype: String,
    pub shape: Vec<u64>,
    /// The native block shape.
    pub chunks: Vec<u64>,
    /// Codec names in encode order (`shuffle`, `zlib`…).
    pub codecs: Vec<String>,
    /// The fill value decoded as a number, when the file defines one and it is numeric.
    pub fill_value: Option<f64>,
    /// The fill value's bytes in hex (dtype byte order), when the file defines one.
    pub fill_hex: Option<String>,
    /// `padded` (edge blocks stored at full block shape) or `exact`.
    pub edges: EdgeStorage,
    /// Dimensions whose last block overhangs the array's end and is stored padded.
    pub padded_axes: Vec<String>,
    /// Blocks stored in the file.
    pub chunks_allocated: u64,
    /// Blocks in the grid (`prod(ceil(shape / chunks))`).
    pub chunks_total: u64,
    /// Bytes the stored blocks take in the file.
    pub stored_bytes: u64,
    /// Blocks held inline (already encoded bytes, not a file range).
    pub inline_chunks: u64,
}

/// Why `info` could not show a file.
#[derive(Debug, thiserror::Error)]
pub enum InfoError {
    #[error(transparent)]
    Open(#[from] vzplan_io::IoError),
    #[error(transparent)]
    Read(#[from] FormatError),
}

/// Reads and describes one file (a local path or an object URL).
pub fn info(url_or_path: &str, opts: &ScanOptions) -> Result<FileInfo, InfoError> {
    let r = vzplan_io::open(url_or_path, &opts.io)?;
    let layout = scan_one(r.as_ref(), opts)?;
    let version = header_version(r.as_ref(), &layout.format);
    Ok(FileInfo::from_layout(&layout, version))
}

impl FileInfo {
    /// Describes a layout; `version` comes from the file header (see [`info`]).
    pub fn from_layout(l: &SourceLayout, version: Option<String>) -> FileInfo {
        let variables = l.arrays.iter().map(var_info).collect();
        FileInfo {
            url: l.url.clone(),
            size: l.size,
            format: l.format.clone(),
            version,
            variables,
            problems: l
                .problems
                .iter()
                .map(|p| ProblemInfo {
                    path: p.path.clone(),
                    reason: p.reason.clone(),
                })
                .collect(),
        }
    }
}

fn var_info(a: &vzplan_core::ArrayLayout) -> VarInfo {
    let grid = a.chunks.grid_shape(&a.shape);
    let padded_axes = if a.chunks.edges == EdgeStorage::Padded {
        a.shape
            .iter()
            .zip(&a.chunks.block)
            .zip(&a.dims)
            .filter(|((&n, &b), _)| b > 0 && n % b != 0)
            .map(|(_, d)| d.name.clone())
            .collect()
    } else {
        Vec::new()
    };
    let inline_chunks = a
        .chunks
        .entries
        .iter()
        .filter(|e| matches!(e.data, DataRef::Inline(_)))
        .count() as u64;
    VarInfo {
        path: a.path.clone(),
        dims: a.dims.iter().map(|d| d.name.clone()).collect(),
        unlimited: a
            .dims
            .iter()
            .filter(|d| d.unlimited)
            .map(|d| d.name.clone())
            .collect(),
        dtype: a.dtype.numpy_str(),
        shape: a.shape.clone(),
        chunks: a.chunks.block.clone(),
        codecs: a.codecs.iter().map(|c| c.name.to_string()).collect(),
        fill_value: a.fill_value.as_deref().and_then(|f| a.dtype.decode_f64(f)),
        fill_hex: a.fill_value.as_deref().map(hex),
        edges: a.chunks.edges,
        padded_axes,
        chunks_allocated: a.chunks.entries.len() as u64,
        chunks_total: grid.iter().product(),
        stored_bytes: a.stored_bytes(),
        inline_chunks,
    }
}

/// A fill value as a person reads it: `1e20`, not `100000002004087730000` (an f32 widened).
fn number(x: f64, dtype: &str) -> String {
    let big = x.is_finite() && x.abs() >= 1e9;
    match (dtype.ends_with("f4"), big) {
        (true, true) => format!("{:e}", x as f32),
        (true, false) => format!("{}", x as f32),
        (false, true) => format!("{x:e}"),
        (false, false) => format!("{x}"),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The format variant from the file's header, as its reader describes it; `None` when the
/// header is not where expected.
fn header_version(r: &dyn RangeRead, format: &Format) -> Option<String> {
    crate::formats::reader(format.as_str())?.describe_header(r)
}

/// The text form: a header line per file, then one block per variable.
pub fn text(f: &FileInfo) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let version = f.version.as_deref().unwrap_or("version unknown");
    let _ = writeln!(
        s,
        "{}  ({}, {version}, {} bytes)",
        shown(&f.url),
        crate::formats::reader(f.format.as_str()).map_or(f.format.as_str(), |r| r.kind()),
        f.size
    );
    for v in &f.variables {
        var_text(&mut s, v);
    }
    for p in &f.problems {
        let _ = writeln!(
            s,
            "  {}: cannot be referenced: {}",
            shown(&p.path),
            shown(&p.reason)
        );
    }
    s
}

fn var_text(s: &mut String, v: &VarInfo) {
    use std::fmt::Write;
    let dims: Vec<String> = v
        .dims
        .iter()
        .zip(&v.shape)
        .map(|(d, n)| {
            let u = if v.unlimited.contains(d) {
                " unlimited"
            } else {
                ""
            };
            format!("{}={n}{u}", shown(d))
        })
        .collect();
    let _ = writeln!(s, "  {} {}({})", v.dtype, shown(&v.path), dims.join(", "));
    let _ = writeln!(
        s,
        "    chunks {:?}  edges {}  codecs [{}]",
        v.chunks,
        match v.edges {
            EdgeStorage::Padded => "padded",
            EdgeStorage::Exact => "exact",
        },
        v.codecs.join(", ")
    );
    let fill = match (v.fill_value, &v.fill_hex) {
        (Some(x), _) => number(x, &v.dtype),
        (None, Some(h)) => format!("0x{h}"),
        (None, None) => "none".into(),
    };
    let _ = write!(
        s,
        "    fill {fill}  chunks {}/{} allocated  {} bytes stored",
        v.chunks_allocated, v.chunks_total, v.stored_bytes
    );
    if v.inline_chunks > 0 {
        let _ = write!(s, " ({} inline)", v.inline_chunks);
    }
    s.push('\n');
    if !v.padded_axes.is_empty() {
        let _ = writeln!(
            s,
            "    last chunk padded along {}",
            shown(&v.padded_axes.join(", "))
        );
    }
}
