"""HDF5 plugin filters and bitfield types (testdata/hdf5/plugins/, scripts/fixtures/hdf5_plugins.py)
read back the way users read: every array vzplan builds equals what h5py with hdf5plugin reads,
and every dataset it leaves out has a finding that says why no Zarr codec decodes it.

Then the evidence behind those findings, on the raw stored chunks (h5py's `read_direct_chunk`):
what each left-out filter stores, that the codec one would reach for fails on it, and, for
bitshuffle on wider elements, that imagecodecs' Zarr 3 codec returns wrong values while its
`bitshuffle_decode` given bytes returns h5py's."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import struct
import subprocess

import h5py
import hdf5plugin  # noqa: F401  (h5py reads the plugin filters)
import imagecodecs
import numpy as np
import pytest
import zarr
import zarr.storage
from zarr.core.buffer import default_buffer_prototype

from .helpers import ROOT, open_refs

PLUGINS = ROOT / "testdata/hdf5/plugins"

# file: (exit code, arrays built, {array left out: words its finding has}).
CASES = {
    "bzip2.h5": (0, ["bzip2"], {}),
    "bitfield.h5": (0, ["b8", "b16le", "b32be", "b64le"], {}),
    "lzf.h5": (3, ["lzf"], {
        "lzf_random": "stored with filters skipped (mask 0x1)",
    }),
    "bitshuffle.h5": (3, ["bs_none_u1", "bs_lz4_u1"], {
        **{f"bs_{c}_{t}": "imagecodecs_bitshuffle (imagecodecs 2026.10.10) unshuffles with an item size of 1"
           for c in ["none", "lz4"] for t in ["i2", "f4", "f8"]},
        **{f"bs_zstd_{t}": "with zstd frames its blocks as HDF5's LZ4 filter does"
           for t in ["u1", "i2", "f4", "f8"]},
        "bs_lz4_odd_u1": "the last 4 elements are stored after the LZ4 blocks, unframed",
    }),
    "blosc2.h5": (1, [], {
        "blosclz_shuffle": "stores each chunk as a Blosc2 frame (cframe)",
        "lz4_bitshuffle": "stores each chunk as a Blosc2 frame (cframe)",
        "zstd_2d": "stores each 2-D chunk as a b2nd frame of opaque 2-byte elements",
    }),
    "zfp.h5": (1, [], {
        n: "stores each chunk as a zfp stream without its header"
        for n in ["reversible_f4", "reversible_i4", "rate_f8"]
    }),
}

ZARR_TYPES = {"u1": "uint8", "i2": "int16", "u2": "uint16", "i4": "int32", "f4": "float32", "f8": "float64"}


def build(vzplan, tmp_path, src, *extra) -> tuple[int, str]:
    out = tmp_path / "refs.json"
    r = subprocess.run([vzplan, "build", str(src), "-o", str(out), *extra], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def oracle(name: str) -> dict:
    return json.loads((PLUGINS / f"{name}.oracle.json").read_text())


def from_chunks(d: h5py.Dataset, codecs: list[dict]) -> zarr.Array:
    """A Zarr v3 array over `d`'s raw stored chunks, decoded by `codecs`."""
    store = zarr.storage.MemoryStore()
    meta = {"zarr_format": 3, "node_type": "array", "shape": list(d.shape),
            "data_type": ZARR_TYPES[d.dtype.str[1:]],
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(d.chunks)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0, "codecs": codecs}
    buf = default_buffer_prototype().buffer
    items = {"zarr.json": json.dumps(meta).encode()}
    for i in range(d.id.get_num_chunks()):
        offset = d.id.get_chunk_info(i).chunk_offset
        key = "c/" + "/".join(str(o // c) for o, c in zip(offset, d.chunks))
        items[key] = d.id.read_direct_chunk(offset)[1]

    async def put():
        for k, v in items.items():
            await store.set(k, buf.from_bytes(v))

    asyncio.run(put())
    return zarr.open_array(store, mode="r", zarr_format=3)


def raw_chunks(d: h5py.Dataset):
    """(filter mask, stored bytes, h5py's values of the chunk, zero-padded to the chunk shape)."""
    for i in range(d.id.get_num_chunks()):
        offset = d.id.get_chunk_info(i).chunk_offset
        mask, raw = d.id.read_direct_chunk(offset)
        part = d[tuple(slice(o, o + c) for o, c in zip(offset, d.chunks))]
        want = np.zeros(d.chunks, d.dtype)
        want[tuple(slice(0, n) for n in part.shape)] = part
        yield mask, raw, want


@pytest.mark.parametrize("name", list(CASES))
def test_arrays_read_as_h5py_reads_them(vzplan, tmp_path, name):
    code, built, left_out = CASES[name]
    rc, out = build(vzplan, tmp_path, PLUGINS / name)
    assert rc == code, out
    for array, words in left_out.items():
        assert re.search(rf"^\s+{array}\s+LEFT OUT", out, re.M), (array, out)
        assert any(f": {array}: " in line and words in line for line in out.splitlines()), (array, words, out)
    if not built:
        return
    g = open_refs(tmp_path / "refs.json")
    assert sorted(n for n, _ in g.arrays()) == sorted(built), out
    want = oracle(name)
    with h5py.File(PLUGINS / name) as f:
        for n in built:
            got, h = g[n][...], f[n][...]
            assert np.array_equal(got, h), n
            assert (got.dtype.kind, got.dtype.itemsize) == (h.dtype.kind, h.dtype.itemsize), n
            # h5py reads today what it read when the fixture was written.
            assert np.array_equal(h, np.asarray(want[n]["values"], dtype=h.dtype)), n
            assert hashlib.sha256(np.ascontiguousarray(h).tobytes()).hexdigest() == want[n]["sha256"], n
            for k, v in want[n]["attrs"].items():
                assert np.array_equal(np.asarray(g[n].attrs[k]), np.asarray(v)), (n, k)


def test_a_chunk_lzf_left_unfiltered_is_not_patched(vzplan, tmp_path):
    """--patch would re-encode the chunk stored without LZF; vzplan has no LZF encoder."""
    rc, out = build(vzplan, tmp_path, PLUGINS / "lzf.h5", "--patch")
    assert rc == 3, out
    assert "lzf_random: cannot patch chunk [1]: codec imagecodecs_lzf cannot be re-encoded" in out, out


def test_lzf_chunks_shrunk_past_eightfold_are_left_out(vzplan, tmp_path):
    """imagecodecs_lzf decodes a chunk without a size header into eight times its stored size:
    lzf_zeros' chunks (9 bytes for 256) cannot be read back, so the array is left out."""
    rc, out = build(vzplan, tmp_path, PLUGINS / "lzf_zeros.h5")
    assert rc == 1, out
    assert "lzf_zeros: filter lzf (id 32000) shrank 2 chunk(s) more than 8-fold" in out, out


def test_imagecodecs_lzf_decodes_raw_lzf_up_to_eightfold():
    """The framing: a chunk is raw LZF (no size before it), the filter-masked chunk the plain
    bytes. Decoded without a size, imagecodecs makes room for 8 times the stored bytes."""
    for file, name in [("lzf.h5", "lzf"), ("lzf.h5", "lzf_random"), ("lzf_zeros.h5", "lzf_zeros")]:
        with h5py.File(PLUGINS / file) as f:
            for mask, raw, want in raw_chunks(f[name]):
                if mask:
                    assert raw == want.tobytes(), name
                    continue
                exact = imagecodecs.lzf_decode(raw, header=False, out=want.nbytes)
                assert exact == want.tobytes(), name
                if len(raw) * 8 >= want.nbytes:
                    assert imagecodecs.lzf_decode(raw, header=False) == want.tobytes(), name
                else:
                    with pytest.raises(imagecodecs.LzfError, match="not large enough"):
                        imagecodecs.lzf_decode(raw, header=False)


@pytest.mark.parametrize("name", ["bs_none_i2", "bs_none_f4", "bs_none_f8", "bs_lz4_f4"])
def test_imagecodecs_bitshuffle_codec_unshuffles_wider_elements_as_bytes(name):
    """imagecodecs 2026.10.10: the Zarr 3 codec `imagecodecs_bitshuffle` hands bitshuffle_decode
    the chunk as a uint8 array, and bitshuffle_decode takes an array's item size (1) over its
    `itemsize` argument. The chunks are plain bitshuffle (bitshuffle_decode given bytes returns
    h5py's values), yet the codec returns other values. When this test fails, imagecodecs reads
    them right: lift the 1-byte limit in crates/vzplan-hdf5/src/filters.rs."""
    codecs = [{"name": "imagecodecs_bitshuffle", "configuration": {"blocksize": 32}}]
    if "lz4" in name:
        codecs.append({"name": "imagecodecs_lz4h5"})
    with h5py.File(PLUGINS / "bitshuffle.h5") as f:
        d = f[name]
        k = d.dtype.itemsize
        got = from_chunks(d, codecs)[...]
        assert not np.array_equal(got, d[...]), "imagecodecs_bitshuffle now decodes wider elements"
        for _, raw, want in raw_chunks(d):
            if "lz4" in name:
                raw = imagecodecs.lz4h5_decode(raw)
            assert imagecodecs.bitshuffle_decode(bytes(raw), itemsize=k, blocksize=32) == want.tobytes()
            as_array = imagecodecs.bitshuffle_decode(np.frombuffer(raw, "u1"), itemsize=k, blocksize=32)
            assert as_array.tobytes() == imagecodecs.bitshuffle_decode(bytes(raw), itemsize=1, blocksize=32)


def test_bitshuffle_zstd_blocks_are_framed_as_lz4h5():
    """A chunk: 8-byte big-endian total size, 4-byte big-endian block size (bytes), then each block
    as a 4-byte big-endian size and one zstd frame. Split by hand it decodes to h5py's values;
    neither the zstd codec nor imagecodecs_lz4h5 reads it."""
    with h5py.File(PLUGINS / "bitshuffle.h5") as f:
        for t in ["u1", "i2", "f4", "f8"]:
            d = f[f"bs_zstd_{t}"]
            for _, raw, want in raw_chunks(d):
                total, block = struct.unpack(">QI", raw[:12])
                assert (total, block) == (want.nbytes, 32 * d.dtype.itemsize)
                at, body = 12, b""
                while at < len(raw):
                    (n,) = struct.unpack(">I", raw[at:at + 4])
                    body += imagecodecs.zstd_decode(raw[at + 4:at + 4 + n])
                    at += 4 + n
                assert at == len(raw)
                unshuffled = imagecodecs.bitshuffle_decode(body, itemsize=d.dtype.itemsize, blocksize=32)
                assert unshuffled == want.tobytes(), t
                with pytest.raises(Exception):
                    imagecodecs.zstd_decode(raw)
                with pytest.raises(Exception):
                    imagecodecs.lz4h5_decode(raw)


def test_blosc2_chunks_are_frames_no_zarr_codec_reads():
    """1-D chunks: a Blosc2 frame (cframe) around one chunk, which imagecodecs_blosc2 refuses;
    2-D chunks: a b2nd frame of `|V2` elements, which zarr-python cannot put in a uint16 array."""
    with h5py.File(PLUGINS / "blosc2.h5") as f:
        for name in ["blosclz_shuffle", "lz4_bitshuffle", "zstd_2d"]:
            for _, raw, _ in raw_chunks(f[name]):
                assert raw[2:10] == b"b2frame\0", name
            with pytest.raises(Exception):
                from_chunks(f[name], [{"name": "bytes", "configuration": {"endian": "little"}},
                                      {"name": "imagecodecs_blosc2"}])[...]
        d = f["zstd_2d"]
        for _, raw, want in raw_chunks(d):
            opaque = imagecodecs.b2nd_decode(raw)
            assert opaque.dtype == np.dtype("V2") and opaque.shape == d.chunks
            assert opaque.tobytes() == want.tobytes()
        with pytest.raises(Exception):
            from_chunks(d, [{"name": "imagecodecs_b2nd"}])[...]


def test_zfp_chunks_are_streams_without_their_header():
    """H5Z-ZFP keeps the zfp header in cd_values[1:] and stores each chunk's bit stream without it:
    imagecodecs_zfp cannot read a chunk, and decodes it exactly once the header's 148 bits (the
    full header, the mode in its long form) are put before the chunk's bits."""
    with h5py.File(PLUGINS / "zfp.h5") as f:
        for name in ["reversible_f4", "reversible_i4", "rate_f8"]:
            d = f[name]
            cd = d.id.get_create_plist().get_filter(0)[2]
            header = struct.pack(f"<{len(cd) - 1}I", *cd[1:])
            assert header[:3] == b"zfp", name
            head_bits = np.unpackbits(np.frombuffer(header, "u1"), bitorder="little")[:148]
            for _, raw, want in raw_chunks(d):
                with pytest.raises(imagecodecs.ZfpError):
                    imagecodecs.zfp_decode(raw, shape=d.chunks, dtype=d.dtype)
                bits = np.concatenate([head_bits, np.unpackbits(np.frombuffer(raw, "u1"), bitorder="little")])
                bits = np.concatenate([bits, np.zeros(-len(bits) % 64, "u1")])
                framed = np.packbits(bits, bitorder="little").tobytes()
                assert np.array_equal(imagecodecs.zfp_decode(framed).reshape(d.chunks), want), name
            with pytest.raises(Exception):
                from_chunks(d, [{"name": "imagecodecs_zfp", "configuration": {"header": False}}])[...]
