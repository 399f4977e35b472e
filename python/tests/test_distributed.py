"""A build scanned on a Dask cluster's workers equals the local build."""

from __future__ import annotations

import pytest

import vzplan
from conftest import CASES, case_inputs, case_kwargs

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("name", ["daily20", "bad", "nc3_records", "padded_patch"])
def test_cluster_build_equals_local(client, name, tmp_path):
    case = next(c for c in CASES if c["name"] == name)
    kw = case_kwargs(case)
    local = vzplan.build(case_inputs(case), output=tmp_path / "local.json", **kw)
    # Batches of 3 files: several tasks, spread over both workers.
    remote = vzplan.build(
        case_inputs(case), output=tmp_path / "remote.json", client=client, batch_size=3, **kw
    )
    assert (tmp_path / "remote.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert remote.findings == local.findings
    assert remote.exit_code == local.exit_code == case["exit"]
