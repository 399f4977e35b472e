//! DMR++ reader: an OPeNDAP DMR++ sidecar (`granule.h5.dmrpp`) → the [`SourceLayout`] of the
//! granule it describes, without reading the granule.
//!
//! Spec: OPeNDAP DMR++, <https://docs.opendap.org/index.php/DMR%2B%2B> — a DAP4 DMR
//! (<https://docs.opendap.org/index.php/DAP4:_Specification_Volume_1>) whose variables carry a
//! `dmrpp:` element with the HDF5 storage of each: its filters (`compressionType`, in pipeline
//! order), chunk shape, fill value and every chunk's offset, size and position (in elements);
//! `dmrpp:href` names the granule.
//!
//! ```xml
//! <Dataset xmlns="http://xml.opendap.org/ns/DAP/4.0#"
//!          xmlns:dmrpp="http://xml.opendap.org/dap/dmrpp/1.0.0#"
//!          name="SDS.h5" dmrpp:href="https://data.example/SDS.h5" dmrpp:version="3.20.13">
//!   <Dimension name="time" size="2"/>
//!   <Int32 name="IntArray">
//!     <Dim name="/time"/>
//!     <Dim size="8"/>
//!     <Attribute name="units" type="String"><Value>K</Value></Attribute>
//!     <dmrpp:chunks compressionType="shuffle deflate" deflateLevel="4" fillValue="0" byteOrder="LE">
//!       <dmrpp:chunkDimensionSizes>1 4</dmrpp:chunkDimensionSizes>
//!       <dmrpp:chunk offset="4016" nBytes="26" chunkPositionInArray="[0,0]"/>
//!       <dmrpp:chunk offset="4042" nBytes="26" chunkPositionInArray="[0,4]"/>
//!     </dmrpp:chunks>
//!   </Int32>
//! </Dataset>
//! ```
//!
//! The layout is the one `vzplan-hdf5` gives for the granule: the same codecs (through
//! [`vzplan_hdf5::filters::codecs`]), netCDF-4 dimension names (`phony_dim_N` for anonymous
//! `<Dim size=…>`, numbered as netCDF-C numbers them), attributes as JSON of the same form, with
//! netCDF-4's and the DMR++ writer's bookkeeping dropped. What a DMR++ does not carry is told,
//! not guessed: see [`dataset`] for what becomes an [`vzplan_core::ArrayProblem`].
//!
//! The granule is never read. Its URL ([`href::granule_url`]) is `dmrpp:href` when that is an
//! object URL, resolved beside the `.dmrpp` when relative, and the `.dmrpp`'s own URL without
//! `.dmrpp` when the href is missing or the `OPeNDAP_DMRpp_DATA_ACCESS_URL` placeholder. Its
//! size and identity come from a [`vzplan_io::Linker`] when the run names the granule (it is then
//! opened, not read); otherwise the size is the end of its last chunk and no identity is known.
//!
//! The XML is untrusted: parsed by `roxmltree` (a DOM over one string, no DTDs, so no entity
//! expansion), at most [`MAX_BYTES`] bytes and [`MAX_NODES`] nodes, every number checked, every
//! count bounded by the nodes present; nothing panics on input.

pub mod attrs;
pub mod dataset;
pub mod dims;
pub mod href;
pub mod storage;

use vzplan_core::{Format, SourceLayout};
use vzplan_io::{IoError, Linker, RangeRead};

/// The name of the format, the `format` of the layouts it reads.
pub const FORMAT: Format = Format(std::borrow::Cow::Borrowed("dmrpp"));
/// Bytes [`sniff`] wants to see: the XML declaration, comments and the root element's start.
pub const HEAD_BYTES: u64 = 4096;
/// The largest `.dmrpp` read (those of real granules with hundreds of thousands of chunks are
/// tens of MiB).
pub const MAX_BYTES: u64 = 256 << 20;
/// Most XML nodes parsed (a chunk is one element; every node also costs the DOM memory).
pub const MAX_NODES: u32 = 16_000_000;

/// DAP4's namespace, in either scheme the writers have used (`http`, `https`).
const DAP4_NS: &str = "://xml.opendap.org/ns/DAP/4.0#";
/// The `dmrpp:` namespace, likewise.
const DMRPP_NS: &str = "://xml.opendap.org/dap/dmrpp/1.0.0#";

/// Why a `.dmrpp` could not be read as a whole.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Io(#[from] IoError),
    #[error("{url}: a DMR++ of {size} bytes is larger than the {MAX_BYTES} read")]
    TooLarge { url: String, size: u64 },
    #[error("{url}: not XML vzplan reads: {why}")]
    Xml { url: String, why: String },
    #[error("{url}: not a DMR++: {why}")]
    NotDmrpp { url: String, why: String },
    #[error("{url}: its granule cannot be referenced: {why}")]
    Granule { url: String, why: String },
}

/// True when `head` (a file's first bytes, up to [`HEAD_BYTES`]) is XML whose root is a DAP4
/// `Dataset` declaring the `dmrpp:` namespace.
pub fn sniff(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    t.starts_with('<') && t.contains("<Dataset") && t.contains(DMRPP_NS)
}

