//! `attrs::attribute_name` (the peek that lets the reader pass over the attributes it drops
//! undecoded) names every attribute message of the HDF5 and netCDF-4 fixtures as the full parse
//! does, and the attributes passed over are exactly the hidden ones nothing reads. And
//! `attrs::one_text` (how `CLASS` and `NAME` are read) gives what `attrs::value` gives as a string.

use std::path::PathBuf;
use vzplan_hdf5::ctx::Ctx;
use vzplan_hdf5::heap::GlobalHeaps;
use vzplan_hdf5::{attrs, group, messages as m, ohdr, superblock};
use vzplan_io::MemObject;

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/hdf5");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("h5" | "nc")))
        .collect();
    out.sort();
    out
}

/// Of every compact attribute message of every object reachable by hard links from the root
/// group: (peeked name, parsed name, `one_text`, `value` when it is a JSON string).
type Seen = (String, String, Option<String>, Option<String>);

fn names(path: &PathBuf) -> Vec<Seen> {
    let m_obj = MemObject::new("mem://f", std::fs::read(path).unwrap());
    let sb = superblock::read(&m_obj).unwrap();
    let ctx = Ctx {
        r: &m_obj,
        so: sb.so,
        sl: sb.sl,
        base: sb.base,
    };
    let mut todo = vec![sb.root];
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let gh = GlobalHeaps::default();
    while let Some(addr) = todo.pop() {
        if !seen.insert(addr) {
            continue;
        }
        let oh = ohdr::read(&ctx, addr).unwrap();
        for msg in oh.all(m::ATTRIBUTE) {
            let body = ohdr::resolved(&ctx, msg).unwrap();
            let Ok(a) = m::attribute(&ctx, &body) else {
                continue;
            };
            let peeked = attrs::attribute_name(&body).expect("a parsed attribute has a name");
            // Of string types only: `value` also writes a float NaN as the string "NaN".
            let string = matches!(a.dtype, m::Datatype::Str { .. } | m::Datatype::VlenStr);
            let text = match attrs::value(&ctx, &gh, &a) {
                Some(serde_json::Value::String(s)) if string => Some(s),
                _ => None,
            };
            out.push((
                String::from_utf8_lossy(peeked).into_owned(),
                a.name.to_string(),
                attrs::one_text(&ctx, &gh, &a).map(|t| t.into_owned()),
                text,
            ));
        }
        if let Ok(links) = group::links(&ctx, &oh) {
            todo.extend(links.iter().filter_map(|l| l.hard()));
        }
    }
    out
}

#[test]
fn peeked_names_are_the_parsed_names() {
    let mut total = 0;
    let mut dropped = 0;
    let mut strings = 0;
    for f in fixtures() {
        for (peeked, parsed, one, text) in names(&f) {
            assert_eq!(peeked, parsed, "{}", f.display());
            assert_eq!(one, text, "{}: {parsed}", f.display());
            strings += usize::from(one.is_some());
            total += 1;
            if attrs::unused(peeked.as_bytes()) {
                assert!(attrs::hidden(&parsed), "{parsed} is shown but passed over");
                assert!(!matches!(
                    parsed.as_str(),
                    "CLASS" | "NAME" | "DIMENSION_LIST"
                ));
                dropped += 1;
            }
        }
    }
    // The fixtures hold user attributes and netCDF-4's own ones (REFERENCE_LIST, _Netcdf4Dimid…).
    assert!(total > 50, "{total} attributes");
    // Fixed-length and vlen strings (CLASS, NAME, units…) among them.
    assert!(strings > 20, "{strings} one-string attributes");
    assert!(
        dropped > 10 && dropped < total,
        "{dropped} of {total} passed over"
    );
}
