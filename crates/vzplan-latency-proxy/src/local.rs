//! Object GETs and HEADs answered from a local directory: which requests qualify (the key and its
//! file), the `Range` header, ETag preconditions, and the response, with the headers an S3 or HTTP
//! client reads (Content-Length, Content-Range, Accept-Ranges, Last-Modified, ETag).
//!
//! The local file holds the upstream object's bytes, but its ETag and mtime are this proxy's
//! (moto's ETag is the bytes' MD5). A precondition that names the local ETag is decided here (s3fs
//! sends `If-Match` with the ETag of its HEAD, which this proxy answered); one that does not, or
//! one on dates, is left to the upstream server, whose ETag or date it may be (from a listing).

use crate::overlay::{self, Patch};
use bytes::Bytes;
use hyper::header::HeaderName;
use hyper::{header, HeaderMap, StatusCode};
use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Responses are built in memory: a larger body than this goes to the upstream server instead.
pub const MAX_BODY: u64 = 64 << 20;

/// Preconditions on dates: the local file's mtime is not the upstream object's, so requests
/// carrying them go upstream.
const DATED: [HeaderName; 2] = [header::IF_MODIFIED_SINCE, header::IF_UNMODIFIED_SINCE];

/// The directory objects are read from, and the bucket whose keys are its relative paths (none:
/// the URL path itself is the relative path, as a static HTTP server of the directory has it).
pub struct LocalRoot {
    pub dir: PathBuf,
    pub bucket: Option<String>,
}

impl LocalRoot {
    /// The file a GET or HEAD would be answered from, if its path, query and headers allow a
    /// local answer (whether the file exists, and ETag preconditions, are checked when it is read).
    pub fn candidate(
        &self,
        path: &str,
        query: Option<&str>,
        headers: &HeaderMap,
    ) -> Option<PathBuf> {
        if !plain_query(query) || DATED.iter().any(|h| headers.contains_key(h)) {
            return None;
        }
        let rest = path.strip_prefix('/')?;
        let rest = match &self.bucket {
            Some(b) => rest.strip_prefix(b.as_str())?.strip_prefix('/')?,
            None => rest,
        };
        let key = percent_decode(rest)?;
        valid_key(&key).then(|| self.dir.join(key))
    }
}

/// No query, or only `x-id` (which some SDKs add to a GetObject). Anything else is a listing
/// (`list-type=2`, `prefix=`) or a subresource (`acl`, `tagging`, `versionId`, `uploadId`…),
/// which only the upstream server can answer.
fn plain_query(query: Option<&str>) -> bool {
    query.is_none_or(|q| q.is_empty() || q.split('&').all(|p| p.split('=').next() == Some("x-id")))
}

/// A key is a relative path of non-empty components, none `.` or `..`: it cannot leave the root.
pub fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && !key.contains('\0')
        && key
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// `%XX` escapes decoded; None when one is malformed or the result is not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// What a `Range` header asks of an object of a given size.
#[derive(Debug, PartialEq, Eq)]
pub enum Range {
    /// No header, or one this proxy ignores (not `bytes`, several ranges, malformed): the whole
    /// object, as RFC 9110 allows.
    Whole,
    /// First and last byte, inclusive, within the object.
    Bytes(u64, u64),
    /// 416: starts past the end, or a suffix of zero bytes, or any range of an empty object.
    Unsatisfiable,
}

/// A single `bytes=a-b`, `bytes=a-` or `bytes=-n`.
pub fn parse_range(value: Option<&str>, size: u64) -> Range {
    let Some(spec) = value.map(str::trim).and_then(|v| {
        let (unit, spec) = v.split_once('=')?;
        unit.trim()
            .eq_ignore_ascii_case("bytes")
            .then_some(spec.trim())
    }) else {
        return Range::Whole;
    };
    let Some((a, b)) = spec.split_once('-') else {
        return Range::Whole;
    };
    let num = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    match (a.is_empty(), b.is_empty()) {
        (true, true) => Range::Whole,
        (true, false) => match num(b) {
            None => Range::Whole,
            Some(0) => Range::Unsatisfiable,
            Some(_) if size == 0 => Range::Unsatisfiable,
            Some(n) => Range::Bytes(size - n.min(size), size - 1),
        },
        (false, open) => {
            let Some(first) = num(a) else {
                return Range::Whole;
            };
            let last = if open { Some(u64::MAX) } else { num(b) };
            match last {
                None => Range::Whole,
                Some(last) if last < first => Range::Whole,
                Some(_) if first >= size => Range::Unsatisfiable,
                Some(last) => Range::Bytes(first, last.min(size - 1)),
            }
        }
    }
}

