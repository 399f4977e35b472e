//! Opening (or creating) the repository, filling a writable session, committing it.

use crate::containers::{container, container_prefix, source_checksum};
use crate::{meta, Committed, Error, IcechunkOptions, Target};
use bytes::Bytes;
use icechunk::format::manifest::{VirtualChunkLocation, VirtualChunkRef};
use icechunk::format::snapshot::SnapshotProperties;
use icechunk::format::{ChunkIndices, Path};
use icechunk::repository::RepositoryErrorKind;
use icechunk::session::{Session, SessionErrorKind};
use icechunk::store::SetVirtualRefsResult;
use icechunk::{Repository, RepositoryConfig, Store};
use std::collections::BTreeSet;
use std::sync::Arc;
use tokio::sync::RwLock;
use vzplan_core::DataRef;
use vzplan_plan::{ArrayPlan, Plan};

/// A filled, uncommitted session (split from [`commit`] so that tests can race two of them).
pub(crate) struct Prepared {
    session: Arc<RwLock<Session>>,
    branch: String,
    created: bool,
    counts: (usize, u64, u64),
    containers: Vec<String>,
    layouts_record: Option<String>,
    /// This write's own mark, recorded in the commit: a retry finds it on the branch when the
    /// answer to a commit that landed was lost.
    mark: String,
}

/// The commit metadata key holding the kept layouts' SHA-256 (see [`IcechunkOptions`]).
pub(crate) const LAYOUTS_KEY: &str = "vzplan_layouts";
/// The commit metadata key holding the write's mark ([`Prepared::mark`]).
pub(crate) const MARK_KEY: &str = "vzplan_write";

fn repo_err(target: &Target) -> impl Fn(icechunk::repository::RepositoryError) -> Error + '_ {
    move |e| Error::Repository {
        target: target.display(),
        reason: chain(&e.kind),
    }
}

fn write_err(key: &str) -> impl Fn(icechunk::store::StoreError) -> Error + '_ {
    move |e| Error::Write {
        key: key.to_string(),
        reason: chain(&e.kind),
    }
}

/// An error and its sources, as one line: the store's own words about a reset connection sit
/// several causes down.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    // Bounded: an error chain is a few levels deep.
    for _ in 0..16 {
        let Some(c) = cause else { break };
        let text = c.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        cause = c.source();
    }
    s
}

/// Whether a repository exists at the target.
pub(crate) async fn exists(target: &Target, opts: &IcechunkOptions) -> Result<bool, Error> {
    let storage = target.storage(&opts.io).await?;
    Repository::exists(storage, None)
        .await
        .map_err(repo_err(target))
}

/// The branch's head (the head of `main` for a branch not made yet): its snapshot id and the
/// commit's metadata; None when there is no repository.
pub(crate) async fn head(
    target: &Target,
    opts: &IcechunkOptions,
) -> Result<Option<(String, SnapshotProperties)>, Error> {
    let storage = target.storage(&opts.io).await?;
    let exists = Repository::exists(Arc::clone(&storage), None)
        .await
        .map_err(repo_err(target))?;
    if !exists {
        return Ok(None);
    }
    let repo = Repository::open(storage)
        .execute()
        .await
        .map_err(repo_err(target))?;
    let branches = repo.list_branches().await.map_err(repo_err(target))?;
    let branch = match branches.contains(&opts.branch) {
        true => opts.branch.as_str(),
        false => "main",
    };
    let id = repo.lookup_branch(branch).await.map_err(repo_err(target))?;
    let snap = repo.lookup_snapshot(&id).await.map_err(repo_err(target))?;
    Ok(Some((id.to_string(), snap.metadata.clone())))
}

/// The kept layouts' record on the branch's head ([`crate::layouts_record`]).
pub(crate) async fn head_record(
    target: &Target,
    opts: &IcechunkOptions,
) -> Result<Option<String>, Error> {
    Ok(head(target, opts).await?.and_then(|(_, meta)| {
        meta.get(LAYOUTS_KEY)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    }))
}

/// A plan's arrays, virtual references and native chunks, as a commit counts them.
pub(crate) fn counts(plan: &Plan) -> (usize, u64, u64) {
    let (mut refs, mut native) = (0, 0);
    for a in &plan.arrays {
        for c in &a.chunks {
            match c.data {
                DataRef::Ref { .. } => refs += 1,
                DataRef::Inline(_) => native += 1,
            }
        }
    }
    (plan.arrays.len(), refs, native)
}

