//! `vzplan build … --icechunk REPO [--branch NAME]`: the plan as a commit in an Icechunk
//! repository (the library's `IcechunkOutput`); `vzplan append … --icechunk REPO` adds files in
//! one more commit (a concurrent commit on the branch is a conflict, not a lost update).

use crate::refs::RefsArgs;
use crate::{exit_for, pipe, plan_options, Common};
use clap::Args;
use vzplan::{BuildOptions, Error};

#[derive(Args)]
pub struct IcechunkArgs {
    /// Write an Icechunk repository instead of refs.json (a new commit when it exists): a local
    /// directory or s3://bucket/prefix, gs://…, az://… (same endpoint/credential options as inputs).
    #[arg(long, value_name = "REPO", conflicts_with = "output")]
    pub icechunk: Option<String>,
    /// The branch to commit on (created from main when missing).
    #[arg(
        long,
        value_name = "NAME",
        default_value = "main",
        requires = "icechunk"
    )]
    pub branch: String,
}

/// Builds into (or, with `append`, appends to) the repository as one commit.
pub fn build(
    common: &Common,
    args: &IcechunkArgs,
    refs: &RefsArgs,
    append: bool,
) -> Result<u8, Error> {
    let json = refs.json;
    let repo = args.icechunk.as_deref().unwrap_or_default();
    let kept = refs.kept_layouts(append, || {
        vzplan::default_layouts_for_repo(repo).ok_or_else(|| Error::LayoutsPathNeeded {
            repo: repo.to_string(),
        })
    })?;
    let out = vzplan::IcechunkOutput::new(repo, &args.branch, common.scan.io.options())?;
    let target = out.target.display();
    let out = std::sync::Arc::new(out);
    let opts = BuildOptions {
        plan: plan_options(common),
        outputs: vec![Box::new(out.clone())],
        force: false,
        keep_layouts: kept.clone(),
        sources_under: common.sources_under.clone(),
        ..BuildOptions::default()
    };
    let report = crate::refs::build_or_append(common, opts, kept.as_deref(), append)?;
    let plan = &report.plan;
    let Some(c) = out.committed() else {
        return Ok(exit_for(plan));
    };
    if json {
        let mut r = vzplan::report::json(plan);
        if let Some(o) = r.as_object_mut() {
            o.insert(
                "icechunk".into(),
                serde_json::json!({
                    "repository": target,
                    "branch": c.branch,
                    "snapshot": c.snapshot,
                    "created": c.created,
                    "virtual_refs": c.virtual_refs,
                    "native_chunks": c.native_chunks,
                    "virtual_chunk_containers": c.containers,
                }),
            );
        }
        pipe::outln!("{}", pipe::json(&r));
    } else {
        pipe::out!("{}", pipe::report_text(plan));
        pipe::outln!(
            "committed {} on {} of {} ({} virtual refs, {} native chunks; containers: {})",
            c.snapshot,
            c.branch,
            target,
            c.virtual_refs,
            c.native_chunks,
            c.containers.join(", ")
        );
    }
    Ok(exit_for(plan))
}
