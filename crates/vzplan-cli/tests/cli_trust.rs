//! Trust at the edges: a layout line is untrusted input (it never makes vzplan read a file or
//! reach an endpoint nobody named, and its URL and identity fields are checked like every other
//! field), nothing a file names reaches a terminal raw, and the small promises about outputs
//! (names up to NAME_MAX, a trailing `/`, a closed pipe, many links to one file).

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
mod common;
use common::{files, root, vzplan};

/// A copy of a collection in a temp directory.
fn copy(collection: &str) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let out = files(collection)
        .iter()
        .map(|f| {
            let to = dir.path().join(Path::new(f).file_name().unwrap());
            std::fs::copy(f, &to).unwrap();
            to
        })
        .collect();
    (dir, out)
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// The first layout line `vzplan scan` writes for `file`, as JSON.
fn layout_of(file: &Path, dir: &Path) -> Value {
    let out = dir.join("scan.jsonl");
    let (code, o, e) = vzplan(&["scan", &s(file), "-o", &s(&out)]);
    assert_eq!(code, 0, "{o}{e}");
    let text = std::fs::read_to_string(&out).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// A crafted layout line: a real (unfiltered) file's layout, its URL replaced, and one chunk of
/// `tas` marked as stored with its filters skipped, so that `--patch` wants to read its bytes.
fn crafted(url: &str, dir: &Path) -> String {
    let (_keep, files) = copy("padded_raw");
    let mut l = layout_of(&files[0], dir);
    l["url"] = url.into();
    if let Some(m) = l.as_object_mut() {
        m.remove("mtime");
    }
    for a in l["arrays"].as_array_mut().unwrap() {
        if a["path"] == "tas" {
            a["chunks"]["entries"]["filter_mask"] = serde_json::json!([[0, 1]]);
        }
    }
    l.to_string()
}

/// Every inline chunk of a refs.json, decoded, as text.
fn inlined(refs: &Path) -> String {
    use base64::Engine;
    let v: Value = serde_json::from_str(&std::fs::read_to_string(refs).unwrap()).unwrap();
    let mut out = Vec::new();
    for r in v["refs"].as_object().unwrap().values() {
        if let Some(b) = r.as_str().and_then(|t| t.strip_prefix("base64:")) {
            out.extend(base64::engine::general_purpose::STANDARD.decode(b).unwrap());
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn patch_reads_no_source_that_only_a_layout_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A file of the merging machine's that nobody named, the size of the real file.
    let secret = d.join("secret.bin");
    std::fs::write(&secret, b"TOPSECRET-".repeat(2496)).unwrap();
    // An endpoint on loopback (a metadata service, say) that must never be asked.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let ssrf = format!("http://127.0.0.1:{port}/latest/meta-data/iam/security-credentials/x");
    let refs = d.join("refs.json");
    let layouts = d.join("l.jsonl");
    let args = [
        "build",
        "--from-layouts",
        &s(&layouts),
        "--patch",
        "-o",
        &s(&refs),
    ];
    for url in [format!("file://{}", secret.display()), ssrf] {
        std::fs::write(&layouts, crafted(&url, d) + "\n").unwrap();
        let (code, out, err) = vzplan(&args);
        assert_eq!(code, 3, "{out}{err}");
        assert!(
            !inlined(&refs).contains("TOPSECRET"),
            "the secret is inlined"
        );
        assert!(
            listener.accept().is_err(),
            "vzplan connected to an endpoint only a layout named"
        );
        assert!(
            out.contains("--sources-under"),
            "the finding says how: {out}"
        );
        assert!(
            !out.contains("re-encoded inline"),
            "no claim of a patch not made: {out}"
        );
    }
    std::fs::write(
        &layouts,
        crafted(&format!("file://{}", secret.display()), d) + "\n",
    )
    .unwrap();
    // Named, the same file is read: the flag is what decides.
    let under = s(d);
    let args = [&args[..], &["--sources-under", &under]].concat();
    let (code, out, err) = vzplan(&args);
    assert!(code == 0 || code == 3, "{out}{err}");
    assert!(inlined(&refs).contains("TOPSECRET"));
    assert!(listener.accept().is_err());
}

#[test]
fn layout_urls_are_absolute_normalised_urls_of_known_schemes() {
    let (dir, files) = copy("yearly");
    let d = dir.path();
    let good = layout_of(&files[0], d);
    let with = |url: &str| {
        let mut l = good.clone();
        l["url"] = url.into();
        l.to_string()
    };
    let bad = [
        "../../../../etc/passwd",
        "file:///work/../etc/passwd",
        "javascript:alert(1)",
        "data:text/plain;base64,AAAA",
        "s3a://bucket/a.nc",
    ];
    let mut lines = vec![good.to_string()];
    lines.extend(bad.iter().map(|u| with(u)));
    let mut stamped = good.clone();
    stamped["mtime"] = "\u{1b}]0;pwned\u{7}yesterday".into();
    lines.push(stamped.to_string());
    let layouts = d.join("l.jsonl");
    std::fs::write(&layouts, lines.join("\n") + "\n").unwrap();
    let refs = d.join("refs.json");
    let (code, out, err) = vzplan(&[
        "build",
        "--from-layouts",
        &s(&layouts),
        "-o",
        &s(&refs),
        "--json",
    ]);
    assert_eq!(code, 3, "{out}{err}");
    let written = std::fs::read_to_string(&refs).unwrap();
    for u in bad.iter().chain(&["pwned"]) {
        assert!(!written.contains(u), "{u} written into refs.json");
    }
    let report: Value = serde_json::from_str(&out).unwrap();
    let named: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "file_error")
        .filter_map(|f| f["file"].as_str())
        .collect();
    let want: Vec<String> = (2..=7).map(|n| format!("{}:{n}", s(&layouts))).collect();
    assert_eq!(named, want, "each bad line left out by file and line");
    assert!(!out.contains('\u{1b}') && !err.contains('\u{1b}'));
    assert_eq!(report["sources"].as_array().unwrap().len(), 1);
    // `verify` never prints a time a layout made up: only what a scan records is kept.
    let (_, vout, verr) = vzplan(&["verify", &s(&refs)]);
    assert!(
        !vout.contains("pwned") && !verr.contains("pwned"),
        "{vout}{verr}"
    );
}

/// Every control character of `text`, but newlines (and tabs, which vzplan writes itself).
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| c != '\n' && c != '\t' && c.is_control())
        .collect()
}

