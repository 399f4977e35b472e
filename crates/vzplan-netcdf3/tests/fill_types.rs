//! `_FillValue` attributes of another type than their variable (testdata/netcdf3/fill_types/,
//! written by scipy's netcdf_file, which keeps each attribute's own type, as in xarray's tutorial
//! file eraint_uvz.nc), against netCDF-C's view through netCDF4-python: every variable is an
//! array; a fill netCDF-C can cast is the array's fill value, converted to the variable's type;
//! one it warns it cannot use is left out of the attributes (a problem of the attribute, not of
//! the array) and the type's default is the fill value, as netCDF-C masks it.

use serde_json::Value;
use std::path::PathBuf;
use vzplan_core::ProblemKind;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/netcdf3/fill_types")
}

#[test]
fn a_fill_of_another_type_is_converted_or_left_out_of_the_attributes() {
    for name in ["eraint_like", "mismatched"] {
        let r = vzplan_io::open_local(dir().join(format!("{name}.nc"))).unwrap();
        let l = vzplan_netcdf3::read_layout(&r, &Default::default()).unwrap();
        let text = std::fs::read_to_string(dir().join(format!("{name}.json"))).unwrap();
        let oracle: Value = serde_json::from_str(&text).unwrap();
        for (var, want) in oracle["netcdf_c"].as_object().unwrap() {
            let ctx = format!("{name}:{var}");
            let a = l
                .arrays
                .iter()
                .find(|a| a.path == *var)
                .unwrap_or_else(|| panic!("{ctx}"));
            let unused = want["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w.as_str().unwrap().contains("_FillValue not used"));
            let fill = a
                .dtype
                .decode_f64(a.fill_value.as_deref().unwrap())
                .unwrap();
            let problem = l
                .problems
                .iter()
                .find(|p| p.path == format!("{var}:attribute"));
            if unused {
                let p = problem.unwrap_or_else(|| panic!("{ctx}: no problem"));
                assert_eq!(p.kind, ProblemKind::Attribute, "{ctx}");
                assert!(
                    p.reason.contains("left out of its attributes"),
                    "{ctx}: {}",
                    p.reason
                );
                assert!(!a.attrs.contains_key("_FillValue"), "{ctx}");
                // netCDF-C masks the type's default instead.
                let default = match a.dtype.size {
                    1 => -127.0,
                    2 => -32767.0,
                    _ => f32::from_be_bytes([0x7c, 0xf0, 0, 0]) as f64,
                };
                assert_eq!(fill, default, "{ctx}");
            } else {
                assert!(problem.is_none(), "{ctx}");
                match want["fill_value"].as_f64() {
                    Some(w) => assert_eq!(fill, w, "{ctx}"),
                    // NaN (written as null), or no _FillValue at all.
                    None if a.attrs.contains_key("_FillValue") => assert!(fill.is_nan(), "{ctx}"),
                    None => {}
                }
            }
        }
    }
}
