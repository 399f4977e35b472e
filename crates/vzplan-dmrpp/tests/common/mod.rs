//! Reading the fixtures, and comparing a DMR++'s layout with its granule's.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use vzplan_core::{ArrayLayout, SourceLayout};
use vzplan_io::{LinkError, Linker, RangeRead};

pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/dmrpp")
}

/// A linker that opens whatever it is asked to (the tests name every granule).
pub struct OpenAll;

impl Linker for OpenAll {
    fn open(&self, url: &str) -> Result<Arc<dyn RangeRead>, LinkError> {
        Ok(vzplan_io::open(url, &Default::default())?)
    }
}

/// A linker of a run that names no granule.
pub struct Unnamed;

impl Linker for Unnamed {
    fn open(&self, url: &str) -> Result<Arc<dyn RangeRead>, LinkError> {
        Err(LinkError::NotNamed {
            url: url.to_string(),
            reason: "not named".into(),
        })
    }
}

pub fn open(path: &Path) -> Arc<dyn RangeRead> {
    let p = std::fs::canonicalize(path).unwrap();
    vzplan_io::open(&p.display().to_string(), &Default::default()).unwrap()
}

/// The layout the DMR++ `name` (in testdata/dmrpp/ unless absolute) gives.
pub fn dmrpp(name: &str, linker: Option<&dyn Linker>) -> SourceLayout {
    let r = open(&dir().join(name));
    vzplan_dmrpp::read_layout(r.as_ref(), linker).unwrap()
}

/// vzplan-hdf5's layout of the granule at `name` (in testdata/dmrpp/ unless absolute).
pub fn granule_layout(name: &str) -> SourceLayout {
    let r = open(&dir().join(name));
    vzplan_hdf5::read_layout(r.as_ref()).unwrap()
}

/// Asserts that every array the DMR++ has is the granule's, field by field (but for what a
/// DMR++ cannot say: unlimited dimensions, coordinate values), and the groups' and root's
/// attributes; returns the paths of the arrays only the granule has, sorted.
pub fn compare(d: &SourceLayout, g: &SourceLayout) -> Vec<String> {
    assert_eq!(d.attrs, g.attrs, "root attributes");
    let groups = |l: &SourceLayout| {
        let mut v: Vec<_> = l
            .groups
            .iter()
            .map(|g| (g.path.clone(), g.attrs.clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    assert_eq!(groups(d), groups(g), "groups");
    for a in &d.arrays {
        let b = g
            .arrays
            .iter()
            .find(|b| b.path == a.path)
            .unwrap_or_else(|| panic!("{}: not in the granule's scan", a.path));
        same_array(a, b);
    }
    let mut left: Vec<String> = g
        .arrays
        .iter()
        .filter(|b| !d.arrays.iter().any(|a| a.path == b.path))
        .map(|b| b.path.clone())
        .collect();
    left.sort();
    left
}

pub fn same_array(a: &ArrayLayout, b: &ArrayLayout) {
    let p = &a.path;
    let names = |x: &ArrayLayout| x.dims.iter().map(|d| d.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(a), names(b), "{p}: dims");
    assert_eq!(a.shape, b.shape, "{p}: shape");
    assert_eq!(a.dtype, b.dtype, "{p}: dtype");
    assert_eq!(a.fill_value, b.fill_value, "{p}: fill value");
    assert_eq!(a.attrs, b.attrs, "{p}: attributes");
    assert_eq!(a.codecs, b.codecs, "{p}: codecs");
    assert_eq!(a.chunks.block, b.chunks.block, "{p}: block");
    assert_eq!(a.chunks.edges, b.chunks.edges, "{p}: edges");
    assert_eq!(a.chunks.splittable, b.chunks.splittable, "{p}: splittable");
    assert_eq!(
        a.chunks.entries.to_entries(),
        b.chunks.entries.to_entries(),
        "{p}: chunks"
    );
    assert_eq!(a.fields, b.fields, "{p}: fields");
    assert_eq!(a.values, None, "{p}: a DMR++ has no coordinate values");
}
