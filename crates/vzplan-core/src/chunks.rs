//! Chunk references stored column-wise.
//!
//! A file's [`ChunkTable`](crate::ChunkTable) and a planned array's chunks both hold one entry per
//! stored block: its grid index, the source it lives in, its bytes (a range of the source, or bytes
//! written inline) and the HDF5 filter mask. At millions of references a `Vec` of structs costs
//! ~100 bytes a reference (a heap-allocated index per entry, an enum sized for inline bytes); these
//! columns cost `4 × rank + 16` bytes (indexes as `u32` while they fit, see [`KeyRef`]), plus 4
//! once a second source appears. Inline bytes and non-zero filter masks are rare, so they are kept
//! aside, keyed by position.
//!
//! Serialized (layout lines of `vzplan scan`) as the same columns. The index is the grid's shape
//! when the list holds every chunk of it once, in C order, and one list per entry otherwise; an
//! inline entry's offset and length are 0, its bytes (base64) and any non-zero filter mask listed
//! aside by position:
//!
//! ```json
//! {"index": {"grid": [2, 3]}, "offset": [4096, 5296, 6510, 7702, 8900, 10111],
//!  "length": [1200, 1214, 1192, 1198, 1211, 1187]}
//! {"index": [[0, 0], [1, 1]], "offset": [4096, 0], "length": [1200, 0],
//!  "inline": [[1, "AAAAAA=="]], "filter_mask": [[1, 1]]}
//! ```
//!
//! An array whose blocks lie in other files too (an HDF5 external link, a virtual dataset's
//! sources) lists each entry's source in one more column: 0 the file itself, `k` the file's
//! `k`-th linked file ([`SourceLayout::linked`](crate::SourceLayout::linked)):
//! `{"index": [[0], [1]], "offset": [2048, 2048], "length": [96, 96], "source": [1, 2]}`.
//!
//! Lines written before 2026-12 hold a list of entry objects, which is read as well:
//! `[{"index": [0, 0], "data": {"ref": {"offset": 4096, "length": 1200}}},
//! {"index": [1, 1], "data": {"inline": "AAAAAA=="}, "filter_mask": 1}]`. Columns parse in a
//! fraction of the time of entry objects, which dominate `build --from-layouts` at millions of
//! references, and make lines several times shorter.

mod extend;
mod lengths;
mod serde_form;

pub use extend::Move;
pub use lengths::LengthColumn;
use lengths::Lengths;

use crate::keys::{KeyColumn, KeyRef, Keys};
use crate::{ChunkData, ChunkEntry};
use std::collections::BTreeMap;

/// One entry of a [`ChunkList`], borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Grid index (a planned chunk's key).
    pub index: KeyRef<'a>,
    /// The source the range is in (0 in a file's own table).
    pub source: usize,
    pub data: DataRef<'a>,
    /// HDF5 filter mask: bit i set = filter i of the pipeline was skipped for this block.
    pub filter_mask: u32,
}

/// The bytes of one entry, borrowed: [`ChunkData`] without the copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataRef<'a> {
    Ref { offset: u64, length: u64 },
    Inline(&'a [u8]),
}

impl DataRef<'_> {
    pub fn to_owned(self) -> ChunkData {
        match self {
            DataRef::Ref { offset, length } => ChunkData::Ref { offset, length },
            DataRef::Inline(b) => ChunkData::Inline(b.to_vec()),
        }
    }
}

/// An entry whose index has another rank than the list's.
#[derive(Debug, thiserror::Error)]
#[error("chunk index {index:?} has rank {got}, the others rank {want}")]
pub struct RankMismatch {
    pub index: Vec<u64>,
    pub got: usize,
    pub want: usize,
}

/// The columns of a plain [`ChunkList`] ([`ChunkList::plain_columns`]).
#[derive(Clone, Copy, Debug)]
pub struct PlainColumns<'a> {
    /// Numbers per index.
    pub rank: usize,
    /// `rank` numbers per entry, or the shape of a full grid in C order.
    pub index: KeyColumn<'a>,
    /// One per entry, or empty when every entry is from source 0.
    pub source: &'a [u32],
    pub offset: &'a [u64],
    pub length: LengthColumn<'a>,
}

