//! The reader against the netCDF4-python oracles of `testdata/netcdf3/` (written by
//! `scripts/fixtures/netcdf3.py`), and against truncated and byte-flipped copies of those files.

use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use vzplan_core::{DataRef, EdgeStorage, Format, SourceLayout};
use vzplan_io::{open_local, MemObject, RangeRead};
use vzplan_netcdf3::{read_layout, sniff, Options, ReadError};

/// Records the largest single allocation, so the fuzz tests can assert no corrupt length was
/// ever used to size a buffer.
struct MaxAlloc;
static LARGEST: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for MaxAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LARGEST.fetch_max(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LARGEST.fetch_max(n, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}
#[global_allocator]
static GLOBAL: MaxAlloc = MaxAlloc;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/netcdf3")
}

fn fixtures() -> Vec<(PathBuf, Value)> {
    let mut out: Vec<(PathBuf, Value)> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let oracle: Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.with_extension("nc"), oracle)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(
        out.len() >= 9,
        "fixtures missing: run scripts/fixtures/netcdf3.py"
    );
    out
}

fn read(path: &Path, opts: &Options) -> SourceLayout {
    let r = open_local(path).unwrap();
    read_layout(&r, opts).unwrap_or_else(|e| panic!("{e}"))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Concatenates the bytes every block references, in entry order.
fn referenced_bytes(r: &dyn RangeRead, a: &vzplan_core::ArrayLayout) -> Vec<u8> {
    let mut out = Vec::new();
    for e in &a.chunks.entries {
        match e.data {
            DataRef::Ref { offset, length } => out.extend(r.read_at(offset, length).unwrap()),
            DataRef::Inline(_) => panic!("{}: netCDF-3 blocks are never inline", a.path),
        }
    }
    out
}

/// Everything the oracle says, plus the block structure the reader promises.
fn check_against_oracle(path: &Path, oracle: &Value, opts: &Options) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let r = open_local(path).unwrap();
    let l = read_layout(&r, opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(l.format, Format::NETCDF3);
    assert_eq!(l.size, oracle["file_size"].as_u64().unwrap(), "{name}");
    assert!(l.url.starts_with("file:///") && l.url.ends_with(&name));
    assert!(l.problems.is_empty(), "{name}: {:?}", l.problems);
    assert_eq!(
        Value::Object(l.attrs.clone()),
        oracle["attrs"],
        "{name}: global attrs"
    );
    let dims = oracle["dims"].as_array().unwrap();
    let vars = oracle["variables"].as_array().unwrap();
    assert_eq!(l.arrays.len(), vars.len(), "{name}");
    for (a, v) in l.arrays.iter().zip(vars) {
        let at = format!("{name}:{}", a.path);
        assert_eq!(a.path, v["name"].as_str().unwrap(), "{at}");
        let want_dims: Vec<&str> = v["dimensions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_str().unwrap())
            .collect();
        assert_eq!(a.dim_names(), want_dims, "{at}");
        for d in &a.dims {
            let od = dims.iter().find(|o| o["name"] == d.name.as_str()).unwrap();
            assert_eq!(d.unlimited, od["unlimited"].as_bool().unwrap(), "{at}");
        }
        let shape: Vec<u64> = v["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(a.shape, shape, "{at}");
        assert_eq!(a.dtype.numpy_str(), v["dtype"].as_str().unwrap(), "{at}");
        assert_eq!(a.dtype.endian, vzplan_core::Endian::Big, "{at}");
        assert_eq!(Value::Object(a.attrs.clone()), v["attrs"], "{at}: attrs");
        assert_eq!(
            hex(a.fill_value.as_deref().unwrap()),
            v["fill_hex"].as_str().unwrap(),
            "{at}: fill"
        );
        assert!(a.codecs.is_empty(), "{at}");

        // Block structure: cut along axis 0 only, exact edges, entries in order.
        let t = &a.chunks;
        assert_eq!(t.edges, EdgeStorage::Exact, "{at}");
        assert!(t.splittable, "{at}");
        assert_eq!(t.block.len(), shape.len(), "{at}");
        if !shape.is_empty() {
            assert_eq!(t.block[1..], shape[1..], "{at}");
            assert!(t.block[0] >= 1, "{at}");
            let nblocks = shape[0].div_ceil(t.block[0]);
            assert_eq!(t.entries.len() as u64, nblocks, "{at}");
        } else {
            assert_eq!(t.entries.len(), 1, "{at}");
        }
        let row: u64 = shape.iter().skip(1).product::<u64>() * a.dtype.size as u64;
        for (i, e) in t.entries.iter().enumerate() {
            assert_eq!(e.index.len(), shape.len(), "{at}");
            let index = e.index.to_vec();
            if let Some((first, rest)) = index.split_first() {
                assert_eq!(*first, i as u64, "{at}");
                assert!(rest.iter().all(|&x| x == 0), "{at}");
                let rows = t.block[0].min(shape[0] - i as u64 * t.block[0]);
                let DataRef::Ref { length, .. } = e.data else {
                    unreachable!()
                };
                assert_eq!(length, rows * row, "{at}: block {i} is stored exact");
            }
        }
        // The strong oracle: the referenced bytes are netCDF4-python's data, big-endian.
        let data = referenced_bytes(&r, a);
        assert_eq!(hex(&data), v["data_hex"].as_str().unwrap(), "{at}: data");

        let coord = a.shape.len() == 1 && a.dims[0].name == a.path;
        if coord {
            assert_eq!(a.values.as_deref(), Some(&data[..]), "{at}: values");
        } else {
            assert!(a.values.is_none(), "{at}: only coordinates carry values");
        }
    }
    let back: SourceLayout = serde_json::from_str(&serde_json::to_string(&l).unwrap()).unwrap();
    assert_eq!(back, l, "{name}: layout JSON round trip");
}

#[test]
fn every_fixture_matches_its_oracle() {
    for (path, oracle) in fixtures() {
        check_against_oracle(&path, &oracle, &Options::default());
    }
}

#[test]
fn small_chunk_targets_still_reference_the_same_data() {
    for cb in [0, 1, 7, 12, 20, 33, 100] {
        for (path, oracle) in fixtures() {
            check_against_oracle(&path, &oracle, &Options { chunk_bytes: cb });
        }
    }
}

fn array<'a>(l: &'a SourceLayout, name: &str) -> &'a vzplan_core::ArrayLayout {
    l.arrays.iter().find(|a| a.path == name).unwrap()
}

fn refs(a: &vzplan_core::ArrayLayout) -> Vec<(u64, u64)> {
    a.chunks
        .entries
        .iter()
        .map(|e| match e.data {
            DataRef::Ref { offset, length } => (offset, length),
            DataRef::Inline(_) => unreachable!(),
        })
        .collect()
}

#[test]
fn lone_record_variable_merges_contiguous_records() {
    let p = dir().join("classic_single_record.nc");
    let l = read(&p, &Options::default());
    let s = array(&l, "s");
    assert_eq!(s.shape, vec![7, 3]);
    assert!(s.dims[0].unlimited && !s.dims[1].unlimited);
    assert_eq!(s.chunks.block, vec![7, 3]);
    assert_eq!(refs(s).len(), 1);
    assert_eq!(refs(s)[0].1, 7 * 6, "no padding between 6-byte records");

    // Row = 6 bytes; a 12-byte target gives 2 records a block, the last one short.
    let l = read(&p, &Options { chunk_bytes: 12 });
    let s = array(&l, "s");
    assert_eq!(s.chunks.block, vec![2, 3]);
    let r = refs(s);
    assert_eq!(
        r.iter().map(|x| x.1).collect::<Vec<_>>(),
        vec![12, 12, 12, 6]
    );
    for w in r.windows(2) {
        assert_eq!(w[0].0 + w[0].1, w[1].0, "contiguous");
    }

    // CDF-5, one 1-byte record variable.
    let l = read(&dir().join("data64_types.nc"), &Options { chunk_bytes: 2 });
    let ub = array(&l, "ub");
    assert_eq!(ub.chunks.block, vec![2]);
    assert_eq!(
        refs(ub).iter().map(|x| x.1).collect::<Vec<_>>(),
        vec![2, 2, 1]
    );
}

#[test]
fn interleaved_records_are_one_block_each() {
    let l = read(&dir().join("offset64_records.nc"), &Options::default());
    // vsizes: time 8, rb 4 (1 byte padded), rs 8 (6 padded), rf 12, rc 4 (3 padded) → 36.
    let recsize = 36;
    for (name, row) in [("time", 8), ("rb", 1), ("rs", 6), ("rf", 12), ("rc", 3)] {
        let a = array(&l, name);
        assert_eq!(a.chunks.block[0], 1, "{name}");
        let r = refs(a);
        assert_eq!(r.len(), 4, "{name}");
        for w in r.windows(2) {
            assert_eq!(w[1].0 - w[0].0, recsize, "{name}: record stride");
        }
        assert!(r.iter().all(|x| x.1 == row), "{name}");
    }
    // Record offsets of different variables lie within one record.
    let first: Vec<u64> = ["time", "rb", "rs", "rf", "rc"]
        .iter()
        .map(|n| refs(array(&l, n))[0].0)
        .collect();
    assert_eq!(
        first.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>(),
        vec![8, 4, 8, 12]
    );
    let lat = array(&l, "lat");
    assert!(!lat.dims[0].unlimited);
    assert_eq!(lat.values, None, "lat(x) is not a coordinate variable");
    let t = array(&l, "time");
    assert_eq!(t.values_f64(), Some(vec![0.5, 1.5, 2.5, 3.5]));
}

#[test]
fn fixed_variables_are_cut_along_axis_0() {
    let p = dir().join("classic_fixed.nc");
    let l = read(&p, &Options::default());
    let i = array(&l, "i");
    assert_eq!(i.chunks.block, vec![3, 4]);
    assert_eq!(refs(i).len(), 1);
    // Row = 4 × int32 = 16 bytes.
    for (cb, block, lens) in [
        (20, 1, vec![16, 16, 16]),
        (32, 2, vec![32, 16]),
        (47, 2, vec![32, 16]),
        (48, 3, vec![48]),
    ] {
        let l = read(&p, &Options { chunk_bytes: cb });
        let i = array(&l, "i");
        assert_eq!(i.chunks.block, vec![block, 4], "chunk_bytes {cb}");
        assert_eq!(refs(i).iter().map(|x| x.1).collect::<Vec<_>>(), lens);
    }
    let sc = array(&l, "scalar");
    assert!(sc.shape.is_empty() && sc.chunks.block.is_empty() && sc.dims.is_empty());
    assert_eq!(sc.chunks.entries.len(), 1);
    assert!(sc.chunks.entries.get(0).unwrap().index.is_empty());
    assert_eq!(refs(sc)[0].1, 8);
    let c = array(&l, "c");
    assert_eq!(c.dtype.kind, vzplan_core::Kind::String);
    assert_eq!(c.dtype.size, 1);
    assert_eq!(c.shape, vec![3, 5]);
    let f = array(&l, "f");
    assert_eq!(f.fill_value, Some((-999.0f32).to_be_bytes().to_vec()));
    assert_eq!(f.attrs["_FillValue"], Value::from(-999.0));
}

#[test]
fn streaming_numrecs_is_derived_from_the_file_length() {
    for (file, width) in [("streaming.nc", 4), ("streaming5.nc", 8)] {
        let p = dir().join(file);
        let raw = std::fs::read(&p).unwrap();
        assert!(
            raw[4..4 + width].iter().all(|&b| b == 0xff),
            "{file} is STREAMING"
        );
        let l = read(&p, &Options::default());
        assert_eq!(array(&l, "v").shape, vec![6, 2], "{file}");
        assert_eq!(
            array(&l, "time").values_f64(),
            Some((0..6).map(|i| i as f64 * 10.0).collect())
        );
        // A trailing partial record is not counted.
        let mut cut = raw.clone();
        cut.truncate(raw.len() - 1);
        let m = MemObject::new("mem://cut.nc", cut);
        let l = read_layout(&m, &Options::default()).unwrap();
        assert_eq!(array(&l, "v").shape[0], 5, "{file}");
    }
}

#[test]
fn series_time_continues_across_files() {
    let mut all = Vec::new();
    for (k, n) in [(0, 5), (1, 7), (2, 3)] {
        let l = read(&dir().join(format!("series_{k}.nc")), &Options::default());
        let tas = array(&l, "tas");
        assert_eq!(tas.shape, vec![n, 2, 3]);
        assert!(tas.dims[0].unlimited);
        assert_eq!(tas.chunks.block, vec![1, 2, 3], "tas and time interleave");
        all.extend(array(&l, "time").values_f64().unwrap());
        assert_eq!(array(&l, "lat").values_f64(), Some(vec![-10.0, 10.0]));
    }
    assert_eq!(all, (0..15).map(|i| i as f64 * 6.0).collect::<Vec<_>>());
}

#[test]
fn non_netcdf_bytes_are_rejected_with_the_url() {
    for junk in [
        &b""[..],
        b"CD",
        b"CDF\x03\0\0\0\0",
        b"\x89HDF\r\n\x1a\n rest of an hdf5 file",
        b"II*\0 a tiff",
    ] {
        let m = MemObject::new("mem://junk.bin", junk.to_vec());
        assert!(!sniff(junk));
        let e = read_layout(&m, &Options::default()).unwrap_err();
        assert!(matches!(e, ReadError::NotNetcdf3 { .. }), "{e}");
        assert!(
            e.to_string().starts_with("mem://junk.bin: not a netCDF"),
            "{e}"
        );
    }
    for (p, _) in fixtures() {
        assert!(sniff(&std::fs::read(p).unwrap()));
    }
}

/// Patches a real fixture at `at` with `bytes`.
fn patched(file: &str, at: usize, bytes: &[u8]) -> MemObject {
    let mut raw = std::fs::read(dir().join(file)).unwrap();
    raw[at..at + bytes.len()].copy_from_slice(bytes);
    MemObject::new(format!("mem://{file}"), raw)
}

#[test]
fn corrupt_counts_are_refused_without_allocating() {
    let opts = Options::default();
    // Dimension count, first name length, huge numrecs, bad list tag.
    for (file, at, bytes) in [
        ("classic_fixed.nc", 12, &[0xff, 0xff, 0xff, 0xf0][..]),
        ("classic_fixed.nc", 16, &[0x7f, 0xff, 0xff, 0xff][..]),
        ("offset64_records.nc", 4, &[0x7f, 0xff, 0xff, 0xff][..]),
        ("data64_types.nc", 4, &[0x7f, 0, 0, 0, 0, 0, 0, 0][..]),
        ("data64_types.nc", 16, &[0xff; 8][..]),
        ("classic_fixed.nc", 8, &[0, 0, 0, 0x0b][..]),
    ] {
        let m = patched(file, at, bytes);
        let e = read_layout(&m, &opts).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("mem://{file}: ")), "{msg}");
    }
    assert!(LARGEST.load(Ordering::Relaxed) < 16 << 20);
}

