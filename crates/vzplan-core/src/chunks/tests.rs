//! Chunk lists: views, columns, keys, moves and the serde forms of layout lines.

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
    let old: ChunkList = serde_json::from_str(&serde_json::to_string(&entries).unwrap()).unwrap();
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