/// Chunk entries as columns; see the module docs.
#[derive(Clone, Debug, Default)]
pub struct ChunkList {
    /// Set by the first entry (every index of a list has the same length).
    rank: Option<usize>,
    /// `rank` numbers per entry.
    index: Keys,
    /// Empty while every entry is from source 0.
    source: Vec<u32>,
    offset: Vec<u64>,
    length: Lengths,
    inline: BTreeMap<usize, Vec<u8>>,
    mask: BTreeMap<usize, u32>,
    /// Entries [`ChunkList::push`] refused for their rank.
    refused: usize,
}

impl ChunkList {
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty list for indexes of `rank` numbers, with room for `n` entries.
    pub fn with_capacity(rank: usize, n: usize) -> Self {
        let mut l = ChunkList {
            rank: Some(rank),
            ..Self::default()
        };
        l.reserve(n);
        l
    }

    /// Room for `n` more entries (of the list's rank, once known).
    pub fn reserve(&mut self, n: usize) {
        self.index.reserve(n.saturating_mul(self.rank.unwrap_or(0)));
        self.offset.reserve(n);
        self.length.reserve(n);
        if !self.source.is_empty() {
            self.source.reserve(n);
        }
    }

    pub fn len(&self) -> usize {
        self.offset.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offset.is_empty()
    }

    /// The length of every index (`None` while the list is empty and made by [`ChunkList::new`]).
    pub fn rank(&self) -> Option<usize> {
        self.rank
    }

    /// Appends an entry, or says why not: its index has another rank than the list's.
    pub fn try_push(
        &mut self,
        index: &[u64],
        source: usize,
        data: ChunkData,
        filter_mask: u32,
    ) -> Result<(), RankMismatch> {
        let want = *self.rank.get_or_insert(index.len());
        if index.len() != want {
            return Err(RankMismatch {
                index: index.to_vec(),
                got: index.len(),
                want,
            });
        }
        let at = self.len();
        self.index.extend(index);
        // Sources are file positions in memory: fewer than 2^32 by far.
        let source = u32::try_from(source).unwrap_or(u32::MAX);
        if source != 0 || !self.source.is_empty() {
            self.source.resize(at, 0);
            self.source.push(source);
        }
        match data {
            ChunkData::Ref { offset, length } => {
                self.offset.push(offset);
                self.length.push(length);
            }
            ChunkData::Inline(b) => {
                self.offset.push(0);
                self.length.push(0);
                self.inline.insert(at, b);
            }
        }
        if filter_mask != 0 {
            self.mask.insert(at, filter_mask);
        }
        Ok(())
    }

    /// A list of byte ranges in source 0 from whole columns: `index` holds `rank` numbers per
    /// entry, `ranges` an (offset, length) each. A reader's table in one step, without a push
    /// per entry; `None` when the lengths disagree.
    pub fn from_ranges(rank: usize, index: Vec<u64>, ranges: &[(u64, u64)]) -> Option<Self> {
        if index.len() != ranges.len().checked_mul(rank)? {
            return None;
        }
        Some(ChunkList {
            rank: Some(rank),
            index: Keys::of_column(index, rank),
            offset: ranges.iter().map(|r| r.0).collect(),
            length: Lengths::of(ranges.iter().map(|r| r.1)),
            ..Self::default()
        })
    }

    /// Sets the filter mask of entry `i` (0 clears it).
    pub fn set_filter_mask(&mut self, i: usize, mask: u32) {
        if i >= self.len() {
            return;
        }
        match mask {
            0 => self.mask.remove(&i),
            m => self.mask.insert(i, m),
        };
    }

    /// Appends an entry whose rank the caller has made the list's (the planner's keys, a reader's
    /// own indexes). One of another rank is not stored but counted in [`ChunkList::refused`]: a
    /// bug of the caller, which the planner's last check reports (never a panic).
    pub fn push(&mut self, index: &[u64], source: usize, data: ChunkData, filter_mask: u32) {
        if self.try_push(index, source, data, filter_mask).is_err() {
            self.refused += 1;
        }
    }