/// Reads `data` and checks the invariants that hold for any input: no panic, errors name the
/// source, every reference lies inside the bytes.
fn read_any(url: &str, data: Vec<u8>) -> bool {
    let len = data.len() as u64;
    let m = MemObject::new(url, data);
    match read_layout(&m, &Options { chunk_bytes: 64 }) {
        Ok(l) => {
            for a in &l.arrays {
                for (o, n) in refs(a) {
                    assert!(o + n <= len, "{url}: {} ref {o}+{n} past {len}", a.path);
                }
            }
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with(&format!("{url}: ")), "{e}");
            false
        }
    }
}

#[test]
fn truncated_files_never_panic() {
    for (p, _) in fixtures() {
        let raw = std::fs::read(&p).unwrap();
        let url = format!("mem://{}", p.file_name().unwrap().to_string_lossy());
        let mut first_ok = None;
        for n in 0..raw.len() {
            if read_any(&url, raw[..n].to_vec()) && first_ok.is_none() {
                first_ok = Some(n);
            }
        }
        // Truncation inside the header or the fixed data is always an error.
        if let Some(n) = first_ok {
            assert!(
                n + 8 >= raw.len() || p.to_string_lossy().contains("streaming"),
                "{url}: {n}"
            );
        }
        assert!(read_any(&url, raw));
    }
    assert!(LARGEST.load(Ordering::Relaxed) < 16 << 20);
}

