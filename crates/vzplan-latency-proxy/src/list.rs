//! The bucket answered from the local directory (`--list-local`): ListObjectsV2 pages, HeadBucket
//! and GetBucketLocation, so that no S3 server has to hold the objects to list them.
//!
//! The benchmark lists up to 10,000 objects, more than an S3 emulator can hold here, and a listing
//! is made of the keys, sizes and dates alone: those of the files under the root serve. The
//! directory is walked once (again on `/__reset`) and kept sorted, so that each page is a binary
//! search and at most 1,000 entries, not a walk of 10,000 files.

use crate::local::{etag, percent_decode, valid_key};
use crate::overlay::Overlays;
use std::fmt::Write;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The XML namespace of S3's answers.
pub const NS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

/// The most keys a page holds, as on S3.
const PAGE: usize = 1000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    pub key: String,
    pub size: u64,
    /// ISO 8601 in UTC, to the millisecond, as S3 lists it.
    pub modified: String,
    /// The ETag a GET or HEAD of the key gives.
    pub etag: String,
}

/// The objects under the root, sorted by key (byte order, as S3 lists them).
#[derive(Debug, Default)]
pub struct Listing {
    objects: Vec<Object>,
}

impl Listing {
    pub fn new(mut objects: Vec<Object>) -> Self {
        objects.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        Listing { objects }
    }

    /// Every regular file under `dir` (following symbolic links) whose relative path is a key a
    /// GET accepts; a dangling link, a name that is not UTF-8, or a link back to a directory
    /// above it is skipped.
    pub fn walk(dir: &Path, overlays: &Overlays) -> io::Result<Self> {
        let meta = std::fs::metadata(dir)?;
        let mut ancestors = vec![(meta.dev(), meta.ino())];
        let mut out = Vec::new();
        walk_dir(dir, "", &mut ancestors, overlays, &mut out)?;
        Ok(Listing::new(out))
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// One ListObjectsV2 page: the XML, or the message of a 400 (a continuation token this
    /// listing did not give).
    pub fn page(&self, bucket: &str, q: &Query) -> Result<String, String> {
        let keys = &self.objects;
        let (after, rolled_up) = match &q.token {
            Some(t) => decode_token(t).ok_or("The continuation token provided is incorrect")?,
            None => (q.start_after.clone().unwrap_or_default(), false),
        };
        let mut i = keys.partition_point(|o| o.key <= after);
        if rolled_up {
            // The token is a common prefix already given: the keys under it are given too.
            i = skip_under(keys, i, &after);
        }
        i = i.max(keys.partition_point(|o| o.key < q.prefix));
        let (mut contents, mut prefixes, mut last) = (Vec::new(), Vec::new(), None);
        while i < keys.len() && keys[i].key.starts_with(&q.prefix) {
            if contents.len() + prefixes.len() == q.max_keys {
                break;
            }
            let key = keys[i].key.as_str();
            let rest = &key[q.prefix.len()..];
            let common = q.delimiter.as_deref().and_then(|d| {
                let at = rest.find(d)?;
                Some(&key[..q.prefix.len() + at + d.len()])
            });
            match common {
                Some(p) => {
                    prefixes.push(p);
                    last = Some(token('P', p));
                    i = skip_under(keys, i, p);
                }
                None => {
                    contents.push(&keys[i]);
                    last = Some(token('K', key));
                    i += 1;
                }
            }
        }
        let more = i < keys.len() && keys[i].key.starts_with(&q.prefix);
        let next = last.filter(|_| more);

        let enc = |s: &str| escape(&if q.url { url_encode(s) } else { s.to_string() });
        let mut x = String::with_capacity(512 + 256 * contents.len());
        x.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = write!(x, "<ListBucketResult xmlns=\"{NS}\">");
        let _ = write!(x, "<Name>{}</Name>", escape(bucket));
        let _ = write!(x, "<Prefix>{}</Prefix>", enc(&q.prefix));
        if let Some(d) = &q.delimiter {
            let _ = write!(x, "<Delimiter>{}</Delimiter>", enc(d));
        }
        let _ = write!(x, "<MaxKeys>{}</MaxKeys>", q.max_keys);
        if q.url {
            x.push_str("<EncodingType>url</EncodingType>");
        }
        let _ = write!(
            x,
            "<KeyCount>{}</KeyCount>",
            contents.len() + prefixes.len()
        );
        let _ = write!(x, "<IsTruncated>{}</IsTruncated>", next.is_some());
        if let Some(t) = &q.token {
            let _ = write!(x, "<ContinuationToken>{}</ContinuationToken>", escape(t));
        }
        if let Some(t) = &next {
            let _ = write!(x, "<NextContinuationToken>{t}</NextContinuationToken>");
        }
        if let Some(s) = &q.start_after {
            let _ = write!(x, "<StartAfter>{}</StartAfter>", enc(s));
        }
        for o in contents {
            let _ = write!(
                x,
                "<Contents><Key>{}</Key><LastModified>{}</LastModified><ETag>{}</ETag>\
                 <Size>{}</Size><StorageClass>STANDARD</StorageClass></Contents>",
                enc(&o.key),
                o.modified,
                escape(&o.etag),
                o.size
            );
        }
        for p in prefixes {
            let _ = write!(
                x,
                "<CommonPrefixes><Prefix>{}</Prefix></CommonPrefixes>",
                enc(p)
            );
        }
        x.push_str("</ListBucketResult>");
        Ok(x)
    }
}

fn walk_dir(
    dir: &Path,
    rel: &str,
    ancestors: &mut Vec<(u64, u64)>,
    overlays: &Overlays,
    out: &mut Vec<Object>,
) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let path = entry.path();
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let key = format!("{rel}{name}");
        if meta.is_dir() {
            let id = (meta.dev(), meta.ino());
            if !ancestors.contains(&id) {
                ancestors.push(id);
                walk_dir(&path, &format!("{key}/"), ancestors, overlays, out)?;
                ancestors.pop();
            }
        } else if meta.is_file() && valid_key(&key) {
            let patches = overlays.get(&key);
            out.push(Object {
                etag: etag(&meta, patches.as_deref().unwrap_or(&[])),
                size: meta.len(),
                modified: iso8601(meta.mtime(), meta.mtime_nsec()),
                key,
            });
        }
    }
    Ok(())
}

