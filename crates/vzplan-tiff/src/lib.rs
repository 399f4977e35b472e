//! Pure-Rust TIFF / BigTIFF / COG / GeoTIFF metadata reader: one file → a
//! [`vzplan_core::SourceLayout`] whose chunk tables reference the file's strips and tiles.
//!
//! Spec: TIFF Revision 6.0, <https://www.itu.int/itudoc/itu-t/com16/tiff-fx/docs/tiff6.pdf>.
//!
//! Specs: TIFF 6.0 (Adobe, 1992), the BigTIFF extension (libtiff `bigtiff.html`), the Cloud
//! Optimized GeoTIFF layout (`cogeotiff/cog-spec`), GeoTIFF 1.1 (OGC 19-008r4); what vzplan reads
//! of them and why: docs/formats.md.
//!
//! # What becomes an array
//! Every IFD of the main chain (followed until the next-IFD offset is 0; a revisited offset is a
//! loop and an error) and every IFD reachable from a main-chain IFD's SubIFDs tag (330, one level,
//! each SubIFD's own chain followed too) is classified by NewSubfileType (254; SubfileType 255 = 2
//! counts as reduced):
//! - **full-resolution images** (bit 0 and bit 2 clear) are pages `"0"`, `"1"`, … in chain order;
//! - **reduced-resolution images** (bit 0, COG overviews, also tifffile's SubIFD pyramids) are
//!   `"overview_1/0"`, `"overview_2/0"`, … in file order for overviews of page 0, and
//!   `"<page>_overview_<n>/<page>"` for overviews of a later page (an overview belongs to the last
//!   full-resolution page before it in the chain, or to the page whose SubIFDs hold it): one group
//!   per level, so that each group (and the root) opens as an xarray dataset whose `y`/`x` sizes
//!   agree;
//! - **transparency masks** (bit 2, also mask overviews with bits 0 + 2) are skipped silently:
//!   they are neither arrays nor problems;
//! - a SubIFD that is neither reduced nor a mask is `"<page>_subifd_<j>"`.
//!
//! When a file has two or more pages and all of them have the same dims, shape, dtype, fill value,
//! codecs, block shape, edge storage and attributes, they are **also** exposed as one stacked array
//! `"pages"` with a leading `page` axis of block 1: shape `[pages, …page shape]`, entry indexes
//! `[p, …]`. Pages that differ are only separate arrays.
//!
//! # Axes
//! `[y, x]` for one sample per pixel; `[y, x, band]` with block `[bh, bw, S]` for
//! PlanarConfiguration 1 with S > 1 samples; `[band, y, x]` with block `[1, bh, bw]` for
//! PlanarConfiguration 2 (offsets plane-major, TIFF 6.0 section 15). Strips are blocks of
//! `[RowsPerStrip, ImageWidth]` (RowsPerStrip defaults to ImageLength and is clamped to it);
//! tiles are `[TileLength, TileWidth]`.
//!
//! # Edge storage
//! Tiles are padded (TIFF 6.0 section 15: "Boundary tiles are padded"). Strips are `Exact` unless
//! the last strip is found to be stored at full size: for uncompressed data the StripByteCounts
//! entry is compared with the short size `(h % rps) × row bytes` and the full size; for Deflate,
//! LZW and PackBits the last strip is decoded (length only, capped); for ZSTD the frame header's
//! content size and for LZMA the .xz index give the length; an image codec's frame header gives
//! its height (`frames.rs`); CCITT strips are always exact (their codecs decode the chunk's rows).
//! When the length cannot be measured (a ZSTD frame without a content size, old-style LZW,
//! corrupt data, any other codec) and the image height is not a multiple of RowsPerStrip, the
//! image is a problem: a wrong guess would make every read of the last strip fail, so we never
//! guess. Uncompressed strips of one-plane (contiguous) images of byte-aligned samples are
//! `splittable`, and their references have exactly the decoded block length (packed rows start
//! on a byte; a longer StripByteCounts entry is trimmed).
//!
//! # Codecs and problems
//! See the tables of `codecs.rs` (compressors, predictors, packed samples, FillOrder) and
//! `image_codecs.rs` (image codecs): Deflate → `numcodecs.zlib`, ZSTD → `zstd`, LZMA →
//! `numcodecs.lzma`, and with [`Options::imagecodecs`] (the default) LZW, PackBits, the
//! predictors, packed 1–31-bit unsigned samples (`imagecodecs_packints`; 1 bit reads as `bool`),
//! FillOrder 2 on uncompressed bytes (`imagecodecs_bitorder`), and JPEG, JPEG 2000, JPEG XL,
//! JPEG XR, PNG, WebP, LERC (with its Deflate or ZSTD) and CCITT RLE / Group 3 / Group 4, each
//! through one imagecodecs array-to-bytes codec. imagecodecs codecs are read by zarr-python only
//! after `imagecodecs.zarr.register_codecs()`. Complex floats (SampleFormat 6) are `complex64` /
//! `complex128`. BitsPerSample and SampleFormat are read for the first SamplesPerPixel values
//! (tifffile and libtiff ignore more). Old-style JPEG, FillOrder 2 before a decompressor, CCITT
//! or packed samples, predictors on image codecs or packed samples, sample types or counts an
//! image codec does not decode, YCbCr subsampling without JPEG, complex integers and mixed
//! per-sample formats are `ArrayProblem`s.
//!
//! # GeoTIFF
//! See `geo.rs`: raw tags kept as attributes, `spatial:*` and `proj:code` derived; GDAL_NODATA
//! (42113) becomes `_FillValue` and the fill value when the dtype can hold it (else the raw string
//! is kept as attribute `GDAL_NODATA`); GDAL_METADATA's band scale and offset become
//! `scale_factor`/`add_offset` (`gdal_metadata.rs`). Overviews without their own geo tags inherit
//! the page's transform, scaled to their size, its CRS keys, scale and offset. The coordinates and
//! grid mapping rioxarray expects are added by the planner (`vzplan-plan`'s `geo`), which sees the
//! combined grid of stacks and mosaics.
//!
//! TIFF 6.0: <https://www.itu.int/itudoc/itu-t/com16/tiff-fx/docs/tiff6.pdf>
//! GeoTIFF 1.1: <https://docs.ogc.org/is/19-008r4/19-008r4.html>

