//! Standard output into a pipe that may close early (`vzplan info f.nc | head -1`): `print!`
//! panics on EPIPE because Rust ignores SIGPIPE; here a reader that went away ends the run
//! quietly with exit code 141, what a shell reports for a command killed by SIGPIPE. Messages on
//! standard error whose reader went away are dropped (the work goes on; `eprint!` would panic).

use std::io::Write;

/// Exit code when standard output's reader went away (128 + SIGPIPE).
pub const BROKEN_PIPE: i32 = 141;

/// Writes `args` to standard output and flushes; see the module.
pub fn write_out(args: std::fmt::Arguments) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_fmt(args).and_then(|()| o.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(BROKEN_PIPE);
        }
        eprintln!("vzplan: standard output: {e}");
        std::process::exit(1);
    }
}

/// Writes `args` to standard error; a failure to write it is ignored (see the module).
/// Standard error is unbuffered, so the message is formatted first and written in one call: a
/// `--stats` line is one `write`, not one for each of its nine pieces (9,000 system calls for
/// 1,000 files, a fifth of a small-file build's CPU time).
pub fn write_err(args: std::fmt::Arguments) {
    match args.as_str() {
        Some(s) => write_err_text(s),
        None => write_err_text(&args.to_string()),
    }
}

/// Writes text already formatted to standard error in one call ([`write_err`]).
pub fn write_err_text(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `eprint!` through [`write_err`].
macro_rules! err {
    ($($t:tt)*) => { $crate::pipe::write_err(format_args!($($t)*)) };
}

/// `eprintln!` through [`write_err`].
macro_rules! errln {
    ($($t:tt)*) => { $crate::pipe::write_err(format_args!("{}\n", format_args!($($t)*))) };
}

/// `print!` through [`write_out`].
macro_rules! out {
    ($($t:tt)*) => { $crate::pipe::write_out(format_args!($($t)*)) };
}

/// `println!` through [`write_out`].
macro_rules! outln {
    ($($t:tt)*) => { $crate::pipe::write_out(format_args!("{}\n", format_args!($($t)*))) };
}

pub(crate) use {err, errln, out, outln};

/// A message for a terminal: URLs redacted, then every control character from a name shown as
/// an escape (newlines too: one message is one line).
pub fn line(text: &str) -> String {
    vzplan::text::shown(&vzplan::redact_text(text)).into_owned()
}

/// A message of several lines vzplan composed (their pieces from files already shown): URLs
/// redacted and every other control character shown.
pub fn lines(text: &str) -> String {
    vzplan::text::shown_lines(&vzplan::redact_text(text)).into_owned()
}

/// A JSON document as printed for scripts: pretty, DEL and C1 escaped too.
pub fn json(doc: &serde_json::Value) -> String {
    vzplan::text::json_safe(serde_json::to_string_pretty(doc).unwrap_or_default())
}

/// The text report with local paths under the current directory shown relative to it
/// (`data/tas_2001.nc`, not `/home/me/run/data/tas_2001.nc`): what a person typed, and what the
/// report's shell loops run on from here. `--json` keeps absolute paths.
pub fn report_text(plan: &vzplan::Plan) -> String {
    let text = vzplan::report::text(plan);
    match std::env::current_dir() {
        Ok(d) if d.components().count() > 1 => relative_to(&text, &format!("{}/", d.display())),
        _ => text,
    }
}

/// `text` with `dir` (ending in `/`) dropped where a path starts with it: at the start of the
/// text or after a space, quote, backtick, bracket, comma or `=` (not inside a URL).
fn relative_to(text: &str, dir: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(dir) {
        let starts_path = out.is_empty() && i == 0
            || rest[..i]
                .chars()
                .next_back()
                .or_else(|| out.chars().next_back())
                .is_none_or(|c| " \n\t'\"`(,=|".contains(c));
        out.push_str(&rest[..i]);
        if !starts_path {
            out.push_str(dir);
        }
        rest = &rest[i + dir.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::relative_to;

    #[test]
    fn paths_under_the_directory_become_relative() {
        let d = "/home/me/run/";
        assert_eq!(
            relative_to(
                "/home/me/run/a.nc: x `nccopy /home/me/run/a.nc /home/me/run/b.nc`",
                d
            ),
            "a.nc: x `nccopy a.nc b.nc`"
        );
        assert_eq!(
            relative_to("for f in /home/me/run/d/*.nc; do", d),
            "for f in d/*.nc; do"
        );
        // Not inside a URL, nor another directory that merely starts the same.
        assert_eq!(
            relative_to("file:///home/me/run/a.nc", d),
            "file:///home/me/run/a.nc"
        );
        assert_eq!(relative_to("/home/me/run2/a.nc", d), "/home/me/run2/a.nc");
    }
}
