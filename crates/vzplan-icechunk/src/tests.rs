use super::*;
use crate::containers::source_checksum;
use futures::TryStreamExt;
use icechunk::config::Credentials;
use icechunk::format::manifest::{Checksum, ChunkPayload, SecondsSinceEpoch};
use icechunk::format::{ByteRange, ChunkIndices, Path};
use icechunk::repository::VersionInfo;
use icechunk::{Repository, Store};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::RwLock;
use vzplan_core::{AxisEdges, DataRef};
use vzplan_plan::SourceRef;

fn collection(dir: &std::path::Path) -> Plan {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("collection dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "nc"))
        .collect();
    files.sort();
    let io = vzplan_io::IoOptions::default();
    let layouts = files
        .iter()
        .map(|p| {
            let r = vzplan_io::open(&p.to_string_lossy(), &io).expect("open");
            vzplan_hdf5::read_layout(r.as_ref()).expect("layout")
        })
        .collect();
    vzplan_plan::plan(layouts, &[], &vzplan_plan::Options::default())
}

fn yearly_copy() -> (tempfile::TempDir, Plan) {
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/collections/yearly");
    let dir = tempfile::tempdir().expect("tempdir");
    for e in std::fs::read_dir(&src).expect("yearly") {
        let p = e.expect("entry").path();
        std::fs::copy(&p, dir.path().join(p.file_name().expect("name"))).expect("copy");
    }
    let plan = collection(dir.path());
    (dir, plan)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The repository opened the way a reader does: every declared container authorised.
async fn reader(repo_dir: &std::path::Path, branch: &str) -> (Repository, Store) {
    let storage = icechunk::new_local_filesystem_storage(repo_dir)
        .await
        .expect("storage");
    let config = Repository::fetch_config(Arc::clone(&storage))
        .await
        .expect("config")
        .expect("a config")
        .0;
    let auth: HashMap<String, Option<Credentials>> = config
        .virtual_chunk_containers()
        .map(|c| {
            (
                c.url_prefix().to_string(),
                Some(Credentials::LocalFileSystemAccess),
            )
        })
        .collect();
    let repo = Repository::open(storage)
        .authorize_virtual_chunk_access(auth)
        .execute()
        .await
        .expect("open");
    let session = repo
        .readonly_session(&VersionInfo::BranchTipRef(branch.into()))
        .await
        .expect("session");
    let store = Store::from_session(Arc::new(RwLock::new(session))).await;
    (repo, store)
}

async fn get_json(store: &Store, key: &str) -> Value {
    let b = store.get(key, &ByteRange::ALL).await.expect(key);
    serde_json::from_slice(&b).expect("json")
}

#[test]
fn chunk_shapes_are_lists_on_every_axis() {
    assert_eq!(list_chunk_shapes(&AxisEdges::from(vec![3])), json!([3]));
    assert_eq!(
        list_chunk_shapes(&AxisEdges::from(vec![4, 4, 4])),
        json!([[4, 3]])
    );
    assert_eq!(
        list_chunk_shapes(&AxisEdges::from(vec![366, 365, 365, 365, 2])),
        json!([366, [365, 3], 2])
    );
}

#[test]
fn checksums_prefer_the_etag_and_round_mtimes_up() {
    let mut s = SourceRef {
        url: "file:///d/a.nc".into(),
        size: 1,
        etag: None,
        mtime: Some("2001-09-09T01:46:40.000000001Z".into()),
    };
    let up = Checksum::LastModified(SecondsSinceEpoch(1_000_000_001));
    assert_eq!(source_checksum(&s).expect("ok"), Some(up));
    s.mtime = Some("2001-09-09T01:46:40Z".into());
    let exact = Checksum::LastModified(SecondsSinceEpoch(1_000_000_000));
    assert_eq!(source_checksum(&s).expect("ok"), Some(exact));
    s.etag = Some("\"abc\"".into());
    assert!(matches!(source_checksum(&s), Ok(Some(Checksum::ETag(_)))));
    s.etag = None;
    s.mtime = Some("yesterday".into());
    assert!(matches!(source_checksum(&s), Err(Error::Checksum { .. })));
    assert_eq!(container_prefix("s3://b/k.nc"), "s3://b/");
    assert_eq!(container_prefix("file:///d/e/a.nc"), "file:///d/e/");
}

/// Builds the yearly collection into a new repository, reads metadata, virtual references,
/// native chunks and a virtual chunk's bytes back, then commits a second build on the branch.
#[test]
fn yearly_round_trip_and_second_commit() {
    let (src, plan) = yearly_copy();
    assert!(!plan.arrays.is_empty() && plan.left_out.is_empty());
    let repo_dir = tempfile::tempdir().expect("tempdir");
    let target = Target::parse(&repo_dir.path().to_string_lossy()).expect("target");
    let opts = IcechunkOptions::default();
    let first = write(&plan, &target, &opts).expect("first build");
    assert!(first.created);
    let prefix = format!(
        "file://{}/",
        src.path().canonicalize().expect("abs").display()
    );
    assert_eq!(first.containers, vec![prefix.clone()]);
    let want_refs: usize = plan
        .arrays
        .iter()
        .flat_map(|a| &a.chunks)
        .filter(|c| matches!(c.data, DataRef::Ref { .. }))
        .count();
    assert_eq!(first.virtual_refs as usize, want_refs);
    assert!(first.native_chunks > 0, "coordinates are inline");

    rt().block_on(async {
        let (repo, store) = reader(repo_dir.path(), "main").await;
        let declared: Vec<String> = repo
            .config()
            .virtual_chunk_containers()
            .map(|c| c.url_prefix().to_string())
            .collect();
        assert_eq!(declared, vec![prefix.clone()]);
        let root = get_json(&store, "zarr.json").await;
        assert_eq!(
            root["attributes"]["vzplan"]["sources"]
                .as_array()
                .map(Vec::len),
            Some(4)
        );
        for a in &plan.arrays {
            let got = get_json(&store, &format!("{}/zarr.json", a.path)).await;
            let mut want = vzplan_emit::zarr::array_json(&plan, a);
            if want["chunk_grid"]["name"] == "rectilinear" {
                let shapes = got["chunk_grid"]["configuration"]["chunk_shapes"].clone();
                assert!(shapes.as_array().expect("list").iter().all(Value::is_array));
                want["chunk_grid"]["configuration"]["chunk_shapes"] = shapes.clone();
                let n: Vec<usize> = a.edges.iter().map(|e| e.count() as usize).collect();
                let back: Vec<usize> = shapes
                    .as_array()
                    .expect("list")
                    .iter()
                    .zip(&a.shape)
                    .map(|(s, &len)| {
                        vzplan_core::edges_from_json(s, len).expect("edges").count() as usize
                    })
                    .collect();
                assert_eq!(back, n, "{}", a.path);
            }
            assert_eq!(got, want, "{}", a.path);
            let session = store.session();
            let session = session.read().await;
            let path = Path::try_from(format!("/{}", a.path).as_str()).expect("path");
            for c in &a.chunks {
                let idx = ChunkIndices(c.index.iter().map(|k| k as u32).collect());
                let payload = session.get_chunk_ref(&path, &idx).await.expect("ref");
                match (c.data, payload) {
                    (DataRef::Ref { offset, length }, Some(ChunkPayload::Virtual(v))) => {
                        let s = &plan.sources[c.source];
                        assert_eq!(v.location.url(), s.url);
                        assert_eq!((v.offset, v.length), (offset, length));
                        assert_eq!(v.checksum, source_checksum(s).expect("checksum"));
                        assert!(matches!(v.checksum, Some(Checksum::LastModified(_))));
                    }
                    (DataRef::Inline(b), Some(_)) => {
                        let key = vzplan_emit::chunk_key(&a.path, &c.index.to_vec());
                        let got = store.get(&key, &ByteRange::ALL).await.expect("native");
                        assert_eq!(got.as_ref(), b, "{key}");
                    }
                    (d, p) => panic!("{}: {d:?} stored as {p:?}", a.path),
                }
            }
        }
        // A virtual chunk read through Icechunk is the source's bytes.
        let tas = plan.arrays.iter().find(|a| a.path == "tas").expect("tas");
        let c = tas.chunks.get(0).expect("a chunk");
        let DataRef::Ref { offset, length } = c.data else {
            panic!("tas is referenced")
        };
        let file = plan.sources[c.source]
            .url
            .trim_start_matches("file://")
            .to_string();
        let raw = std::fs::read(&file).expect("source");
        let got = store
            .get(
                &vzplan_emit::chunk_key("tas", &c.index.to_vec()),
                &ByteRange::ALL,
            )
            .await
            .expect("virtual chunk");
        assert_eq!(
            got.as_ref(),
            &raw[offset as usize..(offset + length) as usize]
        );
    });

    let second = write(&plan, &target, &opts).expect("second build");
    assert!(!second.created);
    assert_ne!(second.snapshot, first.snapshot);
    rt().block_on(async {
        let (repo, store) = reader(repo_dir.path(), "main").await;
        let history: Vec<_> = repo
            .ancestry(&VersionInfo::BranchTipRef("main".into()))
            .await
            .expect("ancestry")
            .try_collect()
            .await
            .expect("history");
        // The second build, the first, the repository's initial snapshot.
        assert_eq!(history.len(), 3);
        assert_eq!(history[0].id.to_string(), second.snapshot);
        assert_eq!(history[1].id.to_string(), first.snapshot);
        assert!(store.exists("tas/zarr.json").await.expect("exists"));
    });
}

/// A source modified after the build is refused when its chunk is read.
#[test]
fn a_changed_source_is_refused_at_read_time() {
    let (src, plan) = yearly_copy();
    let repo_dir = tempfile::tempdir().expect("tempdir");
    let target = Target::Local(repo_dir.path().to_path_buf());
    write(&plan, &target, &IcechunkOptions::default()).expect("build");
    let tas = plan.arrays.iter().find(|a| a.path == "tas").expect("tas");
    let c = tas.chunks.get(0).expect("a chunk");
    let file = plan.sources[c.source]
        .url
        .trim_start_matches("file://")
        .to_string();
    assert!(file.starts_with(&*src.path().canonicalize().expect("abs").to_string_lossy()));
    let key = vzplan_emit::chunk_key("tas", &c.index.to_vec());
    rt().block_on(async {
        let (_, store) = reader(repo_dir.path(), "main").await;
        assert!(store.get(&key, &ByteRange::ALL).await.is_ok());
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        let f = std::fs::File::options()
            .append(true)
            .open(&file)
            .expect("open");
        f.set_modified(later).expect("touch");
        drop(f);
        let (_, store) = reader(repo_dir.path(), "main").await;
        assert!(store.get(&key, &ByteRange::ALL).await.is_err());
    });
}

/// Two builds prepared on the same branch tip: the one committed second is a conflict.
#[test]
fn a_racing_commit_is_a_conflict() {
    let (_src, plan) = yearly_copy();
    let repo_dir = tempfile::tempdir().expect("tempdir");
    let target = Target::Local(repo_dir.path().to_path_buf());
    let opts = IcechunkOptions {
        branch: "dev".into(),
        ..IcechunkOptions::default()
    };
    write(&plan, &target, &opts).expect("first build creates the branch");
    rt().block_on(async {
        let a = write::prepare(&plan, &target, &opts, "a").await.expect("a");
        let b = write::prepare(&plan, &target, &opts, "b").await.expect("b");
        write::commit(a, "a").await.expect("a commits");
        assert!(matches!(
            write::commit(b, "b").await,
            Err(Error::Conflict { branch }) if branch == "dev"
        ));
    });
}

#[test]
fn targets_parse() {
    assert_eq!(
        Target::parse("s3://bkt/some/repo/").expect("s3"),
        Target::S3 {
            bucket: "bkt".into(),
            prefix: "some/repo".into()
        }
    );
    assert_eq!(
        Target::parse("file:///tmp/r").expect("file"),
        Target::Local("/tmp/r".into())
    );
    assert!(matches!(
        Target::parse("s3://bkt/r?X-Amz-Signature=1"),
        Err(Error::Target { .. })
    ));
    assert!(matches!(
        Target::parse("ftp://h/r"),
        Err(Error::Target { .. })
    ));
}

#[test]
fn an_append_on_a_branch_that_moved_since_its_layouts_were_kept_is_refused() {
    let (_src, plan) = yearly_copy();
    let repo_dir = tempfile::tempdir().expect("tempdir");
    let target = Target::Local(repo_dir.path().to_path_buf());
    let with = |expect: Option<&str>, token: &str| IcechunkOptions {
        expect_layouts: expect.map(str::to_string),
        layouts_record: Some(token.to_string()),
        ..IcechunkOptions::default()
    };
    write(&plan, &target, &with(None, "a")).expect("build keeping layouts a");
    // An append that read layouts a builds on the commit that kept them.
    write(&plan, &target, &with(Some("a"), "b")).expect("append on a");
    // Another append that also read a would lose b's files: refused, nothing committed.
    assert!(matches!(
        write(&plan, &target, &with(Some("a"), "c")),
        Err(Error::Stale { branch }) if branch == "main"
    ));
    write(&plan, &target, &with(Some("b"), "c")).expect("append on b");
    // A branch whose head kept no layouts (a plain build) has nothing to append to.
    write(&plan, &target, &IcechunkOptions::default()).expect("plain build");
    assert!(matches!(
        write(&plan, &target, &with(Some("c"), "d")),
        Err(Error::Stale { .. })
    ));
}

#[test]
fn a_commit_whose_answer_was_lost_is_recognised_by_its_mark() {
    let (_src, plan) = yearly_copy();
    let repo_dir = tempfile::tempdir().expect("tempdir");
    let target = Target::Local(repo_dir.path().to_path_buf());
    let opts = IcechunkOptions::default();
    rt().block_on(async {
        let p = write::prepare(&plan, &target, &opts, "mine")
            .await
            .expect("prepare");
        let committed = write::commit(p, "m").await.expect("commit");
        // The store took the commit; had its answer been lost, a retry asks the branch's head.
        let found = retry::landed(&plan, &target, &opts, "mine", Some(false))
            .await
            .expect("head")
            .expect("this write's commit");
        assert_eq!(found.snapshot, committed.snapshot);
        assert_eq!(
            (found.arrays, found.virtual_refs, found.native_chunks),
            (
                committed.arrays,
                committed.virtual_refs,
                committed.native_chunks
            )
        );
        assert!(found.created);
        let other = retry::landed(&plan, &target, &opts, "another", Some(true)).await;
        assert!(matches!(other, Ok(None)));
    });
}
