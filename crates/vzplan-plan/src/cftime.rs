//! CF time units (`"days since 2001-01-01"`), so that files whose time coordinates count from
//! different reference dates can be ordered and concatenated in one set of units.
//!
//! CF conventions §4.4: `units = "<unit> since <reference date-time>"` with the calendar in the
//! `calendar` attribute. Supported calendars: `standard`/`gregorian`/`proleptic_gregorian` (the
//! proleptic Gregorian calendar: reference dates before 1582-10-15 are refused rather than guessed),
//! `noleap`/`365_day`, `all_leap`/`366_day`, `360_day`. Units: days, hours, minutes, seconds.

/// Parsed `<unit> since <date>`: seconds per unit and the reference instant, in seconds since
/// 0001-01-01 of the calendar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeUnits {
    pub unit_seconds: f64,
    pub epoch_seconds: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Calendar {
    Gregorian,
    NoLeap,
    AllLeap,
    Day360,
}

fn calendar(name: Option<&str>) -> Option<Calendar> {
    match name.unwrap_or("standard").to_ascii_lowercase().as_str() {
        "standard" | "gregorian" | "proleptic_gregorian" => Some(Calendar::Gregorian),
        "noleap" | "365_day" => Some(Calendar::NoLeap),
        "all_leap" | "366_day" => Some(Calendar::AllLeap),
        "360_day" => Some(Calendar::Day360),
        _ => None,
    }
}

fn is_leap(cal: Calendar, y: i64) -> bool {
    match cal {
        Calendar::Gregorian => (y % 4 == 0 && y % 100 != 0) || y % 400 == 0,
        Calendar::NoLeap | Calendar::Day360 => false,
        Calendar::AllLeap => true,
    }
}

/// Days from 0001-01-01 to y-m-d in the calendar.
fn days_from_origin(cal: Calendar, y: i64, m: u32, d: u32) -> Option<i64> {
    if !(1..=12).contains(&m) || d == 0 || y < 1 {
        return None;
    }
    if cal == Calendar::Day360 {
        if d > 30 {
            return None;
        }
        return Some((y - 1) * 360 + (m as i64 - 1) * 30 + d as i64 - 1);
    }
    let month_days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let leap = is_leap(cal, y);
    let dim = month_days[m as usize - 1] + (m == 2 && leap) as u32;
    if d > dim {
        return None;
    }
    let prior_years = y - 1;
    let mut days = prior_years * 365;
    days += match cal {
        Calendar::Gregorian => prior_years / 4 - prior_years / 100 + prior_years / 400,
        Calendar::AllLeap => prior_years,
        _ => 0,
    };
    for mm in 1..m {
        days += month_days[mm as usize - 1] as i64 + (mm == 2 && leap) as i64;
    }
    Some(days + d as i64 - 1)
}

/// Days since 1970-01-01 of a proleptic Gregorian date from year 1, or `None` when it is no
/// real date.
pub(crate) fn gregorian_days(y: i64, m: u32, d: u32) -> Option<i64> {
    let g = Calendar::Gregorian;
    Some(days_from_origin(g, y, m, d)? - days_from_origin(g, 1970, 1, 1)?)
}

