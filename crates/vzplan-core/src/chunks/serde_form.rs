//! The serialized form of a [`ChunkList`] (see the module docs of `chunks`): written as columns,
//! read back from columns straight into the list's own, or from the list of entry objects that
//! older layout lines hold.

use super::lengths::{LengthColumn, Lengths};
use super::ChunkList;
use crate::keys::{KeyRef, Keys};
use crate::ChunkEntry;
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A grid's shape: `{"grid": [2, 3]}`.
#[derive(Serialize)]
struct GridOut<'a> {
    grid: &'a [u64],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GridIn {
    grid: Vec<u64>,
}

/// One index per entry: `[[0, 0], [1, 0]]`.
struct IndexList<'a>(&'a ChunkList);

struct KeyList<'a>(KeyRef<'a>);

impl Serialize for KeyList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

impl Serialize for IndexList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.0.len()).map(|i| KeyList(self.0.key(i))))
    }
}

struct B64<'a>(&'a [u8]);

impl Serialize for B64<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::layout::b64::serialize(self.0, s)
    }
}

impl Serialize for ChunkList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let rank = self.rank.unwrap_or(0);
        // A full grid read by a path that kept the column (a push per entry) is written as one too.
        let found = match &self.index {
            Keys::Narrow(v) => Keys::grid_of(v, rank),
            Keys::Wide(v) => Keys::grid_of(v, rank),
            Keys::Grid(_) => None,
        };
        let grid = match found.as_ref().unwrap_or(&self.index) {
            Keys::Grid(g) => Some(g.as_slice()),
            _ => None,
        };
        let (inline, mask) = (!self.inline.is_empty(), !self.mask.is_empty());
        // A file's own table names no source; one that references linked files lists each
        // entry's (see `SourceLayout::linked`), padded to every entry.
        let source = !self.source.is_empty();
        let n = 3 + usize::from(inline) + usize::from(mask) + usize::from(source);
        let mut m = s.serialize_struct("ChunkList", n)?;
        match grid {
            Some(g) => m.serialize_field("index", &GridOut { grid: g })?,
            None => m.serialize_field("index", &IndexList(self))?,
        }
        m.serialize_field("offset", &self.offset)?;
        match self.length.column() {
            LengthColumn::Narrow(v) => m.serialize_field("length", v)?,
            LengthColumn::Wide(v) => m.serialize_field("length", v)?,
        }
        if source {
            let mut column = self.source.clone();
            column.resize(self.len(), 0);
            m.serialize_field("source", &column)?;
        }
        if inline {
            let pairs: Vec<_> = self.inline.iter().map(|(i, b)| (i, B64(b))).collect();
            m.serialize_field("inline", &pairs)?;
        }
        if mask {
            let pairs: Vec<_> = self.mask.iter().collect();
            m.serialize_field("filter_mask", &pairs)?;
        }
        m.end()
    }
}

/// The index column as read: a grid's shape, or every entry's numbers in one flat list.
enum IndexIn {
    Grid(Vec<u64>),
    List {
        rank: Option<usize>,
        flat: Vec<u64>,
        count: usize,
    },
}

/// Appends one entry's numbers to a flat list; the value is how many there were.
struct KeySeed<'a>(&'a mut Vec<u64>);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a chunk index (a list of numbers)")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let start = self.0.len();
        while let Some(x) = seq.next_element::<u64>()? {
            self.0.push(x);
        }
        Ok(self.0.len() - start)
    }
}

impl<'de> Deserialize<'de> for IndexIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IndexIn;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a grid's shape ({\"grid\": [...]}) or a list of chunk indexes")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<IndexIn, A::Error> {
                let g = GridIn::deserialize(MapAccessDeserializer::new(map))?;
                Ok(IndexIn::Grid(g.grid))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IndexIn, A::Error> {
                let (mut rank, mut flat, mut count) = (None, Vec::new(), 0usize);
                while let Some(n) = seq.next_element_seed(KeySeed(&mut flat))? {
                    let want = *rank.get_or_insert(n);
                    if n != want {
                        return Err(A::Error::custom(format!(
                            "chunk index {count} has rank {n}, the others rank {want}"
                        )));
                    }
                    count += 1;
                }
                Ok(IndexIn::List { rank, flat, count })
            }
        }
        d.deserialize_any(V)
    }
}

/// A length column, pushed number by number (`u32` while every one fits).
struct LengthsIn(Lengths);

