//! The grid indexes of a [`ChunkList`](crate::ChunkList), `rank` numbers per entry, stored as
//! `u32` while every number fits (grids of more than 4·10⁹ chunks along an axis are rare): half
//! the memory of the largest column at 10⁷ references. One number past `u32` widens the column
//! once.

use smallvec::SmallVec;
use std::ops::Range;

/// A chunk's grid index, copied out of a list; held inline up to rank 6.
pub type Key = SmallVec<[u64; 6]>;

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

    /// Compares the numbers at `a` and `b` without copying them out (ranges out of range compare
    /// as empty).
    pub(crate) fn cmp(&self, a: Range<usize>, b: Range<usize>) -> std::cmp::Ordering {
        match self {
            Keys::Narrow(v) => v.get(a).unwrap_or(&[]).cmp(v.get(b).unwrap_or(&[])),
            Keys::Wide(v) => v.get(a).unwrap_or(&[]).cmp(v.get(b).unwrap_or(&[])),
        }
    }

    /// The numbers at `r` (empty when out of range).
    pub(crate) fn get(&self, r: Range<usize>) -> Key {
        match self {
            Keys::Narrow(v) => v
                .get(r)
                .map(|s| s.iter().map(|&x| u64::from(x)).collect())
                .unwrap_or_default(),
            Keys::Wide(v) => v.get(r).map(Key::from_slice).unwrap_or_default(),
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
        assert_eq!(k.get(0..2).as_slice(), [1, 2]);
        assert_eq!(k.get(2..4).as_slice(), [u64::from(u32::MAX) + 1, 3]);
        assert_eq!(k.get(4..6).as_slice(), [4, 5]);
        assert!(k.get(6..8).is_empty());
    }
}
