//! The DAP4 tree of a DMR++ → a [`SourceLayout`]: groups and their attributes, every variable an
//! [`ArrayLayout`] (its storage from [`crate::storage`]) or an [`ArrayProblem`].
//!
//! ```xml
//! <Group name="g1">
//!   <Dimension name="dim2" size="3"/>
//!   <Float32 name="d2"><Dim name="/dim1"/><Dim name="/g1/dim2"/><dmrpp:chunks>…</dmrpp:chunks></Float32>
//! </Group>
//! ```
//!
//! Refused, each as a problem of its variable, the rest of the file still read:
//!
//! | what | kind | why |
//! |---|---|---|
//! | `Structure`, `Sequence`, `Enum`, `Opaque`, variable-length `String` | data type | the DMR++ does not carry the HDF5 type a Zarr type would need |
//! | a `<Dim>` naming no declared dimension, a size that is no number | unreadable | no shape |
//! | no `dmrpp:chunks`, chunks in other files (`href` per chunk), `dmrpp:vlsa`, `dmrpp:missingdata`, `dmrpp:block`, `dmrpp:specialstructuredata` | storage | no byte ranges of the granule hold the elements |
//! | a `compressionType` other than deflate, shuffle and fletcher32 | filter | no HDF5 filter id to map |
//! | chunks missing and no fill value, in a DMR++ without `dmrpp:version` | unreadable | DMR++ written before `build_dmrpp` 3.20.10 leave the fill value out; unwritten chunks would read as 0 |

use crate::dims::{self, Axes};
use std::collections::HashMap;
use vzplan_core::{
    ArrayLayout, ArrayProblem, DType, DataRef, Endian, GroupLayout, Kind, ProblemKind, SourceLayout,
};

/// Groups nested deeper are left out (with a problem), so that the walk stays shallow.
const MAX_DEPTH: usize = 64;
/// The marker netCDF-4 writes in `NAME` of a dimension that is no variable.
const PURE_DIM: &str = "This is a netCDF dimension but not a netCDF variable";

/// A variable found, before its dimensions are named.
struct Found<'a, 'i> {
    node: roxmltree::Node<'a, 'i>,
    path: String,
    group: usize,
}

/// What the walk collects.
#[derive(Default)]
struct Walk<'a, 'i> {
    /// Path and attributes per group; 0 is the root.
    groups: Vec<(String, serde_json::Map<String, serde_json::Value>)>,
    children: Vec<Vec<usize>>,
    /// Declared dimensions' sizes, by full path (`/g1/dim2`).
    dims: HashMap<String, u64>,
    /// Each group's declared dimensions (name, size), in document order.
    declared: Vec<Vec<(String, u64)>>,
    vars: Vec<Found<'a, 'i>>,
    problems: Vec<ArrayProblem>,
}

