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
/// Names one file may give its arrays through links (as many as objects a file may hold).
const MAX_NAMES: usize = 200_000;

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
    let mut parts: Vec<&str> = match to.strip_prefix('/') {
        Some(_) => Vec::new(),
        None => group.split('/').filter(|s| !s.is_empty()).collect(),
    };
    for seg in to.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
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
    let under = |p: &str| -> Option<String> {
        let rest = match to.as_str() {
            "" => Some(p),
            t => p.strip_prefix(t).and_then(|r| match r {
                "" => Some(""),
                r => r.strip_prefix('/'),
            }),
        }?;
        Some(match rest {
            "" => a.path.clone(),
            r => format!("{}/{r}", a.path),
        })
    };
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
/// reached through one link may hold another link's copy.
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
    for _ in 0..MAX_HOPS {
        let before = names.len() + group_names.len();
        for (i, (name, to)) in leads.iter().enumerate() {
            let under = |p: &str| -> Option<String> {
                let rest = if to.is_empty() {
                    Some(p)
                } else {
                    p.strip_prefix(to.as_str())
                }?;
                match rest {
                    "" => Some(name.clone()),
                    r if to.is_empty() => Some(format!("{name}/{r}")),
                    r => r.strip_prefix('/').map(|r| format!("{name}/{r}")),
                }
            };
            let mut added = Vec::new();
            for a in arrays.iter() {
                if let Some(p) = under(&a.path).filter(|p| !names.contains(p)) {
                    let mut c = a.clone();
                    c.path = p;
                    added.push(c);
                }
            }
            reached[i] |= !added.is_empty() || group_names.contains(to) || names.contains(to);
            for c in added {
                if names.len() >= MAX_NAMES {
                    return;
                }
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

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn paths_are_resolved_as_hdf5_resolves_them() {
        assert_eq!(normalize("grp", "v").as_deref(), Some("grp/v"));
        assert_eq!(normalize("grp", "/arr").as_deref(), Some("arr"));
        assert_eq!(normalize("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(normalize("", "./x//y").as_deref(), Some("x/y"));
        assert_eq!(normalize("", ".."), None);
    }
}
