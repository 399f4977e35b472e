//! Other files a file names (an external link's target, a virtual dataset's sources): opened
//! through the run's [`Linker`], which decides whether they may be read at all, read as HDF5
//! themselves, and their arrays' blocks referenced where they lie, as sources of the naming file
//! ([`SourceLayout::linked`]).
//!
//! Spec: HDF5 File Format Specification Version 3.0, IV.A.2.g (Link Message, external links);
//! the files are looked for as `H5Lcreate_external` says ([`vzplan_io::linked_urls`]).

use crate::ctx::HashMap;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use vzplan_core::{ArrayLayout, LinkedSource, SourceLayout};
use vzplan_io::{LinkError, Linker, RangeRead};

/// Files opened through other files at most this deep (a link in a linked file, …).
const MAX_DEPTH: usize = 8;
/// Files one file may name and have read (as many as its arrays could ever need).
const MAX_FILES: usize = 100_000;
/// Files read through one file's links at all depths together (each at most once, but files
/// still being read when another names them are read again, one level deeper).
const MAX_OPENED: usize = 100_000;

/// The files one file's links lead to, as far as they have been opened.
pub(crate) struct Foreign<'l> {
    linker: Option<&'l dyn Linker>,
    depth: usize,
    /// The files whose blocks this file's arrays reference: source `k` is `linked[k - 1]`.
    pub linked: Vec<LinkedSource>,
    /// By URL: its source number, once a block of it is referenced.
    numbers: HashMap<String, usize>,
    /// Each file looked for, by the URLs it was looked for at: its layout, or why there is none.
    /// Shared by every depth of the file the scan was given, so that files naming each other
    /// are read once each, not again at every depth.
    read: Rc<RefCell<HashMap<String, Found>>>,
    /// Files read through links so far, at every depth (a bound behind the shared lookups).
    opened: Rc<Cell<usize>>,
}

/// A file looked for: where it was found and its layout, or why it was not read.
pub(crate) type Found = Result<(String, Arc<SourceLayout>), Unread>;

/// Why a file another file names was not read, in words that complete "…: ".
#[derive(Clone, Debug)]
pub(crate) struct Unread {
    /// It is not where the name says (the end of an unlimited mapping's files).
    pub missing: bool,
    pub reason: String,
}

impl Unread {
    fn other(reason: impl Into<String>) -> Self {
        Unread {
            missing: false,
            reason: reason.into(),
        }
    }
}

impl<'l> Foreign<'l> {
    pub fn new(linker: Option<&'l dyn Linker>, depth: usize) -> Self {
        Foreign {
            linker,
            depth,
            linked: Vec::new(),
            numbers: HashMap::default(),
            read: Rc::default(),
            opened: Rc::default(),
        }
    }

    /// The layout of the file `name` names from the file at `base`, and the URL it was found
    /// at; else why not, in words that complete "…: ".
    pub fn layout(&mut self, base: &str, name: &str) -> Found {
        // By the places looked in: names written differently (`a.h5`, `./a.h5`) are one file.
        let urls = vzplan_io::linked_urls(base, name);
        let key = urls.join("\n");
        if let Some(r) = self.read.borrow().get(&key) {
            return r.clone();
        }
        if self.read.borrow().len() >= MAX_FILES {
            return Err(Unread::other(format!(
                "more than {MAX_FILES} other files named"
            )));
        }
        let found = self.find(&urls);
        // A file not read because it lies too deep is read where it is named less deep.
        if self.depth < MAX_DEPTH {
            self.read.borrow_mut().insert(key, found.clone());
        }
        found
    }

    fn find(&self, urls: &[String]) -> Found {
        let Some(linker) = self.linker else {
            return Err(Unread::other("files other files name are not read here"));
        };
        if self.opened.get() >= MAX_OPENED {
            return Err(Unread::other(format!(
                "more than {MAX_OPENED} files read through the links of one file"
            )));
        }
        if self.depth >= MAX_DEPTH {
            return Err(Unread::other(format!(
                "it is reached through more than {MAX_DEPTH} files linking to each other"
            )));
        }
        for url in urls {
            let r = match linker.open(url) {
                Ok(r) => r,
                Err(e) if e.is_missing() => continue,
                Err(LinkError::NotNamed { reason, .. }) => {
                    let why = format!("{}: {reason}", vzplan_io::redact(url));
                    return Err(Unread::other(why));
                }
                Err(e) => return Err(Unread::other(e.to_string())),
            };
            self.opened.set(self.opened.get() + 1);
            let mut nested = Foreign::new(Some(linker), self.depth + 1);
            nested.opened = self.opened.clone();
            nested.read = self.read.clone();
            return read_linked(r.as_ref(), nested)
                .map(|l| (r.url().to_string(), Arc::new(l)))
                .map_err(Unread::other);
        }
        let reason = match urls {
            [] => return Err(Unread::other("the name leads nowhere")),
            [one] => format!("{} does not exist", vzplan_io::redact(one)),
            many => format!(
                "none of {} exists",
                many.iter()
                    .map(|u| vzplan_io::redact(u))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Err(Unread {
            missing: true,
            reason,
        })
    }

    /// The source number of the file at `url` (of `l`, read from it), given on first use.
    fn number(&mut self, url: &str, l: &SourceLayout) -> usize {
        if let Some(&k) = self.numbers.get(url) {
            return k;
        }
        self.push(LinkedSource {
            url: url.to_string(),
            size: l.size,
            etag: l.etag.clone(),
            mtime: l.mtime.clone(),
        })
    }

    /// The source number of `s`, copied in on first use only (called for every source of a
    /// linked file, for each of its arrays adopted).
    fn number_of(&mut self, s: &LinkedSource) -> usize {
        match self.numbers.get(&s.url) {
            Some(&k) => k,
            None => self.push(s.clone()),
        }
    }

    fn push(&mut self, s: LinkedSource) -> usize {
        self.numbers.insert(s.url.clone(), self.linked.len() + 1);
        self.linked.push(s);
        self.linked.len()
    }

    /// Array `a` of the file `l` (found at `url`) as an array of the naming file: its blocks
    /// given the naming file's source numbers (the file's own, and those of the files it links).
    pub fn adopt(&mut self, url: &str, l: &SourceLayout, a: &ArrayLayout) -> ArrayLayout {
        let own = self.number(url, l);
        let theirs: Vec<usize> = if a.chunks.entries.has_sources() {
            l.linked.iter().map(|s| self.number_of(s)).collect()
        } else {
            Vec::new()
        };
        let mut out = a.clone();
        out.chunks.entries.remap_sources(|s| match s {
            0 => own,
            k => theirs.get(k - 1).copied().unwrap_or(usize::MAX),
        });
        out
    }
}

/// The layout of a linked file, whose own links are followed one level deeper.
fn read_linked(r: &dyn RangeRead, foreign: Foreign<'_>) -> Result<SourceLayout, String> {
    crate::read_with(r, foreign).map_err(|e| format!("{}: {e}", vzplan_io::redact(r.url())))
}
