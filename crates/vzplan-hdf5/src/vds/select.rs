//! Dataspace selections as a virtual dataset's mappings store them (the `H5S` serialized form:
//! a type, a version, then the type's body), and the boxes they select.
//!
//! ```text
//! 02 00 00 00   hyperslab        02 00 00 00  version 2     01  regular
//! 44 00 00 00   length           02 00 00 00  rank 2
//! start, stride, count, block per dimension (8 bytes each; all ones = H5S_UNLIMITED)
//! ```

use crate::ctx::Cur;
use crate::error::{Error, Result};

/// `H5S_UNLIMITED`: a count or block that runs to the end of the extent.
pub const UNLIMITED: u64 = u64::MAX;
/// `H5S_MAX_RANK`.
const MAX_RANK: usize = 32;

/// What a selection selects.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    All,
    None,
    /// `count` blocks of `block` elements, `stride` apart from `start`, per dimension.
    Regular {
        start: Vec<u64>,
        stride: Vec<u64>,
        count: Vec<u64>,
        block: Vec<u64>,
    },
    /// Blocks listed one by one: their first and last (inclusive) element per dimension.
    Blocks(Vec<(Vec<u64>, Vec<u64>)>),
    /// Single elements: a scattered selection (never a box).
    Points,
}

/// A box: its first element and its length per dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: Vec<u64>,
    pub len: Vec<u64>,
}

impl Selection {
    /// The box the selection is within an extent `shape`, when it is one; `unlimited` lengths
    /// (an unlimited count or block) run to the end of `shape`. `Err`: why it is not a box.
    pub fn span(&self, shape: &[u64]) -> std::result::Result<Span, String> {
        match self {
            Selection::All => Ok(Span {
                start: vec![0; shape.len()],
                len: shape.to_vec(),
            }),
            Selection::None => Err("selects nothing".into()),
            Selection::Points => Err("selects single points".into()),
            Selection::Blocks(b) => match b.as_slice() {
                [(s, e)] if s.len() == shape.len() && s.iter().zip(e).all(|(a, b)| a <= b) => {
                    // The last element is the file's word: all ones plus one is no length.
                    let len = s.iter().zip(e).map(|(a, b)| (b - a).checked_add(1));
                    Ok(Span {
                        start: s.clone(),
                        len: len.collect::<Option<_>>().ok_or("overflows")?,
                    })
                }
                _ => Err(format!("selects {} separate blocks", b.len())),
            },
            Selection::Regular {
                start,
                stride,
                count,
                block,
            } => {
                if start.len() != shape.len() {
                    return Err(format!(
                        "has rank {}, its dataspace {}",
                        start.len(),
                        shape.len()
                    ));
                }
                let mut len = Vec::with_capacity(start.len());
                for d in 0..start.len() {
                    let avail = shape[d].saturating_sub(start[d]);
                    let (c, st, b) = (count[d], stride[d], block[d]);
                    let gaps =
                        || String::from("selects a pattern of blocks with gaps between them");
                    let l = if b == UNLIMITED {
                        // One block to the end of the extent.
                        if c != 1 {
                            return Err(gaps());
                        }
                        avail
                    } else if c == UNLIMITED {
                        // As many adjacent blocks as the extent holds whole.
                        if st != b || b == 0 {
                            return Err(gaps());
                        }
                        avail / b * b
                    } else if c == 1 {
                        b
                    } else if st == b {
                        c.checked_mul(b).ok_or("overflows")?
                    } else {
                        return Err(gaps());
                    };
                    len.push(l);
                }
                Ok(Span {
                    start: start.clone(),
                    len,
                })
            }
        }
    }

    /// Whether an unlimited count or block makes its extent depend on the data.
    pub fn is_unlimited(&self) -> bool {
        match self {
            Selection::Regular { count, block, .. } => {
                count.contains(&UNLIMITED) || block.contains(&UNLIMITED)
            }
            _ => false,
        }
    }
}

/// Reads one serialized selection.
pub fn read(c: &mut Cur) -> Result<Selection> {
    let kind = c.u32()?;
    let version = c.u32()?;
    match kind {
        0 | 3 => {
            c.skip(8)?; // reserved, length
            Ok(if kind == 0 {
                Selection::None
            } else {
                Selection::All
            })
        }
        1 => skip_points(c, version).map(|_| Selection::Points),
        2 => hyperslab(c, version),
        k => Err(Error::malformed(format!("selection type {k}"))),
    }
}

