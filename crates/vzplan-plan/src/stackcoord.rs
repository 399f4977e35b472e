//! A coordinate along a stack (`--stack-coord NAME=SPEC`): each file's date, from its name or
//! from the TIFF DateTime tag, written as a CF time coordinate that xarray decodes to
//! `datetime64`, with the files stacked in date order.
//!
//! `SPEC` is either `datetime` (the TIFF DateTime tag 306, `YYYY:MM:DD HH:MM:SS`, which the TIFF
//! reader keeps as the file's `DateTime` attribute) or a pattern matched anywhere in the file
//! name: `%Y` (4 digits), `%m`, `%d`, `%H`, `%M`, `%S` (2 digits), `%j` (day of the year, 3
//! digits), `%%`, and any other character standing for itself. The leftmost place where the
//! pattern matches and gives a real date wins. Fields have fixed widths, so matching is at most
//! `name length × pattern length` steps, whatever the name.
//!
//! A file without a date, or two files with the same one, cannot be placed on the coordinate:
//! those files are left out with a `stack_coord` error finding naming them, and the others are
//! stacked, as vzplan leaves out what it cannot represent file by file (the run exits 3).

use crate::cftime::gregorian_days;
use crate::{display_file, Finding, FindingKind, Severity};
use serde_json::{json, Map, Value};
use vzplan_core::{DType, Endian, Kind, SourceLayout};

/// The longest coordinate name and pattern accepted.
const MAX_NAME: usize = 256;
const MAX_PATTERN: usize = 128;

/// A parsed `--stack-coord`.
#[derive(Clone, Debug, PartialEq)]
pub struct StackCoord {
    pub name: String,
    source: Source,
}

#[derive(Clone, Debug, PartialEq)]
enum Source {
    /// The TIFF DateTime tag, kept as the file's `DateTime` attribute.
    DateTime,
    /// A pattern matched in the file name.
    Name(Vec<Piece>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Piece {
    Lit(char),
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    DayOfYear,
}

impl Piece {
    fn width(self) -> usize {
        match self {
            Piece::Lit(_) => 1,
            Piece::Year => 4,
            Piece::DayOfYear => 3,
            _ => 2,
        }
    }
}

impl StackCoord {
    /// Parses `NAME=SPEC`; the error says what is wrong, for the option's message.
    pub fn parse(spec: &str) -> Result<StackCoord, String> {
        let Some((name, pattern)) = spec.split_once('=') else {
            return Err("expected NAME=PATTERN (e.g. time=%Y%m%d) or NAME=datetime".into());
        };
        let name = name.trim();
        if name.is_empty() || name.len() > MAX_NAME || name.contains('/') {
            return Err(format!(
                "the coordinate name must be 1 to {MAX_NAME} bytes without '/'"
            ));
        }
        if pattern == "datetime" {
            return Ok(StackCoord {
                name: name.into(),
                source: Source::DateTime,
            });
        }
        Ok(StackCoord {
            name: name.into(),
            source: Source::Name(pieces(pattern)?),
        })
    }

    /// The file's time in seconds since 1970-01-01 (proleptic Gregorian), or why there is none.
    fn seconds(&self, l: &SourceLayout) -> Result<i64, String> {
        match &self.source {
            Source::DateTime => {
                let Some(Value::String(s)) = l.attrs.get("DateTime") else {
                    return Err("has no TIFF DateTime tag".into());
                };
                let s = s.trim_matches(|c: char| c == '\0' || c.is_whitespace());
                let stamp = pieces("%Y:%m:%d %H:%M:%S").unwrap_or_default();
                let chars: Vec<char> = s.chars().collect();
                match (chars.len() == 19).then(|| at(&stamp, &chars)).flatten() {
                    Some(t) => Ok(t),
                    None => Err(format!(
                        "has a DateTime tag {} that is not YYYY:MM:DD HH:MM:SS",
                        json!(s)
                    )),
                }
            }
            Source::Name(p) => {
                let name = file_name(&l.url);
                find(p, name)
                    .ok_or_else(|| "has no date in its name that the pattern matches".into())
            }
        }
    }
}

/// The pattern's pieces; at least `%Y`, and `%j` only without `%m`/`%d`.
fn pieces(pattern: &str) -> Result<Vec<Piece>, String> {
    if pattern.is_empty() || pattern.len() > MAX_PATTERN {
        return Err(format!(
            "the pattern must be 1 to {MAX_PATTERN} bytes, or 'datetime'"
        ));
    }
    let mut out = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(Piece::Lit(c));
            continue;
        }
        out.push(match chars.next() {
            Some('Y') => Piece::Year,
            Some('m') => Piece::Month,
            Some('d') => Piece::Day,
            Some('H') => Piece::Hour,
            Some('M') => Piece::Minute,
            Some('S') => Piece::Second,
            Some('j') => Piece::DayOfYear,
            Some('%') => Piece::Lit('%'),
            Some(x) => return Err(format!("%{x} is not a field (%Y %m %d %j %H %M %S %%)")),
            None => return Err("the pattern ends with a lone %".into()),
        });
    }
    let has = |p: Piece| out.contains(&p);
    if !has(Piece::Year) {
        return Err("the pattern needs %Y".into());
    }
    if has(Piece::DayOfYear) && (has(Piece::Month) || has(Piece::Day)) {
        return Err("%j goes without %m and %d".into());
    }
    Ok(out)
}

