//! `vzplan info FILE... [--json]`: printing only; the description is built by `vzplan::info`.

use crate::pipe;
use vzplan::{IoOptions, ScanOptions};

/// Shows each file; returns the exit code: 0 all shown, 3 some shown, 1 none.
pub fn run(files: &[String], json: bool, io: IoOptions) -> u8 {
    let opts = ScanOptions {
        io,
        ..ScanOptions::default()
    };
    let mut shown = Vec::new();
    let mut failed = 0usize;
    for f in files {
        match vzplan::info(f, &opts) {
            Ok(i) => {
                if !json {
                    pipe::out!("{}", vzplan::info::text(&i));
                }
                shown.push(i);
            }
            Err(e) => {
                failed += 1;
                pipe::errln!("vzplan: {}", pipe::line(&e.to_string()));
            }
        }
    }
    if json {
        let doc = serde_json::to_value(&shown).unwrap_or_default();
        pipe::outln!("{}", pipe::json(&doc));
    }
    match (shown.is_empty(), failed) {
        (true, _) => 1,
        (false, 0) => 0,
        (false, _) => 3,
    }
}