    /// Whether every entry's index lies below `limits`, number by number (true when the list's
    /// indexes have another length): one pass over the index column.
    pub fn all_below(&self, limits: &[u64]) -> bool {
        let r = limits.len();
        if self.rank != Some(r) || r == 0 {
            return true;
        }
        match self.index.axis_max(r) {
            Some(max) => max.iter().zip(limits).all(|(&x, &l)| x < l),
            None => true,
        }
    }

    /// Whether the indexes strictly increase, entry to entry (sorted, none repeated): one pass
    /// over the index column, for the checks that would otherwise sort.
    pub fn keys_increasing(&self) -> bool {
        fn strictly<T: Ord>(v: &[T], r: usize) -> bool {
            let mut keys = v.chunks_exact(r);
            let Some(mut prev) = keys.next() else {
                return true;
            };
            keys.all(|k| std::mem::replace(&mut prev, k) < k)
        }
        match (self.rank, &self.index) {
            (Some(r @ 1..), Keys::Narrow(v)) => strictly(v, r),
            (Some(r @ 1..), Keys::Wide(v)) => strictly(v, r),
            (Some(1..), Keys::Grid(_)) => true,
            _ => self.len() < 2,
        }
    }

    /// The columns themselves, for a plain list ([`ChunkList::is_plain`]) of `u32` indexes of
    /// rank 1 or more; `None` otherwise. Loops over millions of entries (writing refs.json) read them without
    /// a view per entry.
    pub fn plain_columns(&self) -> Option<PlainColumns<'_>> {
        let index = match (&self.index, self.rank) {
            (Keys::Narrow(v), Some(1..)) => KeyColumn::Narrow(v),
            (Keys::Grid(g), Some(1..)) => KeyColumn::Grid(g),
            _ => return None,
        };
        let rank = self.rank?;
        self.is_plain().then_some(PlainColumns {
            rank,
            index,
            source: &self.source,
            offset: &self.offset,
            length: self.length.column(),
        })
    }

    /// The first entry whose byte range overflows or, when `size` is known (non-zero), ends past
    /// it: one pass over the columns (inline entries hold no range and pass).
    pub fn first_range_past(&self, size: u64) -> Option<usize> {
        let limit = if size > 0 { size } else { u64::MAX };
        self.length.first_end_past(&self.offset, limit)
    }

    /// Whether the entries name their sources (a column), rather than all being from the file
    /// or array the list belongs to.
    pub fn has_sources(&self) -> bool {
        !self.source.is_empty()
    }

    /// The source of entry `c` of this list: its own when the list names sources, else `own`
    /// (every entry of a file's table without linked blocks is the file's).
    pub fn source_or(&self, c: &Chunk<'_>, own: usize) -> usize {
        match self.source.is_empty() {
            true => own,
            false => c.source,
        }
    }

    /// The largest source any entry names (0 without a column).
    pub fn max_source(&self) -> usize {
        self.source.iter().max().map_or(0, |&s| s as usize)
    }

    /// Gives every entry a source of the plan's: 0 (the file itself) becomes `own`, `k` becomes
    /// `linked[k - 1]`; a list without a column keeps none (all its entries are `own`'s).
    pub fn map_sources(&mut self, own: usize, linked: &[usize]) {
        if self.source.is_empty() {
            return;
        }
        self.remap_sources(|s| match s {
            0 => own,
            k => linked.get(k - 1).copied().unwrap_or(usize::MAX),
        });
    }

    /// Gives every entry the source `f(s)` of its source `s` (every entry of a list without a
    /// column is 0): a linked file's table taken into the file that links to it.
    pub fn remap_sources(&mut self, f: impl Fn(usize) -> usize) {
        let to = |s: u32| u32::try_from(f(s as usize)).unwrap_or(u32::MAX);
        if self.source.is_empty() {
            let s = to(0);
            if s != 0 {
                self.source = vec![s; self.len()];
            }
            return;
        }
        self.source.resize(self.len(), 0);
        for s in &mut self.source {
            *s = to(*s);
        }
    }

    /// Whether every entry is a plain range: no inline bytes, no filter mask.
    pub fn is_plain(&self) -> bool {
        self.inline.is_empty() && self.mask.is_empty()
    }

    /// How many entries [`ChunkList::push`] refused for their rank.
    pub fn refused(&self) -> usize {
        self.refused
    }

    /// The entry at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Chunk<'_>> {
        let (&offset, length) = (self.offset.get(i)?, self.length.get(i)?);
        let r = self.rank.unwrap_or(0);
        // The side maps are empty for nearly every list: skip their lookups then.
        let inline = (!self.inline.is_empty())
            .then(|| self.inline.get(&i))
            .flatten();
        let data = match inline {
            Some(b) => DataRef::Inline(b),
            None => DataRef::Ref { offset, length },
        };
        let filter_mask = match self.mask.is_empty() {
            true => 0,
            false => self.mask.get(&i).copied().unwrap_or(0),
        };
        Some(Chunk {
            index: self.index.entry(i, r, self.len()),
            source: self.source.get(i).map_or(0, |&s| s as usize),
            data,
            filter_mask,
        })
    }

    /// The index (key) of entry `i`; empty past the end.
    pub fn key(&self, i: usize) -> KeyRef<'_> {
        let r = self.rank.unwrap_or(0);
        self.index.entry(i, r, self.len())
    }

    /// Compares the indexes of entries `a` and `b` (in place: what sorting and checking key order
    /// do millions of times).
    pub fn cmp_keys(&self, a: usize, b: usize) -> std::cmp::Ordering {
        self.key(a).cmp(&self.key(b))
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter { list: self, at: 0 }
    }

    /// The entries with a non-zero filter mask, in order.
    pub fn masked(&self) -> impl Iterator<Item = Chunk<'_>> + '_ {
        self.mask.keys().filter_map(|&i| self.get(i))
    }

    /// Replaces the bytes of entry `i` by bytes written inline (a patched chunk).
    pub fn set_inline(&mut self, i: usize, bytes: Vec<u8>) {
        if i < self.len() {
            self.offset[i] = 0;
            self.length.clear(i);
            self.inline.insert(i, bytes);
        }
    }

    /// Keeps the entries for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Chunk<'_>) -> bool) {
        let kept: Vec<usize> = (0..self.len())
            .filter(|&i| self.get(i).is_some_and(&mut keep))
            .collect();
        if kept.len() != self.len() {
            *self = self.select(&kept);
        }
    }

    /// Sorts the entries by index (stable).
    pub fn sort_by_index(&mut self) {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by(|&a, &b| self.cmp_keys(a, b));
        if order.windows(2).any(|w| w[0] > w[1]) {
            *self = self.select(&order);
        }
    }

    /// A new list of the entries at `positions`, in that order.
    fn select(&self, positions: &[usize]) -> ChunkList {
        let mut out = ChunkList {
            rank: self.rank,
            refused: self.refused,
            ..Self::default()
        };
        out.reserve(positions.len());
        for c in positions.iter().filter_map(|&i| self.get(i)) {
            out.push(
                &c.index.to_vec(),
                c.source,
                c.data.to_owned(),
                c.filter_mask,
            );
        }
        out
    }

    /// The entries as owned structs (for tests and small tables).
    pub fn to_entries(&self) -> Vec<ChunkEntry> {
        self.iter()
            .map(|c| ChunkEntry {
                index: c.index.to_vec(),
                data: c.data.to_owned(),
                filter_mask: c.filter_mask,
            })
            .collect()
    }
}

/// The entries of a [`ChunkList`] in order.
pub struct Iter<'a> {
    list: &'a ChunkList,
    at: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Chunk<'a>;
    #[inline]
    fn next(&mut self) -> Option<Chunk<'a>> {
        let c = self.list.get(self.at)?;
        self.at += 1;
        Some(c)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.list.len().saturating_sub(self.at);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl PartialEq for ChunkList {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.refused == other.refused && self.iter().eq(other.iter())
    }
}

impl<'a> IntoIterator for &'a ChunkList {
    type Item = Chunk<'a>;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl From<Vec<ChunkEntry>> for ChunkList {
    /// Entries of another rank than the first are refused (see [`ChunkList::push`]).
    fn from(v: Vec<ChunkEntry>) -> Self {
        let mut l = match v.first() {
            Some(e) => ChunkList::with_capacity(e.index.len(), v.len()),
            None => ChunkList::new(),
        };
        for e in v {
            l.push(&e.index, 0, e.data, e.filter_mask);
        }
        l
    }
}

#[cfg(test)]
mod tests;