/// A request's ETag preconditions, as sent.
#[derive(Debug, Default)]
pub struct Validators {
    pub if_match: Option<String>,
    pub if_none_match: Option<String>,
    pub if_range: Option<String>,
}

impl Validators {
    pub fn of(headers: &HeaderMap) -> Self {
        let get = |h: HeaderName| {
            headers
                .get(h)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        Validators {
            if_match: get(header::IF_MATCH),
            if_none_match: get(header::IF_NONE_MATCH),
            if_range: get(header::IF_RANGE),
        }
    }

    /// What the preconditions make of a GET or HEAD of a file whose ETag is `etag`.
    fn judge(&self, etag: &str) -> Verdict {
        let names = |list: &str| {
            list.split(',')
                .map(str::trim)
                .any(|t| t == "*" || t == etag)
        };
        if self.if_match.as_deref().is_some_and(|m| !names(m)) {
            return Verdict::Forward;
        }
        if let Some(n) = &self.if_none_match {
            return if names(n) {
                Verdict::NotModified
            } else {
                Verdict::Forward
            };
        }
        if self.if_range.as_deref().is_some_and(|r| r.trim() != etag) {
            return Verdict::Forward;
        }
        Verdict::Serve
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Serve,
    /// 304: If-None-Match names the local ETag.
    NotModified,
    /// A precondition names another ETag (or a date): the upstream server decides.
    Forward,
}

/// A local answer: status, headers (names and values), body.
pub struct Answer {
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, String)>,
    pub body: Bytes,
}

/// The answer to a GET (or HEAD, `head`) of `file`, with `patches` written over its bytes; None
/// when it is not a regular file (following symbolic links), when a precondition names another
/// ETag, or when the body would exceed [`MAX_BODY`]: the request goes upstream.
pub fn answer(
    file: &Path,
    patches: &[Patch],
    head: bool,
    range: Option<&str>,
    validators: &Validators,
) -> io::Result<Option<Answer>> {
    let Ok(meta) = std::fs::metadata(file) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Ok(None);
    }
    let size = meta.len();
    let tag = etag(&meta, patches);
    let mut headers = vec![(header::ACCEPT_RANGES, "bytes".to_string())];
    match validators.judge(&tag) {
        Verdict::Serve => {}
        Verdict::Forward => return Ok(None),
        Verdict::NotModified => {
            headers.push((header::ETAG, tag));
            return Ok(Some(Answer {
                status: StatusCode::NOT_MODIFIED,
                headers,
                body: Bytes::new(),
            }));
        }
    }
    let (status, first, len) = match if head {
        Range::Whole
    } else {
        parse_range(range, size)
    } {
        Range::Whole => (StatusCode::OK, 0, size),
        Range::Bytes(a, b) => {
            headers.push((header::CONTENT_RANGE, format!("bytes {a}-{b}/{size}")));
            (StatusCode::PARTIAL_CONTENT, a, b - a + 1)
        }
        Range::Unsatisfiable => {
            headers.push((header::CONTENT_RANGE, format!("bytes */{size}")));
            headers.push((header::CONTENT_LENGTH, "0".to_string()));
            return Ok(Some(Answer {
                status: StatusCode::RANGE_NOT_SATISFIABLE,
                headers,
                body: Bytes::new(),
            }));
        }
    };
    if len > MAX_BODY && !head {
        return Ok(None);
    }
    headers.extend([
        (header::CONTENT_TYPE, "application/octet-stream".to_string()),
        (header::CONTENT_LENGTH, len.to_string()),
        (header::ETAG, tag),
    ]);
    if let Ok(t) = meta.modified() {
        headers.push((header::LAST_MODIFIED, httpdate::fmt_http_date(t)));
    }
    let body = if head || len == 0 {
        Bytes::new()
    } else {
        let mut buf = vec![0; len as usize];
        File::open(file)?.read_exact_at(&mut buf, first)?;
        overlay::apply(patches, first, &mut buf);
        Bytes::from(buf)
    };
    Ok(Some(Answer {
        status,
        headers,
        body,
    }))
}

