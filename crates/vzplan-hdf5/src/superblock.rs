//! Format signature and superblock, HDF5 spec II.A ("Disk Format: Level 0A").
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! The signature is searched at 0, 512, 1024, 2048, … The effective base address is where the
//! signature was found (the library adjusts a stored base address that differs from it).

use crate::ctx::Cur;
use crate::error::{Error, Result};
use vzplan_io::RangeRead;

pub const SIGNATURE: [u8; 8] = [0x89, b'H', b'D', b'F', b'\r', b'\n', 0x1a, b'\n'];

/// What the reader needs from the superblock.
#[derive(Debug, Clone)]
pub struct Superblock {
    pub version: u8,
    pub so: u8,
    pub sl: u8,
    pub base: u64,
    /// Object header address of the root group (relative to `base`).
    pub root: u64,
}

/// Finds the signature and decodes the superblock.
pub fn read(r: &dyn RangeRead) -> Result<Superblock> {
    let at = find(r)?;
    decode(r, at)
}

/// Where the signature is: at 0, 512, 1024, 2048, … (after a user block).
pub(crate) fn find(r: &dyn RangeRead) -> Result<u64> {
    let size = r.size();
    let mut at = 0u64;
    loop {
        if at.saturating_add(8) > size {
            return Err(Error::NotHdf5);
        }
        let head = r.read_at(at, 8)?;
        if head == SIGNATURE {
            return Ok(at);
        }
        at = if at == 0 { 512 } else { at.saturating_mul(2) };
    }
}

fn decode(r: &dyn RangeRead, at: u64) -> Result<Superblock> {
    // v0/v1 superblocks are at most 8+16+4+4 + 4 addresses + a symbol table entry (≤ 4*8 + 8*2+24).
    let len = (r.size() - at).min(256);
    let buf = r.read_at(at, len)?;
    let mut c = Cur::new(&buf, 8, 8);
    c.skip(8)?;
    let version = c.u8()?;
    let (so, sl);
    match version {
        0 | 1 => {
            c.skip(4)?; // free-space, root symbol table entry, reserved, shared header versions
            so = c.u8()?;
            sl = c.u8()?;
            check_sizes(so, sl)?;
            c.skip(1)?;
            c.skip(4)?; // group leaf / internal node K
            c.skip(4)?; // file consistency flags
            if version == 1 {
                c.skip(4)?; // indexed storage internal node K + reserved
            }
            let mut c2 = Cur::new(&buf, so, sl);
            c2.seek(c.pos())?;
            let _base = c2.offset()?;
            c2.offset()?; // free-space info
            c2.offset()?; // end of file
            c2.offset()?; // driver info block
                          // Root group symbol table entry: link name offset, object header address, …
            c2.offset()?;
            let root = c2.offset()?;
            Ok(Superblock {
                version,
                so,
                sl,
                base: at,
                root,
            })
        }
        2 | 3 => {
            so = c.u8()?;
            sl = c.u8()?;
            check_sizes(so, sl)?;
            c.skip(1)?; // flags
            let mut c2 = Cur::new(&buf, so, sl);
            c2.seek(c.pos())?;
            let _base = c2.offset()?;
            c2.offset()?; // superblock extension
            c2.offset()?; // end of file
            let root = c2.offset()?;
            crate::chunks::checksum::verify(&buf, c2.pos(), "superblock")?;
            Ok(Superblock {
                version,
                so,
                sl,
                base: at,
                root,
            })
        }
        v => Err(Error::unsupported(format!("superblock version {v}"))),
    }
}

fn check_sizes(so: u8, sl: u8) -> Result<()> {
    if !matches!(so, 2 | 4 | 8) || !matches!(sl, 2 | 4 | 8) {
        return Err(Error::malformed(format!(
            "superblock sizes of offsets {so} / lengths {sl}"
        )));
    }
    Ok(())
}
