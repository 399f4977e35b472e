//! Names and strings in HDF5 metadata: C strings (up to the first NUL), UTF-8 where the bytes
//! are, lossy where they are not, and object names that keep invalid bytes distinct.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>
//! (names are "null-terminated", attribute and datatype strings padded per the string padding field).

/// A null-terminated (or unterminated) byte string as UTF-8, lossily.
pub fn cstr(b: &[u8]) -> String {
    cstr_cow(b).into_owned()
}

/// [`cstr`], borrowed when the bytes are UTF-8.
pub fn cstr_cow(b: &[u8]) -> std::borrow::Cow<'_, str> {
    utf8_cow(until_nul(b))
}

/// The bytes before the first NUL (all of them when there is none), found a vector at a time.
pub fn until_nul(b: &[u8]) -> &[u8] {
    memchr::memchr(0, b).map_or(b, |end| &b[..end])
}

/// `String::from_utf8_lossy`, with `str::from_utf8`'s faster check first (names are UTF-8).
pub fn lossy(b: &[u8]) -> String {
    utf8_cow(b).into_owned()
}

/// [`lossy`], borrowed when the bytes are UTF-8. `str::from_utf8` first: `from_utf8_lossy` walks
/// valid text chunk by chunk, ~3x slower.
pub fn utf8_cow(b: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// An object name as UTF-8, each invalid byte written `\xNN`: two names that differ only in
/// invalid bytes stay distinct (lossy decoding made both `\u{FFFD}` and one dataset vanished).
pub fn name_str(b: &[u8]) -> String {
    if let Ok(s) = std::str::from_utf8(b) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        for x in chunk.invalid() {
            out.push_str(&format!("\\x{x:02x}"));
        }
    }
    out
}

/// As [`name_str`], up to the first NUL.
pub fn name_cstr(b: &[u8]) -> String {
    name_str(until_nul(b))
}
