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
pub fn write_err(args: std::fmt::Arguments) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_fmt(args).and_then(|()| e.flush());
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