mod built;
mod codecs;
mod frames;
mod gdal_metadata;
mod geo;
mod ifd;
mod image;
mod image_codecs;
mod probe;
mod strips;

use ifd::{Ifd, Tiff};
use image::{Image, NEW_SUBFILE_TYPE, SUBFILE_TYPE, SUB_IFDS};
use std::collections::{HashMap, HashSet};
use vzplan_core::{
    ArrayLayout, ArrayProblem, ChunkEntry, ChunkTable, Dim, Format, ProblemKind, SourceLayout,
};
use vzplan_io::{IoError, RangeRead};

/// Most IFDs one file may have (main chain and SubIFDs together).
const MAX_IFDS: usize = 1 << 20;
/// TIFF 6.0 DateTime: "YYYY:MM:DD HH:MM:SS", when the image was created.
const DATE_TIME: u16 = 306;

/// A whole-file error. Display: `"<url>: <what is wrong>"`.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{url}: not a TIFF file: {what}")]
    NotTiff { url: String, what: String },
    #[error("{url}: corrupt TIFF: {what}")]
    Corrupt { url: String, what: String },
    /// A range the file points at runs past its end (`need` bytes of a file of `size`): the file
    /// was cut short, or is corrupt. `data`: image data (strips, tiles), else directory entries.
    #[error("{url}: corrupt TIFF: {what}")]
    PastEnd {
        url: String,
        what: String,
        need: u64,
        size: u64,
        data: bool,
    },
    /// An I/O error (its Display already names the URL).
    #[error(transparent)]
    Io(#[from] IoError),
}

/// Reader settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Map LZW, PackBits, the predictors, packed samples, FillOrder 2 and the image codecs to
    /// imagecodecs' Zarr v3 codecs (`imagecodecs_lzw`, `imagecodecs_webp`, …). Readers must
    /// call `imagecodecs.zarr.register_codecs()` first. When false, such images are problems.
    pub imagecodecs: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { imagecodecs: true }
    }
}

/// Whether the first bytes look like TIFF (`II*\0`, `MM\0*`) or BigTIFF (`II+\0`, `MM\0+`).
pub fn sniff(head: &[u8]) -> bool {
    matches!(
        head.get(0..4),
        Some(b"II*\0") | Some(b"MM\0*") | Some(b"II+\0") | Some(b"MM\0+")
    )
}

/// The file's variant from its first bytes: `TIFF` or `BigTIFF`.
pub fn describe_header(head: &[u8]) -> Option<String> {
    match head.get(2..4)? {
        [42, 0] | [0, 42] => Some("TIFF".into()),
        [43, 0] | [0, 43] => Some("BigTIFF".into()),
        _ => None,
    }
}

/// Reads one TIFF file's layout with the default [`Options`].
pub fn read_layout(r: &dyn RangeRead) -> Result<SourceLayout, ReadError> {
    read_layout_with(r, &Options::default())
}

#[derive(PartialEq)]
enum Role {
    Full,
    Reduced,
    Mask,
}

