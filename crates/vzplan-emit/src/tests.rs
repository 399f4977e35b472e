use super::*;
use serde_json::{json, Map, Value};
use vzplan_core::{
    AxisEdges, ChunkData, ChunkList, Codec, DType, Endian, KeyColumn, Kind, LengthColumn,
};
use vzplan_plan::SourceRef;

/// A chunk list of (key, source, data).
fn chunks(list: Vec<(&[u64], usize, ChunkData)>) -> ChunkList {
    let mut c = ChunkList::new();
    for (key, source, data) in list {
        c.push(key, source, data, 0);
    }
    c
}

fn plan() -> Plan {
    let tas = ArrayPlan {
        path: "tas".into(),
        dims: vec!["time".into(), "lat".into()],
        shape: vec![731, 3],
        dtype: DType::new(Kind::Float, 4, Endian::Big),
        fill_value: Some(vec![0x7f, 0xc0, 0, 0]),
        attrs: serde_json::Map::new(),
        codecs: vec![Codec::shuffle(4), Codec::zlib(4)],
        edges: vec![AxisEdges::from(vec![366, 365]), AxisEdges::from(vec![2, 2])],
        chunks: chunks(vec![
            (
                &[0, 0],
                0,
                ChunkData::Ref {
                    offset: 10,
                    length: 20,
                },
            ),
            (&[1, 1], 1, ChunkData::Inline(vec![1, 2, 3])),
        ]),
        files: 2,
        values: None,
        patches: vec![],
        fields: Vec::new(),
    };
    let t: Vec<u8> = (0..731).flat_map(|i| (i as f64).to_le_bytes()).collect();
    let time = ArrayPlan {
        path: "time".into(),
        dims: vec!["time".into()],
        shape: vec![731],
        dtype: DType::new(Kind::Float, 8, Endian::Little),
        fill_value: None,
        attrs: serde_json::Map::new(),
        codecs: vec![],
        edges: vec![AxisEdges::from(vec![731])],
        chunks: chunks(vec![(&[0], 0, ChunkData::Inline(t.clone()))]),
        files: 2,
        values: Some(t),
        patches: vec![],
        fields: Vec::new(),
    };
    let mut p = Plan::default();
    p.sources = vec![
        SourceRef {
            url: "file:///d/a.nc".into(),
            size: 5,
            etag: None,
            mtime: None,
        },
        SourceRef {
            url: "s3://b/k.nc".into(),
            size: 6,
            etag: Some("\"e\"".into()),
            mtime: None,
        },
    ];
    p.concat_dim = Some("time".into());
    p.arrays = vec![tas, time];
    p
}

