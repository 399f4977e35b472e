use super::*;
use vzplan_core::{Format, Rewriter};

fn file(name: &str, datetime: Option<&str>) -> SourceLayout {
    let mut attrs = Map::new();
    if let Some(d) = datetime {
        attrs.insert("DateTime".into(), json!(d));
    }
    SourceLayout {
        linked: Vec::new(),
        url: format!("file:///d/{name}"),
        size: 1,
        etag: None,
        mtime: None,
        format: Format::TIFF,
        rewriter: Rewriter::default(),
        attrs,
        groups: vec![],
        arrays: vec![],
        problems: vec![],
    }
}

fn secs(c: &StackCoord, name: &str) -> Option<i64> {
    c.seconds(&file(name, None)).ok()
}

#[test]
fn patterns_parse_or_say_why_not() {
    let c = StackCoord::parse("time=%Y%m%d").unwrap();
    assert_eq!(c.name, "time");
    assert_eq!(
        StackCoord::parse("t=datetime").unwrap().source,
        Source::DateTime
    );
    for bad in [
        "time",
        "=%Y",
        "a/b=%Y",
        "time=",
        "time=%m%d",
        "time=%Y%q",
        "time=%Y%",
        "time=%Y%j%m",
    ] {
        assert!(StackCoord::parse(bad).is_err(), "{bad}");
    }
    assert!(StackCoord::parse(&format!("t=%Y{}", "x".repeat(200))).is_err());
}

#[test]
fn dates_are_found_anywhere_in_the_name() {
    let c = StackCoord::parse("time=%Y%m%d").unwrap();
    assert_eq!(secs(&c, "scene_20240102.tif"), Some(19_724 * 86_400));
    assert_eq!(secs(&c, "19700101"), Some(0));
    // The leftmost real date wins; 20241399 is not one.
    assert_eq!(secs(&c, "x_20241399_20000229.tif"), Some(11_016 * 86_400));
    assert_eq!(secs(&c, "x_20230229.tif"), None, "not a leap year");
    assert_eq!(secs(&c, "scene.tif"), None);
    let c = StackCoord::parse("t=S2_%Y-%j_T%H%M%S").unwrap();
    assert_eq!(
        secs(&c, "S2_2024-060_T103000.tif"),
        Some((19_723 + 59) * 86_400 + 37_800)
    );
    assert_eq!(secs(&c, "S2_2023-366_T103000.tif"), None);
    let c = StackCoord::parse("t=%%%Y").unwrap();
    assert_eq!(secs(&c, "a%1970b"), Some(0));
    // Dates before 1970 and past 9999 are not special.
    let c = StackCoord::parse("t=%Y%m%d").unwrap();
    assert_eq!(secs(&c, "18991231"), Some(-25_568 * 86_400));
}

#[test]
fn the_tiff_datetime_tag_is_read() {
    let c = StackCoord::parse("time=datetime").unwrap();
    let t = c.seconds(&file("a.tif", Some("2024:01:02 10:30:00\0")));
    assert_eq!(t, Ok(19_724 * 86_400 + 37_800));
    assert!(c
        .seconds(&file("a.tif", Some("2024-01-02 10:30:00")))
        .is_err());
    assert!(c
        .seconds(&file("a.tif", Some("2024:01:02 10:30:00 extra")))
        .is_err());
    assert!(c.seconds(&file("a.tif", None)).is_err());
}

#[test]
fn no_input_panics_and_matching_is_bounded() {
    // Every pattern and name over a small alphabet of troublesome characters.
    let alphabet = ['%', 'Y', 'm', 'd', 'j', 'H', '0', '1', '2', '9', 'é', '='];
    let mut seed: u64 = 33;
    let mut next = || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) as usize
    };
    for _ in 0..20_000 {
        let p: String = (0..next() % 12)
            .map(|_| alphabet[next() % alphabet.len()])
            .collect();
        let n: String = (0..next() % 40)
            .map(|_| alphabet[next() % alphabet.len()])
            .collect();
        if let Ok(c) = StackCoord::parse(&format!("t={p}")) {
            let _ = c.seconds(&file(&n, Some(&n)));
        }
        let _ = StackCoord::parse(&n);
    }
    // A long name is scanned once per start position, not more.
    let c = StackCoord::parse("t=%Y%m%d%H%M%S").unwrap();
    assert_eq!(secs(&c, &"9".repeat(100_000)), None);
}

#[test]
fn files_are_ordered_and_the_ambiguous_left_out() {
    let c = StackCoord::parse("time=%Y%m%d").unwrap();
    let files = vec![
        file("s_20240103.tif", None),
        file("s_20240101.tif", None),
        file("nodate.tif", None),
        file("a_20240102.tif", None),
        file("b_20240102.tif", None),
        file("s_20240104.tif", None),
    ];
    let mut findings = Vec::new();
    let (kept, times) = order(files, &c, &mut findings);
    let names: Vec<&str> = kept.iter().map(|l| file_name(&l.url)).collect();
    assert_eq!(
        names,
        ["s_20240101.tif", "s_20240103.tif", "s_20240104.tif"]
    );
    assert_eq!(times, [19_723, 19_725, 19_726].map(|d| d * 86_400));
    assert_eq!(findings.len(), 2);
    assert!(findings.iter().all(|f| f.severity == Severity::Error));
    assert!(findings[0].message.contains("left out"));
    let dup = &findings[1].message;
    assert!(
        dup.contains("a_20240102.tif") && dup.contains("b_20240102.tif"),
        "{dup}"
    );
    assert!(dup.contains("2024-01-02T00:00:00"), "{dup}");
    let (v, attrs) = values(&times);
    assert_eq!(v, [19_723, 19_725, 19_726]);
    assert_eq!(attrs["units"], "days since 1970-01-01");
    let (v, attrs) = values(&[1, 86_400]);
    assert_eq!(
        (v, &attrs["units"]),
        (vec![1, 86_400], &json!("seconds since 1970-01-01"))
    );
}
