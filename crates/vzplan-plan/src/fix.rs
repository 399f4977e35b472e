//! Fixes a scientist can run: every command names the real file and a real output beside it
//! (`data/tas_2001.nc` → `data/tas_2001.rechunked.nc`), never `in.nc out.nc`. The tools are the
//! ones such files are made with: `nccopy` (netCDF-C), `h5repack` (HDF5 tools), `gdal_translate`
//! (GDAL), `ncap2`/`ncatted`/`ncrename` (NCO).
//!
//! ```text
//! nccopy -c time/100,lat/3,lon/4 data/tas_2001.nc data/tas_2001.rechunked.nc
//! ```

use crate::display_file;
use vzplan_core::{ArrayLayout, ArrayProblem, Codec, CodecId, DType, Kind, ProblemKind};

/// The fix of a finding that means vzplan planned something wrong: never the files' fault.
pub(crate) const REPORT_BUG: &str = "this is a bug in vzplan, not in your files: please report it with the output of `vzplan scan` for these files";

use vzplan_core::Rewriter as Tool;

/// A file to rewrite: its name as the user gave it, and the tools that rewrite it (its reader
/// says which: [`vzplan_core::SourceLayout::rewriter`]).
#[derive(Clone, Copy)]
pub(crate) struct Target<'a> {
    pub url: &'a str,
    pub rewriter: Tool,
}

impl Target<'_> {
    fn tool(&self) -> Tool {
        self.rewriter
    }

    /// The file as a shell word.
    pub fn file(&self) -> String {
        shell_quote(&display_file(self.url))
    }

    /// A new file beside it: `dir/name.TAG.ext`, as a shell word.
    pub fn output(&self, tag: &str) -> String {
        let f = display_file(self.url);
        let slash = f.rfind('/').map_or(0, |i| i + 1);
        let out = match f[slash..].rfind('.') {
            Some(dot) if dot > 0 => format!("{}.{tag}{}", &f[..slash + dot], &f[slash + dot..]),
            _ => format!("{f}.{tag}"),
        };
        shell_quote(&out)
    }

    /// `tool … FILE OUTPUT`.
    pub fn command(&self, tool_args: &str, tag: &str) -> String {
        format!("{tool_args} {} {}", self.file(), self.output(tag))
    }
}

/// Single-quotes a word for a POSIX shell unless it is plainly safe (shared with the reports'
/// shell loops).
pub fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./:-+=,@%".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Rewrites the array at `path` with chunks (blocks) of `block`.
pub(crate) fn rechunk(t: Target, a: &ArrayLayout, block: &[u64]) -> String {
    match t.tool() {
        Tool::Nccopy => {
            let spec: Vec<String> = a
                .dims
                .iter()
                .zip(block)
                .map(|(d, b)| format!("{}/{b}", d.name))
                .collect();
            t.command(&format!("nccopy -c {}", spec.join(",")), "rechunked")
        }
        Tool::H5repack => {
            let b: Vec<String> = block.iter().map(u64::to_string).collect();
            let arg = format!("{}:CHUNK={}", a.path, b.join("x"));
            t.command(&format!("h5repack -l {}", shell_quote(&arg)), "rechunked")
        }
        Tool::Gdal => {
            // Rows and columns are the last two axes (a layout file may say less: then 1).
            let n = block.len();
            let at = |i: Option<usize>| i.and_then(|i| block.get(i)).copied().unwrap_or(1);
            let (bh, bw) = (at(n.checked_sub(2)), at(n.checked_sub(1)));
            t.command(
                &format!("gdal_translate -co TILED=YES -co BLOCKXSIZE={bw} -co BLOCKYSIZE={bh}"),
                "rechunked",
            )
        }
    }
}

/// Rewrites the array at `path` with the codecs `like` (those of the files that fit).
pub(crate) fn recompress(t: Target, path: &str, like: &[Codec]) -> String {
    let level = like
        .iter()
        .find(|c| c.id() == CodecId::Zlib)
        .and_then(|c| c.configuration.get("level"))
        .and_then(|v| v.as_u64());
    let shuffle = like.iter().any(|c| c.id() == CodecId::Shuffle);
    let fletcher = like.iter().any(|c| c.id() == CodecId::Fletcher32);
    match t.tool() {
        Tool::Nccopy => {
            let mut args = format!("nccopy -d {}", level.unwrap_or(0));
            if shuffle {
                args.push_str(" -s");
            }
            t.command(&args, "recompressed")
        }
        Tool::H5repack => {
            let mut f = Vec::new();
            if shuffle {
                f.push("SHUF".to_string());
            }
            if let Some(l) = level {
                f.push(format!("GZIP={l}"));
            }
            if fletcher {
                f.push("FLET".to_string());
            }
            if f.is_empty() {
                f.push("NONE".to_string());
            }
            let args: Vec<String> = f
                .iter()
                .map(|x| format!("-f {}", shell_quote(&format!("{path}:{x}"))))
                .collect();
            t.command(&format!("h5repack {}", args.join(" ")), "recompressed")
        }
        Tool::Gdal => {
            let c = if level.is_some() { "DEFLATE" } else { "NONE" };
            t.command(&format!("gdal_translate -co COMPRESS={c}"), "recompressed")
        }
    }
}

