//! Files that other files name: an HDF5 external link's target, a virtual dataset's sources.
//!
//! A name inside a file is untrusted: it must never make vzplan read a file the person running it
//! did not name. So a reader never opens such a file itself; it asks a [`Linker`], which the run
//! provides with its rule for what may be read and its store options, and which says why not when
//! it refuses. [`linked_urls`] turns the name into the URLs to try, as the HDF5 library looks for
//! an external file (its `H5Lcreate_external` documentation): beside the file that names it for a
//! relative name; an absolute path as it is (local files only), then its last component beside
//! the file. Names are resolved lexically (`..` removed, never past the root), never through a
//! current directory: a linked file is where the naming file says, relative to the naming file.
//!
//! ```text
//! file:///data/run/vds.h5 names "sub/part_0.h5"  → file:///data/run/sub/part_0.h5
//! s3://bkt/run/vds.h5     names "../raw/d.h5"     → s3://bkt/raw/d.h5
//! file:///data/run/vds.h5 names "/archive/d.h5"   → file:///archive/d.h5, file:///data/run/d.h5
//! ```

use crate::{IoError, RangeRead};
use std::sync::Arc;

/// Opens files other files name, when the run allows it (see the module docs).
pub trait Linker: Sync {
    /// Opens the file at `url` (canonical, from [`linked_urls`]).
    fn open(&self, url: &str) -> Result<Arc<dyn RangeRead>, LinkError>;
}

/// Why a linked file was not opened.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The run does not let a file's own contents name this one.
    #[error("{url}: not read: {reason}")]
    NotNamed { url: String, reason: String },
    /// It could not be opened (missing, unreadable, refused by its store).
    #[error(transparent)]
    Io(#[from] IoError),
}

impl LinkError {
    /// Whether there is no such file (the next place to look for it may have it).
    pub fn is_missing(&self) -> bool {
        matches!(self, LinkError::Io(e) if e.is_missing())
    }
}

/// The URLs to try, in order, for the file `name` named inside the file at `base` (see the
/// module docs); empty when the name leads nowhere (past the root, empty).
pub fn linked_urls(base: &str, name: &str) -> Vec<String> {
    let Some((scheme, rest)) = base.split_once("://") else {
        return Vec::new();
    };
    // The part that stays (`/` of a local path, `bucket` of an object URL) and the directory.
    let (root, dir) = match scheme {
        "file" => ("", rest.rsplit_once('/').map_or("", |(d, _)| d)),
        _ => match rest.split_once('/') {
            Some((host, key)) => (host, key.rsplit_once('/').map_or("", |(d, _)| d)),
            None => return Vec::new(),
        },
    };
    let join = |dir: &str, name: &str| -> Option<String> {
        let parts = lexical_join(dir, name).filter(|p| !p.is_empty())?;
        Some(format!("{scheme}://{root}/{}", parts.join("/")))
    };
    // A file's name ends in a file name, not a directory.
    let last = name.rsplit('/').next().unwrap_or("");
    if matches!(last, "" | "." | "..") {
        return Vec::new();
    }
    let mut out = Vec::new();
    if name.starts_with('/') {
        if scheme == "file" {
            out.extend(join("", name));
        }
        out.extend(join(dir, last));
    } else {
        out.extend(join(dir, name));
    }
    out.retain(|u| !u.chars().any(char::is_control));
    out.dedup();
    out
}

/// The components of the path `name` relative to the directory `dir` (`/`-separated both),
/// resolved lexically: empty components and `.` dropped, `..` removing the one before it.
/// `None` when a `..` would climb past `dir`'s root.
pub fn lexical_join<'a>(dir: &'a str, name: &'a str) -> Option<Vec<&'a str>> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in name.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::linked_urls;

    #[test]
    fn names_resolve_beside_the_file_that_names_them() {
        let l = |b, n| linked_urls(b, n);
        assert_eq!(
            l("file:///data/run/vds.h5", "sub/part_0.h5"),
            ["file:///data/run/sub/part_0.h5"]
        );
        assert_eq!(
            l("s3://bkt/run/vds.h5", "../raw/d.h5"),
            ["s3://bkt/raw/d.h5"]
        );
        assert_eq!(
            l("file:///data/run/vds.h5", "/archive/d.h5"),
            ["file:///archive/d.h5", "file:///data/run/d.h5"]
        );
        // An absolute path on object storage means nothing there: its name beside the file.
        assert_eq!(
            l("s3://bkt/run/vds.h5", "/archive/d.h5"),
            ["s3://bkt/run/d.h5"]
        );
        assert_eq!(
            l("https://h.example/a/b.h5", "./c//d.h5"),
            ["https://h.example/a/c/d.h5"]
        );
        // Never past the root or the bucket; never nothing.
        assert!(l("s3://bkt/run/vds.h5", "../../x.h5").is_empty());
        assert!(l("file:///vds.h5", "../x.h5").is_empty());
        assert!(l("file:///data/vds.h5", "").is_empty());
        assert!(l("file:///data/vds.h5", "a\nb").is_empty());
    }
}
