use super::*;
use crate::overlay::Patch;
use hyper::Method;

fn obj(key: &str) -> Object {
    Object {
        key: key.to_string(),
        size: key.len() as u64,
        modified: "2026-12-06T08:04:42.123Z".to_string(),
        etag: format!("\"{}\"", key.len()),
    }
}

fn listing(keys: &[&str]) -> Listing {
    Listing::new(keys.iter().map(|k| obj(k)).collect())
}

/// The texts of every `<tag>…</tag>` in `xml`, in order.
fn texts(xml: &str, tag: &str) -> Vec<String> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(a) = rest.find(&open) {
        let from = &rest[a + open.len()..];
        let b = from.find(&close).unwrap();
        out.push(from[..b].to_string());
        rest = &from[b + close.len()..];
    }
    out
}

fn one(xml: &str, tag: &str) -> Option<String> {
    let t = texts(xml, tag);
    assert!(t.len() <= 1, "{tag} more than once");
    t.into_iter().next()
}

/// The common prefixes of a page (`<Prefix>` inside `<CommonPrefixes>`).
fn common(xml: &str) -> Vec<String> {
    texts(xml, "CommonPrefixes")
        .iter()
        .map(|c| one(c, "Prefix").unwrap())
        .collect()
}

/// Every page of a listing, following the continuation tokens.
fn pages(l: &Listing, q: Query) -> Vec<String> {
    let mut out = Vec::new();
    let mut q = q;
    loop {
        let xml = l.page("bench", &q).unwrap();
        let next = one(&xml, "NextContinuationToken");
        let truncated = one(&xml, "IsTruncated").unwrap();
        assert_eq!(truncated == "true", next.is_some(), "{xml}");
        out.push(xml);
        match next {
            Some(t) => q.token = Some(t),
            None => return out,
        }
        assert!(out.len() < 100, "the pages do not end");
    }
}

