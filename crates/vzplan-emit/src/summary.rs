//! A batch's findings grouped by problem and fix, and the summary a report starts with: how many
//! files fit, how many need a rewrite (and how many bytes of files that is), how many cannot be
//! read.
//!
//! Findings that say the same thing about different files (same kind, severity, array, message,
//! location, and the same fix once the file's own name is taken out of it) are one [`Group`]; a
//! fix command that names the file becomes one shell loop over all of them:
//! ```text
//! for f in data/tas_*.nc; do nccopy -c time/100,lat/3,lon/4 "$f" "${f%.nc}.rechunked.nc"; done
//! ```
//! In `--json` (additive, beside `findings`):
//! ```json
//! "summary": {"files": 500, "fit": 0, "rewrite": 500, "rewrite_bytes": 1620000, "unreadable": 0,
//!             "other": 0, "groups": [{"kind": "padded_interior_chunk", "severity": "error",
//!             "array": "tas", "files": ["data/tas_000.nc", …], "bytes": 1620000,
//!             "text": "tas: last chunk along time …", "loop": "for f in data/tas_*.nc; do …; done"}]}
//! ```

use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use vzplan_plan::{display_file, shell_quote, Finding, FindingKind, Plan, Severity};

/// Where a file's own path and stem sat in a finding's words.
const PATH: &str = "\u{0}PATH\u{0}";
const STEM: &str = "\u{0}STEM\u{0}";

/// The tools a fix without backticks may start with to be a command.
const TOOLS: &[&str] = &[
    "nccopy",
    "h5repack",
    "gdal_translate",
    "ncap2",
    "ncatted",
    "ncrename",
    "ncks",
    "cdo",
];

/// Findings that say the same thing about different files.
#[derive(Clone, Debug)]
pub struct Group<'p> {
    /// The first finding (the others differ only in their file).
    pub first: &'p Finding,
    /// Every file, as shown (paths for local files), in the order of the findings.
    pub files: Vec<String>,
    /// The fix with the file taken out, when it names it (else the fix as is).
    fix_template: Option<String>,
    /// The file extension the template's stem drops (`.nc`).
    ext: String,
}

/// A file's path split as the templates use it: (path, stem, extension with its dot).
fn split(file: &str) -> (String, String, String) {
    let path = display_file(file);
    let name_start = path.rfind('/').map_or(0, |i| i + 1);
    match path[name_start..].rfind('.') {
        Some(dot) if dot > 0 => {
            let at = name_start + dot;
            (path.clone(), path[..at].to_string(), path[at..].to_string())
        }
        _ => (path.clone(), path.clone(), String::new()),
    }
}

/// `text` with the file's path and stem replaced by placeholders.
fn template(text: &str, path: &str, stem: &str) -> String {
    text.replace(path, PATH).replace(stem, STEM)
}

/// Groups the plan's findings; groups come in the order of their first finding.
pub fn groups(plan: &Plan) -> Vec<Group<'_>> {
    type Key = (
        String,
        String,
        Option<String>,
        String,
        Option<String>,
        Option<String>,
        String,
    );
    let mut out: Vec<Group> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    for f in &plan.findings {
        let Some(file) = &f.file else {
            out.push(Group {
                first: f,
                files: Vec::new(),
                fix_template: f.fix.clone(),
                ext: String::new(),
            });
            continue;
        };
        let (path, stem, ext) = split(file);
        let t = |s: &str| template(s, &path, &stem);
        let key: Key = (
            format!("{:?}", f.kind),
            format!("{:?}", f.severity),
            f.array.clone(),
            t(&f.message),
            f.location.as_deref().map(t),
            f.fix.as_deref().map(t),
            ext.clone(),
        );
        match index.get(&key) {
            Some(&i) => out[i].files.push(path),
            None => {
                index.insert(key.clone(), out.len());
                out.push(Group {
                    first: f,
                    files: vec![path],
                    fix_template: key.5,
                    ext,
                });
            }
        }
    }
    out
}