#[test]
fn byte_flips_never_panic() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (p, _) in fixtures() {
        let raw = std::fs::read(&p).unwrap();
        let url = format!("mem://{}", p.file_name().unwrap().to_string_lossy());
        for _ in 0..1500 {
            let mut d = raw.clone();
            for _ in 0..1 + next() % 3 {
                // Mostly the header (the first few hundred bytes), sometimes anywhere.
                let span = if next() % 4 == 0 {
                    d.len()
                } else {
                    d.len().min(400)
                };
                let i = (next() % span as u64) as usize;
                d[i] = match next() % 3 {
                    0 => d[i] ^ (1 << (next() % 8)),
                    1 => 0xff,
                    _ => next() as u8,
                };
            }
            read_any(&url, d);
        }
    }
    assert!(LARGEST.load(Ordering::Relaxed) < 16 << 20);
}

/// Finds `nc_type vsize begin` of a variable in a real header (the last fields of its entry).
fn vsize_at(raw: &[u8], ty: u32, vsize: u32, begin: &[u8]) -> usize {
    let mut pat = ty.to_be_bytes().to_vec();
    pat.extend(vsize.to_be_bytes());
    pat.extend(begin);
    let at = raw.windows(pat.len()).position(|w| w == pat).unwrap();
    at + 4
}

