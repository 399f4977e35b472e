//! Attributes of an object: compact (attribute messages, IV.A.2.m) and dense (attribute info
//! message IV.A.2.v → fractal heap + v2 B-tree of type 8, or type 9 by creation order), and their
//! values as JSON following the model's conventions.
//!
//! Spec: HDF5 File Format Specification Version 3.0, <https://support.hdfgroup.org/documentation/hdf5/latest/_f_m_t3.html>.

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::fheap::FractalHeap;
use crate::heap::GlobalHeaps;
use crate::messages::{self as m, Attribute, Datatype};
use crate::ohdr::{self, ObjHeader};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// All attributes of an object, in creation order when known (compact storage keeps messages in
/// creation order; dense storage is read through the creation-order index when there is one,
/// else sorted by name). Attributes that cannot be decoded are skipped, not fatal.
pub fn read_all<'a>(ctx: &Ctx, oh: &'a ObjHeader) -> Result<Vec<Attribute<'a>>> {
    Ok(read_all_checked(ctx, oh)?.0)
}

/// [`read_all`], plus why each dense attribute that could not be read was left out (one
/// unreadable attribute must not cost the object its other attributes, or a file its variables).
pub fn read_all_checked<'a>(
    ctx: &Ctx,
    oh: &'a ObjHeader,
) -> Result<(Vec<Attribute<'a>>, Vec<String>)> {
    let mut out = Vec::with_capacity(oh.all(m::ATTRIBUTE).count());
    let mut failed = Vec::new();
    for msg in oh.all(m::ATTRIBUTE) {
        let a = match ohdr::resolved(ctx, msg) {
            Ok(body) if attribute_name(&body).is_some_and(unused) => continue,
            Ok(Cow::Borrowed(body)) => m::attribute(ctx, body),
            // Shared: the body was read from another header, so the attribute copies its values.
            Ok(Cow::Owned(body)) => m::attribute(ctx, &body).map(Attribute::into_owned),
            Err(_) => continue,
        };
        if let Ok(a) = a {
            out.push(a);
        }
    }
    if let Some(ai) = oh.first(m::ATTR_INFO) {
        let info = m::attr_info(&mut ctx.cur(ai.data))?;
        if !ctx.is_undef(info.heap) && !ctx.is_undef(info.name_btree) {
            match dense(ctx, &info, &mut failed) {
                Ok(d) => out.extend(d),
                Err(e) => failed.push(format!("dense attribute storage cannot be read: {e}")),
            }
        }
    }
    Ok((out, failed))
}

fn dense(
    ctx: &Ctx,
    info: &m::AttrInfo,
    failed: &mut Vec<String>,
) -> Result<Vec<Attribute<'static>>> {
    let by_order = info.corder_btree.filter(|a| !ctx.is_undef(*a));
    crate::fheap::prefetch_dense(ctx, info.heap, by_order.unwrap_or(info.name_btree));
    let heap = FractalHeap::open(ctx, info.heap)?;
    let (rtype, recs) = crate::idx::records(ctx, by_order.unwrap_or(info.name_btree))?;
    if rtype != 8 && rtype != 9 {
        return Err(Error::malformed(format!(
            "attribute index is a v2 B-tree of type {rtype}"
        )));
    }
    let mut out = Vec::with_capacity(recs.len());
    // Records of both types start with the heap ID (8 bytes) then the message flags.
    let idl = heap.id_len();
    let mut keyed = Vec::with_capacity(recs.len());
    for rec in recs {
        let (id, flags) = match (rec.get(..idl), rec.get(idl)) {
            (Some(id), Some(&f)) => (id, f),
            _ => return Err(Error::malformed("short attribute index record")),
        };
        if flags & 0x02 != 0 {
            continue; // shared in the SOHM heap: not supported, skipped
        }
        let corder = rec
            .get(idl + 1..idl + 5)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .unwrap_or(0);
        let body = match heap.get(ctx, id) {
            Ok(b) => b,
            Err(e) => {
                let which = if by_order.is_some() {
                    format!("attribute number {corder} (creation order)")
                } else {
                    "an attribute".to_string()
                };
                failed.push(format!("{which} cannot be read, left out: {e}"));
                continue;
            }
        };
        if attribute_name(&body).is_some_and(unused) {
            continue;
        }
        if let Ok(a) = m::attribute(ctx, &body) {
            keyed.push((corder, a.into_owned()));
        }
    }
    if by_order.is_some() {
        keyed.sort_by_key(|(c, _)| *c);
    } else {
        keyed.sort_by(|a, b| a.1.name.as_bytes().cmp(b.1.name.as_bytes()));
    }
    out.extend(keyed.into_iter().map(|(_, a)| a));
    Ok(out)
}

