//! The serialized form of a [`ChunkList`]: the list of entries of the module docs, written
//! from the columns and read back into them.

use super::{ChunkList, DataRef};
use crate::keys::KeyRef;
use crate::ChunkEntry;
use serde::de::{Error as _, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The serialized form of one entry, borrowed (the same JSON as [`ChunkEntry`]).
#[derive(Serialize)]
struct EntryOut<'a> {
    #[serde(serialize_with = "key_list")]
    index: KeyRef<'a>,
    data: DataOut<'a>,
    #[serde(skip_serializing_if = "is_zero")]
    filter_mask: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum DataOut<'a> {
    Ref { offset: u64, length: u64 },
    Inline(#[serde(serialize_with = "b64_slice")] &'a [u8]),
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn key_list<S: Serializer>(k: &KeyRef<'_>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(k.iter())
}

fn b64_slice<S: Serializer>(v: &&[u8], s: S) -> Result<S::Ok, S::Error> {
    use base64::Engine;
    s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(v))
}

impl Serialize for ChunkList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for c in self.iter() {
            let data = match c.data {
                DataRef::Ref { offset, length } => DataOut::Ref { offset, length },
                DataRef::Inline(b) => DataOut::Inline(b),
            };
            seq.serialize_element(&EntryOut {
                index: c.index,
                data,
                filter_mask: c.filter_mask,
            })?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for ChunkList {
    /// Entry by entry into the columns (no list of structs in between); mixed ranks are an error.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ChunkList;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of chunk entries")
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
        d.deserialize_seq(V)
    }
}
