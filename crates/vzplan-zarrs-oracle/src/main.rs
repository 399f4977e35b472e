//! `zarrs-dump REFS.json OUTDIR`: opens every array of a kerchunk refs.json written by vzplan with
//! zarrs (<https://github.com/zarrs/zarrs>), an implementation independent of zarr-python, and
//! writes, per array, `OUTDIR/<path with / as %>.bin` (its elements, C order, native byte order)
//! or `.json` (a list of strings, for variable-length strings), or `.err` (why zarrs cannot read
//! it). `tests/conformance/test_zarrs.py` compares them with zarr-python.
//!
//! The references are resolved into an in-memory store: inline values (`base64:` or plain text)
//! as they are, `[url, offset, length]` read from the local file (`file://` URLs and kerchunk v1
//! templates `{{u0}}`). Test fixtures are small, so holding every chunk is fine.

use base64::Engine;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use zarrs::array::{Array, ArrayBytes};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{StoreKey, WritableStorageTraits};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(refs), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: zarrs-dump REFS.json OUTDIR");
        std::process::exit(2);
    };
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(refs)?)?;
    let templates: BTreeMap<String, String> = doc["templates"]
        .as_object()
        .map(|t| {
            t.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let store = Arc::new(MemoryStore::new());
    let mut arrays = Vec::new();
    for (key, v) in doc["refs"].as_object().ok_or("no refs")? {
        let bytes = resolve(v, &templates)?;
        if let Some(path) = key.strip_suffix("zarr.json") {
            let meta: Value = serde_json::from_slice(&bytes)?;
            if meta["node_type"] == "array" {
                arrays.push(format!("/{}", path.trim_end_matches('/')));
            }
        }
        store.set(&StoreKey::new(key.as_str())?, bytes.into())?;
    }
    std::fs::create_dir_all(out)?;
    for path in arrays {
        let name = path.trim_start_matches('/').replace('/', "%");
        let base = Path::new(out).join(name);
        match dump(&store, &path) {
            Ok(Dump::Fixed(b)) => std::fs::write(base.with_extension("bin"), b)?,
            Ok(Dump::Strings(s)) => {
                std::fs::write(base.with_extension("json"), serde_json::to_string(&s)?)?
            }
            Err(e) => std::fs::write(base.with_extension("err"), e.to_string())?,
        }
    }
    Ok(())
}

enum Dump {
    Fixed(Vec<u8>),
    Strings(Vec<String>),
}

/// The whole array, decoded by zarrs.
fn dump(store: &Arc<MemoryStore>, path: &str) -> Res<Dump> {
    let array = Array::open(store.clone(), path)?;
    let bytes: ArrayBytes<'static> = array.retrieve_array_subset(&array.subset_all())?;
    Ok(match bytes {
        ArrayBytes::Fixed(b) => Dump::Fixed(b.into_owned()),
        ArrayBytes::Variable(v) => {
            let (data, offsets) = v.into_parts();
            let strings = offsets
                .windows(2)
                .map(|w| String::from_utf8_lossy(&data[w[0]..w[1]]).into_owned())
                .collect();
            Dump::Strings(strings)
        }
        ArrayBytes::Optional(_) => return Err("optional data types are not vzplan's".into()),
    })
}

/// The bytes of one reference.
fn resolve(v: &Value, templates: &BTreeMap<String, String>) -> Res<Vec<u8>> {
    match v {
        Value::String(s) => Ok(match s.strip_prefix("base64:") {
            Some(b) => base64::engine::general_purpose::STANDARD.decode(b)?,
            None => s.as_bytes().to_vec(),
        }),
        Value::Array(parts) => {
            let url = parts.first().and_then(Value::as_str).ok_or("no url")?;
            let url = expand(url, templates);
            let path = url.strip_prefix("file://").ok_or("only file:// sources")?;
            let mut f = std::fs::File::open(path)?;
            match (
                parts.get(1).and_then(Value::as_u64),
                parts.get(2).and_then(Value::as_u64),
            ) {
                (Some(off), Some(len)) => {
                    f.seek(SeekFrom::Start(off))?;
                    let mut buf = vec![0; len as usize];
                    f.read_exact(&mut buf)?;
                    Ok(buf)
                }
                _ => {
                    let mut buf = Vec::new();
                    f.read_to_end(&mut buf)?;
                    Ok(buf)
                }
            }
        }
        _ => Err("a reference is a string or a list".into()),
    }
}

/// `{{u0}}/a.nc` → the template's URL.
fn expand(url: &str, templates: &BTreeMap<String, String>) -> String {
    let mut s = url.to_string();
    for (k, v) in templates {
        s = s.replace(&format!("{{{{{k}}}}}"), v);
    }
    s
}