/// The prefixes of the sources that chunks reference (inline-only sources need no container).
pub(crate) fn referenced_prefixes(plan: &Plan) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for a in &plan.arrays {
        for c in &a.chunks {
            if matches!(c.data, DataRef::Ref { .. }) {
                used.insert(c.source);
            }
        }
    }
    used.into_iter()
        .filter_map(|i| plan.sources.get(i))
        .map(|s| container_prefix(&s.url))
        .collect()
}

/// Opens the repository with every needed container declared (saving the config when it grew),
/// or creates it; then makes sure the branch exists.
async fn open_repo(
    plan: &Plan,
    target: &Target,
    opts: &IcechunkOptions,
) -> Result<(Repository, bool, Vec<String>), Error> {
    let storage = target.storage(&opts.io).await?;
    let prefixes = referenced_prefixes(plan);
    let exists = Repository::exists(Arc::clone(&storage), None)
        .await
        .map_err(repo_err(target))?;
    let repo = if exists {
        let repo = Repository::open(storage)
            .execute()
            .await
            .map_err(repo_err(target))?;
        let mut config = repo.config().clone();
        let mut grew = false;
        for p in &prefixes {
            if config.get_virtual_chunk_container(p).is_none() {
                config
                    .set_virtual_chunk_container(container(p, &opts.io)?)
                    .map_err(|reason| Error::Container {
                        url: p.clone(),
                        reason,
                    })?;
                grew = true;
            }
        }
        if grew {
            let repo = repo
                .reopen(Some(config), None)
                .await
                .map_err(repo_err(target))?;
            repo.save_config().await.map_err(repo_err(target))?;
            repo
        } else {
            repo
        }
    } else {
        let mut config = RepositoryConfig::default();
        for p in &prefixes {
            config
                .set_virtual_chunk_container(container(p, &opts.io)?)
                .map_err(|reason| Error::Container {
                    url: p.clone(),
                    reason,
                })?;
        }
        Repository::create(storage)
            .config(config)
            .execute()
            .await
            .map_err(repo_err(target))?
    };
    let branches = repo.list_branches().await.map_err(repo_err(target))?;
    if !branches.contains(&opts.branch) {
        let base = repo.lookup_branch("main").await.map_err(repo_err(target))?;
        repo.create_branch(&opts.branch, &base)
            .await
            .map_err(repo_err(target))?;
    }
    Ok((repo, !exists, prefixes.into_iter().collect()))
}

/// Opens or creates the repository and writes the whole plan into a session on the branch,
/// replacing what the branch held.
pub(crate) async fn prepare(
    plan: &Plan,
    target: &Target,
    opts: &IcechunkOptions,
    mark: &str,
) -> Result<Prepared, Error> {
    let (repo, created, containers) = open_repo(plan, target, opts).await?;
    let session = repo
        .writable_session(&opts.branch)
        .await
        .map_err(repo_err(target))?;
    if let Some(want) = &opts.expect_layouts {
        // The session's base is the state this append builds on; a commit after it is the
        // commit's conflict to detect.
        let base = repo
            .lookup_snapshot(session.snapshot_id())
            .await
            .map_err(repo_err(target))?;
        if base.metadata.get(LAYOUTS_KEY).and_then(|v| v.as_str()) != Some(want.as_str()) {
            return Err(Error::Stale {
                branch: opts.branch.clone(),
            });
        }
    }
    let session = Arc::new(RwLock::new(session));
    let store = Store::from_session(Arc::clone(&session)).await;
    if !created {
        store.clear().await.map_err(write_err("/"))?;
    }
    let root = vzplan_emit::zarr::group_json(&vzplan_emit::zarr::root_attrs(plan));
    set_json(&store, "zarr.json", &root).await?;
    for (g, doc) in vzplan_emit::zarr::groups_json(plan) {
        set_json(&store, &format!("{g}/zarr.json"), &doc).await?;
    }
    let (mut refs, mut native) = (0, 0);
    for a in &plan.arrays {
        let (r, n) = write_array(&store, plan, a).await?;
        refs += r;
        native += n;
    }
    Ok(Prepared {
        session,
        branch: opts.branch.clone(),
        created,
        counts: (plan.arrays.len(), refs, native),
        containers,
        layouts_record: opts.layouts_record.clone(),
        mark: mark.to_string(),
    })
}

