//! The one check every source URL vzplan did not make itself passes: URLs read from a layout
//! line, a kept layouts file or an object listing. A URL that passes is written into refs.json and
//! may later be read, so it must say exactly one thing to every reader:
//!
//! - an allowed scheme: `file`, `s3`, `gs`, `az`, `abfs`, `http`, `https` (and their aliases
//!   `s3a`, `gcs`, `azure`, `abfss`);
//! - absolute (`file:///data/a.nc`, never `../a.nc` or `file://host/a.nc`), with a bucket or host;
//! - normalised: no `.` or `..` segment (nor one spelled `%2e`), no empty segment (`a//b`), no
//!   trailing `/`, and for object URLs exactly the canonical form ([`crate::canonical_url`]), so
//!   that `https://@host/`, `HTTPS://HOST/` or `s3a://` cannot mean something else to fsspec;
//! - no credentials, query string or fragment (signed URLs), no control character.
//!
//! ```text
//! file:///data/tas/a.nc         ok
//! file:///work/../etc/passwd    refused: a '..' segment
//! ../../../../etc/passwd        refused: not an absolute URL
//! javascript:alert(1)           refused: scheme
//! ```
//! Paths typed on the command line are the user's own and are normalised instead
//! ([`crate::file_url`]).

use crate::IoError;

/// Why a URL from a file cannot be used, or `Ok` when it passes (see the module).
pub fn check_source_url(url: &str) -> Result<(), IoError> {
    let refuse = |why: &str| {
        Err(IoError::Url {
            url: crate::redact(url),
            reason: why.to_string(),
        })
    };
    if url.chars().any(|c| c.is_control()) {
        return refuse("a control character in the URL");
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return refuse("not an absolute URL (file:///…, s3://…, gs://…, az://…, https://…)");
    };
    if scheme == "file" {
        let Some(path) = rest.strip_prefix('/') else {
            return refuse("a file URL names a host; only file:///absolute/path is read");
        };
        return check_segments(path).or_else(|why| refuse(&why));
    }
    let canonical = crate::canonical_url(url)?;
    if canonical != url {
        return refuse(&format!(
            "not in canonical form (it would be {})",
            crate::redact(&canonical)
        ));
    }
    let key = rest.split_once('/').map_or("", |(_, k)| k);
    if key.is_empty() {
        return refuse("no object key");
    }
    check_segments(key).or_else(|why| refuse(&why))
}

/// A path or key's segments: none empty, none `.` or `..` however its dots are spelled.
fn check_segments(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("no path".into());
    }
    for seg in path.split('/') {
        if seg.is_empty() {
            return Err("an empty path segment ('//' or a trailing '/')".into());
        }
        let dots = seg.to_ascii_lowercase().replace("%2e", ".");
        if dots == "." || dots == ".." {
            return Err(format!("a '{dots}' segment (the URL is not normalised)"));
        }
    }
    Ok(())
}

/// Why a request to this URL's host is one to refuse when only a file names it: a loopback,
/// link-local or unspecified address, or a cloud metadata service's name; `None` otherwise (and
/// for object URLs, whose requests go to the store's endpoint). A name is judged as written:
/// one that resolves to such an address is not caught here, which is why reads of sources a
/// file names also need a named prefix ([`crate`]'s callers).
pub fn special_host(url: &str) -> Option<&'static str> {
    use std::net::IpAddr;
    let u = url::Url::parse(url).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    let ip = match u.host()? {
        url::Host::Ipv4(a) => IpAddr::V4(a),
        url::Host::Ipv6(a) => a.to_ipv4_mapped().map_or(IpAddr::V6(a), IpAddr::V4),
        url::Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            let metadata = ["metadata", "metadata.google.internal", "instance-data"];
            return if d == "localhost" || d.ends_with(".localhost") {
                Some("a loopback host")
            } else if metadata.contains(&d.as_str()) || d.ends_with(".internal") {
                Some("a cloud metadata host")
            } else {
                None
            };
        }
    };
    match ip {
        IpAddr::V4(a) if a.is_loopback() => Some("a loopback host"),
        IpAddr::V4(a) if a.is_link_local() => Some("a link-local host (cloud metadata)"),
        IpAddr::V4(a) if a.is_unspecified() => Some("the unspecified address"),
        // Alibaba Cloud's metadata service.
        IpAddr::V4(a) if a.octets() == [100, 100, 100, 200] => Some("a cloud metadata host"),
        IpAddr::V6(a) if a.is_loopback() => Some("a loopback host"),
        IpAddr::V6(a) if a.is_unspecified() => Some("the unspecified address"),
        IpAddr::V6(a) if (a.segments()[0] & 0xffc0) == 0xfe80 => Some("a link-local host"),
        // AWS's IPv6 metadata endpoint, fd00:ec2::254.
        IpAddr::V6(a) if a.segments()[..2] == [0xfd00, 0x0ec2] => Some("a cloud metadata host"),
        _ => None,
    }
}

