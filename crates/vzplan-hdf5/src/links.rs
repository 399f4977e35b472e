//! Links past the first hard link to each object: a second hard link, a soft link (a path,
//! absolute or relative to its group), an external link (an object in another file). h5py and
//! netCDF-C follow them, so the object appears under each name that leads to it; here every
//! name that leads to an array or a group gets a copy of what is there, referencing the same
//! chunks. A link that leads nowhere is a problem of its own, named as what it is.
//!
//! Spec: HDF5 File Format Specification Version 3.0, IV.A.2.g (Link Message) and III.C (Symbol
//! Table Entry, cache type 2).

use crate::ctx::HashMap;
use crate::external::Foreign;
use crate::messages::Target;
use std::collections::BTreeSet;
use vzplan_core::{ArrayLayout, ArrayProblem, GroupLayout, ProblemKind};

/// Soft links followed through other soft links at most this deep (HDF5's default is 16).
const MAX_HOPS: usize = 16;
/// Copies of the file's own objects and chunk entries that links may make, at most (each link
/// may copy what it leads to; links to groups that hold them would copy without end).
const COPY_TIMES: usize = 16;
/// Copies any file may make whatever it holds: small files with many links to small arrays.
const MIN_COPIES: usize = 100_000;
/// Objects looked at while following links (each link, each round, looks at every object).
const MAX_LOOKS: usize = 20_000_000;

/// A link the walk did not descend through.
pub(crate) struct Alias {
    /// The link's full path.
    pub path: String,
    /// The path of the group holding the link.
    pub group: String,
    pub target: Target,
}

/// Where a path leads: `Some(path)` of an array or group, `None` when nothing is there.
fn normalize(group: &str, to: &str) -> Option<String> {
    let dir = if to.starts_with('/') { "" } else { group };
    vzplan_io::lexical_join(dir, to).map(|p| p.join("/"))
}

/// What a file holds, as the walk found it and links add to it.
pub(crate) struct Found<'a> {
    pub arrays: &'a mut Vec<ArrayLayout>,
    pub groups: &'a mut Vec<GroupLayout>,
    pub problems: &'a mut Vec<ArrayProblem>,
}

/// Adds the arrays and groups each alias leads to, under the alias's name; the aliases that lead
/// nowhere become problems. `first`: the path each object address was first visited at; `url`:
/// the file's, which external links' file names are relative to.
pub(crate) fn resolve(
    aliases: &[Alias],
    first: &HashMap<u64, String>,
    found: &mut Found<'_>,
    foreign: &mut Foreign<'_>,
    url: &str,
) {
    // External links first: soft links may lead into what they bring.
    for a in aliases {
        if let Target::External { file, path } = &a.target {
            external(a, file, path, found, foreign, url);
        }
    }
    let Found {
        arrays,
        groups,
        problems,
    } = found;
    // Soft links lead to paths; a path may itself be a soft link.
    let soft: HashMap<&str, (&str, &str)> = aliases
        .iter()
        .filter_map(|a| match &a.target {
            Target::Soft(to) => Some((a.path.as_str(), (a.group.as_str(), to.as_str()))),
            _ => None,
        })
        .collect();
    let mut leads: Vec<(String, String)> = Vec::new();
    for a in aliases {
        let to = match &a.target {
            Target::Hard(addr) => first.get(addr).cloned(),
            Target::Soft(to) => follow(&soft, &a.group, to),
            Target::External { .. } => continue,
            Target::Other(t) => {
                problems.push(ArrayProblem::new(
                    a.path.clone(),
                    ProblemKind::Link,
                    format!(
                        "a user-defined link (type {t}), which neither vzplan nor netCDF-C follows"
                    ),
                ));
                continue;
            }
        };
        match to {
            Some(to) => leads.push((a.path.clone(), to)),
            None => {
                if let Target::Soft(to) = &a.target {
                    problems.push(dangling(&a.path, to));
                }
            }
        }
    }
    copy_leads(leads, arrays, groups, problems);
}