#[test]
fn refs_are_kerchunk_v1_with_inline_v3_metadata() {
    let p = plan();
    let mut buf = Vec::new();
    write_refs(&p, &mut buf).unwrap();
    let v: Value = serde_json::from_slice(&buf).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["templates"]["u1"], "s3://b/k.nc");
    let refs = &v["refs"];
    assert_eq!(refs["tas/c/0/0"], json!(["{{u0}}", 10, 20]));
    assert_eq!(refs["tas/c/1/1"], json!("base64:AQID"));
    let meta: Value = serde_json::from_str(refs["tas/zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(
        meta["chunk_grid"],
        json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[366, 365], 2]}})
    );
    assert_eq!(meta["fill_value"], "NaN");
    assert_eq!(
        meta["codecs"][0],
        json!({"name": "bytes", "configuration": {"endian": "big"}})
    );
    assert_eq!(meta["codecs"][2]["name"], "numcodecs.zlib");
    assert_eq!(meta["dimension_names"], json!(["time", "lat"]));
    // time is exactly regular: an interval; lat has no coordinate.
    assert_eq!(
        meta["attributes"]["coords:coordinates"],
        json!({"time": {"type": "interval", "start": 0, "end": 730, "step": 1}})
    );
    assert_eq!(meta["attributes"]["zarr_conventions"][0]["name"], "coords");
    let tmeta: Value = serde_json::from_str(refs["time/zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(tmeta["chunk_grid"]["name"], "regular");
    assert!(tmeta["attributes"].get("coords:coordinates").is_none());
    let root: Value = serde_json::from_str(refs["zarr.json"].as_str().unwrap()).unwrap();
    assert_eq!(root["attributes"]["vzplan"]["sources"][1]["etag"], "\"e\"");
}

#[test]
fn fill_values_follow_the_v3_json_forms() {
    let f4 = DType::new(Kind::Float, 4, Endian::Little);
    assert_eq!(
        zarr::fill_value_json(&f4, Some(&1.5f32.to_le_bytes())),
        json!(1.5)
    );
    assert_eq!(
        zarr::fill_value_json(&f4, Some(&f32::NEG_INFINITY.to_le_bytes())),
        json!("-Infinity")
    );
    assert_eq!(
        zarr::fill_value_json(&f4, Some(&0x7fc0_0001u32.to_le_bytes())),
        json!("0x7fc00001")
    );
    let i2 = DType::new(Kind::Int, 2, Endian::Big);
    assert_eq!(
        zarr::fill_value_json(&i2, Some(&[0x80, 0x01])),
        json!(-32767)
    );
    assert_eq!(zarr::fill_value_json(&i2, None), json!(0));
    let s = DType::new(Kind::String, 4, Endian::Little);
    assert_eq!(zarr::fill_value_json(&s, Some(b"ab\0\0")), json!("YWI="));
}

#[test]
fn zarr_json_goes_beside_refs_json() {
    let dir = std::path::Path::new("/d");
    assert_eq!(
        zarr_json_path(&dir.join("refs.json")),
        dir.join("refs.zarr.json")
    );
}

#[test]
fn html_stays_small_for_any_number_of_chunks() {
    // 2^40 chunks of 1 along time, 200 000 alternating edges along lat, a chunk written in
    // each of 50 000 runs: the page draws runs and caps marks instead of one rectangle each.
    let mut p = plan();
    p.arrays.truncate(1);
    let tas = &mut p.arrays[0];
    tas.shape = vec![1 << 40, 300_000];
    let mut lat = AxisEdges::default();
    for i in 0..200_000u64 {
        lat.push(1 + i % 2);
    }
    tas.edges = vec![AxisEdges::regular(1 << 40, 1), lat];
    tas.chunks = ChunkList::new();
    for i in 0..100_000u64 {
        let data = ChunkData::Ref {
            offset: 10,
            length: 20,
        };
        tas.chunks.push(&[i * 2, 0], (i % 2) as usize, data, 0);
    }
    p.concat_dim = Some("time".into());
    let h = html::page(&p);
    assert!(h.len() < 2 << 20, "{} bytes", h.len());
    assert!(h.contains("data-axis-run=\"0\" data-count=\"1099511627776\""));
    assert!(h.contains("data-axis-rest="));
    assert!(!h.contains("data-axis-chunk="));
    assert!(!h.contains("data-chunk-edge="));
    // A short axis is still drawn chunk by chunk.
    let small = html::page(&plan());
    assert!(small.contains("data-axis-chunk=\"1\""));
}

#[test]
fn no_templates_writes_full_urls_and_nothing_else_changes() {
    let p = plan();
    let mut with = Vec::new();
    write_refs(&p, &mut with).unwrap();
    let mut without = Vec::new();
    write_refs_with(&p, RefsOptions { templates: false }, &mut without).unwrap();
    let a: Value = serde_json::from_slice(&with).unwrap();
    let b: Value = serde_json::from_slice(&without).unwrap();
    assert!(b.get("templates").is_none());
    assert_eq!(b["refs"]["tas/c/0/0"], json!(["file:///d/a.nc", 10, 20]));
    assert!(!String::from_utf8(without.clone()).unwrap().contains("{{u"));
    // Every other key is the same document.
    let (ra, rb) = (
        a["refs"].as_object().unwrap(),
        b["refs"].as_object().unwrap(),
    );
    assert_eq!(ra.len(), rb.len());
    for (k, v) in ra {
        if k != "tas/c/0/0" {
            assert_eq!(&rb[k], v, "{k}");
        }
    }
    // A chunk naming a source the plan does not have is an error, not a dangling reference.
    let mut bad = plan();
    let data = ChunkData::Ref {
        offset: 10,
        length: 20,
    };
    bad.arrays[0].chunks = chunks(vec![(&[0, 0], 7, data)]);
    let mut sink = Vec::new();
    assert!(write_refs_with(&bad, RefsOptions { templates: false }, &mut sink).is_err());
}

#[test]
fn fill_value_attribute_is_encoded_for_xarray() {
    let mut p = plan();
    p.arrays[0].attrs.insert("_FillValue".into(), json!("NaN"));
    p.arrays[0]
        .attrs
        .insert("missing_value".into(), json!(1e20));
    let meta = zarr::array_json(&p, &p.arrays[0]);
    assert_eq!(meta["attributes"]["_FillValue"], "AAAAAAAA+H8=");
    assert_eq!(meta["attributes"]["missing_value"], json!(1e20));
    assert_eq!(meta["fill_value"], "NaN");
}

/// Chunk keys are written from a quoted prefix plus the index (no allocation per reference):
/// the bytes must be those of quoting the whole key, also for paths JSON has to escape.
#[test]
fn chunk_keys_are_quoted_as_whole_keys() {
    let mut p = plan();
    let path = "g/\"q\\\u{1}\té";
    p.arrays[0].path = path.into();
    let data = ChunkData::Ref {
        offset: u64::MAX,
        length: 0,
    };
    p.arrays[0].chunks.push(&[12_345_678_901, 0], 1, data, 0);
    let mut buf = Vec::new();
    write_refs(&p, &mut buf).unwrap();
    let text = String::from_utf8(buf.clone()).unwrap();
    let line = |key: &[u64], rest: &str| format!(",\n{}:{rest}", json_str(&chunk_key(path, key)));
    assert!(
        text.contains(&line(&[0, 0], "[\"{{u0}}\",10,20]")),
        "{text}"
    );
    assert!(text.contains(&line(&[1, 1], "\"base64:AQID\"")));
    assert!(text.contains(&line(
        &[12_345_678_901, 0],
        "[\"{{u1}}\",18446744073709551615,0]"
    )));
    let v: Value = serde_json::from_slice(&buf).unwrap();
    assert_eq!(v["refs"][format!("{path}/c/1/1")], "base64:AQID");
    // A 0-d array's one chunk is `path/c`.
    assert_eq!(chunk_key(path, &[]), format!("{path}/c"));
}

/// The column path (a full grid's counted keys, a length past `u32`) writes the bytes the
/// entry-by-entry path writes for the same entries.
#[test]
fn plain_columns_write_what_entries_write() {
    let big = u64::from(u32::MAX) + 7;
    let ranges = [(10, 20), (30, big), (40, 5), (50, 6)];
    let grid = ChunkList::from_ranges(2, vec![0, 0, 0, 1, 1, 0, 1, 1], &ranges).unwrap();
    let cols = grid.plain_columns().map(|c| (c.index, c.length));
    assert!(matches!(
        cols,
        Some((KeyColumn::Grid(_), LengthColumn::Wide(_)))
    ));
    let mut masked = grid.clone();
    masked.set_filter_mask(3, 1); // not written to refs.json, but not plain
    assert!(masked.plain_columns().is_none());
    let write = |c: ChunkList| {
        let mut p = plan();
        p.arrays[0].chunks = c;
        let mut b = Vec::new();
        write_refs(&p, &mut b).unwrap();
        String::from_utf8(b).unwrap()
    };
    let (a, b) = (write(grid), write(masked));
    assert_eq!(a, b);
    assert!(
        a.contains(&format!("\"tas/c/0/1\":[\"{{{{u0}}}}\",30,{big}]")),
        "{a}"
    );
    assert!(a.contains("\"tas/c/1/1\":[\"{{u0}}\",50,6]"), "{a}");
}

/// The root documents serialized straight from the plan are, byte for byte, what the `Value`
/// route gave: a sources' attribute named `vzplan` keeps its place (replaced), the others keep
/// their order, and the provenance keeps its keys (concat or stack dim, sources with etag/mtime).
#[test]
fn root_documents_are_what_the_value_route_gave() {
    fn by_value(plan: &Plan) -> Map<String, Value> {
        let mut attrs = plan.attrs.clone();
        let mut prov = Map::new();
        prov.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
        if let Some(d) = &plan.concat_dim {
            prov.insert("concat_dim".into(), json!(d));
        }
        if let Some(d) = &plan.stack_dim {
            prov.insert("stack_dim".into(), json!(d));
        }
        prov.insert(
            "sources".into(),
            serde_json::to_value(&plan.sources).unwrap(),
        );
        attrs.insert("vzplan".into(), Value::Object(prov));
        attrs
    }
    let mut p = plan();
    p.sources[0].etag = Some("\"e\\tag\"".into());
    p.sources[1].mtime = Some("2026-12-04T00:00:00Z".into());
    for (attrs, concat, stack) in [
        (json!({}), Some("time"), None),
        (
            json!({"title": "t", "vzplan": 1, "z": [1.5, "é"]}),
            None,
            Some("member"),
        ),
        (json!({"a": {"b": null}, "title": "x"}), Some("time"), None),
    ] {
        p.attrs = attrs.as_object().unwrap().clone();
        p.concat_dim = concat.map(String::from);
        p.stack_dim = stack.map(String::from);
        let want = by_value(&p);
        assert_eq!(zarr::root_attrs(&p), want);
        assert_eq!(zarr::root_json(&p), zarr::group_json(&want).to_string());
        let doc = serde_json::to_string_pretty(&zarr::consolidated_json(&p)).unwrap();
        let doc: Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(doc["attributes"], Value::Object(want.clone()));
        let keys: Vec<&String> = doc["attributes"].as_object().unwrap().keys().collect();
        let want_keys: Vec<&String> = want.keys().collect();
        assert_eq!(keys, want_keys);
        assert_eq!(doc["consolidated_metadata"]["kind"], "inline");
        assert_eq!(
            doc["consolidated_metadata"]["metadata"]["tas"]["node_type"],
            "array"
        );
    }
}
