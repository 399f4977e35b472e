//! Pure-Rust HDF5 / netCDF-4 metadata reader: one file → a [`vzplan_core::SourceLayout`].
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! Reads the superblock (HDF5 spec II.A), walks the group hierarchy from the root (symbol-table
//! groups, compact and dense links; IV.A.2.c/g/r), decodes each dataset's header messages
//! (dataspace, datatype, fill value, filter pipeline, data layout, attributes; IV.A.2) and its chunk
//! index (III.A, VII), and applies netCDF-4's conventions on top: dimension names from dimension
//! scales (`DIMENSION_LIST` → scale dataset names), `phony_dim_N` names for axes without scales
//! (numbered as netCDF-C does), hidden attributes dropped, pure-dimension scales left out, and the
//! values of small 1-D coordinate variables decoded.
//!
//! Only metadata is read, plus the data of small coordinate variables (≤ 1 MiB).
//!
//! Entry points: [`read_layout`] (whole-file failures are a [`ReadError`] whose Display is
//! `<url>: <what is wrong>`) and [`sniff`]. Datasets the model cannot describe exactly
//! (unsupported datatype class, filter without a Zarr codec, virtual or external storage,
//! unfiltered partial edge chunks, unreadable object headers, chunks past the end of the file)
//! become [`vzplan_core::ArrayProblem`]s instead of failing the file.
//!
//! Module map: [`superblock`] → [`ohdr`] (object headers) → [`group`] (links) /
//! [`dataset`] (one dataset) using [`messages`], [`attrs`], [`heap`] (local and global heaps),
//! [`fheap`] (fractal heaps); `netcdf` names dimensions; `coords` decodes coordinate values;
//! [`chunks`] and [`btree2`] read chunk indexes and v2 B-trees.
//!
//! HDF5 File Format Specification Version 3.0: <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>

pub mod attrs;
pub mod btree2;
pub mod chunks;
mod coords;
pub mod ctx;
pub mod dataset;
pub mod error;
mod external;
pub mod fheap;
mod fheap_huge;
pub mod filters;
pub mod group;
pub mod heap;
mod hints;
mod idx;
mod links;
pub mod messages;
mod netcdf;
pub mod ohdr;
pub mod superblock;
pub mod text;
pub mod types;
mod unlimited;
pub mod vds;
pub mod vlen;

use crate::ctx::Ctx;
use crate::ctx::{HashMap, HashSet};
pub use crate::error::Error;
use crate::error::Result;
use crate::heap::GlobalHeaps;
use vzplan_core::{ArrayProblem, Format, GroupLayout, ProblemKind, SourceLayout};
use vzplan_io::RangeRead;

/// A whole-file failure: Display is `<url>: <what is wrong>`.
#[derive(Debug, thiserror::Error)]
#[error("{url}: {what}")]
pub struct ReadError {
    pub url: String,
    pub what: String,
    #[source]
    pub source: Error,
}

impl ReadError {
    fn new(url: &str, source: Error) -> Self {
        let mut what = source.to_string();
        // I/O errors already name the URL.
        if let Some(rest) = what.strip_prefix(&format!("{url}: ")) {
            what = rest.to_string();
        }
        ReadError {
            url: url.to_string(),
            what,
            source,
        }
    }
    /// True when the file is simply not HDF5 (as opposed to a damaged one).
    pub fn is_not_hdf5(&self) -> bool {
        matches!(self.source, Error::NotHdf5)
    }
}

/// True when `head` starts with the HDF5 signature (the reader also looks at 512, 1024, …).
pub fn sniff(head: &[u8]) -> bool {
    head.starts_with(&superblock::SIGNATURE)
}

/// The file's variant as `h5dump -B` names it: `HDF5 superblock v2`; None when no signature is
/// found where the format puts it (at 0, 512, 1024, 2048, …).
pub fn describe_header(r: &dyn RangeRead) -> Option<String> {
    let at = superblock::find(r).ok()?;
    let b = r.read_at(at, 9).ok()?;
    b.get(8).map(|v| format!("HDF5 superblock v{v}"))
}

/// Reads the layout of every dataset of an HDF5 / netCDF-4 file. Links into other files are
/// problems: nothing but `r` is read.
pub fn read_layout(r: &dyn RangeRead) -> std::result::Result<SourceLayout, ReadError> {
    read_with(r, external::Foreign::new(None, 0)).map_err(|e| ReadError::new(r.url(), e))
}

/// [`read_layout`], with the files the file names (external links' targets, virtual datasets'
/// sources) opened through `linker`, which decides which of them may be read.
pub fn read_layout_linked(
    r: &dyn RangeRead,
    linker: &dyn vzplan_io::Linker,
) -> std::result::Result<SourceLayout, ReadError> {
    read_with(r, external::Foreign::new(Some(linker), 0)).map_err(|e| ReadError::new(r.url(), e))
}

/// Caps on the number of objects and on group nesting (cycles are also tracked by address).
const MAX_OBJECTS: usize = 200_000;
const MAX_DEPTH: usize = 64;
const NON_COORD: &str = "_nc4_non_coord_";
/// A group's children's object headers are asked for this many at a time, in one batch.
const PREFETCH_HEADERS: usize = 256;

pub(crate) struct GroupNode {
    pub path: String,
    pub children: Vec<usize>,
    pub dsets: Vec<usize>,
}

struct Walk<'c, 'a> {
    ctx: &'c Ctx<'a>,
    gh: GlobalHeaps,
    seen: HashSet<u64>,
    /// The path each group (or unreadable object) was first visited at, by address; datasets'
    /// are added from their `DsInfo` when the file has links to resolve.
    first: HashMap<u64, String>,
    /// The links the walk did not descend through (see [`links`]).
    aliases: Vec<links::Alias>,
    groups: Vec<GroupNode>,
    group_attrs: Vec<serde_json::Map<String, serde_json::Value>>,
    dsets: Vec<dataset::DsInfo>,
    problems: Vec<ArrayProblem>,
}

/// The mappings of every virtual dataset of the file, by path, as stored.
pub fn virtual_mappings(
    r: &dyn RangeRead,
) -> std::result::Result<Vec<(String, Vec<vds::Mapping>)>, ReadError> {
    let list = |w: Walk| {
        let found = w.dsets.into_iter();
        Ok(found.filter_map(|d| Some((d.path, d.mappings?))).collect())
    };
    walked(r, list).map_err(|e| ReadError::new(r.url(), e))
}

pub(crate) fn read_with(r: &dyn RangeRead, foreign: external::Foreign) -> Result<SourceLayout> {
    walked(r, |w| assemble(r, w, foreign))
}

/// Walks the file's groups from the root, then hands the walk to `then`.
fn walked<T>(r: &dyn RangeRead, then: impl FnOnce(Walk) -> Result<T>) -> Result<T> {
    let sb = superblock::read(r)?;
    let ctx = Ctx {
        r,
        so: sb.so,
        sl: sb.sl,
        base: sb.base,
    };
    let mut w = Walk {
        ctx: &ctx,
        gh: GlobalHeaps::default(),
        seen: HashSet::default(),
        first: HashMap::default(),
        aliases: Vec::new(),
        groups: Vec::new(),
        group_attrs: Vec::new(),
        dsets: Vec::new(),
        problems: Vec::new(),
    };
    w.seen.insert(sb.root);
    let root = ohdr::read(&ctx, sb.root)?;
    w.group(String::new(), &root, 0)?;
    then(w)
}

/// The file's layout from its walk: dimension names, virtual datasets and links resolved.
fn assemble(
    r: &dyn RangeRead,
    mut w: Walk,
    mut foreign: external::Foreign,
) -> Result<SourceLayout> {
    if !w.aliases.is_empty() {
        // Datasets' first paths, as they are named in the output, only when links need them.
        for d in &w.dsets {
            w.first.entry(d.addr).or_insert_with(|| d.path.clone());
        }
    }
    let arrays = netcdf::assign_dims(&w.groups, &mut w.dsets);
    let mut problems = w.problems;
    // Sized exactly: this vector is what the file keeps until planning.
    let kept = |d: &dataset::DsInfo| !(d.pure_dim && d.is_scale) && d.result.is_ok();
    let n = w.dsets.iter().filter(|d| kept(d)).count();
    let mut out_arrays = Vec::with_capacity(n);
    let mut padding = Vec::with_capacity(n);
    let mut virtuals = Vec::new();
    // Every dataset's path, for virtual datasets with sources in this file (most files have none).
    let datasets: std::collections::HashSet<String> =
        match w.dsets.iter().any(|d| d.mappings.is_some()) {
            true => w.dsets.iter().map(|d| d.path.clone()).collect(),
            false => Default::default(),
        };
    for (d, dims) in w.dsets.into_iter().zip(arrays) {
        for reason in &d.attr_problems {
            problems.push(attr_problem(&d.path, reason));
        }
        if d.pure_dim && d.is_scale {
            continue;
        }
        match d.result {
            Ok(mut a) => {
                a.dims = dims;
                if let Some(mappings) = d.mappings {
                    let max = d.max;
                    virtuals.push((*a, vds::Pending { mappings, max }));
                    continue;
                }
                out_arrays.push(*a);
                padding.push(d.padding_fill);
            }
            Err((kind, reason)) => problems.push(ArrayProblem::new(d.path, kind, reason)),
        }
    }
    // Virtual datasets, once the arrays of the file itself (their sources there) are known.
    for (mut a, p) in virtuals {
        let own = vds::Own {
            arrays: &out_arrays,
            problems: &problems,
            datasets: &datasets,
        };
        match vds::resolve(&mut a, &p, own, &mut foreign, r.url()) {
            Ok(()) => {
                out_arrays.push(a);
                padding.push(None);
            }
            Err((kind, why)) => problems.push(ArrayProblem::new(a.path, kind, why)),
        }
    }
    unlimited::extend(&mut out_arrays, &padding, &mut problems);
    let meta = r.meta();
    let mut ga = w.group_attrs.into_iter();
    let attrs = ga.next().unwrap_or_default();
    let mut groups = w
        .groups
        .iter()
        .skip(1)
        .zip(ga)
        .map(|(g, attrs)| GroupLayout {
            path: g.path.clone(),
            attrs,
        })
        .collect();
    if !w.aliases.is_empty() {
        let mut found = links::Found {
            arrays: &mut out_arrays,
            groups: &mut groups,
            problems: &mut problems,
        };
        links::resolve(&w.aliases, &w.first, &mut found, &mut foreign, r.url());
    }
    Ok(SourceLayout {
        linked: foreign.linked,
        url: r.url().to_string(),
        size: meta.size,
        etag: meta.etag.clone(),
        mtime: meta.mtime.clone(),
        format: Format::HDF5,
        rewriter: Default::default(),
        attrs,
        groups,
        arrays: out_arrays,
        problems,
    })
}

/// An attribute left out: its own problem path (`<object>:attribute`, the root group is `/`),
/// so the object itself is still built.
fn attr_problem(obj: &str, reason: &str) -> ArrayProblem {
    let obj = if obj.is_empty() { "/" } else { obj };
    ArrayProblem::new(format!("{obj}:attribute"), ProblemKind::Attribute, reason)
}

impl Walk<'_, '_> {
    fn attr_problems(&mut self, path: &str, failed: Vec<String>) {
        for reason in failed {
            self.problems.push(attr_problem(path, &reason));
        }
    }
    fn group(&mut self, path: String, oh: &ohdr::ObjHeader, depth: usize) -> Result<usize> {
        if depth > MAX_DEPTH {
            return Err(Error::malformed("groups nest too deep"));
        }
        let gi = self.groups.len();
        self.groups.push(GroupNode {
            path: path.clone(),
            children: Vec::new(),
            dsets: Vec::new(),
        });
        let (alist, failed) = attrs::read_all_checked(self.ctx, oh)?;
        self.attr_problems(&path, failed);
        let links = group::links(self.ctx, oh)?;
        // The group's own attributes' heaps go with its children's first batch: their values
        // are read once that batch is in.
        let mut own = Vec::new();
        if self.ctx.prefetches() && !links.is_empty() {
            hints::ranges(self.ctx, oh, &mut own);
        }
        self.group_attrs.push(serde_json::Map::new());
        let mut attrs_pending = Some(alist);
        // Most links are datasets: room for them at once, not by doubling.
        let n = links.len().min(PREFETCH_HEADERS);
        self.dsets.reserve(n);
        self.groups[gi].dsets.reserve(n);
        for window in links.chunks(PREFETCH_HEADERS) {
            // A few batches per window of children instead of a few round trips per child on
            // object storage: their object headers, then the starts of their chunk indexes. Objects are
            // still visited (and marked seen) in link order below, so the paths do not change.
            let mut fresh: Vec<u64> = window.iter().filter_map(|l| l.hard()).collect();
            fresh.sort_unstable();
            fresh.dedup();
            fresh.retain(|a| !self.seen.contains(a));
            let ctx = self.ctx;
            let along = ohdr::Along {
                first: if attrs_pending.is_some() { &own } else { &[] },
                of: &|oh, out| hints::ranges(ctx, oh, out),
            };
            let mut headers: HashMap<u64, Result<ohdr::ObjHeader>> =
                ohdr::read_many(self.ctx, &fresh, &along)
                    .into_iter()
                    .collect();
            if let Some(alist) = attrs_pending.take() {
                self.group_attrs[gi] = attrs::to_map(self.ctx, &self.gh, &alist);
            }
            if self.ctx.prefetches() {
                // What the headers' continuation blocks point at (the earlier batch had what
                // their first blocks did): only headers with continuation blocks are looked at
                // again.
                let mut next = Vec::new();
                let continued = headers.values().filter_map(|h| h.as_ref().ok());
                for oh in continued.filter(|oh| oh.continued()) {
                    hints::ranges(self.ctx, oh, &mut next);
                }
                next.sort_unstable();
                self.ctx.prefetch(&next);
                // Then the inner levels of their chunk indexes, a level of all at once.
                let roots: Vec<(u64, u64)> = headers
                    .values()
                    .filter_map(|h| h.as_ref().ok())
                    .filter_map(|oh| chunks::btree1_root(self.ctx, oh))
                    .collect();
                chunks::prefetch_levels(self.ctx, &roots);
            }
            for l in window {
                let Some(addr) = l.hard() else {
                    self.alias(&path, l);
                    continue;
                };
                if !self.seen.insert(addr) {
                    // A second hard link to an object already visited (or a cycle).
                    self.alias(&path, l);
                    continue;
                }
                if self.seen.len() > MAX_OBJECTS {
                    return Err(Error::malformed("too many objects"));
                }
                // Headers past the window's byte budget (see `ohdr::read_many`) are read here.
                let coh = headers
                    .remove(&addr)
                    .unwrap_or_else(|| ohdr::read(self.ctx, addr));
                self.child(gi, &path, l, addr, coh, depth)?;
            }
        }
        if let Some(alist) = attrs_pending {
            self.group_attrs[gi] = attrs::to_map(self.ctx, &self.gh, &alist);
        }
        Ok(gi)
    }
    /// A link not descended through, for [`links::resolve`].
    fn alias(&mut self, group: &str, l: &messages::Link) {
        let path = if group.is_empty() {
            l.name.clone()
        } else {
            format!("{group}/{}", l.name)
        };
        self.aliases.push(links::Alias {
            path,
            group: group.to_string(),
            target: l.target.clone(),
        });
    }

    /// One child of group `gi` whose object header at `addr` has been read (or failed to).
    fn child(
        &mut self,
        gi: usize,
        path: &str,
        l: &messages::Link,
        addr: u64,
        coh: Result<ohdr::ObjHeader>,
        depth: usize,
    ) -> Result<()> {
        let child = if path.is_empty() {
            l.name.clone()
        } else {
            format!("{path}/{}", l.name)
        };
        let coh = match coh {
            Ok(o) => o,
            Err(e) => {
                self.first.insert(addr, child.clone());
                self.problems.push(ArrayProblem::new(
                    child,
                    ProblemKind::Unreadable,
                    format!("object header cannot be read: {e}"),
                ));
                return Ok(());
            }
        };
        if coh.first(messages::LAYOUT).is_some() {
            // netCDF-4 renames a variable that shares its name with a dimension it is not
            // the coordinate of; netCDF users see the plain name.
            let child = match l.name.strip_prefix(NON_COORD) {
                Some(n) if !n.is_empty() && path.is_empty() => n.to_string(),
                Some(n) if !n.is_empty() => format!("{path}/{n}"),
                _ => child,
            };
            let d = dataset::build(self.ctx, &self.gh, &child, gi, addr, &coh);
            let di = self.dsets.len();
            self.dsets.push(d);
            self.groups[gi].dsets.push(di);
        } else if coh.first(messages::DATATYPE).is_none() {
            // Not a committed datatype: a group.
            self.first.insert(addr, child.clone());
            let ci = self.group(child, &coh, depth + 1)?;
            self.groups[gi].children.push(ci);
        }
        Ok(())
    }
}