/// The name of the attribute in message `body`, up to its first NUL, without parsing the rest
/// (`None` when the message is too short or of an unknown version): lets a reader pass over the
/// attributes it drops ([`unused`]) without decoding their types and values.
pub fn attribute_name(body: &[u8]) -> Option<&[u8]> {
    let (&version, rest) = body.split_first()?;
    let start: usize = match version {
        1 | 2 => 8,
        3 => 9,
        _ => return None,
    };
    let size = usize::from(u16::from_le_bytes([*rest.get(1)?, *rest.get(2)?]));
    let name = body.get(start..start.checked_add(size)?)?;
    Some(m::until_nul(name))
}

/// Attributes netCDF-4 and the dimension-scale API keep for themselves: the [`unused`] ones and
/// the dimension-scale markers the netCDF pass reads.
pub fn hidden(name: &str) -> bool {
    matches!(name, "DIMENSION_LIST" | "CLASS" | "NAME") || unused(name.as_bytes())
}

/// Attributes no reader of the object looks at: netCDF-4's bookkeeping. Their messages are passed
/// over undecoded (`REFERENCE_LIST` alone is a compound type and an array of references on every
/// dimension scale); on the bytes, so no UTF-8 check for a name that is none of these.
pub fn unused(name: &[u8]) -> bool {
    matches!(name, b"REFERENCE_LIST" | b"_nc3_strict" | b"_NCProperties")
        || name.starts_with(b"_Netcdf4")
}

/// The user-visible attributes as a JSON map.
pub fn to_map(ctx: &Ctx, gh: &GlobalHeaps, attrs: &[Attribute]) -> Map<String, Value> {
    let mut out = Map::new();
    for a in attrs {
        if hidden(&a.name) {
            continue;
        }
        if let Some(v) = value(ctx, gh, a) {
            out.insert(a.name.to_string(), v);
        }
    }
    out
}

/// One numeric element as JSON.
pub fn num(dt: &Datatype, b: &[u8]) -> Option<Value> {
    match *dt {
        Datatype::Int { size, signed, be } => {
            let u = uint(b, size as usize, be)?;
            Some(if signed {
                let shift = 64 - 8 * size;
                Value::from(((u << shift) as i64) >> shift)
            } else {
                Value::from(u)
            })
        }
        Datatype::Float { size, be } => {
            let u = uint(b, size as usize, be)?;
            let f = match size {
                2 => f16_to_f64(u as u16),
                4 => f32::from_bits(u as u32) as f64,
                8 => f64::from_bits(u),
                _ => return None,
            };
            Some(float_json(f))
        }
        _ => None,
    }
}

