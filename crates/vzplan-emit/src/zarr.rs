//! Zarr v3 metadata documents for planned arrays and groups.
//!
//! An array's `zarr.json` (Zarr v3 core, "Array metadata"), with the rectilinear grid of
//! zarr-extensions `chunk-grids/rectilinear` where an axis is not regular:
//! ```json
//! {"zarr_format": 3, "node_type": "array", "shape": [1461, 4, 8], "data_type": "float32",
//!  "chunk_grid": {"name": "rectilinear",
//!                 "configuration": {"kind": "inline", "chunk_shapes": [[366, [365, 3]], 4, 8]}},
//!  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
//!  "fill_value": "NaN",
//!  "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
//!             {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}},
//!             {"name": "numcodecs.zlib", "configuration": {"level": 4}}],
//!  "dimension_names": ["time", "lat", "lon"],
//!  "attributes": {"units": "K", "_FillValue": "AAAAAAAA+H8=", "coords:coordinates": {"time": {"type": "array", "path": "../time"}}}}
//! ```
//! `_FillValue` is encoded as xarray writes it for Zarr v3 ([`crate::cf`]).
//! Coordinates follow the Zarr coords convention (`zarr_conventions` registration + the
//! `coords:coordinates` map): each dimension with a coordinate array is routed to it, or described
//! as an `interval` when its values are exactly regularly spaced.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Map, Value};
use vzplan_core::{edges_to_json, struct_data_type, CodecStage, DType, Endian, Field, Kind};
use vzplan_plan::{ArrayPlan, Plan};

/// The coords convention registration (coords-convention.md, "Convention Registration").
pub fn coords_registration() -> Value {
    json!({
        "schema_url": "https://raw.githubusercontent.com/zarr-conventions/coords/refs/tags/v1/schema.json",
        "spec_url": "https://github.com/zarr-conventions/coords/blob/v1/README.md",
        "uuid": "6ca4454a-658a-4348-a667-b39ced0e58cb",
        "name": "coords",
        "description": "Domain-agnostic mapping between Zarr array index space and coordinate space."
    })
}

/// The spatial convention registration (zarr-conventions/spatial v1), for GeoTIFF affine axes.
pub fn spatial_registration() -> Value {
    json!({
        "schema_url": "https://raw.githubusercontent.com/zarr-conventions/spatial/refs/tags/v1/schema.json",
        "spec_url": "https://github.com/zarr-conventions/spatial/blob/v1/README.md",
        "uuid": "689b58e2-cf7b-45e0-9fff-9cfc0883d6b4",
        "name": "spatial:",
        "description": "Spatial coordinate information"
    })
}

/// The geo-proj convention registration (zarr-experimental/geo-proj v1), for `proj:code`.
pub fn proj_registration() -> Value {
    json!({
        "schema_url": "https://raw.githubusercontent.com/zarr-experimental/geo-proj/refs/tags/v1/schema.json",
        "spec_url": "https://github.com/zarr-experimental/geo-proj/blob/v1/README.md",
        "uuid": "f17cb550-5864-4468-aeb7-f3180cfb622f",
        "name": "proj:",
        "description": "Coordinate reference system information for geospatial data"
    })
}

/// The multiscales convention registration (zarr-conventions/multiscales v1), for a COG's pyramid.
pub fn multiscales_registration() -> Value {
    json!({
        "schema_url": "https://raw.githubusercontent.com/zarr-conventions/multiscales/refs/tags/v1/schema.json",
        "spec_url": "https://github.com/zarr-conventions/multiscales/blob/v1/README.md",
        "uuid": "d35379db-88df-4056-af3a-620245f8e347",
        "name": "multiscales",
        "description": "Multiscale layout of zarr datasets"
    })
}

