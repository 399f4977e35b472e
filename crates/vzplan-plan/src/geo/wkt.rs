//! OGC WKT 1 (the "traditional" form GDAL writes, OGC 01-009) read as a tree, and the CF
//! grid-mapping attributes (CF 1.11, Appendix F) that follow from it.
//!
//! Only what a grid mapping needs is read: the CRS names, `SPHEROID`, `PRIMEM`, `PROJECTION` and
//! its `PARAMETER`s. A projection CF has no name for yields the common attributes only; the WKT
//! itself (`crs_wkt`) still carries it whole, and that is what rioxarray and pyproj read first.

use serde_json::{json, Map, Value};

/// One WKT node: `NAME[arg, …]`.
#[derive(Debug, PartialEq)]
pub(crate) struct Node {
    pub name: String,
    pub args: Vec<Arg>,
}

#[derive(Debug, PartialEq)]
pub(crate) enum Arg {
    Text(String),
    Num(f64),
    Node(Node),
}

/// Deeper than any CRS WKT 1 nests (PROJCS › GEOGCS › DATUM › SPHEROID › AUTHORITY is 5).
const MAX_DEPTH: usize = 16;

/// Parses a WKT 1 string; `None` when it is not one.
pub(crate) fn parse(s: &str) -> Option<Node> {
    let mut p = Parser {
        s: s.as_bytes(),
        at: 0,
    };
    let n = p.node(0)?;
    p.ws();
    (p.at == p.s.len()).then_some(n)
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        let ok = self.s.get(self.at) == Some(&c);
        self.at += usize::from(ok);
        ok
    }

    /// A keyword or bare word: letters, digits and `_` (maybe none).
    fn ident(&mut self) -> Option<String> {
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.at += 1;
        }
        Some(
            std::str::from_utf8(self.s.get(start..self.at)?)
                .ok()?
                .to_string(),
        )
    }

    fn node(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        let name = self.ident()?;
        if name.is_empty() || !(self.eat(b'[') || self.eat(b'(')) {
            return None;
        }
        self.args(name, depth)
    }

    /// The arguments of a node up to its closing bracket; a bare word (`EAST` in `AXIS`) is text.
    fn args(&mut self, name: String, depth: usize) -> Option<Node> {
        let mut args = Vec::new();
        loop {
            self.ws();
            match self.s.get(self.at)? {
                b']' | b')' => {
                    self.at += 1;
                    return Some(Node { name, args });
                }
                b',' => self.at += 1,
                b'"' => args.push(Arg::Text(self.text()?)),
                c if c.is_ascii_digit() || *c == b'-' || *c == b'+' || *c == b'.' => {
                    args.push(Arg::Num(self.number()?))
                }
                _ => args.push(self.word_or_node(depth + 1)?),
            }
        }
    }

    fn word_or_node(&mut self, depth: usize) -> Option<Arg> {
        if depth > MAX_DEPTH {
            return None;
        }
        let name = self.ident()?;
        if name.is_empty() {
            return None;
        }
        if self.eat(b'[') || self.eat(b'(') {
            return self.args(name, depth).map(Arg::Node);
        }
        Some(Arg::Text(name))
    }

    fn text(&mut self) -> Option<String> {
        self.at += 1;
        let start = self.at;
        // WKT doubles a quote inside text; GDAL never writes one in a CRS name, so the first
        // quote ends it.
        let len = self.s.get(start..)?.iter().position(|&c| c == b'"')?;
        self.at = start + len + 1;
        Some(String::from_utf8_lossy(&self.s[start..start + len]).into_owned())
    }

    fn number(&mut self) -> Option<f64> {
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(c))
        {
            self.at += 1;
        }
        std::str::from_utf8(&self.s[start..self.at])
            .ok()?
            .parse()
            .ok()
    }
}

impl Node {
    pub(crate) fn child(&self, name: &str) -> Option<&Node> {
        self.args.iter().find_map(|a| match a {
            Arg::Node(n) if n.name.eq_ignore_ascii_case(name) => Some(n),
            _ => None,
        })
    }

    fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.args.iter().filter_map(move |a| match a {
            Arg::Node(n) if n.name.eq_ignore_ascii_case(name) => Some(n),
            _ => None,
        })
    }

    pub(crate) fn text(&self, i: usize) -> Option<&str> {
        match self.args.get(i)? {
            Arg::Text(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn num(&self, i: usize) -> Option<f64> {
        match self.args.get(i)? {
            Arg::Num(v) => Some(*v),
            _ => None,
        }
    }

    /// `PARAMETER["name", value]` of a `PROJCS`, by name (case-insensitive).
    fn param(&self, name: &str) -> Option<f64> {
        self.children("PARAMETER")
            .find(|p| p.text(0).is_some_and(|n| n.eq_ignore_ascii_case(name)))
            .and_then(|p| p.num(1))
    }
}

/// Whether the CRS is geographic (`GEOGCS` at the top).
pub(crate) fn is_geographic(n: &Node) -> bool {
    n.name.eq_ignore_ascii_case("GEOGCS")
}

/// The name of the CRS's linear (projected) or angular (geographic) unit.
pub(crate) fn unit_name(n: &Node) -> Option<&str> {
    n.child("UNIT")?.text(0)
}

/// The CF grid-mapping attributes of a WKT 1 CRS.
pub(crate) fn cf_attrs(n: &Node) -> Map<String, Value> {
    let mut m = Map::new();
    let geog = if is_geographic(n) {
        n
    } else {
        match n.child("GEOGCS") {
            Some(g) => g,
            None => return m,
        }
    };
    if let Some(d) = geog.child("DATUM") {
        if let Some(s) = d.child("SPHEROID") {
            if let (Some(a), Some(rf)) = (s.num(1), s.num(2)) {
                m.insert("semi_major_axis".into(), json!(a));
                m.insert("inverse_flattening".into(), json!(rf));
                if let Some(name) = s.text(0) {
                    m.insert("reference_ellipsoid_name".into(), json!(name));
                }
            }
        }
        if let Some(name) = d.text(0) {
            m.insert("horizontal_datum_name".into(), json!(name));
        }
    }
    if let Some(p) = geog.child("PRIMEM") {
        if let Some(lon) = p.num(1) {
            m.insert("longitude_of_prime_meridian".into(), json!(lon));
        }
        if let Some(name) = p.text(0) {
            m.insert("prime_meridian_name".into(), json!(name));
        }
    }
    if let Some(name) = geog.text(0) {
        m.insert("geographic_crs_name".into(), json!(name));
    }
    if is_geographic(n) {
        m.insert("grid_mapping_name".into(), json!("latitude_longitude"));
        return m;
    }
    if let Some(name) = n.text(0) {
        m.insert("projected_crs_name".into(), json!(name));
    }
    if let Some(p) = n.child("PROJECTION").and_then(|p| p.text(0)) {
        projection_attrs(n, p, &mut m);
    }
    m
}

/// CF's name and parameters for a WKT 1 `PROJECTION` (GDAL's names), where CF has them.
fn projection_attrs(n: &Node, projection: &str, m: &mut Map<String, Value>) {
    // (CF attribute, WKT 1 parameter) pairs per projection.
    let (cf, params): (&str, &[(&str, &str)]) = match projection {
        "Transverse_Mercator" => (
            "transverse_mercator",
            &[
                ("latitude_of_projection_origin", "latitude_of_origin"),
                ("longitude_of_central_meridian", "central_meridian"),
                ("scale_factor_at_central_meridian", "scale_factor"),
            ],
        ),
        "Mercator_1SP" => (
            "mercator",
            &[
                ("longitude_of_projection_origin", "central_meridian"),
                ("scale_factor_at_projection_origin", "scale_factor"),
            ],
        ),
        "Mercator_2SP" => (
            "mercator",
            &[
                ("longitude_of_projection_origin", "central_meridian"),
                ("standard_parallel", "standard_parallel_1"),
            ],
        ),
        "Lambert_Conformal_Conic_1SP" => (
            "lambert_conformal_conic",
            &[
                ("standard_parallel", "latitude_of_origin"),
                ("latitude_of_projection_origin", "latitude_of_origin"),
                ("longitude_of_central_meridian", "central_meridian"),
                ("scale_factor_at_projection_origin", "scale_factor"),
            ],
        ),
        "Lambert_Conformal_Conic_2SP" | "Albers_Conic_Equal_Area" => {
            let cf = if projection.starts_with("Albers") {
                "albers_conical_equal_area"
            } else {
                "lambert_conformal_conic"
            };
            let sp: Vec<f64> = ["standard_parallel_1", "standard_parallel_2"]
                .iter()
                .filter_map(|p| n.param(p))
                .collect();
            m.insert("standard_parallel".into(), json!(sp));
            (
                cf,
                &[
                    ("latitude_of_projection_origin", "latitude_of_origin"),
                    ("latitude_of_projection_origin", "latitude_of_center"),
                    ("longitude_of_central_meridian", "central_meridian"),
                    ("longitude_of_central_meridian", "longitude_of_center"),
                ],
            )
        }
        "Lambert_Azimuthal_Equal_Area" => (
            "lambert_azimuthal_equal_area",
            &[
                ("latitude_of_projection_origin", "latitude_of_center"),
                ("longitude_of_projection_origin", "longitude_of_center"),
            ],
        ),
        "Polar_Stereographic" => (
            "polar_stereographic",
            &[
                ("latitude_of_projection_origin", "latitude_of_origin"),
                ("straight_vertical_longitude_from_pole", "central_meridian"),
                ("scale_factor_at_projection_origin", "scale_factor"),
            ],
        ),
        _ => return,
    };
    m.insert("grid_mapping_name".into(), json!(cf));
    for (attr, param) in params {
        if let Some(v) = n.param(param) {
            m.insert((*attr).into(), json!(v));
        }
    }
    for p in ["false_easting", "false_northing"] {
        if let Some(v) = n.param(p) {
            m.insert(p.into(), json!(v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UTM33: &str = r#"PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","32633"]]"#;

    #[test]
    fn a_utm_zone_is_a_transverse_mercator_grid_mapping() {
        let n = parse(UTM33).unwrap();
        assert_eq!(unit_name(&n), Some("metre"));
        let m = cf_attrs(&n);
        assert_eq!(m["grid_mapping_name"], json!("transverse_mercator"));
        assert_eq!(m["longitude_of_central_meridian"], json!(15.0));
        assert_eq!(m["scale_factor_at_central_meridian"], json!(0.9996));
        assert_eq!(m["false_easting"], json!(500000.0));
        assert_eq!(m["semi_major_axis"], json!(6378137.0));
        assert_eq!(m["inverse_flattening"], json!(298.257223563));
        assert_eq!(m["projected_crs_name"], json!("WGS 84 / UTM zone 33N"));
    }

    #[test]
    fn not_wkt_is_none() {
        for s in ["", "GEOGCS", "GEOGCS[\"x\"", "GEOGCS[\"x\"]]", "[1]"] {
            assert!(parse(s).is_none(), "{s}");
        }
        let deep = format!("{}{}", "A[".repeat(100), "]".repeat(100));
        assert!(parse(&deep).is_none());
    }
}
