//! Which GETs fetch one batch of ranges on object storage.
//!
//! A request costs a round trip (tens of milliseconds on S3) and is billed; a megabyte costs about
//! as much time. So a batch's ranges are merged across gaps smaller than
//! [`IoOptions::coalesce_gap`](crate::IoOptions::coalesce_gap) as before, and then across the
//! smallest remaining gaps while the bytes read for nothing stay within a budget: the bytes the
//! batch needs, or [`IoOptions::merge_budget`](crate::IoOptions::merge_budget) when that is more.
//! A batch therefore never reads more than twice what it needs plus the budget. The reader passes
//! the budget only for a batch of more GETs than it sends at once: GETs sent together cost one
//! round trip, so merging them would only read more. An HDF5 index
//! level whose nodes lie between the chunks (an extensible array's data blocks, 256 KiB apart in a
//! 4 MB file) becomes one GET instead of one per node, while nodes spread through a large file
//! (a B-tree level over 40 MB) stay separate GETs.
//!
//! ```text
//! ranges  [0,10) [20,30)            [5000,5010)      gap 100, budget 0:  [0,30) [5000,5010)
//! ```

/// One GET: its byte range `[start, end)` and the indexes of the ranges it serves.
pub(crate) type Group = (u64, u64, Vec<usize>);

/// Groups `ranges` (`(start, end, index)`, any order, none empty) into GETs.
pub(crate) fn groups(mut ranges: Vec<(u64, u64, usize)>, gap: u64, budget: u64) -> Vec<Group> {
    ranges.sort_unstable();
    let mut out: Vec<Group> = Vec::new();
    for (s, e, i) in ranges {
        match out.last_mut() {
            Some((_, ge, members)) if s <= ge.saturating_add(gap) => {
                *ge = (*ge).max(e);
                members.push(i);
            }
            _ => out.push((s, e, vec![i])),
        }
    }
    if out.len() < 2 {
        return out;
    }
    let needed: u64 = out.iter().map(|(s, e, _)| e - s).sum();
    let mut allowance = needed.max(budget);
    // The gaps between neighbouring groups, smallest first: merge those that fit the allowance.
    let mut gaps: Vec<(u64, usize)> = out
        .windows(2)
        .enumerate()
        .map(|(k, w)| (w[1].0 - w[0].1, k))
        .collect();
    gaps.sort_unstable();
    let mut join = vec![false; out.len() - 1];
    for (g, k) in gaps {
        if g > allowance {
            break;
        }
        allowance -= g;
        join[k] = true;
    }
    let mut merged: Vec<Group> = Vec::with_capacity(out.len());
    let mut joined_prev = false;
    for (k, (s, e, members)) in out.into_iter().enumerate() {
        match merged.last_mut() {
            Some((_, ge, gm)) if joined_prev => {
                *ge = e;
                gm.extend(members);
            }
            _ => merged.push((s, e, members)),
        }
        joined_prev = join.get(k).copied().unwrap_or(false);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::groups;

    fn spans(g: &[super::Group]) -> Vec<(u64, u64)> {
        g.iter().map(|(s, e, _)| (*s, *e)).collect()
    }

    #[test]
    fn close_ranges_merge_and_far_ones_stay_apart() {
        let r = vec![(5000, 5010, 2), (20, 30, 1), (0, 10, 0)];
        let g = groups(r.clone(), 100, 0);
        assert_eq!(spans(&g), [(0, 30), (5000, 5010)]);
        assert_eq!(g[0].2, [0, 1]);
        // A budget covering the gap: one GET serving all three.
        let g = groups(r, 100, 5000);
        assert_eq!(spans(&g), [(0, 5010)]);
        assert_eq!(g[0].2, [0, 1, 2]);
    }

    /// The bytes read for nothing stay within the bytes needed (or the budget): the smallest
    /// gaps are merged first, and a gap larger than what is left is not.
    #[test]
    fn merging_stays_within_the_allowance() {
        // Four 100-byte ranges needing 400 bytes; gaps 250, 40 and 1,000.
        let r = vec![(0, 100, 0), (350, 450, 1), (490, 590, 2), (1590, 1690, 3)];
        let g = groups(r.clone(), 0, 0);
        // Needed 400: gap 40 (left 360), then 250 (left 110); 1,000 does not fit.
        assert_eq!(spans(&g), [(0, 590), (1590, 1690)]);
        assert_eq!(g[0].2, [0, 1, 2]);
        let read: u64 = g.iter().map(|(s, e, _)| e - s).sum();
        assert!(read <= 2 * 400);
        let g = groups(r, 0, 2000);
        assert_eq!(spans(&g), [(0, 1690)]);
        // Smallest gaps first, not in file order: gaps 300, 40 and 80 with 400 bytes needed
        // merge the 40 and the 80 (in order, the 300 and the 40 would merge instead).
        let r = vec![(0, 100, 0), (400, 500, 1), (540, 640, 2), (720, 820, 3)];
        assert_eq!(spans(&groups(r, 0, 0)), [(0, 100), (400, 820)]);
        // Overlapping and nested ranges never lose a member.
        let g = groups(vec![(0, 100, 0), (10, 20, 1), (50, 200, 2)], 0, 0);
        assert_eq!(spans(&g), [(0, 200)]);
        assert_eq!(g[0].2.len(), 3);
        assert!(groups(Vec::new(), 0, 0).is_empty());
    }
}
