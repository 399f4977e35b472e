//! Object storage end to end: the `vzplan` binary against a real S3-compatible server on loopback
//! (moto, started by scripts/s3_server.py from the project venv), optionally behind a proxy that
//! injects 500s, slow responses and truncated bodies. Values read back through zarr-python with
//! fsspec's s3 filesystem are checked by tests/conformance/test_s3.py; here: refs equal to the local run,
//! canonical URLs, request counts, retries, a missing object, shards and layouts on S3.
//!
//! Needs `.venv` (scripts/setup-python.sh). Without it the tests are skipped, except under CI,
//! where they fail.

use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn collections() -> PathBuf {
    root().join("testdata/collections")
}

/// A moto server (and fault proxy) for one test; killed when dropped (it also stops by itself).
struct Server {
    child: Child,
    endpoint: String,
    proxy: Option<String>,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start(extra: &[&str]) -> Option<Server> {
        let py = root().join(".venv/bin/python");
        let usable = py.exists()
            && Command::new(&py)
                .args(["-c", "import moto, boto3"])
                .status()
                .is_ok_and(|s| s.success());
        if !usable {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI: .venv with moto is required (scripts/setup-python.sh)"
            );
            eprintln!("skipped: no .venv with moto (run scripts/setup-python.sh)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let info = dir.path().join("info.json");
        let upload = format!("data={}", collections().display());
        let mut args = vec![
            root().join("scripts/s3_server.py").display().to_string(),
            "--info".into(),
            info.display().to_string(),
            "--upload".into(),
            upload,
            "--bucket".into(),
            "out".into(),
            "--lifetime".into(),
            "600".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let child = Command::new(&py)
            .args(&args)
            .stdin(Stdio::null())
            .spawn()
            .expect("start s3_server.py");
        let t0 = Instant::now();
        while !info.exists() {
            assert!(
                t0.elapsed() < Duration::from_secs(120),
                "s3 server did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&info).unwrap()).unwrap();
        Some(Server {
            child,
            endpoint: v["endpoint"].as_str().unwrap().to_string(),
            proxy: v["proxy"].as_str().map(str::to_string),
            _dir: dir,
        })
    }

    /// The proxy's fault counts.
    fn faults(&self) -> Value {
        self.ask_proxy("/__faults")
    }

    /// The proxy's answer to one of its own paths (`/__faults`, `/__log`).
    fn ask_proxy(&self, path: &str) -> Value {
        let addr = self.proxy.as_ref().unwrap().trim_start_matches("http://");
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
        serde_json::from_str(body).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn vzplan(args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vzplan"));
    cmd.args(args)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_REGION", "us-east-1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run vzplan");
    {
        let mut si = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            si.write_all(text.as_bytes()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn local_files(case: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(collections().join(case))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".nc"))
        .collect();
    v.sort();
    v
}

/// The refs with source URLs mapped to `s3://data/…` and the provenance's size/mtime/ETag
/// dropped, so a local and an S3 build of the same files compare equal.
fn normalized(refs_path: &Path) -> Value {
    let local_prefix = format!("file://{}/", collections().display());
    let text = std::fs::read_to_string(refs_path)
        .unwrap()
        .replace(&local_prefix, "s3://data/");
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let root_meta = v["refs"]["zarr.json"].as_str().unwrap().to_string();
    let mut root_meta: Value = serde_json::from_str(&root_meta).unwrap();
    if let Some(sources) = root_meta["attributes"]["vzplan"]["sources"].as_array_mut() {
        for s in sources {
            let o = s.as_object_mut().unwrap();
            o.remove("mtime");
            o.remove("etag");
        }
    }
    v["refs"]["zarr.json"] = Value::String(root_meta.to_string());
    v
}

fn build_local(case: &str, out: &Path) {
    let files = local_files(case);
    let mut args: Vec<&str> = vec!["build"];
    args.extend(files.iter().map(|s| s.as_str()));
    args.extend(["-o", out.to_str().unwrap()]);
    let (code, o, e) = vzplan(&args, &[], None);
    assert_eq!(code, 0, "{o}{e}");
}

#[test]
fn s3_prefix_builds_the_same_refs_as_the_local_files() {
    let Some(srv) = Server::start(&[]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for case in ["yearly", "daily20", "monthly"] {
        let local = dir.path().join(format!("{case}-local.json"));
        build_local(case, &local);
        let remote = dir.path().join(format!("{case}-s3.json"));
        let pattern = format!("s3://data/{case}/*.nc");
        let (code, stdout, stderr) = vzplan(
            &[
                "build",
                &pattern,
                "-o",
                remote.to_str().unwrap(),
                "--s3-endpoint",
                &srv.endpoint,
                "--stats",
            ],
            &[],
            None,
        );
        assert_eq!(code, 0, "{case}: {stdout}{stderr}");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&remote).unwrap()).unwrap();
        // Templates name the objects: canonical s3:// URLs, no endpoint, no query string.
        let files = local_files(case);
        let templates = v["templates"].as_object().unwrap();
        assert_eq!(templates.len(), files.len());
        for t in templates.values() {
            let t = t.as_str().unwrap();
            assert!(t.starts_with(&format!("s3://data/{case}/")), "{t}");
            assert!(!t.contains('?') && !t.contains("127.0.0.1"), "{t}");
        }
        // Provenance keeps the ETag of each object.
        let root_meta: Value =
            serde_json::from_str(v["refs"]["zarr.json"].as_str().unwrap()).unwrap();
        for s in root_meta["attributes"]["vzplan"]["sources"]
            .as_array()
            .unwrap()
        {
            assert!(s["etag"].as_str().is_some_and(|e| !e.is_empty()), "{s}");
        }
        assert_eq!(normalized(&remote), normalized(&local), "{case}");
        // Request counts per file: these small files cost one GET each (no HEAD: the listing
        // gave their sizes).
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("s3://") && l.contains("request(s)"))
            .collect();
        assert_eq!(lines.len(), files.len(), "{stderr}");
        for l in lines {
            assert!(l.contains(": 1 request(s),"), "{l}");
        }
        assert!(stderr.contains("total: "), "{stderr}");
    }

    // A plain URL (no listing) costs one GET too: the speculative first read also tells the size.
    let out = dir.path().join("one.json");
    let (code, _, stderr) = vzplan(
        &[
            "build",
            "s3://data/yearly/tas_day_2000.nc",
            "-o",
            out.to_str().unwrap(),
            "--s3-endpoint",
            &srv.endpoint,
            "--stats",
        ],
        &[],
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("s3://data/yearly/tas_day_2000.nc: 1 request(s),"),
        "{stderr}"
    );
    // Unsigned requests to a private bucket: refused, and the message says what to do.
    let (code, _, stderr) = vzplan(
        &[
            "plan",
            "s3://data/yearly/tas_day_2000.nc",
            "--s3-endpoint",
            &srv.endpoint,
            "--anon",
        ],
        &[],
        None,
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("s3://data/yearly/tas_day_2000.nc: access denied to an unsigned request"),
        "{stderr}"
    );

    // verify: HEADs the objects and compares size and ETag.
    let (code, stdout, stderr) = vzplan(
        &[
            "verify",
            out.to_str().unwrap(),
            "--s3-endpoint",
            &srv.endpoint,
        ],
        &[],
        None,
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("1 source(s), 0 changed"), "{stdout}");
}

/// A listing of two pages, the second slow (2 s), failing once and each page in reverse key order:
/// the files of the first page are scanned while the second is awaited, the failed listing is
/// asked for again, and the refs are those of the local files.
#[test]
fn a_listing_is_scanned_as_its_pages_arrive() {
    // 1,200 objects between June and July: the listing of `monthly/` takes two pages.
    let Some(srv) = Server::start(&[
        "--filler",
        "data=monthly/tas_day_200406_x:1200",
        "--list-delay",
        "2",
        "--fault-list-page",
        "2",
        "--reverse-listing",
    ]) else {
        return;
    };
    let proxy = srv.proxy.clone().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("local.json");
    build_local("monthly", &local);
    let remote = dir.path().join("s3.json");
    let out = remote.to_str().unwrap();
    let (code, stdout, stderr) = vzplan(
        &[
            "build",
            "s3://data/monthly/*.nc",
            "-o",
            out,
            "--s3-endpoint",
            &proxy,
        ],
        &[],
        None,
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(normalized(&remote), normalized(&local));
    let faults = srv.faults();
    assert_eq!(faults["list_500"], 1, "{faults}");
    // Page 1, page 2 refused; the keys came out of order, so the listing starts again (an offset
    // could skip keys below it): pages 1 and 2, page 1's objects not given twice.
    assert_eq!(faults["list_pages"], 4, "{faults}");
    // Layouts come in the order of the sorted list, however the store listed them.
    let layouts = dir.path().join("layouts.jsonl");
    let (code, _, stderr) = vzplan(
        &[
            "scan",
            "s3://data/monthly/*.nc",
            "-o",
            layouts.to_str().unwrap(),
        ]
        .into_iter()
        .chain(["--s3-endpoint", &proxy])
        .collect::<Vec<_>>(),
        &[],
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    let urls: Vec<String> = std::fs::read_to_string(&layouts)
        .unwrap()
        .lines()
        .filter_map(|l| {
            serde_json::from_str::<Value>(l).ok()?["url"]
                .as_str()
                .map(String::from)
        })
        .collect();
    let expected: Vec<String> = local_files("monthly")
        .iter()
        .map(|p| {
            format!(
                "s3://data/monthly/{}",
                Path::new(p).file_name().unwrap().to_str().unwrap()
            )
        })
        .collect();
    assert_eq!(urls, expected);
    let log = srv.ask_proxy("/__log");
    let log = log.as_array().unwrap();
    let last_list_end = log
        .iter()
        .filter(|r| r[3].as_str().unwrap().contains("list-type=2"))
        .map(|r| r[1].as_f64().unwrap())
        .fold(0.0, f64::max);
    let first_june = log
        .iter()
        .filter(|r| r[2] == "GET" && r[3].as_str().unwrap().ends_with("200406.nc"))
        .map(|r| r[0].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert!(
        first_june < last_list_end - 1.0,
        "the first page's files were read before the last page came: {first_june} vs {last_list_end}"
    );
}

/// On object storage a scan starts with 32 files in flight and takes one more per file done while
/// the store keeps up; a store answering 503 SlowDown makes it halve, and it stays below 32.
#[test]
fn files_in_flight_grow_while_the_store_keeps_up_and_back_off_on_slowdown() {
    let copy = collections().join("monthly/tas_day_200401.nc");
    let filler = format!("data=copies/c_:300:{}", copy.display());
    let Some(srv) = Server::start(&["--filler", &filler, "--slowdown-first", "40"]) else {
        return;
    };
    let proxy = srv.proxy.clone().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let in_flight = |name: &str| {
        let out = dir.path().join(name);
        let (code, _, stderr) = vzplan(
            &["scan", "s3://data/copies/c_*", "-o", out.to_str().unwrap()]
                .into_iter()
                .chain(["--s3-endpoint", &proxy, "--stats"])
                .collect::<Vec<_>>(),
            &[],
            None,
        );
        assert_eq!(code, 0, "{stderr}");
        let total = stderr.lines().find(|l| l.starts_with("total: ")).unwrap();
        assert!(total.starts_with("total: 300 file(s)"), "{total}");
        let (_, n) = total.split_once("up to ").unwrap();
        n.split(' ').next().unwrap().parse::<u64>().unwrap()
    };
    // The first 40 requests are refused: the first 32 files back off to 16, and growing by one
    // per 16 files done takes longer than the 268 files left.
    let throttled = in_flight("throttled.jsonl");
    assert_eq!(srv.faults()["slowdown"], 40);
    assert!(throttled <= 32, "{throttled}");
    let clean = in_flight("clean.jsonl");
    assert!(clean > 32, "{clean}");
}

#[test]
fn injected_faults_are_survived_and_a_missing_object_is_named() {
    let Some(srv) = Server::start(&["--faults", "0.35", "--fault-delay", "1.5"]) else {
        return;
    };
    let proxy = srv.proxy.clone().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("local.json");
    build_local("daily20", &local);
    let remote = dir.path().join("s3.json");
    let (code, stdout, stderr) = vzplan(
        &[
            "build",
            "s3://data/daily20/*.nc",
            "s3://data/daily20/no_such_file.nc",
            "-o",
            remote.to_str().unwrap(),
            "--s3-endpoint",
            &proxy,
            "--io-timeout",
            "0.5",
            "--retries",
            "10",
            "--block-size",
            "4096",
            "--first-read",
            "8192",
            "--stats",
            "--json",
        ],
        &[],
        None,
    );
    assert_eq!(code, 3, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let missing: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "file_error")
        .collect();
    assert_eq!(missing.len(), 1, "{stdout}");
    assert_eq!(missing[0]["file"], "s3://data/daily20/no_such_file.nc");
    assert!(
        missing[0]["text"]
            .as_str()
            .unwrap()
            .contains("no such object"),
        "{}",
        missing[0]
    );
    assert_eq!(normalized(&remote), normalized(&local));
    let faults = srv.faults();
    let injected = ["status_500", "slow", "truncated"]
        .iter()
        .map(|k| faults[k].as_u64().unwrap())
        .collect::<Vec<_>>();
    assert!(injected.iter().all(|&n| n > 0), "{faults}");
    assert!(stderr.contains(" retried)"), "{stderr}");

    // --fail-fast stops at the missing object instead.
    let (code, _, stderr) = vzplan(
        &[
            "plan",
            "s3://data/daily20/no_such_file.nc",
            "s3://data/daily20/*.nc",
            "--s3-endpoint",
            &srv.endpoint,
            "--fail-fast",
            "--jobs",
            "1",
        ],
        &[],
        None,
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("s3://data/daily20/no_such_file.nc: no such object"),
        "{stderr}"
    );
    assert!(stderr.contains("--fail-fast"), "{stderr}");
}

#[test]
fn shards_on_s3_merged_from_layouts_on_s3_equal_one_run() {
    let Some(srv) = Server::start(&[]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let e = srv.endpoint.as_str();
    let single = dir.path().join("single.json");
    let (code, o, er) = vzplan(
        &[
            "build",
            "s3://data/daily20/*.nc",
            "-o",
            single.to_str().unwrap(),
            "--s3-endpoint",
            e,
        ],
        &[],
        None,
    );
    assert_eq!(code, 0, "{o}{er}");
    // The file list from stdin, three shards as an array job would run them (index from the
    // environment), layouts written to the bucket.
    let list: String = local_files("daily20")
        .iter()
        .map(|p| {
            format!(
                "s3://data/daily20/{}\n",
                Path::new(p).file_name().unwrap().to_string_lossy()
            )
        })
        .collect();
    let list = format!("# the daily files\n\n{list}");
    for i in 0..3 {
        let out = format!("s3://out/layouts/layouts-{i}.jsonl");
        let idx = i.to_string();
        let (code, o, er) = vzplan(
            &[
                "scan",
                "--files-from",
                "-",
                "-o",
                &out,
                "--shard-from-env",
                "ARRAY_INDEX",
                "--shard-count",
                "3",
                "--s3-endpoint",
                e,
            ],
            &[("ARRAY_INDEX", &idx)],
            Some(&list),
        );
        assert_eq!(code, 0, "{o}{er}");
    }
    let merged = dir.path().join("merged.json");
    let (code, o, er) = vzplan(
        &[
            "build",
            "--from-layouts",
            "s3://out/layouts/layouts-*.jsonl",
            "-o",
            merged.to_str().unwrap(),
            "--s3-endpoint",
            e,
        ],
        &[],
        None,
    );
    assert_eq!(code, 0, "{o}{er}");
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&single).unwrap(),
        "sharded + merged differs from a single run"
    );
    // A missing variable for the index is a usage error, named.
    let (code, _, er) = vzplan(
        &[
            "scan",
            "s3://data/daily20/*.nc",
            "-o",
            "/dev/null",
            "--shard-from-env",
            "VZPLAN_NO_SUCH_VAR",
            "--shard-count",
            "2",
            "--s3-endpoint",
            e,
        ],
        &[],
        None,
    );
    assert_eq!(code, 2);
    assert!(er.contains("VZPLAN_NO_SUCH_VAR"), "{er}");
}
