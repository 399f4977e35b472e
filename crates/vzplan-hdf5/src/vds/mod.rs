//! Virtual datasets: an array stitched from other datasets (usually one per file), each mapping
//! a selection of a source dataset onto a selection of the virtual one. A mapping that carries
//! whole chunks of its source onto a chunk grid of the virtual array is those chunks' bytes,
//! referenced where they lie; the parts no mapping covers read as the virtual dataset's fill
//! value. What cannot be referenced so (a selection off the source's chunk boundaries, sources
//! chunked or typed differently, a missing source) is a problem naming the source.
//!
//! Spec: HDF5 File Format Specification Version 3.0, IV.A.2.i (Data Layout, class 3: a global
//! heap ID) and III.F (Global Heap Block for Virtual Datasets); the selections are the `H5S`
//! serialized form ([`select`]). Source files are found as external links' are
//! ([`vzplan_io::linked_urls`]); `.` is the file itself; `%b` in a name is the block number of
//! an unlimited mapping (`seq_%b.h5` → `seq_0.h5`, `seq_1.h5`, … while they exist).
//!
//! ```text
//! 00                      heap object version
//! 04 00 00 00 00 00 00 00 mappings (length size)
//! "src_0.h5\0" "data\0"   source file and dataset
//! <selection> <selection> the source's, then the virtual dataset's
//! …                       (a checksum closes the object)
//! ```

mod place;
mod resolve;
pub mod select;

pub(crate) use resolve::{resolve, Own};

use crate::ctx::Cur;
use crate::error::{Error, Result};
use select::Selection;

/// One mapping: a selection of a source dataset onto a selection of the virtual dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Mapping {
    /// As written: relative to the virtual dataset's file, `.` for that file, maybe with `%b`.
    pub file: String,
    pub dataset: String,
    pub source: Selection,
    pub target: Selection,
}

/// A virtual dataset waiting for its sources: its mappings and its maximum extent.
pub(crate) struct Pending {
    pub mappings: Vec<Mapping>,
    pub max: Vec<u64>,
}

/// Entry flags of heap object version 1: names given by an earlier entry, the file itself.
const FILE_SHARED: u8 = 0x01;
const DSET_SHARED: u8 = 0x02;
const SAME_FILE: u8 = 0x04;

/// Reads the mappings from the virtual dataset's global heap object.
pub fn mappings(c: &mut Cur) -> Result<Vec<Mapping>> {
    let version = c.u8()?;
    if version > 1 {
        return Err(Error::malformed(format!(
            "virtual dataset mappings version {version}"
        )));
    }
    let n = c.length()?;
    // Every mapping takes at least two names' bytes and two selections' 16: no more than that.
    if n > (c.remaining() / 18) as u64 {
        return Err(Error::malformed(
            "more virtual dataset mappings than the heap object holds",
        ));
    }
    let mut out: Vec<Mapping> = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let flags = if version >= 1 { c.u8()? } else { 0 };
        let file = if flags & SAME_FILE != 0 {
            ".".to_string()
        } else if flags & FILE_SHARED != 0 {
            earlier(&out, c, |m| &m.file)?
        } else {
            name(c)?
        };
        let dataset = match flags & DSET_SHARED != 0 {
            true => earlier(&out, c, |m| &m.dataset)?,
            false => name(c)?,
        };
        let source = select::read(c)?;
        let target = select::read(c)?;
        out.push(Mapping {
            file,
            dataset,
            source,
            target,
        });
    }
    Ok(out)
}

/// A name given by an earlier mapping (version 1's shared names).
fn earlier(out: &[Mapping], c: &mut Cur, part: fn(&Mapping) -> &String) -> Result<String> {
    let i = c.length()?;
    usize::try_from(i)
        .ok()
        .and_then(|i| out.get(i))
        .map(|m| part(m).clone())
        .ok_or_else(|| Error::malformed(format!("virtual dataset mapping names mapping {i}")))
}

/// A NUL-terminated name.
fn name(c: &mut Cur) -> Result<String> {
    let rest = &c.buf()[c.pos()..];
    let end = memchr::memchr(0, rest)
        .ok_or_else(|| Error::malformed("virtual dataset name without its terminator"))?;
    let s = String::from_utf8_lossy(&rest[..end]).into_owned();
    c.skip(end + 1)?;
    Ok(s)
}

/// `name` for block `b` of an unlimited mapping: `%b` is the number, `%%` a `%`.
pub fn block_name(name: &str, b: u64) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut chars = name.chars();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str(&b.to_string()),
            Some('%') => out.push('%'),
            Some(o) => {
                out.push('%');
                out.push(o);
            }
            None => out.push('%'),
        }
    }
    out
}

/// Whether a name is a pattern with a block number in it.
pub fn is_pattern(name: &str) -> bool {
    name.replace("%%", "").contains("%b")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_number_the_blocks() {
        assert_eq!(block_name("seq_%b.h5", 12), "seq_12.h5");
        assert_eq!(block_name("a%%b_%b", 3), "a%b_3");
        assert!(is_pattern("seq_%b.h5"));
        assert!(!is_pattern("a%%b.h5"));
    }
}
