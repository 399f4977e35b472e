//! Putting a run's files in place: every output is written to a temp file beside its target
//! first ([`super::write::stage`]), then all are renamed in the order given, as one commit.
//!
//! - The order is the collection's consistency: the kept layouts first, then refs.json (the file
//!   readers open; it carries its own metadata), then the consolidated zarr.json, then the HTML
//!   page. A run killed between two renames leaves refs.json whole and either old or new; kept
//!   layouts that are ahead of it make the next append include what this run added (it reads
//!   them) rather than lose it, and `verify` reports a zarr.json that is not refs.json's.
//! - A file replaced keeps a hard link to its old bytes (`.NAME.vzplan-prev-PID-RAND`) until the
//!   commit is [`Commit::finish`]ed, so that a failed rename — or an Icechunk commit that fails
//!   after the kept layouts were renamed — puts every earlier file back ([`Commit::rollback`]).
//! - Once in place, each directory is synced, so the renames survive a power cut.
//!
//! Temp, backup and lock names fit `NAME_MAX` (255 bytes) whatever the target's name: a long name
//! is cut and a hash of the whole name added (`names`).

use crate::Error;
use std::path::{Path, PathBuf};

/// An output written but not yet in place: its temp file is renamed by [`commit`] and removed if
/// dropped uncommitted.
#[derive(Debug)]
pub struct Staged {
    pub(super) tmp: Option<PathBuf>,
    pub(super) target: PathBuf,
}

impl Staged {
    /// Where the bytes are now: the temp file until [`commit`], else the target.
    pub fn path(&self) -> &Path {
        self.tmp.as_deref().unwrap_or(&self.target)
    }

    /// Where the bytes go.
    pub fn target(&self) -> &Path {
        &self.target
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(t) = self.tmp.take() {
            let _ = std::fs::remove_file(t);
        }
    }
}

/// A commit whose renames are done; its backups are kept until [`Commit::finish`] (or used by
/// [`Commit::rollback`]). Dropped unfinished, it finishes.
#[derive(Debug, Default)]
pub struct Commit {
    /// Each target renamed into place, with the link to the bytes it replaced (None: it was new).
    done: Vec<(PathBuf, Option<PathBuf>)>,
    finished: bool,
}

impl Commit {
    /// Drops the backups and syncs the directories written in.
    pub fn finish(mut self) {
        self.finish_now();
    }