/// The registrations the conventions used in `attrs` need, merged into what `existing` lists
/// (each convention once, by UUID).
fn registrations(attrs: &Map<String, Value>, existing: Option<&Value>) -> Vec<Value> {
    let mut list: Vec<Value> = match existing {
        Some(Value::Array(l)) => l.clone(),
        _ => Vec::new(),
    };
    let mut wanted = Vec::new();
    if attrs.contains_key("multiscales") {
        wanted.push(multiscales_registration());
    }
    if attrs.keys().any(|k| k.starts_with("spatial:")) {
        wanted.push(spatial_registration());
    }
    if attrs.keys().any(|k| k.starts_with("proj:")) {
        wanted.push(proj_registration());
    }
    for c in wanted {
        if !list.iter().any(|x| x.get("uuid") == c.get("uuid")) {
            list.push(c);
        }
    }
    list
}

/// The `chunk_grid` object: `regular` when every axis is one repeated length, else `rectilinear`.
pub fn chunk_grid(a: &ArrayPlan) -> Value {
    let steps: Option<Vec<u64>> = a.edges.iter().map(|e| e.regular_step()).collect();
    match steps {
        Some(s) => json!({"name": "regular", "configuration": {"chunk_shape": s}}),
        None => json!({"name": "rectilinear", "configuration": {
            "kind": "inline",
            "chunk_shapes": a.edges.iter().map(edges_to_json).collect::<Vec<_>>()}}),
    }
}

/// The JSON fill value for one element's raw bytes (Zarr v3 core, "fill_value").
pub fn fill_value_json(dtype: &DType, raw: Option<&[u8]>) -> Value {
    if dtype.kind == Kind::Text {
        return json!(""); // HDF5 / netCDF-4 strings read as empty where nothing is stored
    }
    if dtype.kind == Kind::Complex {
        // A pair [real, imaginary] of the half-size float type.
        let half = DType::new(Kind::Float, dtype.size / 2, dtype.endian);
        let part = |i: usize| {
            let r = raw.filter(|r| r.len() == dtype.size);
            fill_value_json(
                &half,
                r.and_then(|r| r.get(i * half.size..(i + 1) * half.size)),
            )
        };
        return json!([part(0), part(1)]);
    }
    let Some(raw) = raw.filter(|r| r.len() == dtype.size) else {
        return match dtype.kind {
            Kind::Bool => json!(false),
            Kind::String => json!(""),
            _ => json!(0),
        };
    };
    let le: Vec<u8> = match dtype.endian {
        Endian::Little => raw.to_vec(),
        Endian::Big => raw.iter().rev().copied().collect(),
    };
    let mut b = [0u8; 8];
    let n = le.len().min(8);
    b[..n].copy_from_slice(&le[..n]);
    let u = u64::from_le_bytes(b);
    match (dtype.kind, dtype.size) {
        (Kind::Bool, _) => json!(u != 0),
        (Kind::UInt, _) => json!(u),
        (Kind::Int, s) => {
            let shift = 64 - 8 * s as u32;
            json!(((u << shift) as i64) >> shift)
        }
        (Kind::Float, 4) => {
            // The shortest decimal that round-trips through float32 (1e20, not 1.0000000200408773e20).
            let f = f32::from_bits(u as u32);
            let v = format!("{f}").parse::<f64>().unwrap_or(f as f64);
            float_json(v, u, 0x7fc0_0000, 8)
        }
        (Kind::Float, 8) => float_json(f64::from_bits(u), u, 0x7ff8_0000_0000_0000, 16),
        (Kind::Float, s) => json!(format!("0x{:0w$x}", u, w = 2 * s)),
        (Kind::String, _) => {
            use base64::Engine;
            let end = raw.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1);
            json!(base64::engine::general_purpose::STANDARD.encode(&raw[..end]))
        }
        // Handled above, or by `struct_fill_json` (a record needs its fields).
        (Kind::Complex | Kind::Text | Kind::Struct, _) => json!(0),
    }
}

/// The fill value of a `struct` element: an object of its fields' fill values (zarr-python's
/// form, `{"speed": 0.0, "dir": 0}`), each decoded from its bytes within the element.
pub fn struct_fill_json(fields: &[Field], raw: Option<&[u8]>) -> Value {
    let size: usize = fields.iter().map(|f| f.dtype.size).sum();
    let raw = raw.filter(|r| r.len() == size);
    let mut at = 0;
    let mut out = Map::new();
    for f in fields {
        let part = raw.and_then(|r| r.get(at..at + f.dtype.size));
        out.insert(f.name.clone(), fill_value_json(&f.dtype, part));
        at += f.dtype.size;
    }
    Value::Object(out)
}

