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
mod tests {
    use super::*;

    /// Appending a file's table with its index moved (and after a lead) equals pushing its
    /// entries one by one, leaving out those outside the limits, and widening past `u32`.
    #[test]
    fn extend_moved_equals_pushing_each_entry() {
        let mut file = ChunkList::new();
        for (i, idx) in [[0, 0], [0, 1], [1, 0], [2, 1], [1, 2]].iter().enumerate() {
            let data = ChunkData::Ref {
                offset: 100 * i as u64,
                length: 10 + i as u64,
            };
            file.push(idx, 0, data, 0);
        }
        assert!(file.is_plain());
        let limits = [2, 2]; // leaves out [2, 1] and [1, 2]
        let big = u64::from(u32::MAX);
        for (lead, shift) in [
            (None, 0),
            (None, 5),
            (None, big),
            (Some(7), 0),
            (Some(big + 1), 2),
        ] {
            let rank = 2 + usize::from(lead.is_some());
            let mut bulk = ChunkList::with_capacity(rank, 0);
            bulk.push(
                &vec![0; rank],
                0,
                ChunkData::Ref {
                    offset: 7,
                    length: 7,
                },
                0,
            );
            let mut each = bulk.clone();
            let m = Move {
                source: 3,
                lead,
                axis: 1,
                shift,
                limits: &limits,
            };
            bulk.extend_moved(&file, &m);
            for c in &file {
                let k = c.index.to_vec();
                if k.iter().zip(&limits).all(|(x, l)| x < l) {
                    let mut key: Vec<u64> = lead.into_iter().collect();
                    key.extend([k[0], k[1] + shift]);
                    each.push(&key, 3, c.data.to_owned(), 0);
                }
            }
            assert_eq!(bulk.to_entries(), each.to_entries(), "{lead:?} {shift}");
            assert_eq!(bulk.len(), 4);
            let sources: Vec<usize> = bulk.iter().map(|c| c.source).collect();
            assert_eq!(sources, [0, 3, 3, 3]);
        }
    }

    #[test]
    fn all_below_checks_every_index_of_the_lists_rank() {
        let mut l = ChunkList::new();
        assert!(l.all_below(&[1, 1]));
        let data = ChunkData::Ref {
            offset: 0,
            length: 1,
        };
        l.push(&[0, 1], 0, data.clone(), 0);
        l.push(&[1, 0], 0, data.clone(), 0);
        assert!(l.all_below(&[2, 2]));
        assert!(!l.all_below(&[2, 1]));
        assert!(!l.all_below(&[1, 2]));
        assert!(l.all_below(&[1]), "another rank counts as below");
        l.push(&[u64::from(u32::MAX) + 1, 0], 0, data, 0);
        assert!(!l.all_below(&[2, 2]));
        assert!(l.all_below(&[u64::MAX, 2]));
    }

    fn entry(index: &[u64], data: ChunkData, filter_mask: u32) -> ChunkEntry {
        ChunkEntry {
            index: index.to_vec(),
            data,
            filter_mask,
        }
    }

    #[test]
    fn columns_round_trip_the_entry_form() {
        let entries = vec![
            entry(
                &[0, 0],
                ChunkData::Ref {
                    offset: 10,
                    length: 5,
                },
                0,
            ),
            entry(&[0, 1], ChunkData::Inline(vec![1, 2, 3]), 0),
            entry(
                &[1, 0],
                ChunkData::Ref {
                    offset: 20,
                    length: 7,
                },
                3,
            ),
        ];
        let l = ChunkList::from(entries.clone());
        assert_eq!(l.len(), 3);
        assert_eq!(l.to_entries(), entries);
        let json = serde_json::to_string(&l).unwrap();
        // Lines of the older form (a list of entries) read as the same list.
        let old: ChunkList =
            serde_json::from_str(&serde_json::to_string(&entries).unwrap()).unwrap();
        assert_eq!(old, l);
        let back: ChunkList = serde_json::from_str(&json).unwrap();
        assert_eq!(back, l);
        assert_eq!(back.get(1).unwrap().data, DataRef::Inline(&[1, 2, 3]));
        assert_eq!(back.get(2).unwrap().filter_mask, 3);
        assert!(back.get(3).is_none());
    }