#[test]
fn stored_vsize_is_ignored() {
    // The 2^32-1 sentinel (variables over 4 GiB) must not change the layout: vsize is recomputed.
    for (file, var, ty, vsize, wide) in [
        ("classic_single_record.nc", "s", 3, 8, false),
        ("offset64_records.nc", "rs", 3, 8, true),
        ("offset64_records.nc", "rb", 1, 4, true),
    ] {
        let p = dir().join(file);
        let want = read(&p, &Options::default());
        let begin = refs(array(&want, var))[0].0;
        let begin = if wide {
            begin.to_be_bytes().to_vec()
        } else {
            (begin as u32).to_be_bytes().to_vec()
        };
        let raw = std::fs::read(&p).unwrap();
        let at = vsize_at(&raw, ty, vsize, &begin);
        let m = patched(file, at, &[0xff; 4]);
        let got = read_layout(&m, &Options::default()).unwrap();
        assert_eq!(got.arrays, want.arrays, "{file}:{var}");
    }
}

#[test]
fn empty_record_dimension() {
    let l = read(&dir().join("empty_records.nc"), &Options::default());
    let v = array(&l, "v");
    assert_eq!(v.shape, vec![0, 2]);
    assert!(v.chunks.entries.is_empty());
    assert_eq!(v.chunks.block, vec![1, 2]);
    assert_eq!(array(&l, "time").values, Some(Vec::new()));
}

