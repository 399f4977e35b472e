//! Real `build_dmrpp` output: the DMR++ / HDF5 pairs of OPeNDAP BES's `modules/dmrpp_module/data`
//! (LGPL, not committed here). Set `VZPLAN_BES_DMRPP` to a folder holding `NAME.dmrpp` files and,
//! where their `dmrpp:href` says (`data/dmrpp/NAME`), the granules; each pair is compared array by
//! array as in `granules.rs`, and every difference printed. Skipped when the variable is unset.

mod common;

use common::{granule_layout, open, same_array, OpenAll};
use std::panic::{catch_unwind, AssertUnwindSafe};

#[test]
fn bes_pairs_match_where_the_dmrpp_says() {
    let Some(dir) = std::env::var_os("VZPLAN_BES_DMRPP") else {
        eprintln!("VZPLAN_BES_DMRPP unset: skipped");
        return;
    };
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dmrpp"))
        .collect();
    names.sort();
    let (mut same, mut differ) = (0, 0);
    for path in names {
        let r = open(&path);
        let d = match vzplan_dmrpp::read_layout(r.as_ref(), Some(&OpenAll)) {
            Ok(d) => d,
            Err(e) => {
                println!("{}: {e}", path.display());
                continue;
            }
        };
        let g = granule_layout(d.url.trim_start_matches("file://"));
        for p in &d.problems {
            println!("{}: problem {}: {}", path.display(), p.path, p.reason);
        }
        for a in &d.arrays {
            let Some(b) = g.arrays.iter().find(|b| b.path == a.path) else {
                println!("{}: {} not in the granule's scan", path.display(), a.path);
                differ += 1;
                continue;
            };
            match catch_unwind(AssertUnwindSafe(|| same_array(a, b))) {
                Ok(()) => same += 1,
                Err(e) => {
                    differ += 1;
                    let why = e
                        .downcast_ref::<String>()
                        .cloned()
                        .unwrap_or_default()
                        .replace('\n', " ");
                    println!("{}: {}", path.display(), why);
                }
            }
        }
    }
    println!("{same} array(s) the same, {differ} different");
    assert!(same > 0);
}