impl<'de> Deserialize<'de> for LengthsIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LengthsIn;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of chunk lengths")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LengthsIn, A::Error> {
                let mut l = Lengths::default();
                while let Some(x) = seq.next_element::<u64>()? {
                    l.push(x);
                }
                Ok(LengthsIn(l))
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
struct BytesIn(#[serde(with = "crate::layout::b64")] Vec<u8>);

/// The column form as read, checked by [`Columns::into_list`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Columns {
    index: IndexIn,
    offset: Vec<u64>,
    length: LengthsIn,
    #[serde(default)]
    inline: Vec<(usize, BytesIn)>,
    #[serde(default)]
    filter_mask: Vec<(usize, u32)>,
    /// Each entry's source: 0 the file itself, k the file's k-th linked file.
    #[serde(default)]
    source: Vec<u32>,
}

/// Side entries (`inline`, `filter_mask`) name positions inside the list, in increasing order
/// (as written), so each is listed once whatever its value.
fn positions<T>(what: &str, pairs: &[(usize, T)], len: usize) -> Result<(), String> {
    let mut prev = None;
    for &(i, _) in pairs {
        if i >= len || prev.is_some_and(|p| i <= p) {
            return Err(format!(
                "{what} at position {i}: past the end, repeated or out of order"
            ));
        }
        prev = Some(i);
    }
    Ok(())
}

impl Columns {
    /// The list, when the columns agree: as many indexes as offsets and lengths, side entries at
    /// increasing positions inside the list, inline entries without a byte range.
    fn into_list(self) -> Result<ChunkList, String> {
        let len = self.offset.len();
        if self.length.0.len() != len {
            return Err(format!(
                "{len} chunk offsets but {} lengths",
                self.length.0.len()
            ));
        }
        let (rank, index) = match self.index {
            IndexIn::Grid(shape) => {
                let n = shape.iter().try_fold(1u64, |p, &x| p.checked_mul(x));
                if n != u64::try_from(len).ok() {
                    return Err(format!("a grid of shape {shape:?} for {len} chunk offsets"));
                }
                match shape.is_empty() || len == 0 {
                    true => (Some(shape.len()), Keys::default()),
                    false => (Some(shape.len()), Keys::Grid(shape)),
                }
            }
            IndexIn::List { rank, flat, count } if count == len => {
                (rank, Keys::of_column(flat, rank.unwrap_or(0)))
            }
            IndexIn::List { count, .. } => {
                return Err(format!("{count} chunk indexes for {len} chunk offsets"));
            }
        };
        if !self.source.is_empty() && self.source.len() != len {
            return Err(format!(
                "{} chunk sources for {len} chunk offsets",
                self.source.len()
            ));
        }
        // A column of zeros is the same as none.
        let source = match self.source.iter().all(|&s| s == 0) {
            true => Vec::new(),
            false => self.source,
        };
        let mut l = ChunkList {
            rank,
            index,
            source,
            offset: self.offset,
            length: self.length.0,
            ..ChunkList::default()
        };
        positions("inline bytes", &self.inline, len)?;
        positions("a filter mask", &self.filter_mask, len)?;
        for (i, b) in self.inline {
            let range = (l.offset[i], l.length.get(i).unwrap_or(0));
            if range != (0, 0) {
                return Err(format!(
                    "inline bytes at position {i} with the byte range {range:?}: an inline \
                     chunk's offset and length are 0"
                ));
            }
            l.inline.insert(i, b.0);
        }
        for (i, m) in self.filter_mask {
            l.set_filter_mask(i, m);
        }
        Ok(l)
    }
}