/// The first position from `i` on whose key does not start with `prefix` (the keys that do are
/// together, and `keys[i]` is not before them).
fn skip_under(keys: &[Object], i: usize, prefix: &str) -> usize {
    i + keys[i..].partition_point(|o| o.key.starts_with(prefix))
}

/// The last entry of a page, in hex, with whether it is a key (`K`) or a common prefix (`P`).
fn token(kind: char, item: &str) -> String {
    let mut t = format!("{:02x}", kind as u8);
    for b in item.bytes() {
        let _ = write!(t, "{b:02x}");
    }
    t
}

fn decode_token(t: &str) -> Option<(String, bool)> {
    let bytes = crate::overlay::unhex(t)?;
    let (kind, item) = bytes.split_first()?;
    let item = String::from_utf8(item.to_vec()).ok()?;
    match kind {
        b'K' => Some((item, false)),
        b'P' => Some((item, true)),
        _ => None,
    }
}

/// A ListObjectsV2 request's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub prefix: String,
    pub delimiter: Option<String>,
    /// At most [`PAGE`].
    pub max_keys: usize,
    pub start_after: Option<String>,
    pub token: Option<String>,
    /// `encoding-type=url`: keys, prefixes and the delimiter percent-encoded in the answer
    /// (botocore asks for it and decodes them).
    pub url: bool,
}

impl Default for Query {
    fn default() -> Self {
        Query {
            prefix: String::new(),
            delimiter: None,
            max_keys: PAGE,
            start_after: None,
            token: None,
            url: false,
        }
    }
}

/// What a request of the bucket itself (`/{bucket}`, path-style) asks.
#[derive(Debug, PartialEq, Eq)]
pub enum BucketRequest {
    List(Query),
    Location,
    Head,
}

/// The bucket request that `method path?query` is, if the listing answers it (None: an object,
/// another bucket, ListObjects version 1, another subresource); Err for a malformed parameter.
pub fn bucket_request(
    method: &hyper::Method,
    path: &str,
    query: Option<&str>,
    bucket: &str,
) -> Option<Result<BucketRequest, String>> {
    let rest = path.strip_prefix('/')?.strip_prefix(bucket)?;
    if !rest.is_empty() && rest != "/" {
        return None;
    }
    let params: Vec<(String, String)> = query
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let dec = |s: &str| percent_decode(&s.replace('+', " "));
            Some((dec(k)?, dec(v)?))
        })
        .collect::<Option<_>>()?;
    let has = |name: &str| params.iter().any(|(k, _)| k == name);
    match *method {
        hyper::Method::HEAD if params.is_empty() => Some(Ok(BucketRequest::Head)),
        hyper::Method::GET if has("location") => Some(Ok(BucketRequest::Location)),
        hyper::Method::GET if params.iter().any(|(k, v)| k == "list-type" && v == "2") => {
            Some(list_query(&params).map(BucketRequest::List))
        }
        _ => None,
    }
}

fn list_query(params: &[(String, String)]) -> Result<Query, String> {
    let mut q = Query::default();
    for (k, v) in params {
        match k.as_str() {
            "prefix" => q.prefix = v.clone(),
            "delimiter" => q.delimiter = (!v.is_empty()).then(|| v.clone()),
            "start-after" => q.start_after = (!v.is_empty()).then(|| v.clone()),
            "continuation-token" => q.token = Some(v.clone()),
            "encoding-type" => q.url = v == "url",
            "max-keys" => {
                let n: usize = v
                    .parse()
                    .map_err(|_| format!("max-keys: not a number: {v}"))?;
                q.max_keys = n.min(PAGE);
            }
            _ => {}
        }
    }
    Ok(q)
}

/// `<LocationConstraint/>`: us-east-1, which S3 names with an empty constraint.
pub fn location_xml() -> String {
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<LocationConstraint xmlns=\"{NS}\"/>")
}

/// An S3 error document.
pub fn error_xml(code: &str, message: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{}</Message></Error>",
        escape(message)
    )
}

/// Text for XML content or attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Percent-encoding of all but the unreserved characters and `/`, as S3 encodes keys.
fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of a time in seconds and nanoseconds since 1970 (UTC).
pub fn iso8601(secs: i64, nanos: i64) -> String {
    let nanos = u32::try_from(nanos.clamp(0, 999_999_999)).unwrap_or(0);
    chrono::DateTime::from_timestamp(secs, nanos)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

#[cfg(test)]
#[path = "list_tests.rs"]
mod tests;