impl Group<'_> {
    /// The finding's words without its file: `tas: what is wrong (where)`.
    pub fn what(&self) -> String {
        let f = self.first;
        let mut s = String::new();
        if let Some(a) = &f.array {
            s.push_str(&format!("{a}: "));
        }
        s.push_str(&f.message);
        if let Some(l) = &f.location {
            s.push_str(&format!(" ({l})"));
        }
        s
    }

    /// The fix, with `$f` (and `${f%.nc}`) where the file's name was.
    pub fn fix_for_each(&self) -> Option<String> {
        let t = self.fix_template.as_ref()?;
        Some(self.shell_names(t))
    }

    /// How the fix is introduced: `fix (each file as $f)` when it names the file, else `fix`.
    pub fn fix_label(&self) -> &'static str {
        match &self.fix_template {
            Some(t) if t.contains(PATH) || t.contains(STEM) => "fix (each file as $f)",
            _ => "fix",
        }
    }

    fn shell_names(&self, t: &str) -> String {
        let stem = format!("${{f%{}}}", self.ext);
        t.replace(&format!("{STEM}{}", self.ext), "$f")
            .replace(PATH, "$f")
            .replace(STEM, &stem)
    }

    /// The fix's first command (between backticks) that names the file, with the file
    /// taken out: `nccopy -c time/100,lat/3,lon/4 "$f" "${f%.nc}.rechunked.nc"`.
    pub fn command(&self) -> Option<String> {
        let t = self.fix_template.as_ref()?;
        let names_file = |c: &&str| c.contains(PATH) || c.contains(STEM);
        let runs_a_tool = |c: &&str| TOOLS.iter().any(|t| c.starts_with(&format!("{t} ")));
        let cmd = t
            .split('`')
            .skip(1)
            .step_by(2)
            .find(names_file)
            .or_else(|| Some(t.as_str()).filter(runs_a_tool).filter(names_file))?;
        // A file name the fix had to quote: the loop's own quoting would break it.
        if cmd.contains(&format!("'{PATH}")) || cmd.contains(&format!("'{STEM}")) {
            return None;
        }
        // Quoted, so that the loop works on names with spaces.
        let quoted = cmd
            .replace(&format!("{STEM}{}", self.ext), PATH)
            .replace(PATH, "\"$f\"");
        let stem = format!("${{f%{}}}", self.ext);
        Some(replace_stem_words(&quoted, &stem))
    }

    /// [`Group::command`] on one file of the group, as it would be typed.
    pub fn command_on(&self, file: &str) -> Option<String> {
        let cmd = self.command()?;
        let stem = file.strip_suffix(&self.ext)?;
        let stem_word = format!("\"${{f%{}}}", self.ext);
        let words: Vec<String> = cmd
            .split(' ')
            .map(|w| {
                if w == "\"$f\"" {
                    shell_quote(file)
                } else if let Some(rest) =
                    w.strip_prefix(&stem_word).and_then(|r| r.strip_suffix('"'))
                {
                    shell_quote(&format!("{stem}{rest}"))
                } else {
                    w.to_string()
                }
            })
            .collect();
        Some(words.join(" "))
    }

    /// One shell loop running [`Group::command`] on every file of the group; `known` are all
    /// files of the run: a pattern is used when it matches the group's files and at most
    /// [`MAX_SKIPPED`] others (skipped by name in the loop), else the files are listed.
    pub fn shell_loop(&self, known: &BTreeSet<String>) -> Option<String> {
        let cmd = self.command()?;
        let listed = || {
            let names: Vec<String> = self.files.iter().map(|f| shell_quote(f)).collect();
            (names.join(" "), String::new())
        };
        let (over, skip) = match pattern(&self.files, known) {
            Some((p, others)) if others.is_empty() => (p, String::new()),
            Some((p, others)) if others.len() <= MAX_SKIPPED => {
                let names: Vec<String> = others.iter().map(|f| shell_quote(f)).collect();
                let skip = format!("case \"$f\" in {}) continue;; esac; ", names.join("|"));
                // The shorter of the two.
                let list = listed();
                if p.len() + skip.len() < list.0.len() {
                    (p, skip)
                } else {
                    list
                }
            }
            _ => listed(),
        };
        Some(format!("for f in {over}; do {skip}{cmd}; done"))
    }
}

/// Most files a loop's pattern may match that are not the group's (skipped by name).
pub const MAX_SKIPPED: usize = 3;