/// Converts the array at `path` to `dtype`.
pub(crate) fn retype(t: Target, path: &str, dtype: &DType) -> String {
    match t.tool() {
        Tool::Gdal => t.command(
            &format!("gdal_translate -ot {}", gdal_type(dtype)),
            "retyped",
        ),
        _ => match nco_type(dtype) {
            Some(f) => {
                let expr = format!("{path}={f}({path})");
                t.command(&format!("ncap2 -s {}", shell_quote(&expr)), "retyped")
            }
            None => format!(
                "rewrite '{path}' in {} as {} like the other files",
                t.file(),
                dtype.numpy_str()
            ),
        },
    }
}

/// Sets the fill value of the array at `path` to the one of `like`.
pub(crate) fn refill(t: Target, path: &str, like: &ArrayLayout) -> String {
    let value = like
        .fill_value
        .as_deref()
        .and_then(|f| like.dtype.decode_f64(f));
    match (value, nco_code(&like.dtype)) {
        (Some(v), Some(code)) if t.tool() != Tool::Gdal => {
            let arg = format!("_FillValue,{path},o,{code},{v}");
            t.command(&format!("ncatted -a {}", shell_quote(&arg)), "refilled")
        }
        (Some(v), _) => t.command(&format!("gdal_translate -a_nodata {v}"), "refilled"),
        (None, _) => format!(
            "remove the fill value of '{path}' in {} (`ncatted -a _FillValue,{path},d,, {} {}`)",
            t.file(),
            t.file(),
            t.output("refilled")
        ),
    }
}

/// What to do about an array the reader could not reference: the reader's rewrite when it knows
/// one, else what fits its kind.
pub(crate) fn for_problem(t: Target, path: &str, pr: &ArrayProblem) -> String {
    if let Some(r) = &pr.rewrite {
        return format!("rewrite it: `{}`", t.command(&r.args, &r.tag));
    }
    let f = t.file();
    match (pr.kind, t.tool()) {
        (ProblemKind::Filter, Tool::Gdal) => {
            t.command("gdal_translate -co COMPRESS=DEFLATE", "deflate")
        }
        (ProblemKind::Filter, _) => {
            let arg = shell_quote(&format!("{path}:NONE"));
            let gz = shell_quote(&format!("{path}:GZIP=4"));
            format!(
                "rewrite it without that filter, e.g. `h5repack -f {arg} {f} {}` (or `-f {gz}` to keep it compressed with zlib)",
                t.output("unfiltered")
            )
        }
        (ProblemKind::DataType, Tool::Gdal) => format!(
            "convert it to a Zarr data type, e.g. `{}`",
            t.command("gdal_translate -ot Float32", "float32")
        ),
        (ProblemKind::DataType, _) => format!(
            "rewrite '{path}' in {f} with a data type Zarr has (whole-byte integers or floats, strings, or a packed record of numbers), or plan the other variables only (list them with --var)"
        ),
        (ProblemKind::Attribute, _) => format!(
            "the object itself is planned without this attribute; to keep it, rewrite the attribute in {f} as a number or string (`ncatted`, h5py)"
        ),
        (ProblemKind::PartialRecords, _) => format!(
            "write the missing records, or fix the record dimension's length: `{}`",
            t.command("nccopy -u", "fixed")
        ),
        (ProblemKind::Unreadable, _) => format!(
            "check {f}: this part of it is malformed (re-download or re-create it); the rest of {f} and the other files are planned without it"
        ),
        (ProblemKind::Naming, _) => {
            let new = path.replace('/', "_");
            format!(
                "rename it, e.g. `{}`, or pass another --stack-dim name",
                t.command(&format!("ncrename -v {}", shell_quote(&format!("{path},{new}"))), "renamed")
            )
        }
        (ProblemKind::Link, _) => format!(
            "the rest of {f} is planned without it; to keep it, point the link at an object that exists (h5py: `del f['{path}']; f['{path}'] = h5py.SoftLink('/target')`)"
        ),
        (ProblemKind::LinkedFile, _) => format!(
            "the rest of {f} is planned without it; to keep it, give the file it names as an input too or pass --sources-under with its directory (vzplan reads a file another file names only then), and put a missing file where the link says"
        ),
        (ProblemKind::Storage, Tool::Gdal) => t.command("gdal_translate -co TILED=YES", "tiled"),
        (ProblemKind::Storage, Tool::Nccopy) => t.command("nccopy -k nc4", "rewritten"),
        (ProblemKind::Storage, Tool::H5repack) => {
            t.command(&format!("h5repack -l {}", shell_quote(&format!("{path}:CONTI"))), "rewritten")
        }
    }
}