/// The last segment of a URL or path: what a person calls the file's name.
fn file_name(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or(url)
}

/// The first place in `name` where the pattern gives a real date.
fn find(p: &[Piece], name: &str) -> Option<i64> {
    let chars: Vec<char> = name.chars().collect();
    let width: usize = p.iter().map(|x| x.width()).sum();
    if chars.len() < width {
        return None;
    }
    (0..=chars.len() - width).find_map(|start| at(p, &chars[start..start + width]))
}

/// The time the pattern reads from exactly `s` (as wide as the pattern), if it is a real one.
fn at(p: &[Piece], s: &[char]) -> Option<i64> {
    let (mut y, mut mo, mut d, mut doy) = (None, 1u32, 1u32, None);
    let (mut h, mut mi, mut sec) = (0u32, 0u32, 0u32);
    let mut i = 0;
    for &piece in p {
        let w = piece.width();
        let part = s.get(i..i + w)?;
        i += w;
        if let Piece::Lit(c) = piece {
            if part[0] != c {
                return None;
            }
            continue;
        }
        let mut v = 0u32;
        for c in part {
            v = v * 10 + c.to_digit(10)?;
        }
        match piece {
            Piece::Year => y = Some(v as i64),
            Piece::Month => mo = v,
            Piece::Day => d = v,
            Piece::Hour => h = v,
            Piece::Minute => mi = v,
            Piece::Second => sec = v,
            Piece::DayOfYear => doy = Some(v),
            Piece::Lit(_) => {}
        }
    }
    let y = y?;
    if h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    let days = match doy {
        Some(n) => {
            let first = gregorian_days(y, 1, 1)?;
            if n == 0 || i64::from(n) > gregorian_days(y + 1, 1, 1)? - first {
                return None;
            }
            first + i64::from(n) - 1
        }
        None => gregorian_days(y, mo, d)?,
    };
    Some(days * 86_400 + i64::from(h * 3600 + mi * 60 + sec))
}