/// The object an external link leads to, and everything under it, copied under the link's
/// name with its blocks referenced in the file they lie in; else a problem that says why not.
fn external(
    a: &Alias,
    file: &str,
    path: &str,
    found: &mut Found<'_>,
    foreign: &mut Foreign<'_>,
    url: &str,
) {
    let problem = |kind, why: String| {
        ArrayProblem::new(
            a.path.clone(),
            kind,
            format!("an external link to {path} in {file}: {why}"),
        )
    };
    let (at, l) = match foreign.layout(url, file) {
        Ok(found) => found,
        Err(why) => {
            return found
                .problems
                .push(problem(ProblemKind::LinkedFile, why.reason))
        }
    };
    let Some(to) = normalize("", path) else {
        let why = "the path leads nowhere".into();
        return found.problems.push(problem(ProblemKind::Link, why));
    };
    let under = |p: &str| under_link(&a.path, &to, p);
    let mut reached = to.is_empty() || l.groups.iter().any(|g| g.path == to);
    for x in &l.arrays {
        if let Some(p) = under(&x.path) {
            let mut c = foreign.adopt(&at, &l, x);
            c.path = p;
            found.arrays.push(c);
            reached = true;
        }
    }
    for g in &l.groups {
        if let Some(p) = under(&g.path).filter(|p| *p != a.path || !to.is_empty()) {
            found.groups.push(GroupLayout {
                path: p,
                attrs: g.attrs.clone(),
            });
        }
    }
    if to.is_empty() {
        found.groups.push(GroupLayout {
            path: a.path.clone(),
            attrs: l.attrs.clone(),
        });
    }
    for x in &l.problems {
        if let Some(p) = under(&x.path) {
            let mut c = x.clone();
            c.reason = format!(
                "{} (in {}, through an external link)",
                c.reason,
                vzplan_io::redact(&at)
            );
            c.path = p;
            found.problems.push(c);
            reached = true;
        }
    }
    if !reached {
        let why = "there is nothing at that path (a dangling link)".into();
        found.problems.push(problem(ProblemKind::Link, why));
    }
}

/// Where a soft link from `group` to `to` leads, through other soft links.
fn follow<'a>(
    soft: &HashMap<&'a str, (&'a str, &'a str)>,
    mut group: &'a str,
    mut to: &'a str,
) -> Option<String> {
    for _ in 0..MAX_HOPS {
        let p = normalize(group, to)?;
        match soft.get(p.as_str()) {
            Some(&(g, t)) => (group, to) = (g, t),
            None => return Some(p),
        }
    }
    None
}

fn dangling(path: &str, to: &str) -> ArrayProblem {
    ArrayProblem::new(
        path.to_string(),
        ProblemKind::Link,
        format!("a soft link to {to}, where there is nothing (a dangling link)"),
    )
}

/// Copies what each (name, path) lead reaches, until no copy reaches anything new: a group
/// reached through one link may hold another link's copy. A copy is a whole array description
/// (its chunk table too), so what the copies may cost is bounded by what the file holds
/// ([`Budget`]): links that would copy more are told as such, not followed.
fn copy_leads(
    leads: Vec<(String, String)>,
    arrays: &mut Vec<ArrayLayout>,
    groups: &mut Vec<GroupLayout>,
    problems: &mut Vec<ArrayProblem>,
) {
    let mut names: BTreeSet<String> = arrays.iter().map(|a| a.path.clone()).collect();
    let mut group_names: BTreeSet<String> = groups.iter().map(|g| g.path.clone()).collect();
    group_names.insert(String::new());
    let mut reached = vec![false; leads.len()];
    let mut budget = Budget::of(arrays, leads.len());
    'rounds: for _ in 0..MAX_HOPS {
        let before = names.len() + group_names.len();
        for (i, (name, to)) in leads.iter().enumerate() {
            let under = |p: &str| under_link(name, to, p);
            if !budget.look(arrays.len() + groups.len()) {
                break 'rounds;
            }
            let mut added = Vec::new();
            for a in arrays.iter() {
                if let Some(p) = under(&a.path).filter(|p| !names.contains(p)) {
                    if !budget.copy(a.chunks.entries.len()) {
                        break 'rounds;
                    }
                    let mut c = a.clone();
                    c.path = p;
                    added.push(c);
                }
            }
            reached[i] |= !added.is_empty() || group_names.contains(to) || names.contains(to);
            for c in added {
                names.insert(c.path.clone());
                arrays.push(c);
            }
            let gs: Vec<GroupLayout> = groups
                .iter()
                .filter_map(|g| {
                    let p = under(&g.path).filter(|p| !group_names.contains(p))?;
                    Some(GroupLayout {
                        path: p,
                        attrs: g.attrs.clone(),
                    })
                })
                .collect();
            if !budget.copy(gs.len()) {
                break 'rounds;
            }
            for g in gs {
                group_names.insert(g.path.clone());
                groups.push(g);
            }
        }
        if names.len() + group_names.len() == before {
            break;
        }
    }
    for ((name, to), r) in leads.iter().zip(reached) {
        if r {
            continue;
        }
        if budget.spent() {
            problems.push(ArrayProblem::new(
                name.clone(),
                ProblemKind::Link,
                format!("a link to /{to}, not followed: the file's links would copy more than its own objects justify (links to groups holding links to themselves)"),
            ));
            continue;
        }
        // An object that is there but cannot be referenced is that problem under this name too.
        let same = problems.iter().find(|p| &p.path == to).cloned();
        match same {
            Some(mut p) => {
                p.path = name.clone();
                problems.push(p);
            }
            None => problems.push(dangling(name, &format!("/{to}"))),
        }
    }
}