    fn finish_now(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        let mut dirs: Vec<PathBuf> = Vec::new();
        for (target, prev) in &self.done {
            if let Some(p) = prev {
                let _ = std::fs::remove_file(p);
            }
            let dir = parent(target);
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        for d in dirs {
            sync_dir(&d);
        }
    }

    /// Puts back what the renames replaced, last first (a new file is removed).
    pub fn rollback(mut self) {
        self.finished = true;
        for (target, prev) in self.done.drain(..).rev() {
            match prev {
                Some(p) => {
                    let _ = std::fs::rename(&p, &target);
                }
                None => {
                    let _ = std::fs::remove_file(&target);
                }
            }
        }
    }
}

impl Drop for Commit {
    fn drop(&mut self) {
        self.finish_now();
    }
}

/// Renames every staged output into place, in order (see the module); on a failed rename, what
/// was already renamed is put back and the error returned.
pub fn commit(staged: Vec<Staged>) -> Result<Commit, Error> {
    let mut c = Commit::default();
    for mut s in staged {
        let Some(tmp) = s.tmp.take() else { continue };
        let prev = backup(&s.target);
        if let Err(e) = std::fs::rename(&tmp, &s.target) {
            let _ = std::fs::remove_file(&tmp);
            if let Some(p) = prev {
                let _ = std::fs::remove_file(p);
            }
            c.rollback();
            return Err(crate::outputs::OutputError::Io {
                path: s.target.display().to_string(),
                source: e,
            }
            .into());
        }
        c.done.push((s.target.clone(), prev));
        crate::failpoint::after_rename(c.done.len());
    }
    Ok(c)
}

/// Renames every staged output into place and finishes at once.
pub fn commit_now(staged: Vec<Staged>) -> Result<(), Error> {
    commit(staged).map(Commit::finish)
}

/// A hard link to `target`'s bytes beside it, if it exists (and links can be made there).
fn backup(target: &Path) -> Option<PathBuf> {
    if !target.is_file() {
        return None;
    }
    let prev = names::unique(target, names::PREV);
    std::fs::hard_link(target, &prev).ok().map(|()| prev)
}

fn parent(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `fsync` of a directory, so that the renames in it are durable. Best effort: some file
/// systems refuse it, and the data itself was synced before the rename.
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Names of the files vzplan keeps beside a target: temp files, backups, the lock.
pub(crate) mod names {
    use std::path::{Path, PathBuf};

    pub const TMP: &str = ".vzplan-tmp-";
    pub const PREV: &str = ".vzplan-prev-";
    pub const LOCK: &str = ".vzplan-lock";

    /// Longest target name kept whole in these names: with the dot, the mark, a PID and 16 hex
    /// digits, a name stays within `NAME_MAX` (255 bytes).
    const KEEP: usize = 200;

    /// The target's directory and the stem its names start with: `.NAME`, or for a name over
    /// [`KEEP`] bytes its first bytes and a hash of the whole name.
    pub fn stem(target: &Path) -> (PathBuf, String) {
        let dir = super::parent(target);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.len() <= KEEP {
            return (dir, format!(".{name}"));
        }
        let mut cut = 160;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        (
            dir,
            format!(".{}~{:016x}", &name[..cut], fnv(name.as_bytes())),
        )
    }

    /// `stem` + `mark` + `PID-RAND`: a name no other run uses.
    pub fn unique(target: &Path, mark: &str) -> PathBuf {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() as u64);
        let rand = nanos ^ (COUNT.fetch_add(1, Ordering::Relaxed) << 32);
        let (dir, stem) = stem(target);
        dir.join(format!("{stem}{mark}{}-{rand:x}", std::process::id()))
    }

    /// The lock file beside a target.
    pub fn lock(target: &Path) -> PathBuf {
        let (dir, stem) = stem(target);
        dir.join(format!("{stem}{LOCK}"))
    }

    fn fnv(b: &[u8]) -> u64 {
        b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
            (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    /// Removes temp files and backups of this target left by runs that are gone (killed before
    /// they could clean up). A process is alive while /proc/PID exists; without /proc nothing
    /// is removed.
    pub fn remove_stale(target: &Path) {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let (dir, stem) = stem(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(rest) = name.strip_prefix(&stem) else {
                continue;
            };
            let Some(pid) = [TMP, PREV]
                .iter()
                .find_map(|m| rest.strip_prefix(m))
                .and_then(|r| r.split_once('-'))
                .and_then(|(p, _)| p.parse::<u32>().ok())
            else {
                continue;
            };
            if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn staged(dir: &Path, name: &str, bytes: &[u8]) -> Staged {
        let target = dir.join(name);
        let tmp = names::unique(&target, names::TMP);
        std::fs::write(&tmp, bytes).unwrap();
        Staged {
            tmp: Some(tmp),
            target,
        }
    }

    #[test]
    fn names_fit_name_max_and_stale_files_of_dead_runs_go() {
        let dir = tempfile::tempdir().unwrap();
        for len in [1, 200, 229, 255] {
            let target = dir.path().join("r".repeat(len));
            for p in [
                names::unique(&target, names::TMP),
                names::unique(&target, names::PREV),
                names::lock(&target),
            ] {
                let n = p.file_name().unwrap().len();
                assert!(n <= 255, "{len}: {n}");
                std::fs::write(&p, b"x").unwrap();
            }
        }
        let target = dir.path().join("refs.json");
        let dead = dir.path().join(".refs.json.vzplan-tmp-4000000-1");
        let prev = dir.path().join(".refs.json.vzplan-prev-4000001-2");
        let live = names::unique(&target, names::TMP);
        for p in [&dead, &prev, &live] {
            std::fs::write(p, b"x").unwrap();
        }
        names::remove_stale(&target);
        assert!(!dead.exists() && !prev.exists() && live.exists());
    }

    #[test]
    fn a_failed_rename_puts_back_what_was_renamed_before_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), b"old a").unwrap();
        let a = staged(dir.path(), "a", b"new a");
        let b = staged(dir.path(), "b", b"new b");
        // A target that is a non-empty directory cannot be replaced by a file.
        std::fs::create_dir(dir.path().join("c")).unwrap();
        std::fs::write(dir.path().join("c/x"), b"").unwrap();
        let c = staged(dir.path(), "c", b"new c");
        assert!(commit(vec![a, b, c]).is_err());
        assert_eq!(std::fs::read(dir.path().join("a")).unwrap(), b"old a");
        assert!(!dir.path().join("b").exists());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 2, "no temp file or backup left: {left:?}");
        // A commit rolled back after its renames (an Icechunk commit that failed).
        let a = staged(dir.path(), "a", b"newer a");
        commit(vec![a]).unwrap().rollback();
        assert_eq!(std::fs::read(dir.path().join("a")).unwrap(), b"old a");
        let a = staged(dir.path(), "a", b"newest a");
        commit(vec![a]).unwrap().finish();
        assert_eq!(std::fs::read(dir.path().join("a")).unwrap(), b"newest a");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
