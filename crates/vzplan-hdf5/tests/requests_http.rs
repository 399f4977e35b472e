//! Requests per file on object storage, counted by the real reader (`vzplan_io::open` with the
//! object-storage defaults: a 64 KiB first read growing to 512 KiB, 16 KiB blocks) against a
//! byte-range HTTP server
//! on loopback (scripts/http_server.py), over files whose metadata lies between their data,
//! written at test time by h5py and netCDF4 (`scripts/fixtures/hdf5_requests.py --big`).
//!
//! Needs `.venv` (scripts/setup-python.sh). Without it the test is skipped, except under CI,
//! where it fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use vzplan_io::{IoOptions, Stats};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The HTTP server of one test, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes the files into `dir` and serves it, or None (skipped) without a usable venv.
fn serve(dir: &Path) -> Option<Server> {
    let py = root().join(".venv/bin/python");
    let usable = py.exists()
        && Command::new(&py)
            .args(["-c", "import h5py, netCDF4"])
            .status()
            .is_ok_and(|s| s.success());
    if !usable {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: .venv with h5py and netCDF4 is required (scripts/setup-python.sh)"
        );
        eprintln!("skipped: no .venv with h5py and netCDF4 (run scripts/setup-python.sh)");
        return None;
    }
    let made = Command::new(&py)
        .arg(root().join("scripts/fixtures/hdf5_requests.py"))
        .arg("--big")
        .arg(dir)
        .stdout(Stdio::null())
        .status()
        .expect("run scripts/fixtures/hdf5_requests.py");
    assert!(made.success());
    let info = dir.join("server.json");
    let child = Command::new(&py)
        .arg(root().join("scripts/http_server.py"))
        .arg(dir)
        .arg("--info")
        .arg(&info)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("start http_server.py");
    let mut server = Server {
        child,
        url: String::new(),
    };
    let t0 = Instant::now();
    loop {
        let text = std::fs::read_to_string(&info).unwrap_or_default();
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            server.url = v["url"].as_str().unwrap().to_string();
            return Some(server);
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "http server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Stats, file size and chunks found reading `name`'s layout over HTTP.
fn requests(server: &Server, name: &str) -> (Stats, u64, usize) {
    let r = vzplan_io::open(&format!("{}/{name}", server.url), &IoOptions::default()).unwrap();
    let l = vzplan_hdf5::read_layout(r.as_ref()).unwrap();
    let chunks = l.arrays.iter().map(|a| a.chunks.entries.len()).sum();
    println!(
        "{name}: {} requests in {} round trips, {} of {} bytes",
        r.stats().requests,
        r.stats().round_trips,
        r.stats().bytes,
        r.size()
    );
    (r.stats(), r.size(), chunks)
}

/// An extensible array whose data blocks lie between 4 MB of chunks: 10 GETs in 10 round trips
/// when read node by node; with 64 KiB blocks and a 512 KiB first read, 2 GETs of 4.2 MB (the
/// index in one GET across the data); now 3 round trips of 1.5 MB (the first read, the rest of
/// the metadata at the start, the index's data blocks as 16 GETs sent together). Ten netCDF-4
/// variables written one after the other, their links in a dense store moved past the first
/// variables' data: 10 GETs in 10 round trips when read child by child, 12 in 5 now (the root's
/// link heap, its direct block, the headers, then their continuation blocks and B-trees sent
/// together, each level naming the next).
#[test]
fn spread_metadata_costs_few_requests() {
    let dir = tempfile::tempdir().unwrap();
    let Some(server) = serve(dir.path()) else {
        return;
    };
    let (s, _, chunks) = requests(&server, "ea.h5");
    assert_eq!(chunks, 4096);
    assert!(s.round_trips <= 3, "ea.h5: {s:?}");
    assert!(s.bytes <= 2 << 20, "ea.h5: {s:?}");
    let (s, size, chunks) = requests(&server, "vars.nc");
    assert_eq!(chunks, 1 + 10 * 4);
    assert!(s.round_trips <= 5, "vars.nc: {s:?}");
    assert!(s.requests <= 12, "vars.nc: {s:?}");
    assert!(s.bytes <= 256 << 10, "vars.nc: {s:?} of {size} bytes");
}

/// A typical netCDF-4 file (coordinates, then three zlib variables each defined after the
/// previous one's data was written): its header continuation blocks and its chunk-index roots
/// are all known once the first read is parsed, and come in one batch after it. Before, the
/// continuation blocks came in one batch and the index roots in the next: 3 round trips, and
/// 640 KiB read (a 512 KiB first read and two 64 KiB blocks); now 2 round trips and 96 KiB.
#[test]
fn a_typical_file_costs_two_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let Some(server) = serve(dir.path()) else {
        return;
    };
    let (s, _, chunks) = requests(&server, "spread.nc");
    assert_eq!(
        chunks,
        3 + 3 * 4,
        "time, lat and lon in one chunk each, 4 per variable"
    );
    assert!(s.round_trips <= 2, "spread.nc: {s:?}");
    assert!(s.bytes <= 256 << 10, "spread.nc: {s:?}");
}