/// Size and mtime (to the nanosecond), so the same file gives the same ETag in every run, and a
/// hash of the patches written over it, if any. A listing gives the same ETag as a GET.
pub fn etag(meta: &Metadata, patches: &[Patch]) -> String {
    let ns = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
    if patches.is_empty() {
        format!("\"{:x}-{:x}\"", meta.len(), ns)
    } else {
        let h = overlay::hash(patches);
        format!("\"{:x}-{:x}-{h:x}\"", meta.len(), ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        use Range::*;
        let r = |h: &str| parse_range(Some(h), 100);
        assert_eq!(parse_range(None, 100), Whole);
        assert_eq!(r("bytes=0-9"), Bytes(0, 9));
        assert_eq!(r("bytes=90-200"), Bytes(90, 99));
        assert_eq!(r("bytes=99-99"), Bytes(99, 99));
        assert_eq!(r("bytes=10-"), Bytes(10, 99));
        assert_eq!(r("bytes=-10"), Bytes(90, 99));
        assert_eq!(r("bytes=-1000"), Bytes(0, 99));
        assert_eq!(r(" Bytes = 5-6 "), Bytes(5, 6));
        assert_eq!(r("bytes=100-"), Unsatisfiable);
        assert_eq!(r("bytes=100-200"), Unsatisfiable);
        assert_eq!(r("bytes=-0"), Unsatisfiable);
        assert_eq!(parse_range(Some("bytes=0-"), 0), Unsatisfiable);
        assert_eq!(parse_range(Some("bytes=-5"), 0), Unsatisfiable);
        // Ignored: the whole object.
        for h in [
            "bytes=9-5",
            "bytes=0-1,5-6",
            "items=0-1",
            "bytes=-",
            "bytes=a-b",
            "bytes=+1-2",
            "bytes=5",
        ] {
            assert_eq!(r(h), Whole, "{h}");
        }
        assert_eq!(r("bytes=99999999999999999999-"), Whole);
    }

    #[test]
    fn keys_stay_under_the_root() {
        for k in ["a.nc", "dir/a.nc", "a..b", "..a", ".hidden"] {
            assert!(valid_key(k), "{k}");
        }
        for k in [
            "", "/a", "a/", "a//b", "..", "../a", "a/../b", "a/.", "./a", "a\0b",
        ] {
            assert!(!valid_key(k), "{k:?}");
        }
        let root = LocalRoot {
            dir: PathBuf::from("/data"),
            bucket: Some("bench".into()),
        };
        let h = HeaderMap::new();
        let c = |p: &str, q: Option<&str>| root.candidate(p, q, &h);
        assert_eq!(
            c("/bench/x/a%20b.nc", None),
            Some(PathBuf::from("/data/x/a b.nc"))
        );
        assert_eq!(
            c("/bench/a.nc", Some("x-id=GetObject")),
            Some(PathBuf::from("/data/a.nc"))
        );
        assert_eq!(c("/bench/%2E%2E/etc/passwd", None), None);
        assert_eq!(c("/bench/..%2Fx", None), None);
        assert_eq!(c("/bench/a%zz", None), None);
        assert_eq!(c("/bench", None), None);
        assert_eq!(c("/bench/", Some("list-type=2")), None);
        assert_eq!(c("/other/a.nc", None), None);
        assert_eq!(c("/benchx/a.nc", None), None);
        assert_eq!(c("/bench/a.nc", Some("tagging")), None);
        assert_eq!(c("/bench/a.nc", Some("versionId=3")), None);
        let mut dated = HeaderMap::new();
        dated.insert(
            header::IF_MODIFIED_SINCE,
            "Sun, 06 Dec 2026 08:04:42 GMT".parse().unwrap(),
        );
        assert_eq!(root.candidate("/bench/a.nc", None, &dated), None);
        let plain = LocalRoot {
            dir: PathBuf::from("/data"),
            bucket: None,
        };
        assert_eq!(
            plain.candidate("/a.nc", None, &h),
            Some(PathBuf::from("/data/a.nc"))
        );
    }

    #[test]
    fn files_are_answered_with_ranges() {
        let dir = std::env::temp_dir().join(format!("vzplan-latency-proxy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("obj");
        std::fs::write(&f, b"0123456789").unwrap();
        let none = Validators::default();
        let get = |r: Option<&str>| answer(&f, &[], false, r, &none).unwrap().unwrap();
        let a = get(Some("bytes=2-4"));
        assert_eq!(
            (a.status, &a.body[..]),
            (StatusCode::PARTIAL_CONTENT, &b"234"[..])
        );
        let h = |a: &Answer, n: HeaderName| {
            a.headers
                .iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            h(&a, header::CONTENT_RANGE).as_deref(),
            Some("bytes 2-4/10")
        );
        assert_eq!(h(&a, header::CONTENT_LENGTH).as_deref(), Some("3"));
        let w = get(None);
        assert_eq!(
            (w.status, &w.body[..]),
            (StatusCode::OK, &b"0123456789"[..])
        );
        assert_eq!(h(&w, header::ETAG), h(&a, header::ETAG));
        assert!(h(&w, header::LAST_MODIFIED).unwrap().ends_with(" GMT"));
        assert_eq!(
            get(Some("bytes=10-")).status,
            StatusCode::RANGE_NOT_SATISFIABLE
        );
        let head = answer(&f, &[], true, Some("bytes=2-4"), &none)
            .unwrap()
            .unwrap();
        assert_eq!((head.status, head.body.len()), (StatusCode::OK, 0));
        assert_eq!(h(&head, header::CONTENT_LENGTH).as_deref(), Some("10"));
        assert!(
            answer(&dir, &[], false, None, &none).unwrap().is_none(),
            "a directory goes upstream"
        );
        assert!(answer(&dir.join("missing"), &[], false, None, &none)
            .unwrap()
            .is_none());

        // Preconditions naming the local ETag are decided here; any other goes upstream (None).
        let tag = h(&w, header::ETAG).unwrap();
        let with = |m: Option<&str>, n: Option<&str>, r: Option<&str>| Validators {
            if_match: m.map(String::from),
            if_none_match: n.map(String::from),
            if_range: r.map(String::from),
        };
        let status = |v: Validators| {
            answer(&f, &[], false, Some("bytes=2-4"), &v)
                .unwrap()
                .map(|a| a.status)
        };
        let other = "\"d41d8cd98f00b204e9800998ecf8427e\"";
        let list = format!("{other}, {tag}");
        assert_eq!(
            status(with(Some(&tag), None, None)),
            Some(StatusCode::PARTIAL_CONTENT)
        );
        assert_eq!(
            status(with(Some(&list), None, None)),
            Some(StatusCode::PARTIAL_CONTENT)
        );
        assert_eq!(
            status(with(Some("*"), None, None)),
            Some(StatusCode::PARTIAL_CONTENT)
        );
        assert_eq!(status(with(Some(other), None, None)), None);
        assert_eq!(
            status(with(None, Some(&tag), None)),
            Some(StatusCode::NOT_MODIFIED)
        );
        assert_eq!(status(with(None, Some(other), None)), None);
        assert_eq!(
            status(with(None, None, Some(&tag))),
            Some(StatusCode::PARTIAL_CONTENT)
        );
        assert_eq!(status(with(None, None, Some(other))), None);

        // An overlay changes the bytes served and the ETag.
        let patches = [Patch {
            offset: 3,
            bytes: b"ab".to_vec(),
        }];
        let o = answer(&f, &patches, false, Some("bytes=2-5"), &none)
            .unwrap()
            .unwrap();
        assert_eq!(&o.body[..], b"2ab5");
        let tag_o = h(&o, header::ETAG).unwrap();
        assert_ne!(tag_o, tag);
        assert_eq!(tag_o, etag(&std::fs::metadata(&f).unwrap(), &patches));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
