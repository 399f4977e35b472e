#!/usr/bin/env python
"""Writes the chunk-index fixtures of vzplan-hdf5 (crate::chunks) into testdata/hdf5/chunks/.

One tiny single-dataset file per case (dataset "x"), written by h5py with a given libver, plus
`<name>.oracle.json` with the dataset's geometry and h5py's own chunk list: every chunk of the
extent looked up with `DatasetID.get_chunk_info_by_coord` (byte_offset, size, filter_mask), and
whether `DatasetID.chunk_iter` agrees (it does not for an extensible array whose unlimited
dimension is not the first, in HDF5 2.0). Unfiltered, fully written fixtures are self-checked:
the bytes at each chunk's address are the data written there.

libver "earliest" gives layout message v3 + a version 1 B-tree; ("v110", "v110") gives layout v4
and the 1.10 indexes; "latest" (HDF5 2.0) gives layout v5. `index` in the oracle is the index type
the HDF5 rules (format spec Appendix C) select for the case; the Rust tests check it against the
structure they find in the file.

Deterministic and idempotent (fixed data, track_times=False). Run with the project venv:

    .venv/bin/python scripts/fixtures_hdf5_chunks.py
"""

import json
import os

import h5py
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "testdata", "hdf5", "chunks")

LIBVERS = {
    "e": ("earliest", "latest"),
    "v110": ("v110", "v110"),
    "l": ("latest", "latest"),
}


def data_for(shape, dtype, unique=False):
    n = int(np.prod(shape))
    return (np.arange(n) % (n if unique else 7)).astype(dtype).reshape(shape)


# Each case: shape, maxshape, chunks, dtype, filters (h5py kwargs), writes (list of index tuples,
# or "all"), optional "early" (implicit index), optional "direct" (a chunk offset written with
# write_direct_chunk and filter mask 1, i.e. "first filter skipped"), which libvers, index kind
# per libver family ("v1" for earliest, else the 1.10 rules).
CASES = {
    # v1 B-trees (earliest): > 64 chunks so the root is an internal node.
    "bt1_1d": dict(shape=(200,), chunks=(2,), dtype="u1", libs=["e"]),
    "bt1_2d": dict(shape=(20, 30), chunks=(2, 3), dtype="u1", libs=["e"]),
    "bt1_3d": dict(shape=(6, 8, 10), chunks=(1, 2, 2), dtype="u1", libs=["e"]),
    "bt1_edge_gzip": dict(shape=(23, 31), chunks=(2, 3), dtype="i2",
                          filters=dict(compression="gzip", shuffle=True), direct=(4, 6), libs=["e"]),
    "bt1_sparse_unlim": dict(shape=(40, 30), maxshape=(None, 30), chunks=(3, 4), dtype="u1",
                             writes=[(slice(0, 3), slice(0, 4)), (slice(20, 26), slice(8, 30)),
                                     (39, 29)], libs=["e"]),
    # Single chunk.
    "single": dict(shape=(4, 5), chunks=(4, 5), dtype="i2", libs=["v110"], index="single"),
    "single_gzip": dict(shape=(4, 5), chunks=(4, 5), dtype="i2", filters=dict(compression="gzip"),
                        libs=["v110", "l"], index="single"),
    # Implicit: fixed maxshape (larger than shape), no filters, early allocation.
    "implicit": dict(shape=(10, 12), maxshape=(13, 16), chunks=(3, 4), dtype="u1", early=True,
                     writes=[(slice(0, 3), slice(0, 4))], libs=["v110"], index="implicit"),
    # Fixed array, unpaged, with partial edge chunks, and with maxshape > shape and gaps.
    "fa": dict(shape=(10, 12), chunks=(3, 4), dtype="u1", libs=["v110"], index="fa"),
    "fa_sparse_max": dict(shape=(10, 12), maxshape=(13, 16), chunks=(3, 4), dtype="u1",
                          writes=[(slice(0, 3), slice(4, 8)), (9, 11), (slice(6, 9), 0)],
                          libs=["v110"], index="fa"),
    # Fixed array, paged (> 1024 entries): full, and with an uninitialised page.
    "fa_paged": dict(shape=(33, 32), chunks=(1, 1), dtype="u1", libs=["v110"], index="fa"),
    "fa_paged_sparse": dict(shape=(33, 32), chunks=(1, 1), dtype="u1",
                            writes=[(slice(0, 5), slice(None)), (32, 31)],
                            libs=["v110"], index="fa"),
    "fa_gzip": dict(shape=(20, 30), chunks=(4, 5), dtype="i2", filters=dict(compression="gzip"),
                    direct=(8, 10), libs=["v110", "l"], index="fa"),
    # 512-byte chunks: the v4 "Chunk Size" field takes 3 bytes here (2 elsewhere).
    "fa_shuffle_gzip": dict(shape=(21, 31), chunks=(16, 16), dtype="i2",
                            filters=dict(compression="gzip", shuffle=True), libs=["v110", "l"],
                            index="fa"),
    "fa_gzip_paged": dict(shape=(33, 32), chunks=(1, 1), dtype="u1",
                          filters=dict(compression="gzip"), writes=[(slice(0, 2), slice(None)),
                                                                    (slice(32, 33), slice(None))],
                          libs=["v110", "l"], index="fa"),
    # Extensible array (one unlimited dim): index block elements and data blocks, secondary
    # blocks, and (sparse, far out) paged data blocks with an uninitialised page.
    "ea_1d": dict(shape=(134200,), maxshape=(None,), chunks=(1,), dtype="u1",
                  writes=[slice(0, 300), 134137], libs=["v110"], index="ea"),
    # Unlimited dimension not first: the index "swizzles" it to the front. Unique chunk
    # contents, because HDF5 2.0's chunk_iter and get_chunk_info_by_coord both get the offsets
    # of this case wrong (see oracle()).
    "ea_swizzle": dict(shape=(3, 50), maxshape=(5, None), chunks=(2, 1), dtype="u2",
                       unique=True, libs=["v110"], index="ea"),
    "ea_gzip": dict(shape=(300, 4), maxshape=(None, 4), chunks=(1, 4), dtype="i2",
                    filters=dict(compression="gzip", shuffle=True), direct=(7, 0),
                    writes=[slice(0, 290)], libs=["v110", "l"], index="ea"),
    # Version 2 B-tree (two unlimited dims), > 84 records so depth >= 1.
    "bt2": dict(shape=(30, 40), maxshape=(None, None), chunks=(2, 2), dtype="u1",
                libs=["v110"], index="bt2"),
    "bt2_gzip_sparse": dict(shape=(30, 41), maxshape=(None, None), chunks=(2, 2), dtype="i2",
                            filters=dict(compression="gzip"), direct=(0, 2),
                            writes=[(slice(0, 24), slice(None)), (29, 40)],
                            libs=["v110", "l"], index="bt2"),
}