fn float_json(v: f64, bits: u64, canonical_nan: u64, hex: usize) -> Value {
    if v.is_nan() {
        if bits == canonical_nan {
            json!("NaN")
        } else {
            // A NaN with a payload keeps its exact bits.
            json!(format!("0x{bits:0hex$x}"))
        }
    } else if v == f64::INFINITY {
        json!("Infinity")
    } else if v == f64::NEG_INFINITY {
        json!("-Infinity")
    } else {
        json!(v)
    }
}

/// The codec chain: array→array codecs, `bytes` (with the source byte order), bytes→bytes codecs.
pub fn codecs_json(a: &ArrayPlan) -> Value {
    let mut out: Vec<Value> = a
        .codecs
        .iter()
        .filter(|c| c.stage == CodecStage::ArrayToArray)
        .map(|c| c.to_json())
        .collect();
    let bytes = if a.dtype.size > 1 && a.dtype.kind != Kind::String {
        json!({"name": "bytes", "configuration": {"endian": a.dtype.endian.as_str()}})
    } else {
        json!({"name": "bytes", "configuration": {}})
    };
    // An array → bytes codec of the source replaces `bytes`.
    match a
        .codecs
        .iter()
        .find(|c| c.stage == CodecStage::ArrayToBytes)
    {
        Some(c) => out.push(c.to_json()),
        None => out.push(bytes),
    }
    out.extend(
        a.codecs
            .iter()
            .filter(|c| c.stage == CodecStage::BytesToBytes)
            .map(|c| c.to_json()),
    );
    Value::Array(out)
}

/// `../time`-style path from the group holding `from` to the array `to`.
fn relative(from: &str, to: &str) -> String {
    let depth = from.matches('/').count() + 1;
    format!("{}{}", "../".repeat(depth), to)
}

/// The coordinate array for `dim` as seen from `array_path`: a sibling, else one in an ancestor
/// group (netCDF-4 dimension scoping).
fn find_coord<'a>(plan: &'a Plan, array_path: &str, dim: &str) -> Option<&'a ArrayPlan> {
    let mut group = array_path.rsplit_once('/').map(|(g, _)| g.to_string());
    loop {
        let candidate = match &group {
            Some(g) => format!("{g}/{dim}"),
            None => dim.to_string(),
        };
        if let Some(c) = plan
            .arrays
            .iter()
            .find(|a| a.path == candidate && a.dims.len() == 1 && a.dims[0] == dim)
        {
            return Some(c);
        }
        group = match group {
            Some(g) => g.rsplit_once('/').map(|(p, _)| p.to_string()),
            None => return None,
        };
    }
}

/// `{"type": "interval", …}` when the values are exactly `start + i * step`.
fn interval(c: &ArrayPlan) -> Option<Value> {
    let v = c.dtype.decode_all_f64(c.values.as_deref()?)?;
    if v.len() < 2 {
        return None;
    }
    let (start, step) = (v[0], v[1] - v[0]);
    if step == 0.0 || !step.is_finite() {
        return None;
    }
    let exact = v
        .iter()
        .enumerate()
        .all(|(i, &x)| start + i as f64 * step == x);
    let num = |x: f64| -> Value {
        if x.fract() == 0.0 && x.abs() < 9e15 {
            json!(x as i64)
        } else {
            json!(x)
        }
    };
    exact.then(|| json!({"type": "interval", "start": num(start), "end": num(v[v.len() - 1]), "step": num(step)}))
}

