//! The grid indexes of a [`ChunkList`](crate::ChunkList), `rank` numbers per entry, stored as
//! `u32` while every number fits (grids of more than 4·10⁹ chunks along an axis are rare): half
//! the memory of the largest column at 10⁷ references. One number past `u32` widens the column
//! once.
//!
//! A table that holds every chunk of its grid once, in C order (what HDF5 writers leave for a
//! fully written dataset, and a concatenation of such tables along the first axis), stores only
//! the grid's shape: entry `i`'s index is `i` unravelled over it. No column at all, where the
//! index was the largest column of the table. Any change that breaks the pattern writes the
//! column out first.

use std::cmp::Ordering;

/// A chunk's grid index inside a list, borrowed: the list's `u32` or `u64` numbers, read as `u64`.
#[derive(Clone, Copy)]
pub enum KeyRef<'a> {
    Narrow(&'a [u32]),
    Wide(&'a [u64]),
    /// Entry `pos` of a full grid of this shape, in C order.
    Grid {
        shape: &'a [u64],
        pos: u64,
    },
}

/// The number of indexes in a grid of `shape` (saturating: a shape only a hand-built key could
/// hold, never a list's, since a list's grid has as many entries as its offsets).
fn extent(shape: &[u64]) -> u64 {
    shape.iter().fold(1u64, |p, &x| p.saturating_mul(x))
}

/// The number along axis `i` of entry `pos` of a full C-order grid (`None` past the rank).
fn unravel(shape: &[u64], pos: u64, i: usize) -> Option<u64> {
    let n = *shape.get(i)?;
    let stride = extent(&shape[i + 1..]);
    Some((pos / stride.max(1)) % n.max(1))
}

impl<'a> KeyRef<'a> {
    pub fn len(&self) -> usize {
        match self {
            KeyRef::Narrow(s) => s.len(),
            KeyRef::Wide(s) => s.len(),
            KeyRef::Grid { shape, .. } => shape.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number along axis `i`.
    pub fn get(&self, i: usize) -> Option<u64> {
        match self {
            KeyRef::Narrow(s) => s.get(i).map(|&x| u64::from(x)),
            KeyRef::Wide(s) => s.get(i).copied(),
            KeyRef::Grid { shape, pos } => unravel(shape, *pos, i),
        }
    }

    pub fn first(&self) -> Option<u64> {
        self.get(0)
    }

    /// The number along axis `i`, like indexing a slice.
    ///
    /// # Panics
    /// When `i` is not below [`KeyRef::len`].
    pub fn at(&self, i: usize) -> u64 {
        match self {
            KeyRef::Narrow(s) => u64::from(s[i]),
            KeyRef::Wide(s) => s[i],
            KeyRef::Grid { shape, pos } => match unravel(shape, *pos, i) {
                Some(x) => x,
                None => panic!("axis {i} of a rank-{} index", shape.len()),
            },
        }
    }

    pub fn iter(&self) -> KeyIter<'a> {
        match *self {
            KeyRef::Narrow(s) => KeyIter::Narrow(s.iter()),
            KeyRef::Wide(s) => KeyIter::Wide(s.iter()),
            KeyRef::Grid { shape, pos } => KeyIter::Grid {
                shape,
                pos,
                axis: 0,
                stride: extent(shape.get(1..).unwrap_or_default()),
            },
        }
    }

    pub fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }
}

/// The numbers of a [`KeyRef`], as `u64`.
pub enum KeyIter<'a> {
    Narrow(std::slice::Iter<'a, u32>),
    Wide(std::slice::Iter<'a, u64>),
    /// `stride`: the product of the extents after `axis`.
    Grid {
        shape: &'a [u64],
        pos: u64,
        axis: usize,
        stride: u64,
    },
}

impl Iterator for KeyIter<'_> {
    type Item = u64;
    #[inline]
    fn next(&mut self) -> Option<u64> {
        match self {
            KeyIter::Narrow(it) => it.next().map(|&x| u64::from(x)),
            KeyIter::Wide(it) => it.next().copied(),
            KeyIter::Grid {
                shape,
                pos,
                axis,
                stride,
            } => {
                let n = *shape.get(*axis)?;
                let x = (*pos / (*stride).max(1)) % n.max(1);
                *axis += 1;
                *stride /= shape.get(*axis).copied().unwrap_or(1).max(1);
                Some(x)
            }
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            KeyIter::Narrow(it) => it.size_hint(),
            KeyIter::Wide(it) => it.size_hint(),
            KeyIter::Grid { shape, axis, .. } => {
                let n = shape.len().saturating_sub(*axis);
                (n, Some(n))
            }
        }
    }
}

impl ExactSizeIterator for KeyIter<'_> {}

impl<'a> IntoIterator for KeyRef<'a> {
    type Item = u64;
    type IntoIter = KeyIter<'a>;
    fn into_iter(self) -> KeyIter<'a> {
        self.iter()
    }
}

