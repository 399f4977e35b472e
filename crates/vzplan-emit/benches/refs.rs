//! Micro-benchmark: writing refs.json, per million references.
//!
//!     cargo bench -p vzplan-emit --bench refs
//!
//! One array of `n` chunk references (a 1,000-file stack of `n / 1000` time steps each, keys
//! `tas/c/f/t/0/0`, templates on) written to a sink, so only emission is timed, not the disk.
//! Not run in CI (compiled by `--all-targets`); figures go to docs/benchmarks.md.

use divan::counter::ItemsCount;
use vzplan_core::{AxisEdges, ChunkData, ChunkList, Codec, DType, Endian, Kind};
use vzplan_plan::{ArrayPlan, Plan, SourceRef};

fn main() {
    divan::main();
}

const FILES: u64 = 1000;

fn plan(n: u64) -> Plan {
    let per_file = n / FILES;
    let mut chunks = ChunkList::with_capacity(4, (FILES * per_file) as usize);
    for f in 0..FILES {
        for t in 0..per_file {
            let data = ChunkData::Ref {
                offset: 8192 + t * 700,
                length: 600 + (t * 37 + f) % 200,
            };
            chunks.push(&[f, t, 0, 0], f as usize, data, 0);
        }
    }
    let tas = ArrayPlan {
        path: "tas".into(),
        dims: vec!["member".into(), "time".into(), "lat".into(), "lon".into()],
        shape: vec![FILES, per_file, 10, 20],
        dtype: DType::new(Kind::Float, 4, Endian::Little),
        fill_value: None,
        attrs: serde_json::Map::new(),
        codecs: vec![Codec::shuffle(4), Codec::zlib(1)],
        edges: vec![
            AxisEdges::from(vec![1; FILES as usize]),
            AxisEdges::from(vec![1; per_file as usize]),
            AxisEdges::from(vec![10]),
            AxisEdges::from(vec![20]),
        ],
        chunks,
        files: FILES as usize,
        values: None,
        patches: vec![],
        fields: Vec::new(),
    };
    let sources = (0..FILES)
        .map(|f| SourceRef {
            url: format!("file:///synthetic/tas_{f:06}.nc"),
            size: 1 << 20,
            etag: None,
            mtime: None,
        })
        .collect();
    let mut p = Plan::default();
    p.sources = sources;
    p.arrays = vec![tas];
    p
}

#[divan::bench(args = [100_000, 1_000_000], sample_count = 10)]
fn write_refs(bencher: divan::Bencher, n: u64) {
    let p = plan(n);
    bencher
        .counter(ItemsCount::new(n))
        .bench_local(|| vzplan_emit::write_refs(&p, &mut std::io::sink()).expect("sink"));
}