#[test]
fn pages_hold_1000_keys_and_follow_their_tokens() {
    let keys: Vec<String> = (0..2500)
        .rev()
        .map(|i| format!("spread_{i:04}.nc"))
        .collect();
    let l = Listing::new(keys.iter().map(|k| obj(k)).collect());
    assert_eq!(l.len(), 2500);
    let ps = pages(&l, Query::default());
    assert_eq!(ps.len(), 3);
    let counts: Vec<_> = ps.iter().map(|p| one(p, "KeyCount").unwrap()).collect();
    assert_eq!(counts, ["1000", "1000", "500"]);
    let all: Vec<String> = ps.iter().flat_map(|p| texts(p, "Key")).collect();
    let mut want = keys.clone();
    want.sort();
    assert_eq!(all, want, "every key once, in order");
    assert!(ps[0].starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
    assert!(ps[0].contains(&format!("<ListBucketResult xmlns=\"{NS}\">")));
    assert_eq!(one(&ps[0], "Name").as_deref(), Some("bench"));
    assert_eq!(one(&ps[0], "MaxKeys").as_deref(), Some("1000"));
    assert_eq!(one(&ps[0], "ContinuationToken"), None);
    // The second page names the token it was asked with.
    assert_eq!(
        one(&ps[1], "ContinuationToken"),
        one(&ps[0], "NextContinuationToken")
    );
    let first = &texts(&ps[0], "Contents")[0];
    assert_eq!(
        first,
        "<Key>spread_0000.nc</Key><LastModified>2026-12-06T08:04:42.123Z</LastModified>\
         <ETag>&quot;14&quot;</ETag><Size>14</Size><StorageClass>STANDARD</StorageClass>"
    );

    // max-keys below the page size, and above it (capped).
    let small = pages(
        &l,
        Query {
            max_keys: 700,
            ..Query::default()
        },
    );
    assert_eq!(small.len(), 4);
    assert_eq!(texts(&small[3], "Key").len(), 400);
    let q = bucket_request(
        &Method::GET,
        "/bench",
        Some("list-type=2&max-keys=5000"),
        "bench",
    );
    let Some(Ok(BucketRequest::List(q))) = q else {
        panic!("{q:?}")
    };
    assert_eq!(q.max_keys, 1000);
    // An empty bucket, and max-keys=0: one page, not truncated.
    let empty = pages(&listing(&[]), Query::default());
    assert_eq!(one(&empty[0], "KeyCount").as_deref(), Some("0"));
    let zero = Query {
        max_keys: 0,
        ..Query::default()
    };
    assert_eq!(pages(&l, zero).len(), 1);
}

#[test]
fn a_prefix_lists_only_its_keys() {
    let l = listing(&[
        "a/1",
        "a/2",
        "aa",
        "b/1",
        "spread_0001.nc",
        "spread_0002.nc",
        "zz",
    ]);
    let keys = |prefix: &str, max_keys| {
        let q = Query {
            prefix: prefix.into(),
            max_keys,
            ..Query::default()
        };
        let ps = pages(&l, q);
        (
            ps.len(),
            ps.iter().flat_map(|p| texts(p, "Key")).collect::<Vec<_>>(),
        )
    };
    assert_eq!(keys("a/", 1000), (1, vec!["a/1".into(), "a/2".into()]));
    assert_eq!(keys("a", 1000).1, ["a/1", "a/2", "aa"]);
    // The last page of a prefix is not truncated even though keys follow it.
    assert_eq!(keys("a", 3).0, 1);
    assert_eq!(
        keys("spread_", 1),
        (2, vec!["spread_0001.nc".into(), "spread_0002.nc".into()])
    );
    assert_eq!(keys("c", 1000), (1, vec![]));
    assert_eq!(keys("zzz", 1000), (1, vec![]));
    assert_eq!(keys("", 1000).1.len(), 7);
    let p = l
        .page(
            "bench",
            &Query {
                prefix: "a/".into(),
                ..Query::default()
            },
        )
        .unwrap();
    assert_eq!(one(&p, "Prefix").as_deref(), Some("a/"));
}

#[test]
fn a_delimiter_rolls_keys_up_into_common_prefixes() {
    let l = listing(&[
        "other/x_000000.txt",
        "other/x_000001.txt",
        "other/y/z.txt",
        "spread_0000.nc",
        "spread_0001.nc",
        "z/deep/k",
    ]);
    let slash = Query {
        delimiter: Some("/".into()),
        ..Query::default()
    };
    let p = l.page("bench", &slash).unwrap();
    assert_eq!(texts(&p, "Key"), ["spread_0000.nc", "spread_0001.nc"]);
    assert_eq!(common(&p), ["other/", "z/"]);
    assert_eq!(one(&p, "KeyCount").as_deref(), Some("4"));
    assert_eq!(one(&p, "Delimiter").as_deref(), Some("/"));

    // One entry a page: a common prefix counts as one, and is not given again on the next page.
    let ps = pages(
        &l,
        Query {
            max_keys: 1,
            ..slash.clone()
        },
    );
    let entries: Vec<Vec<String>> = ps
        .iter()
        .map(|p| [texts(p, "Key"), common(p)].concat())
        .collect();
    assert_eq!(
        entries,
        [
            vec!["other/"],
            vec!["spread_0000.nc"],
            vec!["spread_0001.nc"],
            vec!["z/"]
        ]
    );

    // Within a prefix, the next level rolls up.
    let p = l
        .page(
            "bench",
            &Query {
                prefix: "other/".into(),
                ..slash.clone()
            },
        )
        .unwrap();
    assert_eq!(
        texts(&p, "Key"),
        ["other/x_000000.txt", "other/x_000001.txt"]
    );
    assert_eq!(common(&p), ["other/y/"]);
    // A delimiter that is no `/`.
    let p = l
        .page(
            "bench",
            &Query {
                delimiter: Some("_".into()),
                ..Query::default()
            },
        )
        .unwrap();
    assert_eq!(common(&p), ["other/x_", "spread_"]);
    assert_eq!(texts(&p, "Key"), ["other/y/z.txt", "z/deep/k"]);
}

#[test]
fn start_after_and_tokens_resume_the_listing() {
    let l = listing(&["a", "b", "c", "d/1", "d/2", "e"]);
    let after = |s: &str, delimiter: Option<&str>| {
        let q = Query {
            start_after: Some(s.into()),
            delimiter: delimiter.map(String::from),
            ..Query::default()
        };
        let p = l.page("bench", &q).unwrap();
        assert_eq!(one(&p, "StartAfter").as_deref(), Some(s));
        [texts(&p, "Key"), common(&p)].concat()
    };
    assert_eq!(after("b", None), ["c", "d/1", "d/2", "e"]);
    assert_eq!(after("bb", None), ["c", "d/1", "d/2", "e"]);
    assert_eq!(after("d/1", None), ["d/2", "e"]);
    assert_eq!(after("e", None), Vec::<String>::new());
    assert_eq!(after("b", Some("/")), ["c", "e", "d/"]);
    // A token takes precedence over start-after.
    let first = l
        .page(
            "bench",
            &Query {
                max_keys: 2,
                ..Query::default()
            },
        )
        .unwrap();
    let token = one(&first, "NextContinuationToken").unwrap();
    let q = Query {
        token: Some(token),
        start_after: Some("d/2".into()),
        ..Query::default()
    };
    assert_eq!(
        texts(&l.page("bench", &q).unwrap(), "Key"),
        ["c", "d/1", "d/2", "e"]
    );
    for bad in ["", "zz", "4", "58", "4b", "ff41"] {
        let q = Query {
            token: Some(bad.into()),
            ..Query::default()
        };
        let r = l.page("bench", &q);
        // "4b" is `K` and an empty key: a valid token, listing from the start.
        assert_eq!(r.is_ok(), bad == "4b", "{bad}");
    }
}

#[test]
fn keys_are_escaped_and_url_encoded_when_asked() {
    let l = Listing::new(vec![Object {
        etag: "\"3-5\"".into(),
        ..obj("a&b<c>'d\" e+f.nc")
    }]);
    let p = l.page("bench", &Query::default()).unwrap();
    assert_eq!(
        one(&p, "Key").as_deref(),
        Some("a&amp;b&lt;c&gt;&apos;d&quot; e+f.nc")
    );
    assert_eq!(one(&p, "ETag").as_deref(), Some("&quot;3-5&quot;"));
    assert_eq!(one(&p, "EncodingType"), None);
    let url = Query {
        url: true,
        prefix: "a&".into(),
        ..Query::default()
    };
    let p = l.page("bench", &url).unwrap();
    assert_eq!(
        one(&p, "Key").as_deref(),
        Some("a%26b%3Cc%3E%27d%22%20e%2Bf.nc")
    );
    assert_eq!(one(&p, "Prefix").as_deref(), Some("a%26"));
    assert_eq!(one(&p, "EncodingType").as_deref(), Some("url"));
    assert_eq!(url_encode("dir/x_1.nc~"), "dir/x_1.nc~");
    assert_eq!(
        error_xml("NoSuchKey", "a<b"),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <Error><Code>NoSuchKey</Code><Message>a&lt;b</Message></Error>"
    );
}

#[test]
fn bucket_requests_are_recognised() {
    let r = |m: Method, p: &str, q: Option<&str>| bucket_request(&m, p, q, "bench");
    let q = "list-type=2&prefix=a%2Fb+c&delimiter=%2F&max-keys=5&start-after=a%2F0\
             &continuation-token=4b61&encoding-type=url&fetch-owner=false";
    assert_eq!(
        r(Method::GET, "/bench", Some(q)),
        Some(Ok(BucketRequest::List(Query {
            prefix: "a/b c".into(),
            delimiter: Some("/".into()),
            max_keys: 5,
            start_after: Some("a/0".into()),
            token: Some("4b61".into()),
            url: true,
        })))
    );
    assert_eq!(
        r(Method::GET, "/bench/", Some("list-type=2")),
        Some(Ok(BucketRequest::List(Query::default())))
    );
    assert!(matches!(
        r(Method::GET, "/bench", Some("list-type=2&max-keys=x")),
        Some(Err(_))
    ));
    assert_eq!(
        r(Method::HEAD, "/bench", None),
        Some(Ok(BucketRequest::Head))
    );
    assert_eq!(
        r(Method::GET, "/bench", Some("location")),
        Some(Ok(BucketRequest::Location))
    );
    for (m, p, q) in [
        (Method::GET, "/bench/a.nc", Some("list-type=2")),
        (Method::GET, "/benchx", Some("list-type=2")),
        (Method::GET, "/other", Some("list-type=2")),
        (Method::GET, "/bench", Some("prefix=a")),
        (Method::GET, "/bench", None),
        (Method::PUT, "/bench", None),
        (Method::HEAD, "/bench", Some("acl")),
        (Method::GET, "/bench", Some("list-type=2&prefix=%zz")),
    ] {
        assert_eq!(r(m.clone(), p, q), None, "{m} {p} {q:?}");
    }
    assert!(location_xml().ends_with(&format!("<LocationConstraint xmlns=\"{NS}\"/>")));
}

#[test]
fn dates_are_iso_8601_in_utc_with_milliseconds() {
    assert_eq!(iso8601(0, 0), "1970-01-01T00:00:00.000Z");
    assert_eq!(
        iso8601(951_782_400, 999_999_999),
        "2000-02-29T00:00:00.999Z"
    );
    assert_eq!(
        iso8601(1_733_503_507, 5_000_000),
        "2024-12-06T16:45:07.005Z"
    );
    assert_eq!(iso8601(4_107_542_399, 0), "2100-02-28T23:59:59.000Z");
    assert_eq!(iso8601(-1, 0), "1969-12-31T23:59:59.000Z");
}

#[test]
fn the_walk_follows_links_and_gives_the_etags_of_gets() {
    let dir = std::env::temp_dir().join(format!("vzplan-latency-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    let data = std::env::temp_dir().join(format!("vzplan-latency-data-{}", std::process::id()));
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("x"), b"0123456789").unwrap();
    std::fs::write(dir.join("b.nc"), b"bb").unwrap();
    std::fs::write(dir.join("sub/deeper/c.nc"), b"c").unwrap();
    std::os::unix::fs::symlink(data.join("x"), dir.join("a.nc")).unwrap();
    std::os::unix::fs::symlink(data.join("x"), dir.join("a2.nc")).unwrap();
    std::os::unix::fs::symlink(&data, dir.join("linked")).unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink(dir.join("missing"), dir.join("dangling")).unwrap();

    let patches = [Patch {
        offset: 0,
        bytes: vec![1],
    }];
    let overlays = Overlays::parse(r#"{"a2.nc": [[0, "01"]]}"#).unwrap();
    let l = Listing::walk(&dir, &overlays).unwrap();
    let keys: Vec<&str> = l.objects.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(
        keys,
        ["a.nc", "a2.nc", "b.nc", "linked/x", "sub/deeper/c.nc"]
    );
    let meta = std::fs::metadata(data.join("x")).unwrap();
    assert_eq!(l.objects[0].size, 10);
    assert_eq!(l.objects[0].etag, etag(&meta, &[]));
    assert_eq!(l.objects[1].etag, etag(&meta, &patches));
    assert_ne!(l.objects[0].etag, l.objects[1].etag);
    let m = &l.objects[0].modified;
    assert!(
        m.len() == 24 && m.ends_with('Z') && m.as_bytes()[19] == b'.',
        "{m}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&data).unwrap();
}
