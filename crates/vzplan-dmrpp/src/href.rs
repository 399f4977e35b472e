//! Where the granule is: `dmrpp:href` as a URL the references can name.
//!
//! ```text
//! s3://bkt/g/x.h5.dmrpp   href="https://data.example/x.h5"      → https://data.example/x.h5
//! file:///d/x.h5.dmrpp    href="sub/x.h5"                       → file:///d/sub/x.h5
//! s3://bkt/g/x.h5.dmrpp   href="OPeNDAP_DMRpp_DATA_ACCESS_URL"  → s3://bkt/g/x.h5
//! https://h/x.h5.dmrpp    href="/etc/passwd"                    → refused
//! ```
//!
//! NASA's DMR++ name their granule by an absolute URL, taken as it is (after the one URL check
//! every source URL passes, [`vzplan_io::check_source_url`]). A relative href is resolved beside
//! the `.dmrpp`, lexically, never past the root ([`vzplan_io::linked_urls`]). An absolute path is
//! taken only from a local `.dmrpp`: a document fetched from a server does not get to name this
//! machine's files. The placeholder `build_dmrpp -u` writes when no URL is given (and a missing
//! href) mean the granule beside the `.dmrpp`, under its name without `.dmrpp`, as VirtualiZarr
//! reads them.

/// What `build_dmrpp` writes when it is given no data URL.
pub const PLACEHOLDER: &str = "OPeNDAP_DMRpp_DATA_ACCESS_URL";

/// The granule's URL for a DMR++ at `dmrpp_url` (canonical) whose `dmrpp:href` is `href`, or
/// why it has none.
pub fn granule_url(dmrpp_url: &str, href: Option<&str>) -> Result<String, String> {
    let href = href
        .map(str::trim)
        .filter(|h| !h.is_empty() && *h != PLACEHOLDER);
    let url = match href {
        None => beside(dmrpp_url)?,
        Some(h) if h.contains("://") => {
            // Object URLs as object stores spell them; a file URL is a path.
            match h.strip_prefix("file://") {
                Some(path) => local(dmrpp_url, path)?,
                None => vzplan_io::canonical_url(h).map_err(|e| e.to_string())?,
            }
        }
        Some(h) if h.starts_with('/') => local(dmrpp_url, h)?,
        Some(h) => vzplan_io::linked_urls(dmrpp_url, h)
            .into_iter()
            .next()
            .ok_or_else(|| format!("dmrpp:href {h:?} leads past the root"))?,
    };
    vzplan_io::check_source_url(&url).map_err(|e| e.to_string())?;
    Ok(url)
}

/// An absolute path, from a local `.dmrpp` only.
fn local(dmrpp_url: &str, path: &str) -> Result<String, String> {
    if !dmrpp_url.starts_with("file://") {
        return Err(format!(
            "dmrpp:href names the local path {path:?}, and the DMR++ is not a local file"
        ));
    }
    vzplan_io::linked_urls("file:///", path.trim_start_matches('/'))
        .into_iter()
        .next()
        .ok_or_else(|| format!("dmrpp:href {path:?} names no file"))
}

/// The `.dmrpp`'s URL without `.dmrpp` (or `.dap.dmrpp`).
fn beside(dmrpp_url: &str) -> Result<String, String> {
    dmrpp_url
        .strip_suffix(".dap.dmrpp")
        .or_else(|| dmrpp_url.strip_suffix(".dmrpp"))
        .filter(|g| !g.ends_with('/'))
        .map(str::to_string)
        .ok_or_else(|| {
            "no dmrpp:href, and the file's name does not end in .dmrpp to name the granule beside it"
                .to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::granule_url;

    #[test]
    fn hrefs_resolve_or_are_refused() {
        let g = granule_url;
        assert_eq!(
            g("s3://bkt/g/x.h5.dmrpp", Some("https://data.example/x.h5")).unwrap(),
            "https://data.example/x.h5"
        );
        assert_eq!(
            g("file:///d/x.h5.dmrpp", Some("data/dmrpp/x.h5")).unwrap(),
            "file:///d/data/dmrpp/x.h5"
        );
        assert_eq!(
            g("s3://bkt/g/x.h5.dmrpp", Some("../y/x.h5")).unwrap(),
            "s3://bkt/y/x.h5"
        );
        assert_eq!(
            g("s3://bkt/g/x.h5.dmrpp", Some(super::PLACEHOLDER)).unwrap(),
            "s3://bkt/g/x.h5"
        );
        assert_eq!(
            g("file:///d/x.nc.dap.dmrpp", None).unwrap(),
            "file:///d/x.nc"
        );
        assert_eq!(
            g("file:///d/x.dmrpp", Some("/a/b.h5")).unwrap(),
            "file:///a/b.h5"
        );
        assert!(g("https://h/x.h5.dmrpp", Some("/etc/passwd")).is_err());
        assert!(g("https://h/x.h5.dmrpp", Some("file:///etc/passwd")).is_err());
        assert!(g("file:///d/x.dmrpp", Some("../../../..")).is_err());
        assert!(g("file:///d/x.dmrpp", Some("javascript:alert(1)"))
            .is_ok_and(|u| u.starts_with("file:///d/")));
        assert!(g("file:///d/x.dmrpp", Some("https://u:p@h/x.h5")).is_err());
        assert!(g("file:///d/x.dmrpp", Some("https://h/x.h5?sig=1")).is_err());
        assert!(g("file:///d/x.xml", None).is_err());
    }
}
