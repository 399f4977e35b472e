//! netCDF-4 unlimited dimensions: every variable along one has the dimension's current length.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.
//!
//! netCDF-C takes an unlimited dimension's length as the largest extent along it of any dataset
//! that uses it, and reads records a variable never wrote as its fill value. HDF5 keeps each
//! dataset's own extent, so a variable written for 3 of 5 `time` steps has 3 rows there; left so,
//! readers that line variables up by dimension name (xarray) find conflicting sizes. Here each such
//! array is grown to the dimension's length: the blocks past its own extent are not allocated, so
//! they read as fill.
//!
//! A block that straddles the array's own end holds, past that end, what HDF5 wrote there when it
//! allocated the chunk: the dataset's HDF5 fill value when the fill time says it is written (netCDF-C
//! sets it to `_FillValue`), else nothing known. The array is grown when those bytes are its fill
//! value; otherwise it is left at its own length with a problem naming the cause.

use crate::coords::MAX_VALUES;
use crate::ctx::HashMap;
use vzplan_core::{ArrayLayout, ArrayProblem, ProblemKind};

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(g, _)| g)
}

fn join(group: &str, name: &str) -> String {
    if group.is_empty() {
        name.to_string()
    } else {
        format!("{group}/{name}")
    }
}

/// The group whose dimension `name` an array in `group` uses: the nearest one, from `group` up,
/// holding a coordinate (dimension scale) of that name; `group` itself when none does.
fn scope(arrays: &[ArrayLayout], group: &str, name: &str) -> String {
    let mut g = group;
    loop {
        let p = join(g, name);
        if arrays
            .iter()
            .any(|a| a.path == p && a.dims.first().is_some_and(|d| d.name == name))
        {
            return g.to_string();
        }
        if g.is_empty() {
            return group.to_string();
        }
        g = parent(g);
    }
}

/// Grows every array along its unlimited dimensions to the dimension's length (see the module
/// comment); arrays that cannot be grown exactly become problems and leave `arrays`, in place (a
/// file's arrays are kept until planning: no second vector of them).
/// `padding[i]`: what HDF5 wrote into the unwritten elements of array i's chunks, if known.
pub(crate) fn extend(
    arrays: &mut Vec<ArrayLayout>,
    padding: &[Option<Vec<u8>>],
    problems: &mut Vec<ArrayProblem>,
) {
    if arrays.iter().all(|a| a.dims.iter().all(|d| !d.unlimited)) {
        return;
    }
    // (scope, dimension) → length, and each array's keys per axis.
    let mut len: HashMap<(String, String), u64> = HashMap::default();
    let keys: Vec<Vec<Option<(String, String)>>> = arrays
        .iter()
        .map(|a| {
            a.dims
                .iter()
                .map(|d| {
                    d.unlimited
                        .then(|| (scope(arrays, parent(&a.path), &d.name), d.name.clone()))
                })
                .collect()
        })
        .collect();
    for (a, ks) in arrays.iter().zip(&keys) {
        for (k, &n) in ks.iter().zip(&a.shape) {
            if let Some(k) = k {
                let e = len.entry(k.clone()).or_insert(0);
                *e = (*e).max(n);
            }
        }
    }
    let mut i = 0;
    arrays.retain_mut(|a| {
        let pad = padding.get(i).and_then(|p| p.as_deref());
        let grown = grow(a, &keys[i], &len, pad);
        i += 1;
        match grown {
            Ok(()) => true,
            Err(reason) => {
                problems.push(ArrayProblem::new(
                    a.path.clone(),
                    ProblemKind::PartialRecords,
                    reason,
                ));
                false
            }
        }
    });
}

fn grow(
    a: &mut ArrayLayout,
    keys: &[Option<(String, String)>],
    len: &HashMap<(String, String), u64>,
    padding: Option<&[u8]>,
) -> Result<(), String> {
    let zeros = vec![0u8; a.dtype.size];
    let fill = a.fill_value.as_deref().unwrap_or(&zeros);
    let padding_is_fill = padding == Some(fill);
    let mut shape = a.shape.clone();
    for (axis, k) in keys.iter().enumerate() {
        let Some(k) = k else { continue };
        let (Some(&want), Some(&own)) = (len.get(k), a.shape.get(axis)) else {
            continue;
        };
        if want <= own {
            continue;
        }
        let block = a.chunks.block.get(axis).copied().unwrap_or(0);
        if block == 0 || (own % block != 0 && !padding_is_fill) {
            return Err(format!(
                "has {own} of the {want} records of unlimited dimension '{}', and its chunk of \
                 {block} along it straddles record {own}: the unwritten records in that chunk are \
                 not known to hold the fill value (HDF5 fill time \"never\", or a fill value other \
                 than the variable's) — rewrite it with a chunk length along '{}' that \
                 divides {own} (e.g. 1), or write the missing records",
                k.1, k.1
            ));
        }
        if let Some(v) = a.values.take() {
            // A decoded coordinate: append fill elements so the values cover the new length, within
            // the readers' cap on decoded values (else it is referenced like any other array).
            let elem = a.dtype.size as u64;
            let rest: u64 = a
                .shape
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != axis)
                .map(|(_, &n)| n)
                .product();
            let total = want.saturating_mul(rest).saturating_mul(elem);
            if axis == 0 && total <= MAX_VALUES && v.len() as u64 == own * rest * elem {
                let fill = match &a.fill_value {
                    Some(f) if f.len() as u64 == elem => f.clone(),
                    _ => vec![0; a.dtype.size],
                };
                let mut v = v;
                while (v.len() as u64) < total {
                    v.extend_from_slice(&fill);
                }
                a.values = Some(v);
            }
        }
        shape[axis] = want;
    }
    a.shape = shape;
    Ok(())
}