/// Whether `t` is a modification time as vzplan records one: RFC 3339 in UTC,
/// `YYYY-MM-DDTHH:MM:SSZ` with an optional fraction of 1 to 9 digits.
pub fn valid_mtime(t: &str) -> bool {
    let b = t.as_bytes();
    if b.len() < 20 || b.len() > 30 || b.last() != Some(&b'Z') {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .filter(|d| d.iter().all(u8::is_ascii_digit))
            .map(|d| d.iter().fold(0u32, |n, x| n * 10 + u32::from(x - b'0')))
    };
    let seps = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if seps.iter().any(|&(i, c)| b[i] != c) {
        return false;
    }
    let ok = |r, lo, hi| digits(r).is_some_and(|v| (lo..=hi).contains(&v));
    let fields = ok(0..4, 0, 9999)
        && ok(5..7, 1, 12)
        && ok(8..10, 1, 31)
        && ok(11..13, 0, 23)
        && ok(14..16, 0, 59)
        && ok(17..19, 0, 60);
    let frac = &b[19..b.len() - 1];
    let frac_ok = frac.is_empty()
        || (frac[0] == b'.' && (2..=10).contains(&frac.len()) && digits(20..b.len() - 1).is_some());
    fields && frac_ok
}

/// Whether `e` is an entity tag as an object store returns one: printable ASCII without spaces,
/// at most 1 KiB (`"9b2cf535f27731c974343645a3985328"`, `W/"x"`, Azure's `"0x8DCB1…"`).
pub fn valid_etag(e: &str) -> bool {
    !e.is_empty() && e.len() <= 1024 && e.bytes().all(|c| (0x21..=0x7e).contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_normalised_urls_of_known_schemes_pass() {
        for ok in [
            "file:///data/tas/a.nc",
            "file:///d/x y.nc",
            "s3://bkt/a/b.nc",
            "gs://bkt/a.nc",
            "az://c/a.nc",
            "https://example.org:8443/d/x.nc",
            "http://127.0.0.1:9000/d/x.nc",
        ] {
            assert!(check_source_url(ok).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("../../../../etc/passwd", "absolute"),
            ("/etc/passwd", "absolute"),
            ("file:///work/../etc/passwd", "'..'"),
            ("file:///work/./a.nc", "'.'"),
            ("file:///work//a.nc", "empty"),
            ("file:///work/", "empty"),
            ("file://host/etc/passwd", "host"),
            ("file:///", "no path"),
            ("javascript:alert(1)", "absolute"),
            ("data:text/plain;base64,AAAA", "absolute"),
            ("ftp://h/a.nc", "scheme"),
            ("s3://bkt/a/../b.nc", "'..'"),
            ("s3://bkt/a/%2E%2e/b.nc", "'..'"),
            ("s3a://bkt/a.nc", "canonical"),
            ("https://@127.0.0.1/a.nc", "canonical"),
            ("HTTPS://EXAMPLE.org/a.nc", "canonical"),
            ("https://u:p@h/a.nc", "credentials"),
            ("s3://bkt/a.nc?X-Amz-Signature=1", "query"),
            ("s3://bkt/a\u{1b}[2J.nc", "control"),
            ("s3://bkt", "canonical"),
            ("s3://bkt/", "key"),
            ("s3:///a.nc", "bucket"),
        ] {
            let e = check_source_url(bad).err().map(|e| e.to_string());
            assert!(
                e.as_deref().is_some_and(|e| e.contains(why)),
                "{bad}: {e:?}"
            );
        }
    }

    #[test]
    fn loopback_link_local_and_metadata_hosts_are_told() {
        for special in [
            "http://127.0.0.1:9000/a.nc",
            "http://127.1.2.3/a.nc",
            "http://localhost/a.nc",
            "http://LOCALHOST./a.nc",
            "http://169.254.169.254/latest/meta-data/",
            "http://[::1]/a.nc",
            "http://[::ffff:127.0.0.1]/a.nc",
            "http://[fe80::1]/a.nc",
            "http://[fd00:ec2::254]/latest/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://100.100.100.200/latest/",
            "http://0.0.0.0/a.nc",
            "http://2130706433/a.nc",
        ] {
            assert!(special_host(special).is_some(), "{special}");
        }
        for plain in ["https://example.org/a.nc", "s3://b/a.nc", "file:///a.nc"] {
            assert!(special_host(plain).is_none(), "{plain}");
        }
    }

    #[test]
    fn times_and_etags_are_those_vzplan_records() {
        for ok in [
            "2026-12-03T15:52:08Z",
            "2026-12-03T15:52:08.280181428Z",
            "1970-01-01T00:00:00.5Z",
        ] {
            assert!(valid_mtime(ok), "{ok}");
        }
        for bad in [
            "",
            "yesterday",
            "2026-12-03 15:52:08Z",
            "2026-13-03T15:52:08Z",
            "2026-12-03T15:52:08",
            "2026-12-03T15:52:08.Z",
            "2026-12-03T15:52:08.1234567890Z",
            "2026-12-03T15:52:08+01:00",
            "\u{1b}]0;x\u{7}2026-12-03T15:52:08Z",
        ] {
            assert!(!valid_mtime(bad), "{bad}");
        }
        assert!(valid_etag("\"9b2cf535f27731c974343645a3985328\""));
        assert!(valid_etag("W/\"x\"") && valid_etag("\"0x8DCB1\""));
        assert!(!valid_etag("") && !valid_etag("a b") && !valid_etag("\u{1b}[2J"));
        assert!(!valid_etag(&"x".repeat(1025)));
    }
}