fn rank(c: &mut Cur) -> Result<usize> {
    let r = c.u32()? as usize;
    match r {
        1..=MAX_RANK => Ok(r),
        r => Err(Error::malformed(format!("selection of rank {r}"))),
    }
}

/// An unsigned number of `size` bytes; all ones is [`UNLIMITED`].
fn number(c: &mut Cur, size: usize) -> Result<u64> {
    let v = c.uint(size)?;
    Ok(match size {
        8 => v,
        s if v == (1u64 << (8 * s)) - 1 => UNLIMITED,
        _ => v,
    })
}

fn enc_size(c: &mut Cur) -> Result<usize> {
    match c.u8()? {
        s @ (2 | 4 | 8) => Ok(s as usize),
        s => Err(Error::malformed(format!("selection number size {s}"))),
    }
}

/// Skips a point selection, whose length the body tells.
fn skip_points(c: &mut Cur, version: u32) -> Result<()> {
    let size = match version {
        1 => {
            c.skip(8)?; // reserved, length
            4
        }
        2 => enc_size(c)?,
        v => return Err(Error::malformed(format!("point selection version {v}"))),
    };
    let r = rank(c)?;
    let n = number(c, size)?;
    let bytes = n
        .checked_mul((r * size) as u64)
        .filter(|&b| b <= c.remaining() as u64)
        .ok_or_else(|| Error::malformed("point selection longer than its heap object"))?;
    c.skip(bytes as usize)
}

fn hyperslab(c: &mut Cur, version: u32) -> Result<Selection> {
    let (regular, size) = match version {
        1 => {
            c.skip(8)?; // reserved, length
            (false, 4)
        }
        2 => {
            let flags = c.u8()?;
            c.skip(4)?; // length
            (flags & 1 != 0, 8)
        }
        3 => {
            let flags = c.u8()?;
            (flags & 1 != 0, enc_size(c)?)
        }
        v => return Err(Error::malformed(format!("hyperslab selection version {v}"))),
    };
    let r = rank(c)?;
    if regular {
        let mut v = [const { Vec::new() }; 4];
        for _ in 0..r {
            for part in &mut v {
                part.push(number(c, size)?);
            }
        }
        let [start, stride, count, block] = v;
        return Ok(Selection::Regular {
            start,
            stride,
            count,
            block,
        });
    }
    let n = number(c, size)?;
    // Each block takes 2 × rank numbers of the heap object: no more blocks than it holds.
    if n > (c.remaining() / (2 * r * size)) as u64 {
        return Err(Error::malformed(
            "hyperslab lists more blocks than its heap object holds",
        ));
    }
    let mut blocks = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let s = (0..r)
            .map(|_| number(c, size))
            .collect::<Result<Vec<_>>>()?;
        let e = (0..r)
            .map(|_| number(c, size))
            .collect::<Result<Vec<_>>>()?;
        blocks.push((s, e));
    }
    Ok(Selection::Blocks(blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regular(start: &[u64], stride: &[u64], count: &[u64], block: &[u64]) -> Selection {
        Selection::Regular {
            start: start.to_vec(),
            stride: stride.to_vec(),
            count: count.to_vec(),
            block: block.to_vec(),
        }
    }

    #[test]
    fn boxes_are_what_a_selection_covers_without_gaps() {
        let shape = [24, 8];
        let s = regular(&[6, 0], &[1, 1], &[1, 1], &[6, 8]);
        assert_eq!(
            s.span(&shape).unwrap(),
            Span {
                start: vec![6, 0],
                len: vec![6, 8]
            }
        );
        // Adjacent blocks (stride = block) are one box; gaps are not.
        let s = regular(&[0, 0], &[3, 1], &[4, 1], &[3, 8]);
        assert_eq!(s.span(&shape).unwrap().len, vec![12, 8]);
        assert!(regular(&[0, 0], &[4, 1], &[4, 1], &[3, 8])
            .span(&shape)
            .is_err());
        // An unlimited count of single rows runs to the end of the extent.
        let s = regular(&[2, 0], &[1, 1], &[UNLIMITED, 1], &[1, 8]);
        assert_eq!(
            s.span(&shape).unwrap(),
            Span {
                start: vec![2, 0],
                len: vec![22, 8]
            }
        );
        assert_eq!(Selection::All.span(&shape).unwrap().len, vec![24, 8]);
        assert!(Selection::Points.span(&shape).is_err());
        // A block from 0 to the last number there is has no length.
        let b = Selection::Blocks(vec![(vec![0, 0], vec![UNLIMITED, 7])]);
        assert!(b.span(&shape).is_err());
    }
}
