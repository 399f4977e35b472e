//! Appending a file's table to a plan's: [`ChunkList::extend_moved`], column to column where it
//! can be, keeping a full grid's implied index ([`Keys::Grid`]) when the tables follow on.

use super::ChunkList;
use crate::keys::Keys;
use crate::ChunkData;

/// Where [`ChunkList::extend_moved`] puts another list's entries: from `source`, after `lead`
/// (the key of a new leading axis), index `axis` (of the other list) moved by `shift`, entries
/// at or past `limits` (the other list's indexes, number by number) left out.
#[derive(Clone, Copy, Debug)]
pub struct Move<'a> {
    pub source: usize,
    pub lead: Option<u64>,
    pub axis: usize,
    pub shift: u64,
    pub limits: &'a [u64],
}

/// Appends the keys `src` (`r` numbers each) to `dst`, each after `lead` if any, the number
/// along `axis` (of `src`) moved by `shift` (the caller has checked that it stays a `u32`).
fn move_keys(
    dst: &mut Vec<u32>,
    src: &[u32],
    r: usize,
    lead: Option<u32>,
    axis: usize,
    shift: u32,
) {
    let start = dst.len();
    let out_rank = r + usize::from(lead.is_some());
    match lead {
        None => dst.extend_from_slice(src),
        Some(l) => {
            dst.reserve(src.len() / r * out_rank);
            for k in src.chunks_exact(r) {
                dst.push(l);
                dst.extend_from_slice(k);
            }
        }
    }
    if shift != 0 {
        let axis = axis + usize::from(lead.is_some());
        for k in dst[start..].chunks_exact_mut(out_rank) {
            k[axis] += shift;
        }
    }
}

impl ChunkList {
    /// Appends the entries of `other`, a plain list ([`ChunkList::is_plain`]), placed as `m`
    /// says; an entry whose index is not below `m.limits` on every axis (before the move), or of
    /// another rank, is left out. The same as pushing each entry, without a view and a copy of
    /// its data per entry: the planner placing a file's table.
    /// When `other` names its entries' sources (blocks in linked files), they keep them.
    pub fn extend_moved(&mut self, other: &ChunkList, m: &Move<'_>) {
        debug_assert!(other.is_plain());
        if !other.has_sources() && self.extend_narrow(other, m) {
            return;
        }
        let mut key = Vec::with_capacity(m.limits.len() + 1);
        for i in 0..other.len() {
            let k = other.key(i);
            if k.len() != m.limits.len() || !k.iter().zip(m.limits).all(|(x, &l)| x < l) {
                continue;
            }
            key.clear();
            key.extend(m.lead);
            key.extend(k.iter());
            if let Some(x) = key.get_mut(m.axis + usize::from(m.lead.is_some())) {
                *x = x.saturating_add(m.shift);
            }
            let (offset, length) = (other.offset[i], other.length.get(i).unwrap_or(0));
            let source = match other.source.get(i) {
                Some(&s) => s as usize,
                None => m.source,
            };
            self.push(&key, source, ChunkData::Ref { offset, length }, 0);
        }
    }

    /// [`ChunkList::extend_moved`] column to column, when both lists hold `u32` indexes of the
    /// right ranks and every placed index stays a `u32`; false (nothing done) otherwise.
    fn extend_narrow(&mut self, other: &ChunkList, m: &Move<'_>) -> bool {
        let r = m.limits.len();
        let top = u64::from(u32::MAX);
        let fits = m.lead.is_none_or(|l| l <= top)
            && m.limits
                .get(m.axis)
                .and_then(|l| l.checked_add(m.shift))
                .is_some_and(|n| n <= top + 1);
        let out_rank = r + usize::from(m.lead.is_some());
        let wide = |k: &Keys| matches!(k, Keys::Wide(_));
        if !fits || r == 0 || other.rank != Some(r) || wide(&self.index) || wide(&other.index) {
            return false;
        }
        if *self.rank.get_or_insert(out_rank) != out_rank {
            return false;
        }
        let at = self.offset.len();
        let all = other.all_below(m.limits);
        let kept_grid = match &other.index {
            Keys::Grid(g) if all && (m.lead.is_some() || m.axis == 0) => {
                self.index.extend_grid(at, g, m.lead, m.shift)
            }
            _ => false,
        };
        if !kept_grid && !self.extend_column(other, m, all) {
            return false;
        }
        if all {
            self.offset.extend_from_slice(&other.offset);
            self.length.extend(&other.length);
        }
        let source = u32::try_from(m.source).unwrap_or(u32::MAX);
        if source != 0 || !self.source.is_empty() {
            // Once, as much room as the other columns were given (the planner's sum of tables).
            let room = self.offset.capacity().saturating_sub(self.source.len());
            self.source.reserve_exact(room);
            self.source.resize(at, 0);
            self.source.resize(self.offset.len(), source);
        }
        true
    }

