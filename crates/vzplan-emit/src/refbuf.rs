//! The buffer chunk references are gathered in before they are written out.
//!
//! A reference is a few short pieces (`,\n"tas/c/17/0/0":["{{u3}}",231777,139]`), millions of
//! times. The buffer is sized ahead for the longest reference of an array and written at a
//! cursor, so a piece is a bounds-checked store, not a `Vec` push with its capacity check, and a
//! number is written digit pair by digit pair in place (no `itoa` buffer copied out).

use std::io::{self, Write};

/// Bytes gathered before they are written out: more than the caller's `BufWriter` holds (the
/// facade's is 256 KiB), which then writes them straight through instead of copying them into
/// its own buffer.
pub(crate) const FLUSH_AT: usize = 1 << 20;

/// "00" to "99", two bytes each.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Longest decimal `u64`.
pub(crate) const MAX_DIGITS: usize = 20;

/// A constant piece of every reference (`,\n"tas/c` or `":["{{u3}}",`) kept with [`WINDOW`]
/// bytes of padding, so that a short one is copied as one fixed-size window (two vector moves)
/// instead of a call to `memcpy` with its length: two pieces per reference, millions of times.
pub(crate) struct Piece {
    padded: Vec<u8>,
    len: usize,
}

/// The window of [`RefBuf::piece`]; a piece longer than this is copied by length.
pub(crate) const WINDOW: usize = 32;

impl Piece {
    pub(crate) fn new(bytes: &[u8]) -> Self {
        let mut padded = Vec::with_capacity(bytes.len() + WINDOW);
        padded.extend_from_slice(bytes);
        padded.resize(bytes.len() + WINDOW, 0);
        Piece {
            padded,
            len: bytes.len(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

pub(crate) struct RefBuf {
    buf: Vec<u8>,
    at: usize,
}

impl RefBuf {
    pub(crate) fn new() -> Self {
        RefBuf {
            buf: Vec::new(),
            at: 0,
        }
    }

    /// Makes room for `n` more bytes.
    #[inline]
    pub(crate) fn room(&mut self, n: usize) {
        let need = self.at.saturating_add(n);
        if need > self.buf.len() {
            // Doubling up to a little past the flush size (zero-filled once: a small array
            // does not pay for a MiB), or as much as one long inline chunk needs.
            let grown = (2 * self.buf.len()).clamp(4096, FLUSH_AT + 4096);
            self.buf.resize(need.max(grown), 0);
        }
    }

    /// Writes out what is gathered once it reaches [`FLUSH_AT`].
    #[inline]
    pub(crate) fn flush_full(&mut self, w: &mut dyn Write) -> io::Result<()> {
        match self.at >= FLUSH_AT {
            true => self.flush(w),
            false => Ok(()),
        }
    }

    pub(crate) fn flush(&mut self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(&self.buf[..self.at])?;
        self.at = 0;
        Ok(())
    }

    /// The next `n` bytes (within the room made), for a writer that fills them.
    pub(crate) fn take(&mut self, n: usize) -> &mut [u8] {
        let at = self.at;
        self.at += n;
        &mut self.buf[at..at + n]
    }

    /// Gives back the tail of the last [`RefBuf::take`] that was not filled.
    pub(crate) fn give_back(&mut self, n: usize) {
        self.at -= n;
    }

    #[inline]
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.take(b.len()).copy_from_slice(b);
    }

    /// `p`'s bytes; needs [`WINDOW`] bytes of room beyond what is written (the window's tail
    /// is overwritten by what follows, or lies past the cursor and is never flushed).
    #[inline(always)]
    pub(crate) fn piece(&mut self, p: &Piece) {
        if p.len <= WINDOW {
            let at = self.at;
            self.buf[at..at + WINDOW].copy_from_slice(&p.padded[..WINDOW]);
            self.at += p.len;
        } else {
            self.bytes(&p.padded[..p.len]);
        }
    }

    #[inline]
    pub(crate) fn byte(&mut self, b: u8) {
        self.buf[self.at] = b;
        self.at += 1;
    }

    /// The tail of a reference to a byte range: `mid` (`":[URL,`), then `offset,length]`. The
    /// one place both writers of refs.json form it, so that their bytes cannot drift apart.
    #[inline(always)]
    pub(crate) fn range(&mut self, mid: &Piece, offset: u64, length: u64) {
        self.piece(mid);
        self.num(offset);
        self.byte(b',');
        self.num(length);
        self.byte(b']');
    }

    /// `n` in decimal (at most [`MAX_DIGITS`] bytes of room).
    #[inline]
    pub(crate) fn num(&mut self, n: u64) {
        match u32::try_from(n) {
            Ok(n) => self.num32(n),
            Err(_) => self.num64(n),
        }
    }

    /// The same in 32-bit arithmetic (offsets below 4 GiB, grid indexes): digit pairs written
    /// backwards into a small array, then one fixed-size copy of its last 10 bytes' window
    /// (room is made for 20 bytes; what lies past the digits is overwritten or never flushed).
    #[inline(always)]
    fn num32(&mut self, mut n: u32) {
        if n < 10 {
            return self.byte(b'0' + n as u8);
        }
        let mut tmp = [0u8; 20];
        let mut i = 10;
        while n >= 100 {
            let p = (n % 100) as usize * 2;
            n /= 100;
            i -= 2;
            tmp[i..i + 2].copy_from_slice(&PAIRS[p..p + 2]);
        }
        if n >= 10 {
            i -= 2;
            let p = n as usize * 2;
            tmp[i..i + 2].copy_from_slice(&PAIRS[p..p + 2]);
        } else {
            i -= 1;
            tmp[i] = b'0' + n as u8;
        }
        let at = self.at;
        self.buf[at..at + 10].copy_from_slice(&tmp[i..i + 10]);
        self.at += 10 - i;
    }

    fn num64(&mut self, mut n: u64) {
        let digits = n.checked_ilog10().map_or(1, |l| l as usize + 1);
        let out = self.take(digits);
        let mut i = digits;
        while n >= 100 {
            let p = (n % 100) as usize * 2;
            n /= 100;
            i -= 2;
            out[i..i + 2].copy_from_slice(&PAIRS[p..p + 2]);
        }
        last_digits(out, n as usize);
    }
}

/// The leading one or two digits of a number (`n` < 100) at the start of `out`.
#[inline]
fn last_digits(out: &mut [u8], n: usize) {
    if n >= 10 {
        out[..2].copy_from_slice(&PAIRS[n * 2..n * 2 + 2]);
    } else {
        out[0] = b'0' + n as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_pieces_read_back_as_written() {
        let mut b = RefBuf::new();
        let mut want = String::new();
        let mut n = 1u64;
        let mut cases = vec![0, 9, 10, 99, 100, 101, 999, 1000, u64::MAX, u64::MAX / 10];
        while let Some(m) = n.checked_mul(7) {
            cases.push(m);
            cases.push(m - 1);
            n = m;
        }
        for &x in &cases {
            b.room(MAX_DIGITS + 1);
            b.num(x);
            b.byte(b',');
            want.push_str(&format!("{x},"));
        }
        for text in [
            "",
            ",\n\"tas/c",
            &"x".repeat(WINDOW),
            &"y".repeat(WINDOW + 1),
        ] {
            b.room(text.len() + WINDOW);
            b.piece(&Piece::new(text.as_bytes()));
            b.byte(b'|');
            want.push_str(text);
            want.push('|');
        }
        b.room(3);
        b.bytes(b"end");
        want.push_str("end");
        let mut out = Vec::new();
        b.flush(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }
}
