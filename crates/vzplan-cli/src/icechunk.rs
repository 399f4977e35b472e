//! `vzplan build … --icechunk REPO [--branch NAME]`: the plan as a commit in an Icechunk
//! repository (crates/vzplan-icechunk).

use clap::Args;
use vzplan_plan::Plan;

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

pub fn build(
    plan: &Plan,
    args: &IcechunkArgs,
    io: &vzplan_io::IoOptions,
    json: bool,
) -> Result<u8, Box<dyn std::error::Error>> {
    let repo = args
        .icechunk
        .as_deref()
        .ok_or("give -o OUT.json or --icechunk REPO")?;
    let target = vzplan_icechunk::Target::parse(repo)?;
    let opts = vzplan_icechunk::IcechunkOptions {
        branch: args.branch.clone(),
        message: format!(
            "vzplan build: {} array(s) from {} file(s)",
            plan.arrays.len(),
            plan.sources.len()
        ),
        io: io.clone(),
    };
    let c = vzplan_icechunk::write(plan, &target, &opts)?;
    if json {
        let mut r = vzplan_emit::report::json(plan);
        if let Some(o) = r.as_object_mut() {
            o.insert(
                "icechunk".into(),
                serde_json::json!({
                    "repository": target.display(),
                    "branch": c.branch,
                    "snapshot": c.snapshot,
                    "created": c.created,
                    "virtual_refs": c.virtual_refs,
                    "native_chunks": c.native_chunks,
                    "virtual_chunk_containers": c.containers,
                }),
            );
        }
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", vzplan_emit::report::text(plan));
        println!(
            "committed {} on {} of {} ({} virtual refs, {} native chunks; containers: {})",
            c.snapshot,
            c.branch,
            target.display(),
            c.virtual_refs,
            c.native_chunks,
            c.containers.join(", ")
        );
    }
    Ok(if plan.incomplete() { 3 } else { 0 })
}