#[test]
fn a_small_file_is_one_request() {
    let r = open_local(dir().join("offset64_records.nc")).unwrap();
    read_layout(&r, &Options::default()).unwrap();
    assert_eq!(r.stats().requests, 1);
}

/// netCDF-C's own reference files store the name `yy\0` (length 3); every netCDF reader calls the
/// variable `yy`, so the array must be `yy` too.
#[test]
fn netcdf_c_names_with_trailing_nul() {
    for f in ["ref_nctest_classic.nc", "ref_nctest_64bit_offset.nc"] {
        let l = read(&dir().join("netcdf-c").join(f), &Options::default());
        let names: Vec<&str> = l.arrays.iter().map(|a| a.path.as_str()).collect();
        assert!(names.contains(&"yy"), "{f}: {names:?}");
        for a in &l.arrays {
            assert!(!a.path.contains('\0'), "{f}: {:?}", a.path);
            for d in &a.dims {
                assert!(!d.name.contains('\0'), "{f}: {:?}", d.name);
            }
            for k in a.attrs.keys() {
                assert!(!k.contains('\0'), "{f}: {:?}", k);
            }
        }
        assert_eq!(names.len(), 28, "{f}: one array per variable: {names:?}");
    }
}

#[test]
fn data_past_the_end_is_a_typed_geometry_error() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/netcdf3/classic_fixed.nc");
    let raw = std::fs::read(&p).unwrap();
    let m = MemObject::new("mem://cut.nc", raw[..raw.len() - 1].to_vec());
    let e = read_layout(&m, &Options { chunk_bytes: 64 }).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("mem://cut.nc: corrupt netCDF classic file: the data of variable ")
            && msg.contains("runs past the end of the file")
            && msg.ends_with("the file is truncated or its header is corrupt"),
        "{msg}"
    );
    assert!(matches!(
        e,
        ReadError::Geometry {
            source: vzplan_netcdf3::GeometryError::PastEnd { .. },
            ..
        }
    ));
}
