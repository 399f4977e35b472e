//! The grid indexes of a [`ChunkList`](crate::ChunkList), `rank` numbers per entry, stored as
//! `u32` while every number fits (grids of more than 4·10⁹ chunks along an axis are rare): half
//! the memory of the largest column at 10⁷ references. One number past `u32` widens the column
//! once.

use std::cmp::Ordering;
use std::ops::Range;

/// A chunk's grid index inside a list, borrowed: the list's `u32` or `u64` numbers, read as `u64`.
#[derive(Clone, Copy)]
pub enum KeyRef<'a> {
    Narrow(&'a [u32]),
    Wide(&'a [u64]),
}

impl<'a> KeyRef<'a> {
    pub fn len(&self) -> usize {
        match self {
            KeyRef::Narrow(s) => s.len(),
            KeyRef::Wide(s) => s.len(),
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
        }
    }

    pub fn iter(&self) -> KeyIter<'a> {
        match *self {
            KeyRef::Narrow(s) => KeyIter::Narrow(s.iter()),
            KeyRef::Wide(s) => KeyIter::Wide(s.iter()),
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
}

impl Iterator for KeyIter<'_> {
    type Item = u64;
    #[inline]
    fn next(&mut self) -> Option<u64> {
        match self {
            KeyIter::Narrow(it) => it.next().map(|&x| u64::from(x)),
            KeyIter::Wide(it) => it.next().copied(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            KeyIter::Narrow(it) => it.size_hint(),
            KeyIter::Wide(it) => it.size_hint(),
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
            _ => self.iter().cmp(other.iter()),
        }
    }
}

impl std::fmt::Debug for KeyRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Keys {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for Keys {
    fn default() -> Self {
        Keys::Narrow(Vec::new())
    }
}

impl Keys {
    pub(crate) fn reserve(&mut self, n: usize) {
        match self {
            Keys::Narrow(v) => v.reserve(n),
            Keys::Wide(v) => v.reserve(n),
        }
    }

    pub(crate) fn extend(&mut self, index: &[u64]) {
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

    /// The largest number along each of `rank` axes (`None` when empty or `rank` is 0): one
    /// pass without a branch per number, unrolled for ranks 1 to 4.
    pub(crate) fn axis_max(&self, rank: usize) -> Option<Vec<u64>> {
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
        match self {
            Keys::Narrow(v) => max_of(v, rank),
            Keys::Wide(v) => max_of(v, rank),
        }
    }

    /// The numbers at `r` (empty when out of range).
    pub(crate) fn get(&self, r: Range<usize>) -> KeyRef<'_> {
        match self {
            Keys::Narrow(v) => KeyRef::Narrow(v.get(r).unwrap_or(&[])),
            Keys::Wide(v) => KeyRef::Wide(v.get(r).unwrap_or(&[])),
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
        assert_eq!(k.get(0..2).to_vec(), [1, 2]);
        assert_eq!(k.get(2..4).to_vec(), [u64::from(u32::MAX) + 1, 3]);
        assert_eq!(k.get(4..6).to_vec(), [4, 5]);
        assert!(k.get(6..8).is_empty());
        let narrow = [1u32, 2];
        let wide = [1u64, 3];
        assert!(KeyRef::Narrow(&narrow) < KeyRef::Wide(&wide));
        assert_eq!(format!("{:?}", KeyRef::Narrow(&narrow)), "[1, 2]");
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
