//! One writer at a time per collection: an advisory lock (`flock`) on `.NAME.vzplan-lock` beside
//! the collection's refs.json (or, for an Icechunk repository, its kept layouts), held from
//! before an append reads the kept layouts until its outputs are in place. A second append on
//! the same collection waits for the first and then reads what the first wrote, so no batch is
//! lost; two builds never interleave their renames.
//!
//! The lock file is left in place: removing it would let a waiting run lock a file a third run
//! no longer sees. It is empty, and `flock` locks are released by the kernel when a run dies,
//! so a killed run never leaves the collection locked.

use super::commit::names;
use super::OutputError;
use std::path::{Path, PathBuf};

/// The file a run's lock is taken beside: its refs.json, else its kept layouts (both followed
/// through symbolic links); none for standard output or a device.
pub fn target(targets: &[(&'static str, PathBuf)]) -> Option<PathBuf> {
    ["refs.json", "layouts"].iter().find_map(|kind| {
        let (_, p) = targets.iter().find(|(k, _)| k == kind)?;
        match super::write::dest(p).ok()? {
            super::write::Dest::Replace(t) => Some(t),
            _ => None,
        }
    })
}

/// A held lock; released when dropped.
#[derive(Debug)]
pub struct Lock {
    _file: std::fs::File,
    pub path: PathBuf,
}

impl Lock {
    /// Locks the collection whose file is `target`. `waiting` is called once if another run holds
    /// the lock, before this one waits for it.
    pub fn acquire(target: &Path, waiting: impl FnOnce(&Path)) -> Result<Lock, OutputError> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;
        let path = names::lock(target);
        let err = |source| OutputError::Io {
            path: path.display().to_string(),
            source,
        };
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o666)
            .open(&path)
            .map_err(err)?;
        let fd = file.as_raw_fd();
        // SAFETY: flock on a descriptor this function owns; no memory is passed.
        if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(err(e));
            }
            waiting(target);
            loop {
                // SAFETY: as above.
                if unsafe { libc::flock(fd, libc::LOCK_EX) } == 0 {
                    break;
                }
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(err(e));
                }
            }
        }
        Ok(Lock { _file: file, path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("refs.json");
        let first = Lock::acquire(&target, |_| panic!("nobody holds it")).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = target.clone();
        let second = std::thread::spawn(move || {
            let lock = Lock::acquire(&t, |_| tx.send("waiting").unwrap()).unwrap();
            drop(lock);
            "acquired"
        });
        assert_eq!(rx.recv().unwrap(), "waiting");
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            !second.is_finished(),
            "the second run waits while the first holds it"
        );
        drop(first);
        assert_eq!(second.join().unwrap(), "acquired");
    }
}