pub fn float_json(f: f64) -> Value {
    if f.is_nan() {
        Value::from("NaN")
    } else if f.is_infinite() {
        Value::from(if f > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

fn uint(b: &[u8], size: usize, be: bool) -> Option<u64> {
    let b = b.get(..size)?;
    let mut v = 0u64;
    if be {
        for &x in b {
            v = (v << 8) | x as u64;
        }
    } else {
        for &x in b.iter().rev() {
            v = (v << 8) | x as u64;
        }
    }
    Some(v)
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn text(b: &[u8], pad: u8) -> String {
    text_cow(b, pad).into_owned()
}

fn text_cow(b: &[u8], pad: u8) -> Cow<'_, str> {
    match pad {
        // Null-terminated / null-padded: text ends at the first NUL.
        0 | 1 => m::cstr_cow(b),
        _ => m::utf8_cow(b),
    }
}

/// The text of an attribute holding one string (`CLASS`, `NAME`): what [`value`] gives as a JSON
/// string, without building it; `None` for anything else.
pub fn one_text<'a>(ctx: &Ctx, gh: &GlobalHeaps, a: &'a Attribute) -> Option<Cow<'a, str>> {
    if a.space.null || a.space.nelems()? != 1 {
        return None;
    }
    let b = a.data.get(..a.elem_size as usize)?;
    match &a.dtype {
        Datatype::Str { pad, .. } if !b.is_empty() => Some(text_cow(b, *pad)),
        Datatype::VlenStr => {
            let (len, bytes) = vlen_bytes(ctx, gh, b).ok()?;
            let l = (len as usize).min(bytes.len());
            let text = bytes.get(..l).filter(|_| l <= MAX_VLEN_TEXT)?;
            Some(Cow::Owned(crate::messages::cstr(text)))
        }
        _ => None,
    }
}

/// The element bytes of a vlen element (length + global heap ID) from the global heap.
pub fn vlen_bytes(ctx: &Ctx, gh: &GlobalHeaps, elem: &[u8]) -> Result<(u32, bytes::Bytes)> {
    let mut c = ctx.cur(elem);
    let len = c.u32()?;
    let addr = c.offset()?;
    let index = c.u32()?;
    if len == 0 || addr == 0 || ctx.is_undef(addr) {
        return Ok((0, bytes::Bytes::new()));
    }
    Ok((len, gh.get(ctx, addr, index)?))
}

/// The most text one attribute of vlen strings yields (real ones are far below this).
const MAX_VLEN_TEXT: usize = 4 << 20;

/// An attribute's value as JSON (`None` for types the model has no JSON form for).
pub fn value(ctx: &Ctx, gh: &GlobalHeaps, a: &Attribute) -> Option<Value> {
    let n = a.space.nelems()? as usize;
    let es = a.elem_size as usize;
    if es == 0 && n > 0 {
        return None;
    }
    // The element count is the file's word; the loop stops where the bytes present end.
    let elems = (0..n).map_while(|i| a.data.get(i * es..(i + 1) * es));
    // Strings from the global heap: many elements may name one large object, so the text
    // built is capped (the attribute is dropped beyond it), not the file size squared.
    let mut budget = MAX_VLEN_TEXT;
    let vals: Vec<Value> = match &a.dtype {
        Datatype::Int { .. } | Datatype::Float { .. } => {
            elems.map(|b| num(&a.dtype, b)).collect::<Option<_>>()?
        }
        // An enum's value is its base integer (netCDF-4 enum attributes, e.g. `_FillValue`).
        Datatype::Enum { base, .. } => elems.map(|b| num(base, b)).collect::<Option<_>>()?,
        Datatype::Str { pad, .. } => elems.map(|b| Value::from(text(b, *pad))).collect(),
        Datatype::VlenStr => elems
            .map(|b| {
                vlen_bytes(ctx, gh, b).ok().and_then(|(len, bytes)| {
                    let l = (len as usize).min(bytes.len());
                    budget = budget.checked_sub(l)?;
                    Some(Value::from(crate::messages::cstr(bytes.get(..l)?)))
                })
            })
            .collect::<Option<_>>()?,
        _ => return None,
    };
    if a.space.null {
        return Some(Value::Array(Vec::new()));
    }
    // Scalars and one-element attributes are bare values.
    if vals.len() == 1 && !a.space.null {
        return vals.into_iter().next();
    }
    Some(Value::Array(vals))
}