impl<'de> Deserialize<'de> for ChunkList {
    /// Columns, or (older lines) entry by entry into the columns; mixed ranks are an error.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ChunkList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("chunk columns or a list of chunk entries")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ChunkList, A::Error> {
                let c = Columns::deserialize(MapAccessDeserializer::new(map))?;
                c.into_list().map_err(A::Error::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ChunkList, A::Error> {
                let mut l = ChunkList::new();
                while let Some(e) = seq.next_element::<ChunkEntry>()? {
                    l.try_push(&e.index, 0, e.data, e.filter_mask)
                        .map_err(A::Error::custom)?;
                }
                // A full grid read back keeps only its shape, as the reader's table did.
                if let Some(r) = l.rank {
                    l.index.compact(r);
                }
                Ok(l)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChunkData;

    fn parse(json: &str) -> Result<ChunkList, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    /// The module docs' examples: columns and entry objects read as the same lists, and a list
    /// writes the columns back as they were read.
    #[test]
    fn columns_and_entry_objects_read_as_the_same_list() {
        let cols = r#"{"index":[[0,0],[1,1]],"offset":[4096,0],"length":[1200,0],"inline":[[1,"AAAAAA=="]],"filter_mask":[[1,1]]}"#;
        let objs = r#"[{"index":[0,0],"data":{"ref":{"offset":4096,"length":1200}}},
            {"index":[1,1],"data":{"inline":"AAAAAA=="},"filter_mask":1}]"#;
        let (a, b) = (parse(cols).unwrap(), parse(objs).unwrap());
        assert_eq!(a, b);
        assert_eq!(a.len(), 2);
        assert_eq!(serde_json::to_string(&a).unwrap(), cols);
        let grid = r#"{"index":{"grid":[2,3]},"offset":[1,2,3,4,5,6],"length":[7,8,9,10,11,12]}"#;
        let g = parse(grid).unwrap();
        assert_eq!(g.key(4).to_vec(), [1, 1]);
        assert_eq!(serde_json::to_string(&g).unwrap(), grid);
    }

    /// Wide keys and lengths, a full grid pushed entry by entry (written as its shape), rank 0
    /// and empty lists: each reads back as it was written.
    #[test]
    fn every_kind_of_list_round_trips() {
        let big = u64::from(u32::MAX) + 1;
        let r = |offset, length| ChunkData::Ref { offset, length };
        let mut wide = ChunkList::new();
        wide.push(&[big, 0], 0, r(1, big), 5);
        wide.push(&[0, 2], 0, ChunkData::Inline(vec![9; 4]), 0);
        let mut full = ChunkList::new();
        for i in 0..6 {
            full.push(&[i / 3, i % 3], 0, r(10 * i, 3), 0);
        }
        let mut scalar = ChunkList::new();
        scalar.push(&[], 0, r(8, 8), 0);
        let empty = ChunkList::with_capacity(2, 0);
        for l in [wide, full, scalar, empty, ChunkList::new()] {
            let json = serde_json::to_string(&l).unwrap();
            let back = parse(&json).unwrap();
            assert_eq!(back, l, "{json}");
            assert_eq!(back.to_entries(), l.to_entries());
            assert_eq!(serde_json::to_string(&back).unwrap(), json);
        }
        let full_json =
            r#"{"index":{"grid":[2,3]},"offset":[0,10,20,30,40,50],"length":[3,3,3,3,3,3]}"#;
        assert!(parse(full_json).is_ok());
        assert_eq!(
            serde_json::to_string(&parse(r#"{"index":[[]],"offset":[8],"length":[8]}"#).unwrap())
                .unwrap(),
            r#"{"index":[[]],"offset":[8],"length":[8]}"#
        );
    }

    /// Columns that disagree are an error that says how, never a list.
    #[test]
    fn columns_that_disagree_are_refused() {
        for (json, says) in [
            (
                r#"{"index":[[0]],"offset":[1,2],"length":[1,2]}"#,
                "1 chunk indexes for 2",
            ),
            (
                r#"{"index":[[0],[1]],"offset":[1,2],"length":[1]}"#,
                "2 chunk offsets but 1",
            ),
            (
                r#"{"index":[[0],[1,1]],"offset":[1,2],"length":[1,2]}"#,
                "has rank 2",
            ),
            (
                r#"{"index":{"grid":[3]},"offset":[1,2],"length":[1,2]}"#,
                "shape [3]",
            ),
            (
                r#"{"index":{"grid":[4294967296,4294967296,4294967296]},"offset":[1],"length":[1]}"#,
                "a grid of shape",
            ),
            (
                r#"{"index":{"grid":[2],"x":1},"offset":[1,2],"length":[1,2]}"#,
                "unknown field",
            ),
            (
                r#"{"index":[[0]],"offset":[1],"length":[1],"inline":[[1,"AA=="]]}"#,
                "position 1",
            ),
            (
                r#"{"index":[[0]],"offset":[1],"length":[1],"filter_mask":[[0,1],[0,2]]}"#,
                "repeated",
            ),
            (
                r#"{"index":[[0]],"offset":[1],"length":[1],"source":[0,1]}"#,
                "2 chunk sources for 1",
            ),
            // A repeat is refused whatever the mask's value, and out of order too.
            (
                r#"{"index":[[0]],"offset":[1],"length":[1],"filter_mask":[[0,0],[0,2]]}"#,
                "repeated",
            ),
            (
                r#"{"index":[[0],[1]],"offset":[1,2],"length":[1,1],"filter_mask":[[1,1],[0,1]]}"#,
                "out of order",
            ),
            (
                r#"{"index":[[0],[1]],"offset":[0,0],"length":[0,0],"inline":[[1,"AA=="],[0,"AA=="]]}"#,
                "position 0",
            ),
            (
                r#"{"index":{"grid":[1]},"offset":[5],"length":[7],"inline":[[0,"AA=="]]}"#,
                "byte range (5, 7)",
            ),
            (r#"{"index":[[0]],"offset":[1]}"#, "missing field `length`"),
            (
                r#"{"index":[[-1]],"offset":[1],"length":[1]}"#,
                "invalid value",
            ),
            (r#""entries""#, "chunk columns or a list"),
        ] {
            let e = parse(json).unwrap_err();
            assert!(e.contains(says), "{json}: {e}");
        }
    }
}