impl PartialEq for KeyRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for KeyRef<'_> {}

impl PartialOrd for KeyRef<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KeyRef<'_> {
    /// Lexicographic, as the `u64` slices would compare.
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (KeyRef::Narrow(a), KeyRef::Narrow(b)) => a.cmp(b),
            (KeyRef::Wide(a), KeyRef::Wide(b)) => a.cmp(b),
            // Positions inside one grid compare as their indexes do (a list's always are).
            (KeyRef::Grid { shape: s, pos: a }, KeyRef::Grid { shape: t, pos: b })
                if s == t && (*a).max(*b) < extent(s) =>
            {
                a.cmp(b)
            }
            _ => self.iter().cmp(other.iter()),
        }
    }
}

impl std::fmt::Debug for KeyRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The index column of a plain list, for loops over every entry
/// ([`PlainColumns`](crate::PlainColumns)).
#[derive(Clone, Copy, Debug)]
pub enum KeyColumn<'a> {
    /// `rank` numbers per entry.
    Narrow(&'a [u32]),
    /// Entry `i` is `i` unravelled over this shape, in C order.
    Grid(&'a [u64]),
}

#[derive(Clone, Debug)]
pub(crate) enum Keys {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
    /// Every index of a grid of this shape once, in C order (see the module docs).
    Grid(Vec<u64>),
}

impl Default for Keys {
    fn default() -> Self {
        Keys::Narrow(Vec::new())
    }
}

/// The largest number along each of `r` axes of `v` (`None` when empty or `r` is 0): one pass
/// without a branch per number, unrolled for ranks 1 to 4.
fn max_of<T: Copy + Ord + Default + Into<u64>>(v: &[T], r: usize) -> Option<Vec<u64>> {
    fn fixed<T: Copy + Ord + Default + Into<u64>, const R: usize>(v: &[T]) -> Vec<u64> {
        let mut max = [T::default(); R];
        for k in v.chunks_exact(R) {
            for d in 0..R {
                max[d] = max[d].max(k[d]);
            }
        }
        max.iter().map(|&x| x.into()).collect()
    }
    if r == 0 || v.len() < r {
        return None;
    }
    Some(match r {
        1 => fixed::<T, 1>(v),
        2 => fixed::<T, 2>(v),
        3 => fixed::<T, 3>(v),
        4 => fixed::<T, 4>(v),
        _ => {
            let mut max = vec![T::default(); r];
            for k in v.chunks_exact(r) {
                for (m, &x) in max.iter_mut().zip(k) {
                    *m = (*m).max(x);
                }
            }
            max.into_iter().map(Into::into).collect()
        }
    })
}

/// Steps `key` to the next index of a C-order walk over `shape`.
fn step(key: &mut [u64], shape: &[u64]) {
    for (k, &n) in key.iter_mut().zip(shape).rev() {
        *k += 1;
        if *k < n {
            return;
        }
        *k = 0;
    }
}

impl Keys {
    /// The index column `index` (`rank` numbers per entry) as [`Keys::Grid`] when it holds every
    /// index of a grid once, in C order: one pass, no allocation beyond the shape.
    pub(crate) fn grid_of<T: Copy + Into<u64>>(index: &[T], rank: usize) -> Option<Keys> {
        // In C order the last index is the largest along every axis: the shape, if any.
        let last = index.len().checked_sub(rank).filter(|_| rank > 0)?;
        let shape: Vec<u64> = index[last..]
            .iter()
            .map(|&m| m.into().checked_add(1))
            .collect::<Option<_>>()?;
        let n = shape.iter().try_fold(1u64, |p, &x| p.checked_mul(x))?;
        if u64::try_from(index.len() / rank).ok()? != n || !index.len().is_multiple_of(rank) {
            return None;
        }
        let mut key = vec![0u64; rank];
        for k in index.chunks_exact(rank) {
            if k.iter().zip(&key).any(|(&a, &b)| a.into() != b) {
                return None;
            }
            step(&mut key, &shape);
        }
        Some(Keys::Grid(shape))
    }

    /// The column of `index` (`rank` numbers per entry): a full grid in C order as its shape,
    /// else `u32` numbers while every one fits.
    pub(crate) fn of_column(index: Vec<u64>, rank: usize) -> Keys {
        match Keys::grid_of(&index, rank) {
            Some(grid) => grid,
            None if index.iter().all(|&x| u32::try_from(x).is_ok()) => {
                Keys::Narrow(index.iter().map(|&x| x as u32).collect())
            }
            None => Keys::Wide(index),
        }
    }

    /// A column that holds a full grid in C order, as [`Keys::Grid`] (its memory freed).
    pub(crate) fn compact(&mut self, rank: usize) {
        let grid = match self {
            Keys::Narrow(v) => Keys::grid_of(v, rank),
            Keys::Wide(v) => Keys::grid_of(v, rank),
            Keys::Grid(_) => None,
        };
        if let Some(g) = grid {
            *self = g;
        }
    }

    /// A grid's shape as the list's own [`Keys::Grid`], when the list is empty or already that
    /// grid's leading part: entries of `shape` (a full grid in C order) appended after the list's
    /// own, by `lead` on a new first axis or `shift` along the first, keep the pattern.
    /// `len` is the list's entry count; false (nothing done) when the pattern would break.
    pub(crate) fn extend_grid(
        &mut self,
        len: usize,
        shape: &[u64],
        lead: Option<u64>,
        shift: u64,
    ) -> bool {
        let Some((&first, rest)) = shape.split_first() else {
            return false;
        };
        let (own, along) = match lead {
            None => (rest, first),
            Some(_) => (shape, 1),
        };
        let start = match lead {
            None => shift,
            Some(l) => l,
        };
        if lead.is_some() && shift != 0 {
            return false;
        }
        match self {
            Keys::Grid(g) if g.get(1..) == Some(own) && g.first() == Some(&start) => {
                g[0] += along;
                true
            }
            _ if len == 0 && start == 0 => {
                let mut g = Vec::with_capacity(own.len() + 1);
                g.push(along);
                g.extend_from_slice(own);
                *self = Keys::Grid(g);
                true
            }
            _ => false,
        }
    }

    /// Writes a [`Keys::Grid`] out as a column (`u32` while every number fits).
    pub(crate) fn materialize(&mut self) {
        let Keys::Grid(shape) = self else {
            return;
        };
        let n = extent(shape);
        let mut key = vec![0u64; shape.len()];
        let room = usize::try_from(n).unwrap_or(0).saturating_mul(shape.len());
        // Written straight into the column it ends as: no wide copy to narrow afterwards.
        let mut out = match shape.iter().all(|&x| x <= u64::from(u32::MAX) + 1) {
            true => Keys::Narrow(Vec::with_capacity(room)),
            false => Keys::Wide(Vec::with_capacity(room)),
        };
        for _ in 0..n {
            match &mut out {
                Keys::Narrow(v) => v.extend(key.iter().map(|&x| x as u32)),
                Keys::Wide(v) => v.extend_from_slice(&key),
                Keys::Grid(_) => {}
            }
            step(&mut key, shape);
        }
        *self = out;
    }

    pub(crate) fn reserve(&mut self, n: usize) {
        match self {
            Keys::Narrow(v) => v.reserve(n),
            Keys::Wide(v) => v.reserve(n),
            Keys::Grid(_) => {}
        }
    }

    pub(crate) fn extend(&mut self, index: &[u64]) {
        self.materialize();
        if let Keys::Narrow(v) = self {
            if index.iter().all(|&x| u32::try_from(x).is_ok()) {
                v.extend(index.iter().map(|&x| x as u32));
                return;
            }
            *self = Keys::Wide(v.iter().map(|&x| u64::from(x)).collect());
        }
        if let Keys::Wide(v) = self {
            v.extend_from_slice(index);
        }
    }

    /// The largest number along each of `rank` axes (`None` when empty or `rank` is 0).
    pub(crate) fn axis_max(&self, rank: usize) -> Option<Vec<u64>> {
        match self {
            Keys::Narrow(v) => max_of(v, rank),
            Keys::Wide(v) => max_of(v, rank),
            Keys::Grid(g) if g.len() == rank && rank > 0 && g.iter().all(|&x| x > 0) => {
                Some(g.iter().map(|&x| x - 1).collect())
            }
            Keys::Grid(_) => None,
        }
    }

    /// The index of entry `i` of a list of `len` entries of `rank` numbers (empty past the end).
    #[inline]
    pub(crate) fn entry(&self, i: usize, rank: usize, len: usize) -> KeyRef<'_> {
        if i >= len {
            return KeyRef::Narrow(&[]);
        }
        let r = i * rank..(i + 1) * rank;
        match self {
            Keys::Narrow(v) => KeyRef::Narrow(v.get(r).unwrap_or(&[])),
            Keys::Wide(v) => KeyRef::Wide(v.get(r).unwrap_or(&[])),
            Keys::Grid(shape) => KeyRef::Grid {
                shape,
                pos: i as u64,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_past_u32_widens_the_column_and_keeps_the_others() {
        let mut k = Keys::default();
        k.extend(&[1, 2]);
        assert!(matches!(k, Keys::Narrow(_)));
        k.extend(&[u64::from(u32::MAX) + 1, 3]);
        assert!(matches!(k, Keys::Wide(_)));
        k.extend(&[4, 5]);
        assert_eq!(k.entry(0, 2, 3).to_vec(), [1, 2]);
        assert_eq!(k.entry(1, 2, 3).to_vec(), [u64::from(u32::MAX) + 1, 3]);
        assert_eq!(k.entry(2, 2, 3).to_vec(), [4, 5]);
        assert!(k.entry(3, 2, 3).is_empty());
        let narrow = [1u32, 2];
        let wide = [1u64, 3];
        assert!(KeyRef::Narrow(&narrow) < KeyRef::Wide(&wide));
        assert_eq!(format!("{:?}", KeyRef::Narrow(&narrow)), "[1, 2]");
    }

    /// Grid keys order as their numbers do, against other shapes and columns, and a key out
    /// of its grid or with an overflowing shape compares and iterates without a panic.
    #[test]
    fn grid_keys_compare_like_their_numbers() {
        let (s, t, w) = ([2u64, 3], [3u64, 2], [1u64, 0]);
        for p in 0..8 {
            for q in 0..8 {
                let (a, b) = (
                    KeyRef::Grid { shape: &s, pos: p },
                    KeyRef::Grid { shape: &t, pos: q },
                );
                let c = KeyRef::Grid { shape: &s, pos: q };
                assert_eq!(a.cmp(&b), a.to_vec().cmp(&b.to_vec()));
                assert_eq!(a.cmp(&c), a.to_vec().cmp(&c.to_vec()), "{p} {q}");
                assert_eq!(a.cmp(&KeyRef::Wide(&w)), a.to_vec().as_slice().cmp(&w[..]));
                let mut it = a.iter();
                it.next();
                assert_eq!(it.size_hint(), (1, Some(1)));
            }
        }
        let huge = [1, u64::MAX, 3];
        let k = KeyRef::Grid {
            shape: &huge,
            pos: 5,
        };
        assert_eq!((k.to_vec().len(), k.get(2)), (3, Some(2)));
    }

    #[test]
    fn axis_max_is_the_largest_number_along_each_axis() {
        for r in 1..7 {
            let v: Vec<u64> = (0..5 * r as u64).map(|x| (x * 7919) % 101).collect();
            let want: Vec<u64> = (0..r)
                .map(|d| v.iter().skip(d).step_by(r).copied().max().unwrap())
                .collect();
            let mut narrow = Keys::default();
            narrow.extend(&v);
            assert_eq!(narrow.axis_max(r), Some(want.clone()));
            let mut wide = Keys::default();
            wide.extend(&[u64::from(u32::MAX) + 1]);
            wide.extend(&v);
            let Keys::Wide(w) = &wide else {
                panic!("not widened")
            };
            assert_eq!(Keys::Wide(w[1..].to_vec()).axis_max(r), Some(want));
        }
        assert_eq!(Keys::default().axis_max(2), None);
        let mut k = Keys::default();
        k.extend(&[1, 2]);
        assert_eq!(k.axis_max(0), None);
    }
}