/// Parses CF time units under a calendar. `None` when not a time unit vzplan can convert.
pub fn parse(units: &str, cal: Option<&str>) -> Option<TimeUnits> {
    let cal = calendar(cal)?;
    let lower = units.trim().to_ascii_lowercase();
    let (unit, rest) = lower.split_once(" since ")?;
    let unit_seconds = match unit.trim() {
        "days" | "day" | "d" => 86_400.0,
        "hours" | "hour" | "hrs" | "hr" | "h" => 3_600.0,
        "minutes" | "minute" | "mins" | "min" => 60.0,
        "seconds" | "second" | "secs" | "sec" | "s" => 1.0,
        _ => return None,
    };
    let rest = rest.trim().trim_end_matches(" utc").trim_end_matches('z');
    let (date, time) = match rest.split_once(['t', ' ']) {
        Some((d, t)) => (d, t.trim()),
        None => (rest, ""),
    };
    let mut dp = date.splitn(3, '-');
    let y: i64 = dp.next()?.trim().parse().ok()?;
    let m: u32 = dp.next().unwrap_or("1").trim().parse().ok()?;
    let d: u32 = dp.next().unwrap_or("1").trim().parse().ok()?;
    if cal == Calendar::Gregorian && (y, m, d) < (1582, 10, 15) {
        return None; // standard and proleptic Gregorian differ before the reform
    }
    let days = days_from_origin(cal, y, m, d)?;
    // Time of day, ignoring a "+00:00" / "+0" offset only (other offsets are refused).
    let (clock, offset) = match time.find(['+', '-']) {
        Some(i) => (&time[..i], time[i + 1..].trim()),
        None => (time, ""),
    };
    if !offset.chars().all(|c| c == '0' || c == ':') {
        return None;
    }
    let mut secs = 0.0;
    if !clock.trim().is_empty() {
        let mut tp = clock.trim().splitn(3, ':');
        let h: f64 = tp.next()?.parse().ok()?;
        let mi: f64 = tp.next().unwrap_or("0").parse().ok()?;
        let s: f64 = tp.next().unwrap_or("0").parse().ok()?;
        secs = h * 3600.0 + mi * 60.0 + s;
    }
    Some(TimeUnits {
        unit_seconds,
        epoch_seconds: days as f64 * 86_400.0 + secs,
    })
}

/// Converts values in `from` units to `to` units; `None` if any result is not exact in f64
/// (checked by converting back).
pub fn convert(values: &[f64], from: TimeUnits, to: TimeUnits) -> Option<Vec<f64>> {
    values
        .iter()
        .map(|&v| {
            let abs = from.epoch_seconds + v * from.unit_seconds;
            let out = (abs - to.epoch_seconds) / to.unit_seconds;
            let back =
                (to.epoch_seconds + out * to.unit_seconds - from.epoch_seconds) / from.unit_seconds;
            (back == v && out.is_finite()).then_some(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_dates_in_each_calendar() {
        let a = parse("days since 2000-01-01", None).unwrap();
        let b = parse("days since 2001-01-01 00:00:00", Some("standard")).unwrap();
        assert_eq!((b.epoch_seconds - a.epoch_seconds) / 86_400.0, 366.0);
        let n0 = parse("days since 2000-01-01", Some("noleap")).unwrap();
        let n1 = parse("days since 2001-1-1", Some("365_day")).unwrap();
        assert_eq!((n1.epoch_seconds - n0.epoch_seconds) / 86_400.0, 365.0);
        let d0 = parse("days since 2000-01-01", Some("360_day")).unwrap();
        let d1 = parse("days since 2000-03-01", Some("360_day")).unwrap();
        assert_eq!((d1.epoch_seconds - d0.epoch_seconds) / 86_400.0, 60.0);
        let h = parse("hours since 2000-01-02T06:00:00Z", None).unwrap();
        assert_eq!(h.unit_seconds, 3600.0);
        assert_eq!(h.epoch_seconds - a.epoch_seconds, 86_400.0 + 6.0 * 3600.0);
        assert_eq!(convert(&[0.0, 1.0], b, a), Some(vec![366.0, 367.0]));
        assert_eq!(convert(&[12.0], h, a), Some(vec![1.75]));
    }

    #[test]
    fn refuses_what_it_cannot_convert() {
        assert!(parse("K", None).is_none());
        assert!(parse("days since 1500-01-01", Some("standard")).is_none());
        assert!(parse("days since 2000-01-01", Some("julian")).is_none());
        assert!(parse("days since 2000-02-30", None).is_none());
        assert!(parse("months since 2000-01-01", None).is_none());
        assert!(parse("days since 2000-01-01 00:00 +05:00", None).is_none());
        assert!(parse("days since 2000-01-01 00:00 +00:00", None).is_some());
    }
}