/// `…STEM….rechunked.nc` → `"${f%.nc}.rechunked.nc"`: the word holding the stem, quoted.
fn replace_stem_words(cmd: &str, stem: &str) -> String {
    cmd.split(' ')
        .map(|w| {
            if w.contains(STEM) {
                format!("\"{}\"", w.replace(STEM, stem))
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `dir/prefix*suffix` over `files` (one directory), and the other files it matches: of `known`
/// and, for a local directory, of its entries.
fn pattern(files: &[String], known: &BTreeSet<String>) -> Option<(String, Vec<String>)> {
    let first = files.first()?;
    let dir_end = first.rfind('/').map_or(0, |i| i + 1);
    let dir = &first[..dir_end];
    let names: Vec<&str> = files
        .iter()
        .map(|f| f.strip_prefix(dir).filter(|n| !n.contains('/')))
        .collect::<Option<_>>()?;
    let prefix_len = common_len(names.iter().map(|n| n.chars()));
    let suffix_len = common_len(names.iter().map(|n| n.chars().rev()));
    let shortest = names.iter().map(|n| n.chars().count()).min()?;
    let suffix_len = suffix_len.min(shortest.saturating_sub(prefix_len));
    let name0: Vec<char> = names[0].chars().collect();
    // Cut at word boundaries, as a person writes it: `tas_*.nc`, not `tas_0*.nc`.
    let word = |c: &char| c.is_alphanumeric();
    let prefix_len = (0..=prefix_len)
        .rev()
        .find(|&i| i == 0 || !word(&name0[i - 1]))
        .unwrap_or(0);
    let suffix_len = (0..=suffix_len)
        .rev()
        .find(|&i| i == 0 || !word(&name0[name0.len() - i]))
        .unwrap_or(0);
    let prefix: String = name0[..prefix_len].iter().collect();
    let suffix: String = name0[name0.len() - suffix_len..].iter().collect();
    let special = |s: &str| s.contains(['*', '?', '[', ']', ' ', '\'', '"', '$', '\\']);
    if special(dir) || special(&prefix) || special(&suffix) {
        return None;
    }
    let matches = |f: &String| {
        f.strip_prefix(dir).is_some_and(|n| {
            !n.contains('/')
                && n.len() >= prefix.len() + suffix.len()
                && n.starts_with(&prefix)
                && n.ends_with(&suffix)
        })
    };
    let group: BTreeSet<&String> = files.iter().collect();
    // The shell expands the pattern over the directory, not over this run's files: a local
    // directory's other entries count too (a directory that cannot be listed: no pattern).
    let on_disk = if dir.starts_with('/') {
        let entries = std::fs::read_dir(dir).ok()?;
        entries
            .filter_map(|e| Some(format!("{dir}{}", e.ok()?.file_name().to_str()?)))
            .collect()
    } else {
        BTreeSet::new()
    };
    let others = known
        .iter()
        .chain(&on_disk)
        .filter(|f| matches(f) && !group.contains(f))
        .cloned()
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    Some((format!("{dir}{prefix}*{suffix}"), others))
}

/// How many leading items all sequences share.
fn common_len<I: Iterator<Item = char>>(mut seqs: impl Iterator<Item = I>) -> usize {
    let Some(first) = seqs.next() else { return 0 };
    let first: Vec<char> = first.collect();
    seqs.fold(first.len(), |n, s| {
        s.zip(&first).take(n).take_while(|(a, b)| a == *b).count()
    })
}

/// Files of a run by what they need.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub files: usize,
    /// No error or warning names them.
    pub fit: usize,
    /// Named by an error or warning whose fix is a command that rewrites them.
    pub rewrite: usize,
    /// The sizes of those files.
    pub rewrite_bytes: u64,
    /// Could not be read at all.
    pub unreadable: usize,
    /// Named by an error or warning without a rewrite command.
    pub other: usize,
}

/// Counts the files of a run (sources and files that could not be read).
pub fn counts(plan: &Plan, groups: &[Group]) -> Counts {
    let size: HashMap<String, u64> = plan
        .inputs()
        .iter()
        .map(|s| (display_file(&s.url), s.size))
        .collect();
    let mut need: HashMap<&str, u8> = HashMap::new();
    for g in groups {
        let f = g.first;
        let rank = match (f.kind, f.severity) {
            (FindingKind::FileError, _) => 3,
            (_, Severity::Info) => continue,
            _ if g.command().is_some() => 2,
            _ => 1,
        };
        for file in &g.files {
            let r = need.entry(file.as_str()).or_default();
            *r = (*r).max(rank);
        }
    }
    let all: BTreeSet<&str> = size
        .keys()
        .map(String::as_str)
        .chain(need.keys().copied())
        .collect();
    let mut c = Counts {
        files: all.len(),
        ..Counts::default()
    };
    for f in all {
        match need.get(f).copied().unwrap_or(0) {
            3 => c.unreadable += 1,
            2 => {
                c.rewrite += 1;
                c.rewrite_bytes += size.get(f).copied().unwrap_or(0);
            }
            1 => c.other += 1,
            _ => c.fit += 1,
        }
    }
    c
}

/// Every file the run knows of (sources and files named by findings), as shown.
pub fn known_files(plan: &Plan) -> BTreeSet<String> {
    plan.sources
        .iter()
        .map(|s| display_file(&s.url))
        .chain(
            plan.findings
                .iter()
                .filter_map(|f| f.file.as_deref().map(display_file)),
        )
        .collect()
}

/// Total size of `files` among the plan's sources.
pub fn bytes_of(plan: &Plan, files: &[String]) -> u64 {
    let set: BTreeSet<&str> = files.iter().map(String::as_str).collect();
    plan.sources
        .iter()
        .filter(|s| set.contains(display_file(&s.url).as_str()))
        .map(|s| s.size)
        .sum()
}

/// `1620000` → `1.5 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// The `summary` object of the JSON report.
pub fn json(plan: &Plan) -> Value {
    let groups = groups(plan);
    let c = counts(plan, &groups);
    let known = known_files(plan);
    let gs: Vec<Value> = groups
        .iter()
        .map(|g| {
            json!({
                "kind": g.first.kind,
                "severity": g.first.severity,
                "array": g.first.array,
                "files": g.files,
                "bytes": bytes_of(plan, &g.files),
                "text": g.what(),
                "fix": g.fix_for_each(),
                "command": g.command(),
                "loop": g.shell_loop(&known),
            })
        })
        .collect();
    json!({
        "files": c.files,
        "fit": c.fit,
        "rewrite": c.rewrite,
        "rewrite_bytes": c.rewrite_bytes,
        "unreadable": c.unreadable,
        "other": c.other,
        "groups": gs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_pattern_only_when_it_matches_exactly_the_group() {
        let g: Vec<String> = ["d/tas_1.nc", "d/tas_2.nc"].map(String::from).into();
        let known = set(&["d/tas_1.nc", "d/tas_2.nc", "d/pr_1.nc"]);
        assert_eq!(pattern(&g, &known), Some(("d/tas_*.nc".into(), vec![])));
        let known = set(&["d/tas_1.nc", "d/tas_2.nc", "d/tas_3.nc"]);
        let others = vec!["d/tas_3.nc".to_string()];
        assert_eq!(pattern(&g, &known), Some(("d/tas_*.nc".into(), others)));
        let other_dirs: Vec<String> = ["a/x.nc", "b/x.nc"].map(String::from).into();
        assert_eq!(pattern(&other_dirs, &set(&[])), None);
    }

    #[test]
    fn a_pattern_counts_the_files_on_disk_not_only_the_runs() {
        let dir = tempfile::tempdir().unwrap();
        for n in ["tas_1.nc", "tas_2.nc", "tas_3.nc"] {
            std::fs::write(dir.path().join(n), b"").unwrap();
        }
        let d = dir.path().display().to_string();
        let g: Vec<String> = vec![format!("{d}/tas_1.nc"), format!("{d}/tas_2.nc")];
        let known: BTreeSet<String> = g.iter().cloned().collect();
        let (p, others) = pattern(&g, &known).unwrap();
        assert_eq!(p, format!("{d}/tas_*.nc"));
        assert_eq!(others, vec![format!("{d}/tas_3.nc")]);
    }

    #[test]
    fn overlapping_prefix_and_suffix_do_not_overlap() {
        // "ab.nc" and "abb.nc": prefix "ab", suffix "b.nc" would overlap in "ab.nc" (and "ab"
        // is cut back to a word boundary).
        let g: Vec<String> = ["d/ab.nc", "d/abb.nc"].map(String::from).into();
        let (p, _) = pattern(&g, &set(&["d/ab.nc", "d/abb.nc"])).unwrap();
        assert_eq!(p, "d/*.nc");
        // Cut at word boundaries.
        let g: Vec<String> = ["d/tas_000.nc", "d/tas_001.nc"].map(String::from).into();
        assert_eq!(pattern(&g, &set(&[])).unwrap().0, "d/tas_*.nc");
    }

    #[test]
    fn names_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("d/a.nc"), "d/a.nc");
        assert_eq!(shell_quote("d/a b.nc"), "'d/a b.nc'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(human_bytes(1000), "1000 bytes");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(5 << 30), "5.0 GiB");
    }
}