/// Whether a string of `v` (or an object key) contains `needle`.
fn holds(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(t) => t.contains(needle),
        Value::Array(a) => a.iter().any(|x| holds(x, needle)),
        Value::Object(o) => o
            .iter()
            .any(|(k, x)| k.contains(needle) || holds(x, needle)),
        _ => false,
    }
}

#[test]
fn names_from_files_reach_the_terminal_escaped() {
    let names = root().join("testdata/names");
    let oracle: Value =
        serde_json::from_str(&std::fs::read_to_string(names.join("names.json")).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (file, expect) in oracle.as_object().unwrap() {
        let path = s(&names.join(file));
        let refs = s(&dir.path().join("r.json"));
        let runs: [&[&str]; 7] = [
            &["info", &path],
            &["info", &path, "--json"],
            &["plan", &path],
            &["plan", &path, "--json"],
            &["build", &path, "-o", &refs],
            &["build", &path, "-o", &refs, "--json"],
            &["verify", &refs],
        ];
        for args in runs {
            let (code, out, err) = vzplan(args);
            assert!(code != 2, "{args:?}: {err}");
            for (stream, text) in [("stdout", &out), ("stderr", &err)] {
                let raw = raw_controls(text);
                assert!(raw.is_empty(), "{args:?} {stream}: {raw:?} in\n{text}");
            }
            if args.contains(&"--json") {
                // Still the names, exactly, once the JSON is read.
                let v: Value = serde_json::from_str(&out).unwrap();
                for n in expect.as_array().unwrap() {
                    let leaf = n.as_str().unwrap();
                    assert!(holds(&v, leaf), "{args:?}: {leaf:?} missing");
                }
            }
        }
        // The escapes are visible where the names are shown.
        let (_, out, _) = vzplan(&["info", &path]);
        assert!(out.contains("\\u{9b}") || out.contains("\\x1b"), "{out}");
    }
}

#[test]
fn output_names_up_to_name_max_are_written() {
    let (dir, files) = copy("yearly");
    for len in [229, 240, 255] {
        let name = format!("{}.json", "r".repeat(len - 5));
        let out = dir.path().join(&name);
        let (code, o, e) = vzplan(&["build", &s(&files[0]), "-o", &s(&out), "--no-zarr-json"]);
        assert_eq!(code, 0, "{len}: {o}{e}");
        assert!(out.is_file(), "{len}");
    }
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".vzplan-tmp-") || n.contains(".vzplan-prev-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn an_output_path_ending_in_a_slash_is_a_usage_error() {
    let (dir, files) = copy("yearly");
    let out = format!("{}/newdir/", dir.path().display());
    let (code, _, err) = vzplan(&["build", &s(&files[0]), "-o", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ends with '/'"), "{err}");
    assert!(!dir.path().join("newdir").exists());
}

#[test]
fn refs_into_a_pipe_closed_early_end_quietly_with_141() {
    // daily20's refs.json (~85 KB) is more than a pipe holds: the write meets the closed pipe.
    let inputs = files("daily20");
    let mut child = Command::new(env!("CARGO_BIN_EXE_vzplan"))
        .args(["build", "-o", "-"])
        .args(&inputs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(&head, b"{\"version\"");
    assert_eq!(out.status.code(), Some(141));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("Broken pipe") && !err.contains("vzplan:"),
        "{err}"
    );
}

#[test]
fn many_links_to_one_file_are_one_finding() {
    let (dir, files) = copy("yearly");
    let mut inputs = vec![s(&files[0])];
    for i in 0..400 {
        let link = dir.path().join(format!("link_{i:03}.nc"));
        std::os::unix::fs::symlink(&files[0], &link).unwrap();
        inputs.push(s(&link));
    }
    let args: Vec<&str> = ["plan", "--json"]
        .into_iter()
        .chain(inputs.iter().map(String::as_str))
        .collect();
    let (code, out, err) = vzplan(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{out}");
    assert!(findings[0]["message"]
        .as_str()
        .unwrap()
        .contains("given 401 times"));
    assert_eq!(v["sources"].as_array().unwrap().len(), 1);
}