/// NCO's conversion function for a dtype (`ncap2 -s 'v=float(v)'`).
fn nco_type(d: &DType) -> Option<&'static str> {
    Some(match (d.kind, d.size) {
        (Kind::Float, 4) => "float",
        (Kind::Float, 8) => "double",
        (Kind::Int, 1) => "byte",
        (Kind::Int, 2) => "short",
        (Kind::Int, 4) => "int",
        (Kind::Int, 8) => "int64",
        (Kind::UInt, 1) => "ubyte",
        (Kind::UInt, 2) => "ushort",
        (Kind::UInt, 4) => "uint",
        (Kind::UInt, 8) => "uint64",
        _ => return None,
    })
}

/// `ncatted`'s type code for a dtype.
fn nco_code(d: &DType) -> Option<&'static str> {
    Some(match (d.kind, d.size) {
        (Kind::Float, 4) => "f",
        (Kind::Float, 8) => "d",
        (Kind::Int, 1) => "b",
        (Kind::Int, 2) => "s",
        (Kind::Int, 4) => "l",
        (Kind::Int, 8) => "ll",
        (Kind::UInt, 1) => "ub",
        (Kind::UInt, 2) => "us",
        (Kind::UInt, 4) => "u",
        (Kind::UInt, 8) => "ull",
        _ => return None,
    })
}

/// GDAL's name for a dtype (`gdal_translate -ot`).
fn gdal_type(d: &DType) -> &'static str {
    match (d.kind, d.size) {
        (Kind::UInt, 1) => "Byte",
        (Kind::Int, 1) => "Int8",
        (Kind::UInt, 2) => "UInt16",
        (Kind::Int, 2) => "Int16",
        (Kind::UInt, 4) => "UInt32",
        (Kind::Int, 4) => "Int32",
        (Kind::UInt, 8) => "UInt64",
        (Kind::Int, 8) => "Int64",
        (Kind::Float, 8) => "Float64",
        _ => "Float32",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiff_rechunk_of_any_rank_names_rows_and_columns() {
        let t = Target {
            url: "file:///d/a.tif",
            rewriter: Tool::Gdal,
        };
        let mut a: ArrayLayout = serde_json::from_value(serde_json::json!({
            "path": "0", "dims": [], "shape": [],
            "dtype": {"kind": "uint", "size": 1, "endian": "little"},
            "chunks": {"block": [], "edges": "exact", "entries": []}
        }))
        .unwrap();
        // A layout file can describe a TIFF array of rank 0: no panic, a command all the same.
        assert!(rechunk(t, &a, &[]).contains("BLOCKXSIZE=1 -co BLOCKYSIZE=1"));
        a.shape = vec![3, 64, 64];
        assert!(rechunk(t, &a, &[1, 16, 32]).contains("BLOCKXSIZE=32 -co BLOCKYSIZE=16"));
    }

    /// Every kind of problem, with each tool: the fix speaks to the cause (no type conversion
    /// for a malformed file, no rechunking for a missing filter, no flag for a dangling link).
    #[test]
    fn every_problem_kind_has_a_fix_that_fits_its_cause() {
        use ProblemKind::*;
        // A kind added without a line here fails to compile.
        let fits = |k: ProblemKind| -> (&[&str], &[&str]) {
            match k {
                Storage => (&["TILED", "CONTI", "nc4"], &["-ot", "attribute", "filter"]),
                Filter => (&["filter", "COMPRESS"], &["-ot"]),
                DataType => (&["type", "-ot"], &["filter", "TILED"]),
                Attribute => (&["attribute"], &["-ot", "TILED"]),
                PartialRecords => (&["record"], &["-ot", "TILED"]),
                Unreadable => (&["re-download"], &["-ot", "TILED", "filter", "type"]),
                Naming => (&["rename"], &["-ot", "TILED"]),
                Link => (&["link"], &["-ot", "--sources-under", "TILED"]),
                LinkedFile => (&["--sources-under"], &["-ot", "TILED"]),
            }
        };
        for tool in [Tool::Nccopy, Tool::H5repack, Tool::Gdal] {
            let t = Target {
                url: "file:///d/a.nc",
                rewriter: tool,
            };
            for kind in ProblemKind::ALL {
                let (must, not) = fits(kind);
                let fix = for_problem(t, "v", &ArrayProblem::new("v", kind, "why"));
                let ctx = format!("{kind:?} with {tool:?}: {fix}");
                assert!(must.iter().any(|w| fix.contains(w)), "{ctx}");
                assert!(!not.iter().any(|w| fix.contains(w)), "{ctx}");
            }
        }
    }

    #[test]
    fn outputs_sit_beside_the_file_and_are_quoted() {
        let t = Target {
            url: "file:///data/tas 2001.nc",
            rewriter: Tool::H5repack,
        };
        assert_eq!(t.output("rechunked"), "'/data/tas 2001.rechunked.nc'");
        let t = Target {
            url: "s3://b/x/tas",
            rewriter: Tool::H5repack,
        };
        assert_eq!(t.output("r"), "s3://b/x/tas.r");
    }
}