/// `DMR++ (build_dmrpp 3.20.13)`, from the root element in `head`; `None` when it is not one.
pub fn describe_header(head: &[u8]) -> Option<String> {
    if !sniff(head) {
        return None;
    }
    let text = String::from_utf8_lossy(head);
    let version = text
        .split("dmrpp:version=")
        .nth(1)
        .and_then(|rest| {
            let q = rest.chars().next()?;
            rest.get(1..)?.split(q).next()
        })
        .filter(|v| v.len() <= 32 && v.chars().all(|c| c.is_ascii_graphic()));
    Some(match version {
        Some(v) => format!("DMR++ (build_dmrpp {v})"),
        None => "DMR++".to_string(),
    })
}

/// The layout of the granule the DMR++ at `r` describes. `linker`, when given and when it allows
/// the granule, is asked to open it for its size, ETag and mtime (never its bytes).
pub fn read_layout(r: &dyn RangeRead, linker: Option<&dyn Linker>) -> Result<SourceLayout, Error> {
    let url = r.url().to_string();
    let mut layout = parse(r, None)?;
    identify(&mut layout, linker).map_err(|why| Error::Granule { url, why })?;
    Ok(layout)
}

/// The layout of `granule` (its URL and identity as the run knows them), which the DMR++ at `r`
/// describes: a sidecar found beside a file the run was given. Its `dmrpp:href` is not
/// followed: the sidecar describes the file it sits beside, wherever the DMR++ writer had it.
pub fn read_layout_of(
    r: &dyn RangeRead,
    granule: &str,
    meta: &vzplan_io::ObjectMeta,
) -> Result<SourceLayout, Error> {
    let mut layout = parse(r, Some(granule))?;
    layout.size = meta.size;
    layout.etag = meta.etag.clone();
    layout.mtime = meta.mtime.clone();
    Ok(layout)
}

/// Parses the DMR++ at `r` into a layout of `granule` (default: the one its `dmrpp:href` names),
/// without the granule's identity.
fn parse(r: &dyn RangeRead, granule: Option<&str>) -> Result<SourceLayout, Error> {
    let url = r.url().to_string();
    let size = r.size();
    if size > MAX_BYTES {
        return Err(Error::TooLarge { url, size });
    }
    let bytes = r.read_at(0, size)?;
    let text = decode(&bytes);
    let opts = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, opts).map_err(|e| Error::Xml {
        url: url.clone(),
        why: e.to_string(),
    })?;
    let root = doc.root_element();
    if !is_dap(root, "Dataset") {
        return Err(Error::NotDmrpp {
            url,
            why: format!(
                "its root element is <{}>, not DAP4's <Dataset>",
                root.tag_name().name()
            ),
        });
    }
    let granule = match granule {
        Some(g) => g.to_string(),
        None => href::granule_url(&url, dmrpp_attr(root, "href"))
            .map_err(|why| Error::Granule { url, why })?,
    };
    Ok(dataset::read(
        root,
        &granule,
        dmrpp_attr(root, "version").is_some(),
    ))
}

/// The file's text: UTF-8 as it is; anything else as ISO-8859-1 (the encoding BES declares),
/// where every byte is the character of that number.
fn decode(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    }
}

/// The granule's size and identity: from the granule itself when the run names it, else the end
/// of its last chunk and none.
fn identify(l: &mut SourceLayout, linker: Option<&dyn Linker>) -> Result<(), String> {
    let opened = linker.map(|k| k.open(&l.url));
    match opened {
        Some(Ok(g)) => {
            let meta = g.meta();
            l.size = meta.size;
            l.etag = meta.etag.clone();
            l.mtime = meta.mtime.clone();
        }
        // Named, and not there: references into it would dangle.
        Some(Err(e @ vzplan_io::LinkError::Io(_))) => return Err(e.to_string()),
        _ => {
            l.size = dataset::last_byte(l);
            l.etag = None;
            l.mtime = None;
        }
    }
    Ok(())
}

/// Whether `n` is the DAP4 element `name`.
pub(crate) fn is_dap(n: roxmltree::Node, name: &str) -> bool {
    n.is_element()
        && n.tag_name().name() == name
        && n.tag_name()
            .namespace()
            .is_some_and(|ns| ns.ends_with(DAP4_NS))
}

/// Whether `n` is the `dmrpp:` element `name`.
pub(crate) fn is_dmrpp(n: roxmltree::Node, name: &str) -> bool {
    n.is_element()
        && n.tag_name().name() == name
        && n.tag_name()
            .namespace()
            .is_some_and(|ns| ns.ends_with(DMRPP_NS))
}

/// The value of the `dmrpp:` attribute `name` of `n`.
pub(crate) fn dmrpp_attr<'a>(n: roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    n.attributes()
        .find(|a| a.name() == name && a.namespace().is_some_and(|ns| ns.ends_with(DMRPP_NS)))
        .map(|a| a.value())
}