/// The layout of the granule at `granule` that the DMR++ `root` (its `Dataset`) describes; its
/// size and identity are set by the caller. `versioned`: the DMR++ has a `dmrpp:version` (and so
/// writes every defined fill value).
pub fn read(root: roxmltree::Node, granule: &str, versioned: bool) -> SourceLayout {
    let mut w = Walk::default();
    w.group(root, String::new(), 0);
    let href = crate::dmrpp_attr(root, "href");
    let mut axes = Vec::with_capacity(w.vars.len());
    // Per variable: its array, nothing (a pure dimension, named but left out) or its problem.
    let mut built: Vec<Option<Result<ArrayLayout, ArrayProblem>>> =
        Vec::with_capacity(w.vars.len());
    for v in &w.vars {
        let group = group_path(&w, v.group);
        let made =
            crate::storage::array(v.node, &v.path, &w.dims, group, versioned).and_then(|made| {
                crate::storage::check_hrefs(v.node, href)?;
                Ok(made)
            });
        match made {
            Ok((a, shape, named)) => {
                let scale = is_scale(v.node).then(|| last(&v.path).to_string());
                axes.push(Axes {
                    group: v.group,
                    shape,
                    named,
                    scale,
                });
                built.push((!pure_dim(v.node)).then_some(Ok(*a)));
            }
            Err((kind, why)) => {
                built.push(Some(Err(ArrayProblem::new(v.path.clone(), kind, why))));
            }
        }
        let (_, failed) = crate::attrs::read(v.node, &v.path);
        w.problems
            .extend(failed.iter().map(|f| attr_problem(&v.path, f)));
    }
    let mut names = dims::assign(&w.children, &w.declared, &axes).into_iter();
    let mut arrays = Vec::with_capacity(built.len());
    for b in built {
        match b {
            Some(Ok(mut a)) => {
                let named = names.next().unwrap_or_default();
                a.dims = named
                    .into_iter()
                    .map(|n| vzplan_core::Dim::new(n, false))
                    .collect();
                arrays.push(a);
            }
            None => {
                names.next();
            }
            Some(Err(p)) => w.problems.push(p),
        }
    }
    let mut groups = w.groups.into_iter();
    let attrs = groups.next().map(|(_, a)| a).unwrap_or_default();
    SourceLayout {
        url: granule.to_string(),
        size: 0,
        etag: None,
        mtime: None,
        format: crate::FORMAT,
        attrs,
        groups: groups
            .map(|(path, attrs)| GroupLayout { path, attrs })
            .collect(),
        arrays,
        problems: w.problems,
        linked: Vec::new(),
        rewriter: Default::default(),
    }
    .with_versioned_fill(versioned)
}

trait Fill {
    fn with_versioned_fill(self, versioned: bool) -> Self;
}

impl Fill for SourceLayout {
    /// Without `dmrpp:version`, an array with chunks missing and no fill value has an unknown
    /// fill: it is a problem rather than zeros that may be wrong.
    fn with_versioned_fill(mut self, versioned: bool) -> Self {
        if versioned {
            return self;
        }
        let (ok, bad): (Vec<_>, Vec<_>) = std::mem::take(&mut self.arrays)
            .into_iter()
            .partition(|a| a.fill_value.is_some() || all_written(a));
        self.arrays = ok;
        for a in bad {
            self.problems.push(ArrayProblem::new(
                a.path,
                ProblemKind::Unreadable,
                "the DMR++ names no fill value and some chunks are not written: DMR++ without \
                 dmrpp:version (before build_dmrpp 3.20.10) leave the fill value out, so the \
                 unwritten chunks' values are unknown (rebuild the DMR++ with a newer build_dmrpp)",
            ));
        }
        self
    }
}

/// Whether every chunk of the array's grid is listed.
fn all_written(a: &ArrayLayout) -> bool {
    let grid = a.chunks.grid_shape(&a.shape);
    let total = grid.iter().try_fold(1u64, |acc, &g| acc.checked_mul(g));
    total.is_some_and(|t| t == a.chunks.entries.len() as u64)
}

/// The end of the last chunk of any array: the least the granule's size can be.
pub fn last_byte(l: &SourceLayout) -> u64 {
    l.arrays
        .iter()
        .flat_map(|a| a.chunks.entries.iter())
        .filter_map(|c| match c.data {
            DataRef::Ref { offset, length } => Some(offset.saturating_add(length)),
            DataRef::Inline(_) => None,
        })
        .max()
        .unwrap_or(0)
}

