//! netCDF-4 dimension naming on top of HDF5 dimension scales.
//!
//! Spec: netCDF-4 format (NetCDF File Format Specifications, "NetCDF-4 Format"), <https://docs.unidata.ucar.edu/netcdf-c/current/file_format_specifications.html>.
//!
//! - A scale dataset names its own axis 0 after itself.
//! - Other datasets take, per axis, the name of the scale its `DIMENSION_LIST` points at.
//! - Axes left without a name get `phony_dim_N`, as netCDF-C does: groups are visited children
//!   first, then their own datasets in link order; an axis reuses the first dimension of its
//!   group with the same length and unlimitedness that this dataset does not use yet, else a new
//!   `phony_dim_N` is made, N counting on from the number of real dimensions in the file.

use crate::ctx::HashMap;
use crate::dataset::DsInfo;
use crate::GroupNode;
use vzplan_core::Dim;

struct GDim {
    name: String,
    len: u64,
    unlimited: bool,
}

fn last(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Dimension names for every dataset, in the order of `dsets`.
pub(crate) fn assign_dims(groups: &[GroupNode], dsets: &mut [DsInfo]) -> Vec<Vec<Dim>> {
    let by_addr: HashMap<u64, usize> = dsets.iter().enumerate().map(|(i, d)| (d.addr, i)).collect();
    let mut gdims: Vec<Vec<GDim>> = (0..groups.len()).map(|_| Vec::new()).collect();
    let mut nreal = 0u64;
    for d in dsets.iter() {
        if d.is_scale && !d.shape.is_empty() {
            if let Some(g) = gdims.get_mut(d.group) {
                g.push(GDim {
                    name: last(&d.path).to_string(),
                    len: d.shape[0],
                    unlimited: d.max.first() == Some(&u64::MAX),
                });
            }
            nreal += 1;
        }
    }
    let mut out: Vec<Vec<Dim>> = vec![Vec::new(); dsets.len()];
    let mut next = nreal;
    if !groups.is_empty() {
        visit(
            0, groups, dsets, &by_addr, &mut gdims, &mut next, &mut out, 0,
        );
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn visit(
    g: usize,
    groups: &[GroupNode],
    dsets: &[DsInfo],
    by_addr: &HashMap<u64, usize>,
    gdims: &mut [Vec<GDim>],
    next: &mut u64,
    out: &mut [Vec<Dim>],
    depth: usize,
) {
    let Some(node) = groups.get(g) else { return };
    if depth > 128 {
        return;
    }
    for &c in &node.children {
        visit(c, groups, dsets, by_addr, gdims, next, out, depth + 1);
    }
    for &di in &node.dsets {
        let d = &dsets[di];
        let rank = d.shape.len();
        let unl = |k: usize| d.max.get(k) == Some(&u64::MAX);
        let mut names: smallvec::SmallVec<[Option<String>; 4]> = smallvec::smallvec![None; rank];
        if d.is_scale && rank >= 1 {
            names[0] = Some(last(&d.path).to_string());
        }
        if let Some(dl) = &d.dim_list {
            if dl.len() == rank {
                for (k, refs) in dl.iter().enumerate() {
                    if names[k].is_none() {
                        names[k] = refs
                            .iter()
                            .find_map(|a| by_addr.get(a))
                            .map(|&si| last(&dsets[si].path).to_string());
                    }
                }
            }
        }
        for k in 0..rank {
            if names[k].is_some() {
                continue;
            }
            let len = d.shape[k];
            let gd = &mut gdims[d.group];
            let found = gd.iter().find(|x| {
                x.len == len
                    && x.unlimited == unl(k)
                    && !names.iter().flatten().any(|n| *n == x.name)
            });
            let name = match found {
                Some(x) => x.name.clone(),
                None => {
                    let name = format!("phony_dim_{next}");
                    *next += 1;
                    gd.push(GDim {
                        name: name.clone(),
                        len,
                        unlimited: unl(k),
                    });
                    name
                }
            };
            names[k] = Some(name);
        }
        out[di] = names
            .into_iter()
            .enumerate()
            .map(|(k, n)| Dim::new(n.unwrap_or_default(), unl(k)))
            .collect();
    }
}
