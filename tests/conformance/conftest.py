"""pytest configuration of the conformance checks: the options naming what is under test, the
loopback servers as session fixtures, and the report lines the checks leave for the summary."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from .helpers import COLLECTIONS, ROOT


def pytest_addoption(parser):
    g = parser.getgroup("vzplan conformance")
    g.addoption("--vzplan", default=os.environ.get("VZPLAN_CLI", str(ROOT / "target/debug/vzplan")),
                help="the vzplan binary under test (env VZPLAN_CLI; default target/debug/vzplan)")
    g.addoption("--tiff-dump", default=os.environ.get("VZPLAN_TIFF_DUMP", str(ROOT / "target/debug/examples/dump")),
                help="vzplan-tiff's `dump` example (cargo build -p vzplan-tiff --examples)")
    g.addoption("--zarrs-dump", default=str(ROOT / "target/debug/zarrs-dump"),
                help="the zarrs reader of crates/vzplan-zarrs-oracle")
    g.addoption("--s3-files", type=int, default=300, help="files in the S3 batch through injected faults")
    g.addoption("--s3-faults", type=float, default=0.2, help="share of the batch's requests faulted")
    g.addoption("--batch-files", type=int, default=40, help="files in the batch report check")
    g.addoption("--html-shots", default=os.path.join(tempfile.gettempdir(), "vzplan-html"),
                help="where the HTML check writes its screenshots")
    g.addoption("--realworld-dir", default=str(ROOT / "target/realworld"),
                help="the real writers' files (scripts/fixtures/realworld/make.sh)")


def pytest_configure(config):
    config.addinivalue_line("markers", "realworld: the real-world sweep (runs in .venv-realworld, -m realworld)")


def pytest_collection_modifyitems(config, items):
    """The real-world sweep runs only when asked for by marker (-m realworld): it needs its own
    venv and the real writers' files."""
    if "realworld" in (config.getoption("markexpr") or ""):
        return
    dropped = [i for i in items if i.get_closest_marker("realworld")]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if not i.get_closest_marker("realworld")]


def _binary(path: str, how: str) -> str:
    path = os.path.abspath(path)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: {how}", pytrace=False)
    return path


@pytest.fixture(scope="session")
def vzplan(pytestconfig) -> str:
    return _binary(pytestconfig.getoption("vzplan"), "cargo build -p vzplan-cli, or pass --vzplan")


@pytest.fixture(scope="session")
def tiff_dump(pytestconfig) -> str:
    return _binary(pytestconfig.getoption("tiff_dump"), "cargo build -p vzplan-tiff --examples")


@pytest.fixture(scope="session")
def zarrs_dump(pytestconfig) -> str:
    return _binary(pytestconfig.getoption("zarrs_dump"), "cargo build -p vzplan-zarrs-oracle")


class S3:
    """moto's S3 on 127.0.0.1 with the shipped collections in bucket `collections`."""

    def __init__(self, endpoint):
        self.endpoint = endpoint

    def client(self):
        from .servers import s3_client

        return s3_client(self.endpoint)


@pytest.fixture(scope="session")
def s3():
    from .servers import start_moto, upload_dir

    server, endpoint = start_moto()
    try:
        upload_dir(endpoint, "collections", COLLECTIONS)
        yield S3(endpoint)
    finally:
        server.stop()


@pytest.fixture(scope="session")
def http_testdata():
    """The byte-range HTTP server over testdata/; its base URL."""
    from .servers import start_http

    server, base = start_http(ROOT / "testdata")
    yield base
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def azurite(tmp_path_factory):
    """azurite on 127.0.0.1 (scripts/setup-azurite.sh); its account URL."""
    from .servers import start_azurite

    proc, url = start_azurite(tmp_path_factory.mktemp("azurite"))
    yield url
    proc.kill()
    proc.wait()


@pytest.fixture(scope="session")
def chromium() -> str:
    for c in ("chromium", "chromium-browser"):
        if shutil.which(c):
            return shutil.which(c)
    pytest.fail("chromium not found (run scripts/setup-chromium.sh)", pytrace=False)


@pytest.fixture
def report(request):
    """report(line): a line for the run's summary (measurements, tables), printed as well."""

    def add(line: str = "") -> None:
        print(line)
        request.node.user_properties.append(("report", line))

    return add


def _properties(terminalreporter):
    """(nodeid, name, value) of every test's recorded properties (xdist workers' too)."""
    for key in ("passed", "failed", "skipped", "error"):
        for rep in terminalreporter.stats.get(key, []):
            if rep.when == "call":
                for name, value in getattr(rep, "user_properties", []):
                    yield rep.nodeid, name, value


def pytest_terminal_summary(terminalreporter):
    """The report lines of every test, grouped by test, after the results; then the totals some
    checks add up (TIFF codec chains, arrays zarrs read)."""
    props = sorted(_properties(terminalreporter), key=lambda p: p[0])
    if not props:
        return
    tr = terminalreporter
    tr.section("vzplan conformance report")
    last = None
    for nodeid, name, value in props:
        if name != "report":
            continue
        if nodeid != last:
            tr.write_line(nodeid)
            last = nodeid
        tr.write_line("    " + value)
    chains = {}
    for _, name, value in props:
        if name == "codec_chain":
            chains.setdefault(value[0], set()).add(value[1])
    if chains:
        tr.write_line("TIFF codec chain (encode order, `bytes` omitted) -> reads back")
        for chain, oks in sorted(chains.items()):
            tr.write_line(f"  {chain:45} {'yes' if oks == {True} else 'NO'}")
    arrays = [value for _, name, value in props if name == "zarrs_arrays"]
    if arrays:
        tr.write_line(f"zarrs: {sum(arrays)} arrays equal in zarrs and zarr-python")
    rows = [value for _, name, value in props if name == "sweep_row"]
    if rows:
        from .realworld import summary_lines

        for line in summary_lines(rows):
            tr.write_line(line)
