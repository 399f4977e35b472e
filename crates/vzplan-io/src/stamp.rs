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
    // Digits pushed in place: this runs once per scanned file, and `format!` costs thousands of
    // instructions. The year is never negative: times before 1970 are 1970 here.
    let mut s = String::with_capacity(32);
    push_padded(&mut s, u64::try_from(y).unwrap_or(0), 4);
    for (sep, v) in [
        ('-', u64::from(m)),
        ('-', u64::from(d)),
        ('T', (rem / 3600) as u64),
        (':', (rem / 60 % 60) as u64),
        (':', (rem % 60) as u64),
    ] {
        s.push(sep);
        push_padded(&mut s, v, 2);
    }
    if nanos > 0 {
        s.push('.');
        push_padded(&mut s, u64::from(nanos), 9);
    }
    s.push('Z');
    s
}

/// `v` in decimal, zero-padded to at least `width` digits.
fn push_padded(s: &mut String, mut v: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let from = at.min(digits.len().saturating_sub(width));
    s.push_str(std::str::from_utf8(&digits[from..]).unwrap_or_default());
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