def write_case(path, libver, c):
    if os.path.exists(path):
        os.remove(path)
    shape = c["shape"]
    dtype = np.dtype(c["dtype"])
    kw = dict(chunks=c["chunks"], dtype=dtype, track_times=False)
    if "maxshape" in c:
        kw["maxshape"] = c["maxshape"]
    kw.update(c.get("filters", {}))
    if c.get("early"):
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
        kw["dcpl"] = dcpl
    with h5py.File(path, "w", libver=libver, track_order=False) as f:
        ds = f.create_dataset("x", shape, **kw)
        full = data_for(shape, dtype, c.get("unique", False))
        writes = c.get("writes", "all")
        if writes == "all":
            ds[...] = full
        else:
            for w in writes:
                ds[w] = full[w]
        if "direct" in c:
            # Raw (unfiltered) bytes stored with filter mask 1: "filter 0 skipped".
            off = c["direct"]
            sel = tuple(slice(o, o + k) for o, k in zip(off, c["chunks"]))
            block = np.zeros(c["chunks"], dtype)
            part = full[sel]
            block[tuple(slice(0, n) for n in part.shape)] = part
            ds.id.write_direct_chunk(off, block.tobytes(), filter_mask=1)


def grid_offsets(shape, chunks):
    """Every chunk offset of the current extent, row-major."""
    counts = [-(-n // c) for n, c in zip(shape, chunks)]
    for idx in np.ndindex(*counts):
        yield tuple(int(i) * c for i, c in zip(idx, chunks))


def oracle(path, libtag, libver, name, c):
    with h5py.File(path, "r") as f:
        ds = f["x"]
        # Authoritative list: a by-coordinate lookup of every chunk of the extent (the library's
        # index lookup path, H5Dget_chunk_info_by_coord).
        def lookup(off):
            info = ds.id.get_chunk_info_by_coord(off)
            if info.byte_offset is None:
                return None
            return [list(off), int(info.byte_offset), int(info.size), int(info.filter_mask)]

        # The library's iteration (H5Dchunk_iter), recorded for comparison: in HDF5 2.0 it
        # reports wrong offsets for an extensible array whose unlimited dimension is not the
        # first (it does not undo the index's dimension swizzle).
        it = []
        ds.id.chunk_iter(lambda s: it.append([[int(x) for x in s.chunk_offset],
                                              int(s.byte_offset), int(s.size),
                                              int(s.filter_mask)]))
        it.sort(key=lambda ch: ch[0])
        if c.get("unique"):
            # Every chunk's content is unique: find each chunk's record by matching what the
            # library reads for that coordinate (H5Dread_chunk, the index lookup path) with
            # the bytes at the records' addresses. Independent of how offsets are encoded.
            raw = open(path, "rb").read()
            recs = {raw[a:a + n]: (a, n, m) for _, a, n, m in it}
            assert len(recs) == len(it), name
            by_coord = []
            for off in grid_offsets(ds.shape, ds.chunks):
                try:
                    mask, data = ds.id.read_direct_chunk(off)
                except Exception:  # unallocated chunk
                    continue
                a, n, m = recs[data]
                assert m == mask, name
                by_coord.append([list(off), a, n, m])
            by_coord.sort(key=lambda ch: ch[0])
        elif np.prod([-(-n // k) for n, k in zip(ds.shape, ds.chunks)]) <= 20000:
            by_coord = [x for x in map(lookup, grid_offsets(ds.shape, ds.chunks)) if x]
        else:
            # Too many (mostly unallocated) positions to look up one by one: check the
            # iteration's chunks by coordinate instead.
            by_coord = [lookup(tuple(ch[0])) for ch in it]
            assert by_coord == it, name
        dcpl = ds.id.get_create_plist()
        filters = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
        dtype = ds.dtype
    # Self-check: unfiltered fully written chunks hold the data they should.
    if not filters and c.get("writes", "all") == "all":
        raw = open(path, "rb").read()
        full = data_for(c["shape"], dtype, c.get("unique", False))
        for off, addr, size, _ in by_coord:
            block = np.frombuffer(raw[addr:addr + size], dtype).reshape(c["chunks"])
            part = full[tuple(slice(o, o + k) for o, k in zip(off, c["chunks"]))]
            assert (block[tuple(slice(0, n) for n in part.shape)] == part).all(), (name, off)
    return dict(
        name=name,
        libver=list(libver),
        index="v1" if libtag == "e" else c.get("index"),
        # HDF5 2.0 with libver "latest" writes layout v5 only for filtered datasets.
        layout_version=3 if libtag == "e" else (5 if libtag == "l" and filters else 4),
        shape=list(c["shape"]),
        maxshape=[None if m is None else int(m) for m in c.get("maxshape", c["shape"])],
        chunks=list(c["chunks"]),
        itemsize=dtype.itemsize,
        filters=filters,
        hdf5=h5py.version.hdf5_version,
        h5py=h5py.version.version,
        chunk_iter_agrees=(it == by_coord),
        # [offset, byte_offset, size, filter_mask] per allocated chunk, row-major.
        chunk_list=by_coord,
    )


def main():
    os.makedirs(OUT, exist_ok=True)
    names = []
    for case, c in CASES.items():
        for libtag in c["libs"]:
            libver = LIBVERS[libtag]
            name = f"{libtag}_{case}"
            path = os.path.join(OUT, name + ".h5")
            write_case(path, libver, c)
            o = oracle(path, libtag, libver, name, c)
            with open(path + ".oracle.json", "w") as fh:
                chunk_list = o["chunk_list"]
                head = json.dumps({k: v for k, v in o.items() if k != "chunk_list"}, indent=1)[:-2]
                rows = ",\n  ".join(json.dumps(ch, separators=(",", ":")) for ch in chunk_list)
                fh.write(head + ',\n "chunk_list": [\n  ' + rows + "\n ]\n}")
                fh.write("\n")
            names.append(name)
            print(f"{name}: {os.path.getsize(path)} bytes, {len(o['chunk_list'])} chunks"
                  + ("" if o["chunk_iter_agrees"] else " (chunk_iter disagrees)"))
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"total {total} bytes in {OUT}")


if __name__ == "__main__":
    main()
