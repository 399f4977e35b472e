//! The byte lengths of a [`ChunkList`](super::ChunkList)'s entries, stored as `u32` while every
//! one fits (a stored chunk of 4 GiB is rare): 4 bytes a reference less in every table, so fewer
//! pages touched per reference. One length past `u32` widens the column once.

/// The lengths of a plain list, for loops over every entry ([`PlainColumns`](crate::PlainColumns)).
#[derive(Clone, Copy, Debug)]
pub enum LengthColumn<'a> {
    Narrow(&'a [u32]),
    Wide(&'a [u64]),
}

#[derive(Clone, Debug)]
pub(crate) enum Lengths {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for Lengths {
    fn default() -> Self {
        Lengths::Narrow(Vec::new())
    }
}

impl FromIterator<u64> for Lengths {
    fn from_iter<I: IntoIterator<Item = u64>>(it: I) -> Self {
        let mut l = Lengths::default();
        for x in it {
            l.push(x);
        }
        l
    }
}

impl Lengths {
    pub(crate) fn reserve(&mut self, n: usize) {
        match self {
            Lengths::Narrow(v) => v.reserve(n),
            Lengths::Wide(v) => v.reserve(n),
        }
    }

    /// The column of `lengths`: one pass to see whether all fit in `u32`, one to copy them.
    pub(crate) fn of(lengths: impl Iterator<Item = u64> + Clone) -> Self {
        match lengths.clone().all(|x| u32::try_from(x).is_ok()) {
            true => Lengths::Narrow(lengths.map(|x| x as u32).collect()),
            false => Lengths::Wide(lengths.collect()),
        }
    }

    fn widen(&mut self) -> &mut Vec<u64> {
        if let Lengths::Narrow(v) = self {
            *self = Lengths::Wide(v.iter().map(|&x| u64::from(x)).collect());
        }
        match self {
            Lengths::Wide(v) => v,
            Lengths::Narrow(_) => unreachable!("widened above"),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, x: u64) {
        match (self, u32::try_from(x)) {
            (Lengths::Narrow(v), Ok(n)) => v.push(n),
            (Lengths::Wide(v), _) => v.push(x),
            (l, Err(_)) => l.widen().push(x),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Lengths::Narrow(v) => v.len(),
            Lengths::Wide(v) => v.len(),
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<u64> {
        match self {
            Lengths::Narrow(v) => v.get(i).map(|&x| u64::from(x)),
            Lengths::Wide(v) => v.get(i).copied(),
        }
    }

    /// Sets entry `i` (in range) to 0: a chunk whose bytes are now inline.
    pub(crate) fn clear(&mut self, i: usize) {
        match self {
            Lengths::Narrow(v) => v[i] = 0,
            Lengths::Wide(v) => v[i] = 0,
        }
    }

    /// Appends every length of `other`, in one copy when both are narrow.
    pub(crate) fn extend(&mut self, other: &Lengths) {
        match (&mut *self, other) {
            (Lengths::Narrow(v), Lengths::Narrow(o)) => v.extend_from_slice(o),
            (Lengths::Wide(v), Lengths::Narrow(o)) => v.extend(o.iter().map(|&x| u64::from(x))),
            (l, Lengths::Wide(o)) => l.widen().extend_from_slice(o),
        }
    }

    pub(crate) fn column(&self) -> LengthColumn<'_> {
        match self {
            Lengths::Narrow(v) => LengthColumn::Narrow(v),
            Lengths::Wide(v) => LengthColumn::Wide(v),
        }
    }

    /// The first position whose `offset + length` overflows or passes `limit`.
    pub(crate) fn first_end_past(&self, offsets: &[u64], limit: u64) -> Option<usize> {
        fn find<T: Copy + Into<u64>>(o: &[u64], l: &[T], limit: u64) -> Option<usize> {
            o.iter()
                .zip(l)
                .position(|(&o, &l)| o.checked_add(l.into()).is_none_or(|end| end > limit))
        }
        match self {
            Lengths::Narrow(v) => find(offsets, v, limit),
            Lengths::Wide(v) => find(offsets, v, limit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_past_u32_widens_the_column_and_keeps_the_others() {
        let big = u64::from(u32::MAX) + 1;
        let mut l: Lengths = [1, 2].into_iter().collect();
        assert!(matches!(l, Lengths::Narrow(_)));
        let narrow: Lengths = [3].into_iter().collect();
        l.extend(&narrow);
        l.push(big);
        assert!(matches!(l, Lengths::Wide(_)));
        l.extend(&narrow);
        let mut n: Lengths = [7].into_iter().collect();
        n.extend(&l);
        for l in [&l, &n] {
            assert!(matches!(l, Lengths::Wide(_)));
        }
        let got: Vec<Option<u64>> = (0..6).map(|i| l.get(i)).collect();
        assert_eq!(got, [Some(1), Some(2), Some(3), Some(big), Some(3), None]);
        assert_eq!(n.get(4), Some(big));
        l.clear(3);
        assert_eq!(l.get(3), Some(0));
        let offsets = [0, 10, u64::MAX - 1, 5, 5];
        assert_eq!(l.first_end_past(&offsets, u64::MAX), Some(2));
        assert_eq!(l.first_end_past(&offsets[..2], 11), Some(1));
        assert_eq!(l.first_end_past(&offsets[..2], 12), None);
        assert!(matches!(
            Lengths::of([1, 2].into_iter()),
            Lengths::Narrow(_)
        ));
        let wide = Lengths::of([1, big].into_iter());
        assert!(matches!(wide, Lengths::Wide(_)));
        assert_eq!((wide.get(0), wide.get(1)), (Some(1), Some(big)));
    }
}
