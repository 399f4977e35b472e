//! Dimension names as `vzplan-hdf5` gives the granule's (its `netcdf` module, after netCDF-C).
//!
//! ```xml
//! <Dimension name="lat" size="4"/>
//! <Float32 name="t"><Dim name="/lat"/><Dim size="8"/></Float32>
//! ```
//! `t` gets `[lat, phony_dim_1]`: a `<Dim name=…>` is its last path component (the dimension
//! scale's name); an anonymous `<Dim size=…>` reuses the first dimension of its group with that
//! length that the variable does not use yet, else a new `phony_dim_N`, N counting on from the
//! number of declared dimensions (`<Dimension>`, each a dimension scale of the granule, those
//! netCDF-4 keeps out of sight included) in the file; groups are visited children first, then their own
//! variables in document order. A DMR++ does not say which dimensions are unlimited (DAP4 has no
//! such notion), so none is.

/// One variable, as naming needs it.
pub struct Axes {
    pub group: usize,
    pub shape: Vec<u64>,
    /// Per axis, the name a `<Dim name=…>` gave it.
    pub named: Vec<Option<String>>,
    /// A dimension scale (its axis 0 is named after it).
    pub scale: Option<String>,
}

/// Names for every variable's axes, in the order of `vars`; `children[g]` are group `g`'s
/// subgroups in document order (group 0 is the root), `declared[g]` its `<Dimension>`s.
pub fn assign(
    children: &[Vec<usize>],
    declared: &[Vec<(String, u64)>],
    vars: &[Axes],
) -> Vec<Vec<String>> {
    let mut gdims: Vec<Vec<(String, u64)>> = vec![Vec::new(); children.len()];
    for (g, d) in gdims.iter_mut().zip(declared) {
        g.clone_from(d);
    }
    let real = declared.iter().map(Vec::len).sum::<usize>() as u64;
    let mut by_group: Vec<Vec<usize>> = vec![Vec::new(); children.len()];
    for (i, v) in vars.iter().enumerate() {
        if let Some(g) = by_group.get_mut(v.group) {
            g.push(i);
        }
    }
    let mut order = Vec::with_capacity(vars.len());
    // Children first, iteratively: a deep nesting of groups is no deep recursion.
    let mut stack = vec![(0usize, false)];
    while let Some((g, expanded)) = stack.pop() {
        if expanded {
            order.extend(by_group.get(g).into_iter().flatten().copied());
            continue;
        }
        stack.push((g, true));
        for &c in children.get(g).into_iter().flatten().rev() {
            stack.push((c, false));
        }
    }
    let mut out = vec![Vec::new(); vars.len()];
    let mut next = real;
    for i in order {
        let v = &vars[i];
        let mut names: Vec<Option<String>> = v.named.clone();
        names.resize(v.shape.len(), None);
        if let (Some(s), Some(first)) = (&v.scale, names.first_mut()) {
            first.get_or_insert_with(|| s.clone());
        }
        for k in 0..names.len() {
            if names[k].is_some() {
                continue;
            }
            let len = v.shape[k];
            let Some(gd) = gdims.get_mut(v.group) else {
                continue;
            };
            let found = gd
                .iter()
                .find(|(n, l)| *l == len && !names.iter().flatten().any(|x| x == n))
                .map(|(n, _)| n.clone());
            names[k] = Some(found.unwrap_or_else(|| {
                let name = format!("phony_dim_{next}");
                next += 1;
                gd.push((name.clone(), len));
                name
            }));
        }
        out[i] = names.into_iter().map(Option::unwrap_or_default).collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_axes_are_named_as_netcdf_c_names_them() {
        let v = |group, shape: &[u64], named: &[Option<&str>], scale: Option<&str>| Axes {
            group,
            shape: shape.to_vec(),
            named: named.iter().map(|n| n.map(str::to_string)).collect(),
            scale: scale.map(str::to_string),
        };
        let vars = [
            v(0, &[4], &[None], Some("lat")),
            v(0, &[4, 8], &[Some("lat"), None], None),
            v(0, &[8, 8], &[None, None], None),
            v(1, &[8], &[None], None),
        ];
        let declared = [vec![("lat".to_string(), 4)], vec![]];
        let names = assign(&[vec![1], vec![]], &declared, &vars);
        assert_eq!(names[0], ["lat"]);
        // The subgroup is visited first: its axis takes phony_dim_1.
        assert_eq!(names[3], ["phony_dim_1"]);
        assert_eq!(names[1], ["lat", "phony_dim_2"]);
        assert_eq!(names[2], ["phony_dim_2", "phony_dim_3"]);
    }
}