    #[test]
    fn mixed_ranks_are_refused_not_stored() {
        let bad = r#"[{"index":[0,0],"data":{"ref":{"offset":0,"length":1}}},
                      {"index":[1],"data":{"ref":{"offset":1,"length":1}}}]"#;
        let err = serde_json::from_str::<ChunkList>(bad).unwrap_err();
        assert!(err.to_string().contains("rank 1"), "{err}");
        let mut l = ChunkList::with_capacity(2, 1);
        assert!(l.try_push(&[0], 0, ChunkData::Inline(vec![]), 0).is_err());
        l.push(&[0, 0, 0], 0, ChunkData::Inline(vec![]), 0);
        assert!(l.is_empty());
        assert_eq!(l.refused(), 1);
    }

    #[test]
    fn sources_retain_sort_and_patch() {
        let mut l = ChunkList::new();
        let r = |o| ChunkData::Ref {
            offset: o,
            length: 1,
        };
        // A source other than 0 first, then 0: both kept.
        l.push(&[0], 3, r(0), 0);
        l.push(&[1], 0, r(1), 0);
        assert_eq!([l.get(0).unwrap().source, l.get(1).unwrap().source], [3, 0]);
        l = ChunkList::new();
        l.push(&[2], 0, r(2), 0);
        l.push(&[0], 5, r(0), 1);
        l.push(&[1], 0, ChunkData::Inline(vec![9]), 0);
        assert_eq!(l.get(0).unwrap().source, 0);
        assert_eq!(l.get(1).unwrap().source, 5);
        l.sort_by_index();
        let keys: Vec<u64> = l.iter().map(|c| c.index.at(0)).collect();
        assert_eq!(keys, [0, 1, 2]);
        assert_eq!(l.get(0).unwrap().filter_mask, 1);
        assert_eq!(l.get(1).unwrap().data, DataRef::Inline(&[9]));
        l.retain(|c| c.index.at(0) != 0);
        assert_eq!(l.len(), 2);
        assert_eq!(l.get(0).unwrap().data, DataRef::Inline(&[9]));
        assert_eq!(l.get(1).unwrap().filter_mask, 0);
        l.set_inline(1, vec![7]);
        assert_eq!(l.get(1).unwrap().data, DataRef::Inline(&[7]));
    }

    #[test]
    fn ranges_from_columns_equal_pushing_each_and_order_is_checked_in_place() {
        let wide = u64::from(u32::MAX) + 1;
        for index in [vec![0, 1, 0, 2, 1, 0], vec![0, 1, 0, wide, 1, 0]] {
            let ranges = [(10, 5), (20, 6), (30, 7)];
            let mut l = ChunkList::from_ranges(2, index.clone(), &ranges).unwrap();
            let mut want = ChunkList::new();
            for (k, &(offset, length)) in index.chunks(2).zip(&ranges) {
                want.push(k, 0, ChunkData::Ref { offset, length }, 0);
            }
            assert_eq!(l, want);
            assert!(l.keys_increasing());
            l.set_filter_mask(1, 4);
            assert_eq!(l.get(1).unwrap().filter_mask, 4);
            l.set_filter_mask(1, 0);
            l.set_filter_mask(9, 4);
            assert!(l.is_plain());
        }
        assert!(ChunkList::from_ranges(2, vec![0, 1, 2], &[(0, 1), (1, 1)]).is_none());
        let not = |keys: &[[u64; 2]]| {
            let flat: Vec<u64> = keys.iter().flatten().copied().collect();
            let ranges = vec![(0, 1); keys.len()];
            !ChunkList::from_ranges(2, flat, &ranges)
                .unwrap()
                .keys_increasing()
        };
        assert!(not(&[[0, 1], [0, 1]]), "a repeated key");
        assert!(not(&[[0, 2], [0, 1]]), "out of order");
        assert!(not(&[[1, 0], [0, wide]]), "out of order, wide");
        assert!(!not(&[[0, 0]]) && !not(&[]));
        let mut flat = ChunkList::new();
        flat.push(
            &[],
            0,
            ChunkData::Ref {
                offset: 0,
                length: 1,
            },
            0,
        );
        assert!(flat.keys_increasing());
        flat.push(
            &[],
            0,
            ChunkData::Ref {
                offset: 1,
                length: 1,
            },
            0,
        );
        assert!(
            !flat.keys_increasing(),
            "rank 0: two entries share the empty key"
        );
    }

    /// The C-order index of a full grid of `shape`, and a range per entry.
    pub(super) fn full_grid(shape: &[u64], base: u64) -> (Vec<u64>, Vec<(u64, u64)>) {
        let n: u64 = shape.iter().product();
        let mut index = Vec::new();
        for i in 0..n {
            let (mut rest, at) = (i, index.len());
            index.resize(at + shape.len(), 0);
            for d in (0..shape.len()).rev() {
                index[at + d] = rest % shape[d];
                rest /= shape[d];
            }
        }
        let ranges = (0..n).map(|i| (base + 10 * i, 10 + i % 3)).collect();
        (index, ranges)
    }

    /// A reader's table holding every chunk of its grid in C order keeps only the shape, and
    /// reads as pushing each entry would: keys, order, limits, the serialized form; a push
    /// writes the index out first.
    #[test]
    fn a_full_grid_in_c_order_reads_as_its_entries() {
        for shape in [vec![5u64], vec![3, 4], vec![2, 1, 3], vec![1, 2, 2, 2]] {
            let rank = shape.len();
            let (index, ranges) = full_grid(&shape, 1000);
            let grid = ChunkList::from_ranges(rank, index.clone(), &ranges).unwrap();
            let cols = grid.plain_columns().map(|c| c.index);
            assert!(matches!(cols, Some(KeyColumn::Grid(s)) if s == shape.as_slice()));
            let mut each = ChunkList::new();
            for (k, &(offset, length)) in index.chunks(rank).zip(&ranges) {
                each.push(k, 0, ChunkData::Ref { offset, length }, 0);
            }
            assert_eq!(grid.to_entries(), each.to_entries());
            let json = |l: &ChunkList| serde_json::to_string(l).unwrap();
            assert_eq!(json(&grid), json(&each));
            // Read back from a layout line, the table keeps only its shape again.
            let back: ChunkList = serde_json::from_str(&json(&each)).unwrap();
            assert!(matches!(
                back.plain_columns().map(|c| c.index),
                Some(KeyColumn::Grid(_))
            ));
            assert_eq!(back, each);
            assert!(grid.keys_increasing());
            for i in 0..ranges.len() {
                let (g, e) = (grid.key(i), each.key(i));
                assert_eq!((g, g.len(), g.iter().len()), (e, e.len(), rank));
                for d in 0..rank {
                    assert_eq!((g.get(d), g.at(d)), (e.get(d), e.at(d)));
                }
                assert_eq!(g.get(rank), None);
                assert_eq!(grid.cmp_keys(i, 1), each.cmp_keys(i, 1));
            }
            assert!(grid.key(ranges.len()).is_empty());
            assert!(grid.all_below(&shape));
            for d in 0..rank {
                let mut less = shape.clone();
                less[d] -= 1;
                assert!(!grid.all_below(&less) && !each.all_below(&less));
            }
            let mut pushed = grid.clone();
            for l in [&mut pushed, &mut each] {
                l.push(
                    &vec![9; rank],
                    0,
                    ChunkData::Ref {
                        offset: 1,
                        length: 1,
                    },
                    0,
                );
            }
            assert!(matches!(
                pushed.plain_columns().map(|c| c.index),
                Some(KeyColumn::Narrow(_))
            ));
            assert_eq!(pushed.to_entries(), each.to_entries());
        }
    }

    /// Out of order, a gap, a repeat, or a grid not starting at 0: the index stays a column.
    #[test]
    fn a_table_not_a_full_grid_keeps_its_index() {
        let ranges = [(0, 1); 4];
        for index in [
            vec![0, 0, 0, 1, 1, 1, 1, 0],
            vec![0, 0, 0, 1, 1, 0, 1, 0],
            vec![0, 0, 0, 1, 1, 0, 2, 0],
            vec![1, 0, 1, 1, 2, 0, 2, 1],
        ] {
            let l = ChunkList::from_ranges(2, index.clone(), &ranges).unwrap();
            assert!(matches!(
                l.plain_columns().map(|c| c.index),
                Some(KeyColumn::Narrow(_))
            ));
            let back: Vec<u64> = l.to_entries().into_iter().flat_map(|e| e.index).collect();
            assert_eq!(back, index);
        }
    }
}