fn role(t: &Tiff, ifd: &Ifd) -> Result<Role, ReadError> {
    let nst = t.uint(ifd, NEW_SUBFILE_TYPE)?.unwrap_or(0);
    let st = t.uint(ifd, SUBFILE_TYPE)?.unwrap_or(1);
    Ok(if nst & 4 != 0 {
        Role::Mask
    } else if nst & 1 != 0 || st == 2 {
        Role::Reduced
    } else {
        Role::Full
    })
}

fn walk_chain(
    t: &Tiff,
    start: u64,
    visited: &mut HashSet<u64>,
    what: &str,
) -> Result<Vec<Ifd>, ReadError> {
    let mut out = Vec::new();
    let mut off = start;
    while off != 0 {
        if !visited.insert(off) {
            return Err(t.corrupt(format!(
                "the {what} loops: the IFD at offset {off} is reached twice"
            )));
        }
        if visited.len() > MAX_IFDS {
            return Err(t.corrupt(format!("more than {MAX_IFDS} IFDs")));
        }
        let ifd = t.read_ifd(off)?;
        off = ifd.next;
        out.push(ifd);
    }
    Ok(out)
}

/// Reads one TIFF file's layout.
pub fn read_layout_with(r: &dyn RangeRead, opts: &Options) -> Result<SourceLayout, ReadError> {
    let (t, first) = Tiff::open(r)?;
    let mut visited = HashSet::new();
    let chain = walk_chain(&t, first, &mut visited, "main IFD chain")?;
    t.prefetch_values(&chain);

    let mut arrays: Vec<ArrayLayout> = Vec::new();
    let mut problems: Vec<ArrayProblem> = Vec::new();
    // Full-resolution pages: (page number, array index in `arrays` when it is not a problem).
    let mut pages: Vec<Option<usize>> = Vec::new();
    // Per page: (h, w, attrs) for overviews to inherit georeferencing; overview counters.
    let mut page_geo: PageGeo = HashMap::new();
    let mut overviews: HashMap<usize, usize> = HashMap::new();

    // Each overview in a group of its own, holding an array named like its page: the levels reuse
    // the page's dimension names, so side by side in one group xarray finds conflicting sizes.
    let overview_name = |page: usize, n: usize| {
        if page == 0 {
            format!("overview_{n}/0")
        } else {
            format!("{page}_overview_{n}/{page}")
        }
    };

    let mut last_page: Option<usize> = None;
    for ifd in &chain {
        let this_page = match role(&t, ifd)? {
            Role::Mask => None,
            Role::Full => {
                let p = pages.len();
                let idx = place(
                    image::build(&t, ifd, opts),
                    p.to_string(),
                    None,
                    &mut arrays,
                    &mut problems,
                    &mut page_geo,
                )?;
                if let Some(i) = idx {
                    let a = &arrays[i];
                    let (h, w) = spatial_hw(a);
                    page_geo.insert(p, (h, w, a.attrs.clone()));
                }
                pages.push(idx);
                last_page = Some(p);
                Some(p)
            }
            Role::Reduced => {
                let p = last_page.unwrap_or(0);
                let n = overviews.entry(p).or_insert(0);
                *n += 1;
                let name = overview_name(p, *n);
                place(
                    image::build(&t, ifd, opts),
                    name,
                    Some(p),
                    &mut arrays,
                    &mut problems,
                    &mut page_geo,
                )?;
                Some(p)
            }
        };
        // SubIFDs (tifffile pyramids, DNG previews…): one level deep.
        let Some(e) = ifd.get(SUB_IFDS) else { continue };
        let Some(owner) = this_page else { continue };
        let subs = t.uints(e)?;
        let mut j = 0usize;
        // Every chain first, so that their values come in one batch.
        let mut chains = Vec::with_capacity(subs.len());
        for off in subs {
            chains.extend(walk_chain(&t, off, &mut visited, "SubIFD chain")?);
        }
        t.prefetch_values(&chains);
        for sub in chains {
            match role(&t, &sub)? {
                Role::Mask => {}
                Role::Reduced => {
                    let n = overviews.entry(owner).or_insert(0);
                    *n += 1;
                    let name = overview_name(owner, *n);
                    place(
                        image::build(&t, &sub, opts),
                        name,
                        Some(owner),
                        &mut arrays,
                        &mut problems,
                        &mut page_geo,
                    )?;
                }
                Role::Full => {
                    place(
                        image::build(&t, &sub, opts),
                        format!("{owner}_subifd_{j}"),
                        Some(owner),
                        &mut arrays,
                        &mut problems,
                        &mut page_geo,
                    )?;
                }
            }
            j += 1;
        }
    }

    if let Some(stack) = stack_pages(&arrays, &pages) {
        arrays.push(stack);
    }

    // The first image's DateTime is the file's date, as GDAL (TIFFTAG_DATETIME) and tifffile
    // report it; `--stack-coord NAME=datetime` orders scenes by it.
    let mut attrs = serde_json::Map::new();
    // Its 20 bytes, with room for writers that add a zone: nothing large is read for it.
    let date = chain.first().and_then(|ifd| ifd.get(DATE_TIME));
    if let Some(e) = date.filter(|e| e.count <= 64) {
        if let Ok(s) = t.ascii(e) {
            attrs.insert("DateTime".into(), serde_json::Value::String(s));
        }
    }
    let meta = r.meta();
    Ok(SourceLayout {
        linked: Vec::new(),
        url: r.url().to_string(),
        size: meta.size,
        etag: meta.etag.clone(),
        mtime: meta.mtime.clone(),
        format: Format::TIFF,
        rewriter: Default::default(),
        attrs,
        groups: Vec::new(),
        arrays,
        problems,
    })
}