async fn set_json(store: &Store, key: &str, doc: &serde_json::Value) -> Result<(), Error> {
    let bytes = serde_json::to_vec(doc).map_err(|e| Error::Write {
        key: key.to_string(),
        reason: e.to_string(),
    })?;
    store
        .set(key, Bytes::from(bytes))
        .await
        .map_err(write_err(key))
}

fn indices(key: &str, k: &[u64]) -> Result<ChunkIndices, Error> {
    k.iter()
        .map(|&i| u32::try_from(i).ok())
        .collect::<Option<Vec<u32>>>()
        .map(ChunkIndices)
        .ok_or_else(|| Error::Write {
            key: key.to_string(),
            reason: "chunk index beyond Icechunk's 32-bit indexes".into(),
        })
}

/// One array: its metadata, its virtual references, its native chunks. Returns the counts.
async fn write_array(store: &Store, plan: &Plan, a: &ArrayPlan) -> Result<(u64, u64), Error> {
    let meta_key = format!("{}/zarr.json", a.path);
    set_json(store, &meta_key, &meta::array_json(plan, a)).await?;
    let checksums = plan
        .sources
        .iter()
        .map(source_checksum)
        .collect::<Result<Vec<_>, _>>()?;
    let mut refs = Vec::new();
    let mut native = 0u64;
    for c in &a.chunks {
        let index = c.index.to_vec();
        let key = vzplan_emit::chunk_key(&a.path, &index);
        match c.data {
            DataRef::Ref { offset, length } => {
                let bad = |reason: String| Error::Write {
                    key: key.clone(),
                    reason,
                };
                let src = plan
                    .sources
                    .get(c.source)
                    .ok_or_else(|| bad(format!("source #{} is not in the plan", c.source)))?;
                let location = VirtualChunkLocation::from_url(&src.url)
                    .map_err(|e| bad(format!("{}: {}", src.url, e.kind)))?;
                refs.push((
                    indices(&key, &index)?,
                    VirtualChunkRef {
                        location,
                        offset,
                        length,
                        checksum: checksums.get(c.source).cloned().flatten(),
                    },
                ));
            }
            DataRef::Inline(bytes) => {
                store
                    .set(&key, Bytes::copy_from_slice(bytes))
                    .await
                    .map_err(write_err(&key))?;
                native += 1;
            }
        }
    }
    let n = refs.len() as u64;
    if n > 0 {
        let path = Path::try_from(format!("/{}", a.path).as_str()).map_err(|e| Error::Write {
            key: meta_key.clone(),
            reason: e.to_string(),
        })?;
        let result = store
            .set_virtual_refs(&path, true, refs)
            .await
            .map_err(write_err(&meta_key))?;
        if let SetVirtualRefsResult::FailedRefs(failed) = result {
            return Err(Error::Write {
                key: meta_key,
                reason: format!(
                    "{} reference(s) outside every declared virtual chunk container",
                    failed.len()
                ),
            });
        }
    }
    Ok((n, native))
}

/// Commits the session on its branch. A commit that landed on the branch after the session
/// started is a conflict: nothing is rebased or retried.
pub(crate) async fn commit(p: Prepared, message: &str) -> Result<Committed, Error> {
    let mut session = p.session.write().await;
    let mut props = SnapshotProperties::default();
    if let Some(t) = &p.layouts_record {
        props.insert(LAYOUTS_KEY.into(), t.clone().into());
    }
    props.insert(MARK_KEY.into(), p.mark.clone().into());
    let id = session
        .commit(message)
        .allow_empty(true)
        .properties(props)
        .execute()
        .await
        .map_err(|e| match e.kind {
            SessionErrorKind::Conflict { .. } | SessionErrorKind::RebaseFailed { .. } => {
                Error::Conflict {
                    branch: p.branch.clone(),
                }
            }
            SessionErrorKind::RepositoryError(RepositoryErrorKind::Conflict { .. }) => {
                Error::Conflict {
                    branch: p.branch.clone(),
                }
            }
            kind => Error::Repository {
                target: p.branch.clone(),
                reason: chain(&kind),
            },
        })?;
    Ok(Committed {
        snapshot: id.to_string(),
        branch: p.branch,
        created: p.created,
        arrays: p.counts.0,
        virtual_refs: p.counts.1,
        native_chunks: p.counts.2,
        containers: p.containers,
    })
}
