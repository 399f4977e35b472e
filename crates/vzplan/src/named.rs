//! The sources a run may read, or send a request about, because the person running it named them.
//!
//! A scan reads what it was given. Everything after a scan works from layouts, and a layout line —
//! written by a worker on another machine, kept beside outputs anyone may edit, handed over in
//! memory — is untrusted text: its URL must never make vzplan read a file or send a request the
//! person running it did not name (`file:///etc/passwd` inlined into refs.json by `--patch`, a
//! cloud metadata endpoint asked for credentials). So a source named only by a layout is read
//! (`--patch`) or asked about (an append's check that kept objects are unchanged) only when it is
//!
//! - one of the inputs scanned by this run (its exact URL), or
//! - under a prefix given with `--sources-under` (`s3://bucket/cmip/`, `/data/tas/`): its URL is
//!   the prefix followed by `/` and more.
//!
//! Anything else is left out with a finding that says which flag names it. Local files a kept
//! layout names are still `stat`ed by an append (their size and time, never their bytes).
//! Because every read of a layout's source needs a named prefix, a loopback, link-local or cloud
//! metadata host (`http://169.254.169.254/…`) is reached only when the person gave that very host.

use std::collections::HashSet;
use vzplan_io::IoError;

/// Named sources: exact URLs (inputs scanned), prefixes (`--sources-under`) and the URL patterns
/// given as inputs (their matches are inputs too, listed while the scan runs).
#[derive(Clone, Debug, Default)]
pub struct Named {
    exact: HashSet<String>,
    /// Normalised, without a trailing `/`.
    prefixes: Vec<String>,
    patterns: Vec<glob::Pattern>,
}

/// Why a `--sources-under` prefix cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("--sources-under {prefix}: {reason}")]
pub struct PrefixError {
    pub prefix: String,
    pub reason: String,
}

impl Named {
    /// The scanned inputs' URLs and the prefixes given (local paths or object URLs).
    pub fn new<'a>(
        inputs: impl IntoIterator<Item = &'a str>,
        prefixes: &[String],
    ) -> Result<Named, PrefixError> {
        Ok(Named {
            exact: inputs.into_iter().map(str::to_string).collect(),
            prefixes: prefixes
                .iter()
                .map(|p| prefix(p))
                .collect::<Result<_, _>>()?,
            patterns: Vec::new(),
        })
    }

    /// These, and what the URL patterns given as inputs match (as their listing matches keys:
    /// `*` within one `/` segment).
    pub fn with_patterns<'a>(mut self, patterns: impl IntoIterator<Item = &'a str>) -> Named {
        let canonical = patterns
            .into_iter()
            .filter_map(|p| vzplan_io::canonical_url(p).ok());
        self.patterns = canonical
            .filter_map(|p| glob::Pattern::new(&p).ok())
            .collect();
        self
    }

    /// Whether `url` (canonical) was named.
    pub fn allows(&self, url: &str) -> bool {
        let glob_opts = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        self.exact.contains(url)
            || self.patterns.iter().any(|p| p.matches_with(url, glob_opts))
            || self.prefixes.iter().any(|p| {
                url.strip_prefix(p.as_str())
                    .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
            })
    }

    /// `Ok` when `url` was named, else why it is not read.
    pub fn check(&self, url: &str) -> Result<(), IoError> {
        if self.allows(url) {
            return Ok(());
        }
        Err(IoError::Url {
            url: vzplan_io::redact(url),
            reason: format!(
                "not read: only a layout names this source, and no --sources-under prefix holds \
                 it (pass --sources-under {} to let vzplan read it)",
                flag_for(url)
            ),
        })
    }
}

/// The `--sources-under` value that names a URL's parent, as a person would type it: a local
/// directory as its path, an object prefix as its URL; redacted.
pub fn flag_for(url: &str) -> String {
    let p = parent(url);
    vzplan_io::redact(p.strip_prefix("file://").unwrap_or(&p))
}

/// A URL's parent: everything up to its last `/`, with the `/`.
pub fn parent(url: &str) -> String {
    match url.rfind('/') {
        Some(i) => url[..=i].to_string(),
        None => url.to_string(),
    }
}

/// A prefix as given, normalised like the URLs it is compared with: a local path made absolute
/// (`file:///data/tas`), an object URL in canonical form; without a trailing `/`.
fn prefix(p: &str) -> Result<String, PrefixError> {
    let bad = |reason: String| PrefixError {
        prefix: vzplan_io::redact(p),
        reason,
    };
    let canonical = vzplan_io::canonical_url(p).map_err(|e| match e {
        IoError::Url { reason, .. } => bad(reason),
        e => bad(e.to_string()),
    })?;
    let trimmed = canonical.trim_end_matches('/');
    let Some((_, rest)) = trimmed.split_once("://") else {
        return Err(bad("not a path or URL".into()));
    };
    if rest.is_empty() || rest == "/" || (trimmed.starts_with("file://") && rest.len() < 2) {
        return Err(bad(
            "names everything; give the directory or bucket prefix the sources are under".into(),
        ));
    }
    if rest.split('/').any(|s| s == "." || s == "..") {
        return Err(bad("not normalised (a '.' or '..' segment)".into()));
    }
    Ok(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_named_exactly_or_under_a_prefix() {
        let n = Named::new(
            ["file:///in/a.nc"],
            &["s3://bkt/cmip/".into(), "/data/tas".into()],
        )
        .unwrap();
        assert!(n.allows("file:///in/a.nc"));
        assert!(!n.allows("file:///in/b.nc"));
        assert!(n.allows("s3://bkt/cmip/x/y.nc"));
        assert!(n.allows("file:///data/tas/a.nc"));
        assert!(
            !n.allows("s3://bkt/cmip"),
            "the prefix itself is no object under it"
        );
        assert!(
            !n.allows("s3://bkt/cmip2/a.nc"),
            "a sibling sharing the letters"
        );
        assert!(!n.allows("file:///data/tasmax/a.nc"));
        assert!(!n.allows("file:///etc/passwd"));
        assert!(!n.allows("http://169.254.169.254/latest/meta-data/"));
        let e = n.check("file:///etc/passwd").unwrap_err().to_string();
        assert!(e.contains("--sources-under /etc/ "), "{e}");
        let e = n.check("s3://other/x/a.nc").unwrap_err().to_string();
        assert!(e.contains("--sources-under s3://other/x/ "), "{e}");
        for bad in ["/", "file:///", "s3://", "ftp://h/x", "s3://b/k?sig=1"] {
            assert!(Named::new([], &[bad.into()]).is_err(), "{bad}");
        }
        let bucket = Named::new([], &["s3://bkt".into()]).unwrap();
        assert!(bucket.allows("s3://bkt/a.nc"));
        let listed = Named::new([], &[])
            .unwrap()
            .with_patterns(["s3://bkt/d/*.nc"]);
        assert!(listed.allows("s3://bkt/d/a.nc"));
        assert!(
            !listed.allows("s3://bkt/d/x/a.nc"),
            "`*` stays in one segment"
        );
        assert!(!listed.allows("s3://bkt/d/a.h5"));
        assert!(!listed.allows("s3://other/d/a.nc"));
    }
}
