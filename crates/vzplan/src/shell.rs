//! The names a person types: a flag on the command line (`--concat-dim time`), a keyword argument
//! in Python (`concat_dim="time"`). The library's messages — errors, the fixes of findings — name
//! options as the command line spells them; [`Shell::words`] rewrites them for the shell that shows
//! them, from one table ([`OPTIONS`]), so that a Python user is never told about a flag they
//! cannot pass.
//!
//! ```text
//! "--var tas: no such variable"        →  "var tas: no such variable"
//! "pass --patch to re-encode it"      →  "pass patch=True to re-encode it"
//! "give --keep-layouts=FILE"          →  "give keep_layouts=PATH"
//! ```

/// Where a message is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shell {
    /// The `vzplan` command: flags.
    #[default]
    Cli,
    /// The Python package: keyword arguments.
    Python,
}

/// One option: its flag, its keyword argument, and whether it takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opt {
    pub flag: &'static str,
    pub keyword: &'static str,
    pub takes_value: bool,
}

const fn opt(flag: &'static str, keyword: &'static str, takes_value: bool) -> Opt {
    Opt {
        flag,
        keyword,
        takes_value,
    }
}

/// Every option a message may name.
pub const OPTIONS: &[Opt] = &[
    opt("--allow-unreachable", "allow_unreachable", false),
    opt("--branch", "branch", true),
    opt("--chunk-bytes", "chunk_bytes", true),
    opt("--concat-dim", "concat_dim", true),
    opt("--fail-fast", "fail_fast", false),
    opt("--files-from", "paths", true),
    opt("--force", "force", false),
    opt("--from-layouts", "layouts", true),
    opt("--html", "html", true),
    opt("--icechunk", "icechunk", true),
    opt("--io-timeout", "io_timeout", true),
    opt("--jobs", "jobs", true),
    opt("--json", "Report.to_json()", false),
    opt("--keep-layouts", "keep_layouts", true),
    opt("--dmrpp", "dmrpp", false),
    opt("--mosaic-layout", "mosaic_layout", true),
    opt("--mosaic", "mosaic", false),
    opt("--no-templates", "no_templates", false),
    opt("--no-zarr-json", "no_zarr_json", false),
    opt("--output", "output", true),
    opt("--patch", "patch", false),
    opt("--shard-count", "batch_size", true),
    opt("--shard-from-env", "client", true),
    opt("--shard", "client", true),
    opt("--sources-under", "sources_under", true),
    opt("--stack-coord", "stack_coord", true),
    opt("--stack-dim", "stack_dim", true),
    opt("--var", "var", true),
    opt("--zarr-json", "zarr_json", true),
];

impl Opt {
    /// The option as `shell` spells it.
    pub fn name(&self, shell: Shell) -> &'static str {
        match shell {
            Shell::Cli => self.flag,
            Shell::Python => self.keyword,
        }
    }

    /// The option by its flag.
    pub fn by_flag(flag: &str) -> Option<&'static Opt> {
        OPTIONS.iter().find(|o| o.flag == flag)
    }
}

impl Shell {
    /// `text` with the options it names as this shell spells them (see the module).
    pub fn words(self, text: &str) -> String {
        if self == Shell::Cli || !text.contains("--") {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("--") {
            let starts_word = at == 0 || !rest[..at].ends_with(|c: char| c.is_alphanumeric());
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            let end = tail[2..]
                .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
                .map_or(tail.len(), |i| i + 2);
            match Opt::by_flag(&tail[..end]).filter(|_| starts_word) {
                Some(o) => {
                    let after = &tail[end..];
                    let (word, used) = keyword(o, after);
                    out.push_str(&word);
                    rest = &after[used..];
                }
                None => {
                    out.push_str(&tail[..end]);
                    rest = &tail[end..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// A keyword argument for a flag followed by `after`: `patch=True` for a switch,
/// `keep_layouts=PATH` for `--keep-layouts=FILE`, else the keyword alone (`var tas: …`). Returns
/// the words and how much of `after` they took.
fn keyword(o: &Opt, after: &str) -> (String, usize) {
    if !o.takes_value {
        return (format!("{}=True", o.keyword), 0);
    }
    if let Some(v) = after.strip_prefix('=') {
        let n = v
            .find(|c: char| c.is_whitespace() || ",;)".contains(c))
            .unwrap_or(v.len());
        let shown = if &v[..n] == "FILE" { "PATH" } else { &v[..n] };
        return (format!("{}={shown}", o.keyword), 1 + n);
    }
    (o.keyword.to_string(), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_become_keyword_arguments_for_python() {
        let p = |t: &str| Shell::Python.words(t);
        assert_eq!(
            p("--var tas: no such variable"),
            "var tas: no such variable"
        );
        assert_eq!(
            p("pass --sources-under s3://b/ to read it"),
            "pass sources_under s3://b/ to read it"
        );
        assert_eq!(
            p("pass --patch to re-encode it inline"),
            "pass patch=True to re-encode it inline"
        );
        assert_eq!(
            p("give the kept layouts a local path (--keep-layouts=FILE)"),
            "give the kept layouts a local path (keep_layouts=PATH)"
        );
        assert_eq!(
            p("stopped (--fail-fast); 3 file(s) not scanned"),
            "stopped (fail_fast=True); 3 file(s) not scanned"
        );
        // Not an option of vzplan's: left as it is.
        assert_eq!(
            p("`gdal_translate --config X`"),
            "`gdal_translate --config X`"
        );
        assert_eq!(p("a--patch"), "a--patch");
        assert_eq!(Shell::Cli.words("pass --patch"), "pass --patch");
        assert_eq!(
            Opt::by_flag("--var").map(|o| o.name(Shell::Python)),
            Some("var")
        );
    }
}
