//! Kept layouts: every file's layout written beside a collection's outputs (`refs.layouts.jsonl`),
//! so that an append scans only the new files.
//!
//! The file is the JSON lines of `vzplan scan` behind one header line:
//! ```json
//! {"vzplan_layouts":1}
//! {"vzplan_layouts":1,"parent":"sha256:9f86d0…"}
//! ```
//! `parent` is written by an append to an Icechunk repository: the SHA-256 of the kept layouts
//! the branch's head was committed with, the state this file continues. Each Icechunk commit
//! records the SHA-256 of its kept layouts, so the file and the commit belong together by their
//! bytes, not by an inode or a time: a copied, restored or moved collection appends like the
//! original. The layouts are renamed into place before the commit; a run killed between the two
//! leaves a file one step ahead of the head, which the next append recognises by its `parent`
//! and continues from.

use crate::outputs::write::{self, Staged};
use crate::Error;
use sha2::Digest;
use std::io::Write;
use std::path::{Path, PathBuf};
use vzplan_core::SourceLayout;
use vzplan_plan::ScanFailure;

use crate::outputs::write::LAYOUTS_HEADER as HEADER;

/// Where the kept layouts go by default: beside refs.json (`refs.json` → `refs.layouts.jsonl`).
pub fn default_layouts(refs: &Path) -> PathBuf {
    let stem = refs
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "refs".into());
    refs.with_file_name(format!("{stem}.layouts.jsonl"))
}

/// Where an Icechunk repository's kept layouts go by default: beside a local repository
/// (`out/repo` → `out/repo.layouts.jsonl`); none for one on object storage (give a path).
pub fn default_layouts_for_repo(repo: &str) -> Option<PathBuf> {
    match vzplan_icechunk::Target::parse(repo).ok()? {
        vzplan_icechunk::Target::Local(dir) => {
            let name = dir.file_name()?.to_string_lossy().to_string();
            Some(dir.with_file_name(format!("{name}.layouts.jsonl")))
        }
        _ => None,
    }
}

/// The header line's fields.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Header {
    pub vzplan_layouts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// A kept layouts file written but not yet in place, and the SHA-256 of its bytes.
pub(crate) struct StagedLayouts {
    pub staged: Staged,
    pub sha256: String,
}

/// Stages the kept layouts (renamed into place with the other outputs, first).
pub(crate) fn stage(
    path: &Path,
    layouts: &[SourceLayout],
    failures: &[ScanFailure],
    parent: Option<String>,
) -> Result<StagedLayouts, Error> {
    let mut digest = sha2::Sha256::new();
    let staged = write::stage(path, |w| {
        let mut w = Hashing {
            inner: w,
            digest: &mut digest,
        };
        let header = Header {
            vzplan_layouts: 1,
            parent,
        };
        serde_json::to_writer(&mut w, &header)?;
        w.write_all(b"\n")?;
        for l in layouts {
            serde_json::to_writer(&mut w, l)?;
            w.write_all(b"\n")?;
        }
        for f in failures {
            let line = crate::layouts::failure_line(&f.url, &f.error, f.unreachable);
            w.write_all(line.as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    Ok(StagedLayouts {
        staged,
        sha256: hex_digest(digest),
    })
}

/// A writer that hashes what goes through it.
struct Hashing<'a, W: Write + ?Sized> {
    inner: &'a mut W,
    digest: &'a mut sha2::Sha256,
}

impl<W: Write + ?Sized> Write for Hashing<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.digest.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn hex_digest(d: sha2::Sha256) -> String {
    let bytes = d.finalize();
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256:");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The SHA-256 of a kept layouts file and its header (default when it has none: an older file).
pub(crate) fn identify(path: &Path) -> std::io::Result<(String, Header)> {
    use std::io::{BufRead, Read};
    let mut f = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(path)?);
    let mut first = Vec::new();
    // The header is short; a first line longer than this is a layout, not a header.
    (&mut f).take(4096).read_until(b'\n', &mut first)?;
    let header = if first.starts_with(HEADER) {
        serde_json::from_slice(first.trim_ascii_end()).unwrap_or_default()
    } else {
        Header::default()
    };
    let mut digest = sha2::Sha256::new();
    digest.update(&first);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        digest.update(&buf[..n]);
    }
    Ok((hex_digest(digest), header))
}

/// An older vzplan's record of kept layouts: the file's inode, length and modification time. A
/// repository committed by one is still appended to while its layouts file is that very file.
pub(crate) fn legacy_token(path: &Path) -> std::io::Result<String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok(format!(
        "{}:{}:{}.{:09}",
        m.ino(),
        m.len(),
        m.mtime(),
        m.mtime_nsec()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_file_is_identified_by_its_bytes_and_header() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("refs.layouts.jsonl");
        let fail = ScanFailure {
            url: "file:///d/a.nc".into(),
            error: "truncated".into(),
            unreachable: false,
        };
        let s = stage(&p, &[], &[fail], Some("sha256:00".into())).unwrap();
        let hash = s.sha256.clone();
        write::commit_now(vec![s.staged]).unwrap();
        let (h, header) = identify(&p).unwrap();
        assert_eq!(h, hash);
        assert_eq!(header.parent.as_deref(), Some("sha256:00"));
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("{\"vzplan_layouts\":1,\"parent\":\"sha256:00\"}\n"));
        // A copy is the same collection: the bytes, not the inode, identify it.
        let copy = dir.path().join("copy.jsonl");
        std::fs::copy(&p, &copy).unwrap();
        assert_eq!(identify(&copy).unwrap().0, hash);
        std::fs::write(&copy, text.replace("truncated", "truncatee")).unwrap();
        assert_ne!(identify(&copy).unwrap().0, hash);
    }
}