/// Keeps the files that have a date no other file has, in date order, with their times; the
/// others are left out with a finding each.
pub(crate) fn order(
    layouts: Vec<SourceLayout>,
    c: &StackCoord,
    findings: &mut Vec<Finding>,
) -> (Vec<SourceLayout>, Vec<i64>) {
    let mut dated: Vec<(i64, SourceLayout)> = Vec::with_capacity(layouts.len());
    for l in layouts {
        match c.seconds(&l) {
            Ok(t) => dated.push((t, l)),
            Err(why) => findings.push(
                Finding::error(
                    FindingKind::StackCoord,
                    format!("{why}, so it has no place on '{}': left out", c.name),
                )
                .file(&l.url)
                .fix(fix_for(c)),
            ),
        }
    }
    dated.sort_by_key(|(t, _)| *t);
    let mut keep = Vec::with_capacity(dated.len());
    let mut times = Vec::with_capacity(dated.len());
    let mut rest = dated.into_iter().peekable();
    while let Some((t, l)) = rest.next() {
        let mut same = Vec::new();
        while let Some((_, n)) = rest.next_if(|(u, _)| *u == t) {
            same.push(n);
        }
        if same.is_empty() {
            keep.push(l);
            times.push(t);
            continue;
        }
        let names: Vec<String> = std::iter::once(&l)
            .chain(&same)
            .map(|x| display_file(&x.url))
            .collect();
        findings.push(
            Finding::error(
                FindingKind::StackCoord,
                format!(
                    "{} files have the same '{}' ({}): {}; all left out",
                    names.len(),
                    c.name,
                    iso(t),
                    names.join(", ")
                ),
            )
            .file(&l.url)
            .fix("stack them separately, or give the pattern the field that tells them apart (%H%M%S)"),
        );
    }
    (keep, times)
}

fn fix_for(c: &StackCoord) -> String {
    match c.source {
        Source::DateTime => "set the tag (gdal_edit.py -mo TIFFTAG_DATETIME='YYYY:MM:DD HH:MM:SS' FILE), or date the files by their names (--stack-coord NAME=%Y%m%d)".into(),
        Source::Name(_) => "rename the file so that the pattern finds its date, or pass a pattern that matches every name".into(),
    }
}

/// `YYYY-MM-DDTHH:MM:SS` of seconds since 1970-01-01, for messages.
fn iso(t: i64) -> String {
    let (days, s) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    // civil_from_days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// The coordinate's values and CF attributes: whole days as `days since 1970-01-01`, else
/// seconds, int64 in the proleptic Gregorian calendar, so that xarray decodes `datetime64`.
pub(crate) fn values(times: &[i64]) -> (Vec<i64>, Map<String, Value>) {
    let days = times.iter().all(|t| t % 86_400 == 0);
    let (unit, v) = match days {
        true => ("days", times.iter().map(|t| t / 86_400).collect()),
        false => ("seconds", times.to_vec()),
    };
    let mut attrs = Map::new();
    attrs.insert("units".into(), json!(format!("{unit} since 1970-01-01")));
    attrs.insert("calendar".into(), json!("proleptic_gregorian"));
    attrs.insert("standard_name".into(), json!("time"));
    (v, attrs)
}

/// Writes the coordinate `c` along `dim` with the files' `times` (in the files' order), unless an
/// array already has its name.
pub(crate) fn add(p: &mut crate::Plan, c: &StackCoord, dim: &str, times: &[i64]) {
    if p.arrays.iter().any(|a| a.path == c.name) {
        p.findings.push(
            Finding::new(
                FindingKind::StackCoord,
                Severity::Warning,
                format!(
                    "an array named {} is in the way of the stack's coordinate: none written",
                    c.name
                ),
            )
            .array(c.name.clone())
            .fix("pass another name: --stack-coord OTHER=…"),
        );
        return;
    }
    let (v, attrs) = values(times);
    let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let int64 = DType::new(Kind::Int, 8, Endian::Little);
    let dims = vec![dim.to_string()];
    let shape = vec![v.len() as u64];
    let a = crate::geo::inline_array(&c.name, dims, shape, int64, bytes, attrs);
    p.arrays.push(a);
    if c.source == Source::DateTime {
        // The first file's tag, as the root's attribute, would name one date for the whole stack.
        p.attrs.remove("DateTime");
    }
}

#[cfg(test)]
mod tests;
