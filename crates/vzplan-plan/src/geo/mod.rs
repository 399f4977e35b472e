//! GeoTIFF images opened as rioxarray opens them: once the arrays are planned (one file, a stack
//! or a mosaic), each group whose images share one georeferenced grid gets
//! - `x` and `y`: 1-D float64 pixel-centre coordinates, written inline ([`coords`]; not for
//!   rotated grids, which have none);
//! - `band`: 1…N (int64) when the images have a `band` axis, as `rioxarray.open_rasterio` numbers
//!   bands;
//! - `spatial_ref`: the CF grid-mapping variable (a 0-d int64 holding 0, as rioxarray writes it)
//!   whose attributes are the CRS as WKT 1 (`crs_wkt`, and `spatial_ref` for GDAL and older
//!   rioxarray), GDAL's `GeoTransform`, and the CF grid-mapping attributes the WKT gives
//!   ([`wkt`], [`keys`]);
//!
//! and each image gets `grid_mapping` and `coordinates` naming `spatial_ref`, so that xarray
//! makes it a coordinate and rioxarray finds the CRS. A CRS that cannot be written whole, or
//! images of one group that disagree, are `georeference` warnings; the images stay as they are.
//!
//! A COG's pyramid becomes sibling groups described by the multiscales convention ([`pyramid`]).

mod coords;
mod keys;
mod pyramid;
mod wkt;

use crate::{ArrayPlan, Finding, FindingKind, Plan, Severity};
use coords::Transform;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use vzplan_core::{AxisEdges, ChunkData, ChunkList, DType, DataRef, Endian, Kind};

/// What the images of a group must agree on to share coordinates.
#[derive(PartialEq)]
struct Grid {
    transform: Transform,
    point: bool,
    h: u64,
    w: u64,
    dims: [String; 2],
    bands: Option<u64>,
    crs: (Option<Value>, Option<Value>),
}

/// Adds the coordinates and grid mappings of every georeferenced group of `p`.
pub(crate) fn annotate(p: &mut Plan) {
    let levels = pyramid::regroup(p);
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, a) in p.arrays.iter().enumerate() {
        if grid_of(a).is_some() {
            let g = a.path.rsplit_once('/').map_or("", |(g, _)| g);
            groups.entry(g.to_string()).or_default().push(i);
        }
    }
    for (g, members) in groups {
        annotate_group(p, &g, &members);
    }
    if let Some(levels) = levels {
        pyramid::describe(p, &levels);
    }
}

fn annotate_group(p: &mut Plan, group: &str, members: &[usize]) {
    let Some(grid) = grid_of(&p.arrays[members[0]]) else {
        return;
    };
    let first = &p.arrays[members[0]];
    let file = source_of(p, first);
    let warn = |message: String| {
        Finding::new(FindingKind::Georeference, Severity::Warning, message)
            .file(file.clone())
            .array(first.path.clone())
    };
    if members
        .iter()
        .any(|&i| grid_of(&p.arrays[i]).as_ref() != Some(&grid))
    {
        let where_ = if group.is_empty() {
            "the root group"
        } else {
            group
        };
        let f = warn(format!(
            "the images of {where_} have different grids or CRSs: no x/y coordinates or grid mapping written"
        ))
        .fix("build the images that share a grid separately (--var)");
        p.findings.push(f);
        return;
    }
    let at = |name: &str| match group {
        "" => name.to_string(),
        g => format!("{g}/{name}"),
    };
    let names = ["spatial_ref", &grid.dims[0], &grid.dims[1], "band"].map(at);
    if let Some(n) = names
        .iter()
        .find(|n| p.arrays.iter().any(|a| &a.path == *n))
    {
        let f = warn(format!(
            "an array named {n} is in the way of the georeferencing's coordinates: none written"
        ))
        .fix("rename the array, or build the files without it (--var)");
        p.findings.push(f);
        return;
    }
    let (crs, problem) = match keys::crs_wkt(&first.attrs) {
        Ok(w) => (w, None),
        Err(e) => (None, Some(e)),
    };
    if let Some(e) = problem {
        let f = warn(format!(
            "the CRS cannot be carried whole ({e}): spatial_ref has the GeoTransform but no crs_wkt"
        ))
        .fix(format!(
            "gdal_translate -a_srs EPSG:CODE {0} {0}.epsg.tif (the CRS's EPSG code)",
            crate::shell_quote(&crate::display_file(&file))
        ));
        p.findings.push(f);
    }
    let parsed = crs.as_deref().and_then(wkt::parse);
    let corner = coords::corner_transform(grid.transform, grid.point);
    let mut new = vec![spatial_ref(
        &names[0],
        crs.as_deref(),
        parsed.as_ref(),
        corner,
    )];
    if coords::axis_aligned(corner) {
        let geographic = parsed.as_ref().map(wkt::is_geographic);
        let unit = parsed.as_ref().and_then(wkt::unit_name);
        let ys = coords::y_centres(corner, grid.h);
        let xs = coords::x_centres(corner, grid.w);
        let y_attrs = axis_attrs('y', geographic, unit);
        let x_attrs = axis_attrs('x', geographic, unit);
        new.push(f64_coord(&names[1], &grid.dims[0], &ys, y_attrs));
        new.push(f64_coord(&names[2], &grid.dims[1], &xs, x_attrs));
    }
    if let Some(n) = grid.bands {
        new.push(band_coord(&names[3], n));
    }
    for &i in members {
        let attrs = &mut p.arrays[i].attrs;
        attrs.insert("grid_mapping".into(), json!("spatial_ref"));
        attrs.insert("coordinates".into(), json!("spatial_ref"));
    }
    p.arrays.extend(new);
}