type PageGeo = HashMap<usize, (u64, u64, serde_json::Map<String, serde_json::Value>)>;

/// Names a built image and files it as an array (or a problem); overviews without their own
/// georeferencing inherit their page's. Returns the array's index in `arrays`.
fn place(
    img: built::Built<Image>,
    name: String,
    parent: Option<usize>,
    arrays: &mut Vec<ArrayLayout>,
    problems: &mut Vec<ArrayProblem>,
    page_geo: &mut PageGeo,
) -> Result<Option<usize>, ReadError> {
    match img {
        Ok(mut img) => {
            img.layout.path = name;
            if let (Some(p), false) = (parent, img.has_geo) {
                if let Some((ph, pw, pattrs)) = page_geo.get(&p) {
                    geo::inherit(pattrs, *ph, *pw, img.h, img.w, &mut img.layout.attrs);
                }
            }
            if let Some(reason) = img.attr_problem {
                let path = format!("{}:GDAL_METADATA", img.layout.path);
                problems.push(ArrayProblem::new(path, ProblemKind::Attribute, reason));
            }
            arrays.push(img.layout);
            Ok(Some(arrays.len() - 1))
        }
        Err(built::NotBuilt::Problem(kind, reason)) => {
            problems.push(ArrayProblem::new(name, kind, reason));
            Ok(None)
        }
        Err(built::NotBuilt::Rewrite {
            kind,
            reason,
            rewrite,
        }) => {
            problems.push(ArrayProblem::new(name, kind, reason).rewrite(rewrite.0, rewrite.1));
            Ok(None)
        }
        Err(built::NotBuilt::File(e)) => Err(e),
    }
}

/// (h, w) of an image array from its dims.
fn spatial_hw(a: &ArrayLayout) -> (u64, u64) {
    let mut h = 0;
    let mut w = 0;
    for (d, &n) in a.dims.iter().zip(&a.shape) {
        match d.name.as_str() {
            "y" => h = n,
            "x" => w = n,
            _ => {}
        }
    }
    (h, w)
}

/// The `"pages"` array: all pages stacked along a leading `page` axis, when they are alike.
fn stack_pages(arrays: &[ArrayLayout], pages: &[Option<usize>]) -> Option<ArrayLayout> {
    if pages.len() < 2 {
        return None;
    }
    let idx: Vec<usize> = pages.iter().copied().collect::<Option<Vec<_>>>()?;
    let first = arrays.get(*idx.first()?)?;
    let alike = |a: &ArrayLayout| {
        a.dims == first.dims
            && a.shape == first.shape
            && a.dtype == first.dtype
            && a.fill_value == first.fill_value
            && a.codecs == first.codecs
            && a.chunks.block == first.chunks.block
            && a.chunks.edges == first.chunks.edges
            && a.attrs == first.attrs
    };
    let mut entries: Vec<ChunkEntry> = Vec::new();
    for (p, &i) in idx.iter().enumerate() {
        let a = arrays.get(i)?;
        if !alike(a) {
            return None;
        }
        entries.extend(a.chunks.entries.iter().map(|e| {
            let mut index = Vec::with_capacity(e.index.len() + 1);
            index.push(p as u64);
            index.extend(e.index);
            ChunkEntry {
                index,
                data: e.data.to_owned(),
                filter_mask: 0,
            }
        }));
    }
    let mut dims = vec![Dim::new("page", false)];
    dims.extend(first.dims.iter().cloned());
    let mut shape = vec![idx.len() as u64];
    shape.extend_from_slice(&first.shape);
    let mut block = vec![1];
    block.extend_from_slice(&first.chunks.block);
    Some(ArrayLayout {
        path: "pages".into(),
        dims,
        shape,
        dtype: first.dtype,
        fill_value: first.fill_value.clone(),
        attrs: first.attrs.clone(),
        codecs: first.codecs.clone(),
        chunks: ChunkTable {
            block,
            edges: first.chunks.edges,
            splittable: false,
            entries: entries.into(),
        },
        values: None,
        fields: Vec::new(),
    })
}