impl<'a, 'i> Walk<'a, 'i> {
    /// One group (the root at `path` ""), its dimensions, variables and subgroups.
    fn group(&mut self, node: roxmltree::Node<'a, 'i>, path: String, depth: usize) -> usize {
        let gi = self.groups.len();
        let (attrs, failed) = crate::attrs::read(node, &path);
        let shown = if path.is_empty() { "/" } else { &path };
        self.problems
            .extend(failed.iter().map(|f| attr_problem(shown, f)));
        self.groups.push((path.clone(), attrs));
        self.children.push(Vec::new());
        self.declared.push(Vec::new());
        for c in node.children().filter(|c| c.is_element()) {
            let name = c.attribute("name").unwrap_or_default();
            let child = if path.is_empty() {
                name.to_string()
            } else {
                format!("{path}/{name}")
            };
            if crate::is_dap(c, "Dimension") {
                let size = c.attribute("size").and_then(|s| s.trim().parse().ok());
                if let Some(size) = size {
                    self.dims.insert(format!("/{child}"), size);
                    self.declared[gi].push((name.to_string(), size));
                }
            } else if crate::is_dap(c, "Group") {
                if depth >= MAX_DEPTH || name.is_empty() || name.contains('/') {
                    self.problems.push(ArrayProblem::new(
                        child,
                        ProblemKind::Unreadable,
                        "a group nested too deep or without a usable name",
                    ));
                    continue;
                }
                let ci = self.group(c, child, depth + 1);
                self.children[gi].push(ci);
            } else if is_variable(c) {
                if name.is_empty() || name.contains('/') {
                    self.problems.push(ArrayProblem::new(
                        child,
                        ProblemKind::Naming,
                        "a variable without a name, or with '/' in it",
                    ));
                    continue;
                }
                self.vars.push(Found {
                    node: c,
                    path: real_path(c).unwrap_or(child),
                    group: gi,
                });
            }
        }
        gi
    }
}

/// Whether `n` declares a variable (any DAP4 element but the structural ones).
fn is_variable(n: roxmltree::Node) -> bool {
    let structural = [
        "Dimension",
        "Group",
        "Attribute",
        "Enumeration",
        "Dim",
        "Map",
    ];
    n.tag_name()
        .namespace()
        .is_some_and(|ns| ns.ends_with(crate::DAP4_NS))
        && !structural.contains(&n.tag_name().name())
}

/// The granule's own path of a variable whose DAP4 name the DMR++ writer changed (BES makes
/// `Data Fields` `Data_Fields`): its `fullnamepath` attribute, when that is a plain path.
fn real_path(node: roxmltree::Node) -> Option<String> {
    let full = text_attr(node, "fullnamepath")?.strip_prefix('/')?;
    let plain = full
        .split('/')
        .all(|s| !s.is_empty() && s != "." && s != "..");
    (plain && full.len() <= 4096).then(|| full.to_string())
}

fn group_path<'w>(w: &'w Walk, g: usize) -> &'w str {
    w.groups.get(g).map_or("", |(p, _)| p.as_str())
}

fn last(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The value of the variable's (hidden) string attribute `name`.
fn text_attr<'a>(node: roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.children()
        .filter(|c| crate::is_dap(*c, "Attribute"))
        .find(|c| c.attribute("name") == Some(name))
        .and_then(|a| crate::attrs::texts(a).next())
}

fn is_scale(node: roxmltree::Node) -> bool {
    text_attr(node, "CLASS").is_some_and(|c| c.trim() == "DIMENSION_SCALE")
}

/// A netCDF-4 dimension that is no variable: left out, as `vzplan-hdf5` leaves it out.
fn pure_dim(node: roxmltree::Node) -> bool {
    is_scale(node) && text_attr(node, "NAME").is_some_and(|n| n.starts_with(PURE_DIM))
}

/// An attribute left out: its own problem path (`<object>:attribute`), so the object stays.
fn attr_problem(obj: &str, reason: &str) -> ArrayProblem {
    ArrayProblem::new(format!("{obj}:attribute"), ProblemKind::Attribute, reason)
}

/// The DAP4 type `name` as an element type (strings are sized by the caller).
pub(crate) fn dtype(name: &str, endian: Endian) -> Option<DType> {
    let (kind, size) = match name {
        "Int8" => (Kind::Int, 1),
        "Byte" | "UInt8" | "Char" => (Kind::UInt, 1),
        "Int16" => (Kind::Int, 2),
        "UInt16" => (Kind::UInt, 2),
        "Int32" => (Kind::Int, 4),
        "UInt32" => (Kind::UInt, 4),
        "Int64" => (Kind::Int, 8),
        "UInt64" => (Kind::UInt, 8),
        "Float32" => (Kind::Float, 4),
        "Float64" => (Kind::Float, 8),
        _ => return None,
    };
    // One-byte elements have no byte order; HDF5 calls them little-endian.
    let endian = if size == 1 { Endian::Little } else { endian };
    Some(DType::new(kind, size, endian))
}