/// The georeferenced grid of an image: its transform, registration, extent, band count and CRS.
fn grid_of(a: &ArrayPlan) -> Option<Grid> {
    let t: Vec<f64> = a
        .attrs
        .get("spatial:transform")?
        .as_array()?
        .iter()
        .map(Value::as_f64)
        .collect::<Option<_>>()?;
    let transform: Transform = t.try_into().ok()?;
    if !transform.iter().all(|v| v.is_finite()) {
        return None;
    }
    let [ydim, xdim]: [String; 2] = a.spatial_dims().try_into().ok()?;
    let axis = |name: &str| a.dims.iter().position(|d| d == name);
    let h = *a.shape.get(axis(&ydim)?)?;
    let w = *a.shape.get(axis(&xdim)?)?;
    let bands = axis("band").and_then(|i| a.shape.get(i).copied());
    let point = a.attrs.get("spatial:registration").and_then(Value::as_str) == Some("node");
    Some(Grid {
        transform,
        point,
        h,
        w,
        dims: [ydim, xdim],
        bands,
        crs: (
            a.attrs.get("proj:code").cloned(),
            a.attrs.get("GeoKeys").cloned(),
        ),
    })
}

/// The file an array's first referenced chunk lies in, for findings.
fn source_of(p: &Plan, a: &ArrayPlan) -> String {
    let first = a
        .chunks
        .iter()
        .find(|c| matches!(c.data, DataRef::Ref { .. }))
        .map_or(0, |c| c.source);
    p.sources
        .get(first)
        .map(|s| s.url.clone())
        .unwrap_or_default()
}

/// CF attributes of an `x` or `y` axis, as rioxarray (pyproj's `cs_to_cf`) writes them.
fn axis_attrs(axis: char, geographic: Option<bool>, unit: Option<&str>) -> Map<String, Value> {
    let mut m = Map::new();
    let upper = axis.to_ascii_uppercase().to_string();
    m.insert("axis".into(), json!(upper));
    match geographic {
        Some(true) => {
            let (name, units) = match axis {
                'x' => ("longitude", "degrees_east"),
                _ => ("latitude", "degrees_north"),
            };
            m.insert("long_name".into(), json!(name));
            m.insert("standard_name".into(), json!(name));
            m.insert("units".into(), json!(units));
        }
        Some(false) => {
            m.insert(
                "long_name".into(),
                json!(format!("{axis} coordinate of projection")),
            );
            m.insert(
                "standard_name".into(),
                json!(format!("projection_{axis}_coordinate")),
            );
            if let Some(u) = unit {
                m.insert("units".into(), json!(u));
            }
        }
        None => {
            m.insert("long_name".into(), json!(format!("{axis} coordinate")));
        }
    }
    m
}

/// The `spatial_ref` grid-mapping variable.
fn spatial_ref(
    path: &str,
    crs: Option<&str>,
    parsed: Option<&wkt::Node>,
    t: Transform,
) -> ArrayPlan {
    let mut attrs = Map::new();
    if let Some(w) = crs {
        attrs.insert("crs_wkt".into(), json!(w));
        attrs.insert("spatial_ref".into(), json!(w));
    }
    if let Some(n) = parsed {
        attrs.extend(wkt::cf_attrs(n));
    }
    attrs.insert("GeoTransform".into(), json!(coords::gdal_geotransform(t)));
    let int64 = DType::new(Kind::Int, 8, Endian::Little);
    inline_array(
        path,
        vec![],
        vec![],
        int64,
        0i64.to_le_bytes().to_vec(),
        attrs,
    )
}

fn f64_coord(path: &str, dim: &str, v: &[f64], attrs: Map<String, Value>) -> ArrayPlan {
    let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let f64_ = DType::new(Kind::Float, 8, Endian::Little);
    inline_array(
        path,
        vec![dim.into()],
        vec![v.len() as u64],
        f64_,
        bytes,
        attrs,
    )
}

fn band_coord(path: &str, n: u64) -> ArrayPlan {
    let bytes = (1..=n as i64).flat_map(|b| b.to_le_bytes()).collect();
    let int64 = DType::new(Kind::Int, 8, Endian::Little);
    inline_array(path, vec!["band".into()], vec![n], int64, bytes, Map::new())
}

/// An array of one inline chunk holding `bytes` (little-endian, no codecs).
pub(crate) fn inline_array(
    path: &str,
    dims: Vec<String>,
    shape: Vec<u64>,
    dtype: DType,
    bytes: Vec<u8>,
    attrs: Map<String, Value>,
) -> ArrayPlan {
    let mut chunks = ChunkList::new();
    let key = vec![0u64; shape.len()];
    if shape.iter().all(|&n| n > 0) {
        chunks.push(&key, 0, ChunkData::Inline(bytes.clone()), 0);
    }
    let fill = match dtype.kind {
        Kind::Float => f64::NAN.to_le_bytes().to_vec(),
        _ => vec![0; dtype.size],
    };
    ArrayPlan {
        path: path.to_string(),
        dims,
        edges: shape
            .iter()
            .map(|&n| AxisEdges::from(vec![n.max(1)]))
            .collect(),
        shape,
        dtype,
        fill_value: Some(fill),
        attrs,
        codecs: Vec::new(),
        chunks,
        files: 0,
        values: Some(bytes),
        patches: Vec::new(),
        fields: Vec::new(),
    }
}