    /// [`ChunkList::extend_narrow`]'s index part when a column is written: `other`'s keys moved
    /// onto this list's `u32` column (a grid written out first); for a partial table (`all`
    /// false) the offsets and lengths of the entries kept too. False (nothing done) when a
    /// column would not be `u32`.
    fn extend_column(&mut self, other: &ChunkList, m: &Move<'_>, all: bool) -> bool {
        let r = m.limits.len();
        self.index.materialize();
        let own;
        let src: &[u32] = match &other.index {
            Keys::Narrow(v) => v,
            Keys::Grid(g) => {
                let mut k = Keys::Grid(g.clone());
                k.materialize();
                own = k;
                match &own {
                    Keys::Narrow(v) => v,
                    _ => return false,
                }
            }
            Keys::Wide(_) => return false,
        };
        let Keys::Narrow(dst) = &mut self.index else {
            return false;
        };
        let lead = m.lead.map(|l| l as u32);
        if all {
            // Every entry placed (nearly always): the index moved in one pass.
            move_keys(dst, src, r, lead, m.axis, m.shift as u32);
            return true;
        }
        for (i, k) in src.chunks_exact(r).enumerate() {
            if !k.iter().zip(m.limits).all(|(&x, &l)| u64::from(x) < l) {
                continue;
            }
            dst.extend(lead);
            dst.extend(k.iter().enumerate().map(|(j, &x)| match j == m.axis {
                true => x + m.shift as u32,
                false => x,
            }));
            self.offset.push(other.offset[i]);
            self.length.push(other.length.get(i).unwrap_or(0));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunks::tests::full_grid;
    use crate::keys::KeyColumn;

    fn grid(shape: &[u64], base: u64) -> ChunkList {
        let (index, ranges) = full_grid(shape, base);
        ChunkList::from_ranges(shape.len(), index, &ranges).unwrap()
    }

    /// What [`ChunkList::extend_moved`] must equal: each entry below the limits pushed, moved.
    fn push_each(dst: &mut ChunkList, file: &ChunkList, m: &Move<'_>) {
        for c in file {
            let k = c.index.to_vec();
            if k.iter().zip(m.limits).all(|(x, l)| x < l) {
                let mut key: Vec<u64> = m.lead.into_iter().collect();
                key.extend(k.iter().enumerate().map(|(j, &x)| match j == m.axis {
                    true => x + m.shift,
                    false => x,
                }));
                dst.push(&key, m.source, c.data.to_owned(), 0);
            }
        }
    }

    /// Full grids appended in order along the first axis, or stacked on a new one, keep the
    /// plan's index implied; a move along another axis, a gap, or entries left out write it
    /// out. Each way equals pushing every entry.
    #[test]
    fn grids_appended_in_order_stay_a_grid() {
        // (file shape, lead, axis, shift, limits), and whether the plan stays a grid.
        type Step = (Vec<u64>, Option<u64>, usize, u64, Vec<u64>);
        let along = |s: &[u64], shift| (s.to_vec(), None, 0, shift, s.to_vec());
        let stack = |s: &[u64], lead| (s.to_vec(), Some(lead), 1, 0, s.to_vec());
        let cases: Vec<(Vec<Step>, bool)> = vec![
            (
                vec![along(&[2, 3], 0), along(&[4, 3], 2), along(&[1, 3], 6)],
                true,
            ),
            (
                vec![stack(&[2, 3], 0), stack(&[2, 3], 1), stack(&[2, 3], 2)],
                true,
            ),
            (vec![along(&[2, 3], 0), along(&[2, 3], 5)], false),
            (vec![along(&[2, 3], 0), along(&[2, 2], 2)], false),
            (vec![stack(&[2, 3], 0), stack(&[2, 3], 2)], false),
            (
                vec![along(&[2, 3], 0), (vec![2, 3], None, 1, 3, vec![2, 3])],
                false,
            ),
            (
                vec![along(&[2, 3], 0), (vec![3, 3], None, 0, 2, vec![2, 3])],
                false,
            ),
            // Stacked after a lead and moved along the file's first axis: starts past 0.
            (vec![(vec![2, 3], Some(0), 0, 1, vec![2, 3])], false),
        ];
        for (steps, stays) in cases {
            let rank = steps[0].0.len() + usize::from(steps[0].1.is_some());
            let mut bulk = ChunkList::with_capacity(rank, 0);
            let mut each = ChunkList::new();
            for (f, (shape, lead, axis, shift, limits)) in steps.iter().enumerate() {
                let file = grid(shape, 100 * f as u64);
                let m = Move {
                    source: f,
                    lead: *lead,
                    axis: *axis,
                    shift: *shift,
                    limits,
                };
                bulk.extend_moved(&file, &m);
                push_each(&mut each, &file, &m);
            }
            assert_eq!(bulk.to_entries(), each.to_entries(), "{steps:?}");
            assert!(bulk
                .iter()
                .map(|c| c.source)
                .eq(each.iter().map(|c| c.source)));
            let kept = matches!(
                bulk.plain_columns().map(|c| c.index),
                Some(KeyColumn::Grid(_))
            );
            assert_eq!(kept, stays, "{steps:?}");
        }
    }
}