/// The path `p` (of an object under the link's target `to`) takes under the link's `name`.
fn under_link(name: &str, to: &str, p: &str) -> Option<String> {
    let rest = if to.is_empty() {
        Some(p)
    } else {
        p.strip_prefix(to)
    }?;
    match rest {
        "" => Some(name.to_string()),
        r if to.is_empty() => Some(format!("{name}/{r}")),
        r => r.strip_prefix('/').map(|r| format!("{name}/{r}")),
    }
}

/// What following links may cost: objects and chunk entries copied (each link may copy the
/// whole file once more, up to a fixed number of times the file's own), and objects looked at.
struct Budget {
    copies: usize,
    looks: usize,
    out: bool,
}

impl Budget {
    fn of(arrays: &[ArrayLayout], links: usize) -> Self {
        let own: usize = arrays.iter().map(|a| 1 + a.chunks.entries.len()).sum();
        let times = links.clamp(1, COPY_TIMES);
        Budget {
            copies: own.saturating_mul(times).saturating_add(MIN_COPIES),
            looks: MAX_LOOKS,
            out: false,
        }
    }

    /// Whether `n` more objects may be looked at.
    fn look(&mut self, n: usize) -> bool {
        self.take(n, true)
    }

    /// Whether a copy of `n` entries (an array's chunks, or groups) may be made.
    fn copy(&mut self, n: usize) -> bool {
        self.take(n.saturating_add(1), false)
    }

    fn take(&mut self, n: usize, look: bool) -> bool {
        let left = if look {
            &mut self.looks
        } else {
            &mut self.copies
        };
        match left.checked_sub(n) {
            Some(l) => {
                *left = l;
                true
            }
            None => {
                self.out = true;
                false
            }
        }
    }

    fn spent(&self) -> bool {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::{copy_leads, normalize};
    use vzplan_core::{ArrayLayout, GroupLayout};

    fn array(path: &str) -> ArrayLayout {
        serde_json::from_value(serde_json::json!({
            "path": path, "dims": [{"name": "x", "unlimited": false}], "shape": [4],
            "dtype": {"kind": "float", "size": 8, "endian": "little"}, "codecs": [],
            "chunks": {"block": [1], "edges": "exact", "splittable": false,
                       "entries": {"index": {"grid": [4]}, "offset": [0, 8, 16, 24], "length": [8, 8, 8, 8]}}
        }))
        .unwrap()
    }

    #[test]
    fn links_to_groups_that_hold_them_copy_a_bounded_amount() {
        // Twelve links in `g` to the root: each round copies the whole tree under every link,
        // which holds the links again. Unbounded, the copies grow twelvefold a round; a file of
        // groups alone (a fuzzer's 8 KB file) took gigabytes.
        let mut arrays = Vec::new();
        let group = |p: &str| GroupLayout {
            path: p.into(),
            attrs: Default::default(),
        };
        let mut groups = vec![group("g"), group("g/a"), group("g/b"), group("h")];
        let leads: Vec<(String, String)> = (0..12)
            .map(|i| (format!("g/up{i}"), String::new()))
            .collect();
        let mut problems = Vec::new();
        let t = std::time::Instant::now();
        copy_leads(leads, &mut arrays, &mut groups, &mut problems);
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
        assert!(
            arrays.len() + groups.len() < 1_000_000,
            "{} + {}",
            arrays.len(),
            groups.len()
        );
        assert!(
            problems.iter().all(|p| p.reason.contains("not followed")),
            "{problems:?}"
        );
        assert!(groups.iter().any(|g| g.path == "g/up11/g/a"));
        let mut arrays = vec![array("g/d"), array("e")];
        let leads: Vec<(String, String)> = (0..12)
            .map(|i| (format!("g/up{i}"), String::new()))
            .collect();
        copy_leads(leads, &mut arrays, &mut groups, &mut problems);
        assert!(
            arrays.len() + groups.len() < 1_000_000,
            "{} + {}",
            arrays.len(),
            groups.len()
        );
        assert!(arrays.iter().any(|a| a.path == "g/up0/g/d"));
    }

    #[test]
    fn paths_are_resolved_as_hdf5_resolves_them() {
        assert_eq!(normalize("grp", "v").as_deref(), Some("grp/v"));
        assert_eq!(normalize("grp", "/arr").as_deref(), Some("arr"));
        assert_eq!(normalize("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(normalize("", "./x//y").as_deref(), Some("x/y"));
        assert_eq!(normalize("", ".."), None);
    }
}