/// The coords convention attributes for a data array, if any dimension has a coordinate.
fn coords_attrs(plan: &Plan, a: &ArrayPlan) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    // GeoTIFF: the affine transform in `spatial:transform` carries the y/x coordinates.
    if a.attrs.contains_key("spatial:transform") {
        for d in a.spatial_dims().iter().filter(|d| a.dims.contains(d)) {
            map.insert(
                d.clone(),
                json!({"type": "reference", "convention": "spatial"}),
            );
        }
    }
    for d in &a.dims {
        let Some(c) = find_coord(plan, &a.path, d) else {
            continue;
        };
        if map.contains_key(d) {
            continue;
        }
        if c.path == a.path {
            continue;
        }
        let desc = interval(c)
            .unwrap_or_else(|| json!({"type": "array", "path": relative(&a.path, &c.path)}));
        map.insert(d.clone(), desc);
    }
    if map.is_empty() {
        return None;
    }
    let mut attrs = Map::new();
    attrs.insert("coords:coordinates".into(), Value::Object(map));
    attrs.insert("coords:version".into(), json!(1));
    Some(attrs)
}

/// The `zarr.json` of one planned array.
pub fn array_json(plan: &Plan, a: &ArrayPlan) -> Value {
    let mut attrs = crate::cf::xarray_attrs(&a.attrs, &a.dtype);
    let mut conventions = Vec::new();
    if let Some(c) = coords_attrs(plan, a) {
        conventions.push(coords_registration());
        attrs.extend(c);
    }
    if attrs.keys().any(|k| k.starts_with("spatial:")) {
        conventions.push(spatial_registration());
    }
    if attrs.keys().any(|k| k.starts_with("proj:")) {
        conventions.push(proj_registration());
    }
    if !conventions.is_empty() {
        let reg = attrs
            .entry("zarr_conventions")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = reg {
            for c in conventions {
                if !list.iter().any(|x| x.get("uuid") == c.get("uuid")) {
                    list.push(c);
                }
            }
        }
    }
    json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": a.shape,
        "data_type": data_type_json(a),
        "chunk_grid": chunk_grid(a),
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": match a.dtype.kind {
            Kind::Struct => struct_fill_json(&a.fields, a.fill_value.as_deref()),
            _ => fill_value_json(&a.dtype, a.fill_value.as_deref()),
        },
        "codecs": codecs_json(a),
        "dimension_names": a.dims,
        "attributes": attrs,
    })
}

/// The array's Zarr v3 `data_type` (`null` for a type Zarr cannot name; the planner keeps those
/// out).
pub fn data_type_json(a: &ArrayPlan) -> Value {
    let t = match a.dtype.kind {
        Kind::Struct => struct_data_type(&a.fields),
        _ => a.dtype.zarr_data_type(),
    };
    t.unwrap_or(Value::Null)
}

/// A group's `zarr.json`.
pub fn group_json(attrs: &Map<String, Value>) -> Value {
    json!({"zarr_format": 3, "node_type": "group", "attributes": attrs})
}

/// Root attributes: the sources' global attributes plus vzplan's provenance (for `vzplan verify`).
pub fn root_attrs(plan: &Plan) -> Map<String, Value> {
    match serde_json::to_value(RootAttrs(plan)) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// The root group's `zarr.json` as refs.json embeds it: [`group_json`] of [`root_attrs`],
/// serialized straight from the plan.
pub fn root_json(plan: &Plan) -> String {
    serde_json::to_string(&Group(RootAttrs(plan), None)).unwrap_or_default()
}

/// `{"zarr_format": 3, "node_type": "group", "attributes": …}`, with the inline
/// `consolidated_metadata` when there is some.
struct Group<A>(A, Option<Map<String, Value>>);

impl<A: Serialize> Serialize for Group<A> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3 + usize::from(self.1.is_some())))?;
        m.serialize_entry("zarr_format", &3)?;
        m.serialize_entry("node_type", "group")?;
        m.serialize_entry("attributes", &self.0)?;
        if let Some(meta) = &self.1 {
            m.serialize_entry("consolidated_metadata", &Inline(meta))?;
        }
        m.end()
    }
}

/// [`root_attrs`] without building it: the provenance lists every source (a string and a map
/// per file), and as a `Value` tree it would be built and serialized twice per run. Key order as
/// `Map::insert` gives it: the sources' attributes in
/// their order, `vzplan` in place of one of theirs of that name, else last.
struct RootAttrs<'a>(&'a Plan);

