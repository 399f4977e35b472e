//! Modification times as RFC 3339 text, the form layouts and provenance carry (`mtime`).

/// RFC 3339 in UTC at full precision: nanoseconds when the time has a fraction
/// (`2024-05-01T12:00:00.123456789Z`), so that a file rewritten within the same second is still
/// seen as changed; whole seconds otherwise (object stores, most of them).
pub(crate) fn rfc3339(t: std::time::SystemTime) -> String {
    let (secs, nanos) = match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(_) => (0, 0),
    };
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let Ok(y @ 0..=9999) = u32::try_from(y) else {
        let frac = match nanos {
            0 => String::new(),
            n => format!(".{n:09}"),
        };
        return format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{frac}Z",
            rem / 3600,
            (rem / 60) % 60,
            rem % 60
        );
    };
    // Digits in place: this runs once per scanned file, where `format!` cost ~3.6 k instructions
    // (issue 13).
    let rem = rem as u32;
    let mut out = *b"0000-00-00T00:00:00.000000000Z";
    let mut put = |at: usize, width: usize, mut v: u32| {
        for i in (at..at + width).rev() {
            out[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, y);
    put(5, 2, m);
    put(8, 2, d);
    put(11, 2, rem / 3600);
    put(14, 2, (rem / 60) % 60);
    put(17, 2, rem % 60);
    let len = match nanos {
        0 => 19,
        n => {
            put(20, 9, n);
            29
        }
    };
    let mut s = String::with_capacity(len + 1);
    s.push_str(std::str::from_utf8(&out[..len]).unwrap_or_default());
    s.push('Z');
    s
}

/// [`rfc3339`] cut to whole seconds: object stores report whole seconds in HEAD/GET
/// (`Last-Modified`) but milliseconds when listing, and the two must compare equal.
pub(crate) fn rfc3339_secs(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(std::time::UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = std::time::UNIX_EPOCH + std::time::Duration::new(951_782_400, 1_500);
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.000001500Z");
        assert_eq!(rfc3339_secs(t), "2000-02-29T00:00:00Z");
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        // Every field at its widest and narrowest, against the formatting it replaced.
        for (secs, nanos) in [(0, 1), (253_402_300_799, 999_999_999), (1_733_356_800, 40)] {
            let t = std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos);
            let days = (secs / 86_400) as i64;
            let rem = secs % 86_400;
            let (y, m, d) = civil_from_days(days);
            let want = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{nanos:09}Z",
                rem / 3600,
                (rem / 60) % 60,
                rem % 60
            );
            assert_eq!(rfc3339(t), want);
        }
        let far = std::time::UNIX_EPOCH + std::time::Duration::new(253_402_300_800, 5);
        assert_eq!(rfc3339(far), "10000-01-01T00:00:00.000000005Z");
    }
}
