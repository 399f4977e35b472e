//! Explicit mosaic layouts (`--mosaic-layout FILE`): each file's offset given by hand, for
//! tiles without georeferencing.

use serde_json::Value;

/// One line of an explicit layout: a file and its offset in the mosaic (rows, columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutEntry {
    /// A file URL (`file:///…`), an absolute or relative path, or a bare file name.
    pub path: String,
    pub row: u64,
    pub col: u64,
}

/// Parses an explicit layout: one `PATH ROW COL` per line (whitespace-separated; `#` comments
/// and blank lines ignored), or a JSON list of `{"path": …, "row": …, "col": …}`.
pub fn parse_layout(text: &str) -> Result<Vec<LayoutEntry>, String> {
    let t = text.trim_start();
    if t.starts_with('[') {
        let v: Value = serde_json::from_str(t).map_err(|e| format!("bad JSON layout: {e}"))?;
        let list = v.as_array().ok_or("a JSON layout is a list")?;
        return list
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let get = |k: &str| e.get(k).and_then(Value::as_u64);
                match (
                    e.get("path").and_then(Value::as_str),
                    get("row"),
                    get("col"),
                ) {
                    (Some(p), Some(r), Some(c)) => Ok(LayoutEntry {
                        path: p.to_string(),
                        row: r,
                        col: c,
                    }),
                    _ => Err(format!(
                        "layout entry {i}: wants {{\"path\": …, \"row\": N, \"col\": N}}"
                    )),
                }
            })
            .collect();
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let parts: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("line {}: wants `PATH ROW COL`, got {line:?}", n + 1);
        if parts.len() != 3 {
            return Err(bad());
        }
        out.push(LayoutEntry {
            path: parts[0].to_string(),
            row: parts[1].parse().map_err(|_| bad())?,
            col: parts[2].parse().map_err(|_| bad())?,
        });
    }
    Ok(out)
}