impl Serialize for RootAttrs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let plan = self.0;
        let ours = plan.attrs.contains_key("vzplan");
        // Conventions of the root's own attributes (a pyramid's multiscales, spatial:, proj:)
        // are registered; a source's list is kept and extended.
        let listed = plan.attrs.contains_key("zarr_conventions");
        let regs = registrations(&plan.attrs, plan.attrs.get("zarr_conventions"));
        let add = usize::from(!listed && !regs.is_empty());
        let mut m = s.serialize_map(Some(plan.attrs.len() + usize::from(!ours) + add))?;
        if add == 1 {
            m.serialize_entry("zarr_conventions", &regs)?;
        }
        for (k, v) in &plan.attrs {
            match k.as_str() {
                "vzplan" => m.serialize_entry(k, &Provenance(plan))?,
                "zarr_conventions" if !regs.is_empty() => m.serialize_entry(k, &regs)?,
                _ => m.serialize_entry(k, v)?,
            }
        }
        if !ours {
            m.serialize_entry("vzplan", &Provenance(plan))?;
        }
        m.end()
    }
}

/// vzplan's own root attribute: version, the combining dimension, the sources and, for a mosaic,
/// where each file sits (rows, columns offsets), in input order (last wins).
struct Provenance<'a>(&'a Plan);

impl Serialize for Provenance<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let plan = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("version", env!("CARGO_PKG_VERSION"))?;
        if let Some(d) = &plan.concat_dim {
            m.serialize_entry("concat_dim", d)?;
        }
        if let Some(d) = &plan.stack_dim {
            m.serialize_entry("stack_dim", d)?;
        }
        m.serialize_entry("sources", &plan.sources)?;
        if let Some(dims) = &plan.mosaic_dims {
            let tiles: Vec<Value> = plan
                .mosaics
                .first()
                .map(|m| {
                    m.tiles
                        .iter()
                        .filter_map(|t| Some(json!({"source": t.source, "offset": t.offset?})))
                        .collect()
                })
                .unwrap_or_default();
            m.serialize_entry("mosaic", &json!({"dims": dims, "tiles": tiles}))?;
        }
        m.end()
    }
}

/// Every group path the output needs (declared groups and the parents of arrays), sorted.
pub fn group_paths(plan: &Plan) -> Vec<String> {
    let mut set = std::collections::BTreeSet::new();
    for g in &plan.groups {
        set.insert(g.path.clone());
    }
    for a in &plan.arrays {
        let mut p = a.path.as_str();
        while let Some((parent, _)) = p.rsplit_once('/') {
            set.insert(parent.to_string());
            p = parent;
        }
    }
    set.into_iter().filter(|p| !p.is_empty()).collect()
}

/// Every nested group's path and `zarr.json` (declared attributes, or none for implied parents).
pub fn groups_json(plan: &Plan) -> Vec<(String, Value)> {
    group_paths(plan)
        .into_iter()
        .map(|g| {
            let attrs = plan
                .groups
                .iter()
                .find(|x| x.path == g)
                .map(|x| x.attrs.clone())
                .unwrap_or_default();
            let doc = group_json(&attrs);
            (g, doc)
        })
        .collect()
}

/// The consolidated root `zarr.json`: the group plus every node's metadata inline (serialize it
/// with `serde_json`).
pub fn consolidated_json(plan: &Plan) -> impl Serialize + '_ {
    let mut meta = Map::new();
    for (g, doc) in groups_json(plan) {
        meta.insert(g, doc);
    }
    for a in &plan.arrays {
        meta.insert(a.path.clone(), array_json(plan, a));
    }
    Group(RootAttrs(plan), Some(meta))
}

/// `{"kind": "inline", "must_understand": false, "metadata": …}`.
struct Inline<'a>(&'a Map<String, Value>);

impl Serialize for Inline<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("kind", "inline")?;
        m.serialize_entry("must_understand", &false)?;
        m.serialize_entry("metadata", self.0)?;
        m.end()
    }
}
