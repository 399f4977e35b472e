//! Crash points for the tests of the commit order: a debug build reads them from the
//! environment, a release build has none. `VZPLAN_TEST_ABORT_AFTER_RENAMES=N` aborts the process
//! (as a `kill -9` would end it: no cleanup) right after the N-th rename of a commit;
//! `VZPLAN_TEST_PAUSE_BEFORE_COMMIT_MS=MS` waits before the outputs are put in place, so that a
//! test can start a second run while the first holds the collection.

/// Called after each rename of a commit, `n` from 1.
pub(crate) fn after_rename(n: usize) {
    if cfg!(debug_assertions) && var("VZPLAN_TEST_ABORT_AFTER_RENAMES") == Some(n as u64) {
        std::process::abort();
    }
}

/// Called before a build puts its outputs in place.
pub(crate) fn before_commit() {
    if let Some(ms) = var("VZPLAN_TEST_PAUSE_BEFORE_COMMIT_MS").filter(|_| cfg!(debug_assertions)) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

fn var(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.parse().ok()
}
