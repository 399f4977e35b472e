//! Bytes written over a local file's as it is served (`--overlay FILE`), so that several keys
//! answered from one file (symbolic links to it) still differ where a reader compares them.
//!
//! The benchmark serves 10,000 objects from 1,000 files: the keys past the first 1,000 are links.
//! A scan of identical copies would find every copy's `time` values overlapping the original's and
//! leave every variable out of the plan, so the copies' `time` values are rewritten as they are
//! served: the objects then differ as 10,000 distinct files would, at the cost of 32 bytes each.
//!
//! FILE is a JSON object `{"KEY": [[OFFSET, "HEX"], …], …}`: for each key, the bytes (in hex) that
//! replace the file's from OFFSET on. The ETag of a key with an overlay is the file's with a hash of
//! the overlay added, so that objects whose bytes differ do not share an ETag.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub offset: u64,
    pub bytes: Vec<u8>,
}

/// The overlays of the keys that have one.
#[derive(Debug, Default)]
pub struct Overlays(HashMap<String, Arc<[Patch]>>);

impl Overlays {
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        Self::parse(&text)
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let keys = doc.as_object().ok_or("not a JSON object")?;
        let mut out = HashMap::with_capacity(keys.len());
        for (key, patches) in keys {
            let bad = || format!("{key}: not a list of [OFFSET, \"HEX\"]");
            let patches = patches.as_array().ok_or_else(bad)?;
            let patches = patches
                .iter()
                .map(|p| {
                    let (offset, hex) = match p.as_array().map(Vec::as_slice) {
                        Some([o, h]) => (o.as_u64(), h.as_str()),
                        _ => (None, None),
                    };
                    Some(Patch {
                        offset: offset?,
                        bytes: unhex(hex?)?,
                    })
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(bad)?;
            out.insert(key.clone(), patches.into());
        }
        Ok(Overlays(out))
    }

    pub fn get(&self, key: &str) -> Option<Arc<[Patch]>> {
        self.0.get(key).cloned()
    }
}

/// Hex digits to bytes; None for an odd number of digits or another character.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    s.as_bytes()
        .chunks(2)
        .map(|c| match c {
            [a, b] => Some(digit(*a)? << 4 | digit(*b)?),
            _ => None,
        })
        .collect()
}

fn digit(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Writes the patches over `buf`, which holds the file's bytes from `first` on (the parts of the
/// patches outside it are left out).
pub fn apply(patches: &[Patch], first: u64, buf: &mut [u8]) {
    let end = first + buf.len() as u64;
    for p in patches {
        let (a, b) = (
            p.offset.max(first),
            (p.offset + p.bytes.len() as u64).min(end),
        );
        if a < b {
            let src = &p.bytes[(a - p.offset) as usize..(b - p.offset) as usize];
            buf[(a - first) as usize..(b - first) as usize].copy_from_slice(src);
        }
    }
}

/// A hash of the patches (FNV-1a, 64 bits), for the ETag.
pub fn hash(patches: &[Patch]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in patches {
        for b in p.offset.to_le_bytes().iter().chain(&p.bytes) {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlays_are_parsed_and_applied_to_any_range() {
        let o = Overlays::parse(r#"{"a/b.nc": [[2, "aabb"], [8, "ff"]], "c": []}"#).unwrap();
        let p = o.get("a/b.nc").unwrap();
        assert_eq!(
            p[0],
            Patch {
                offset: 2,
                bytes: vec![0xaa, 0xbb]
            }
        );
        assert!(o.get("c").unwrap().is_empty());
        assert!(o.get("d").is_none());

        let mut whole = *b"0123456789";
        apply(&p, 0, &mut whole);
        assert_eq!(&whole, b"01\xaa\xbb4567\xff9");
        // A range that cuts the first patch in two, and one that holds none of them.
        let mut part = *b"3456";
        apply(&p, 3, &mut part);
        assert_eq!(&part, b"\xbb456");
        let mut none = *b"45";
        apply(&p, 4, &mut none);
        assert_eq!(&none, b"45");
        let mut tail = *b"89";
        apply(&p, 8, &mut tail);
        assert_eq!(&tail, b"\xff9");

        for bad in [
            "[]",
            r#"{"k": [[1, "abc"]]}"#,
            r#"{"k": [[1, "zz"]]}"#,
            r#"{"k": [[1, "+f"]]}"#,
            r#"{"k": [[-1, "00"]]}"#,
            r#"{"k": [[1]]}"#,
            r#"{"k": 3}"#,
        ] {
            assert!(Overlays::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn different_overlays_hash_differently() {
        let p = |offset, b: &[u8]| Patch {
            offset,
            bytes: b.to_vec(),
        };
        assert_ne!(hash(&[p(0, b"a")]), hash(&[p(0, b"b")]));
        assert_ne!(hash(&[p(0, b"a")]), hash(&[p(1, b"a")]));
        assert_eq!(hash(&[p(5, b"ab")]), hash(&[p(5, b"ab")]));
    }
}
