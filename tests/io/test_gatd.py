#!/usr/bin/env python3
"""Reads a .gatd file written by gat-convert with nothing but struct and json, as a user without
libgat would, and checks it against the Cora text files parsed here independently: the layout
rules of strict safetensors readers (tensors sorted, contiguous, covering the data, data 64-byte
aligned), the metadata, and every tensor (graph CSR with self-loops, raw features, labels, split).
Usage: test_gatd.py GAT_CONVERT DATASETS_DIR"""
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile


def main():
    convert, datasets = sys.argv[1], sys.argv[2]
    base = os.path.join(datasets, "cora", "cora")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cora.gatd")
        subprocess.run([convert, "--quiet", os.path.join(datasets, "cora"), path], check=True)
        blob = open(path, "rb").read()
    (hlen,) = struct.unpack_from("<Q", blob, 0)
    header = json.loads(blob[8 : 8 + hlen].decode("utf-8"))
    data = blob[8 + hlen :]
    assert (8 + hlen) % 64 == 0, "data section not 64-byte aligned"
    md = header.pop("__metadata__")
    assert all(isinstance(v, str) for v in md.values())
    # what the safetensors package checks: sorted by offset, no holes, the whole data covered
    spans = sorted((e["data_offsets"][0], e["data_offsets"][1], k) for k, e in header.items())
    at = 0
    for b, e, k in spans:
        assert b == at, f"{k} starts at {b}, expected {at} (no holes)"
        at = e
        if not k.startswith("__padding__"):
            assert b % 64 == 0, f"{k} at {b} is not 64-byte aligned"
    assert at == len(data), "tensors do not cover the data section"

    def tensor(name, fmt):
        e = header[name]
        b, end = e["data_offsets"]
        size = struct.calcsize("<" + fmt)
        n = (end - b) // size
        count = 1
        for d in e["shape"]:
            count *= d
        assert n == count and (end - b) % size == 0, name
        return list(struct.unpack_from(f"<{n}{fmt}", data, b)) if fmt != "B" else list(data[b:end])

    # the text files, parsed here
    lines = [l.split() for l in gzip.open(base + ".content.gz", "rt") if l.strip()]
    ids = [l[0] for l in lines]
    index = {s: i for i, s in enumerate(ids)}
    classes = sorted({l[-1] for l in lines})
    n, F = len(lines), len(lines[0]) - 2
    assert md["format"] == "libgat-dataset" and md["version"] == "1"
    assert (int(md["nodes"]), int(md["features"]), int(md["classes"])) == (n, F, len(classes))
    assert json.loads(md["class_names"]) == classes
    assert md["normalized"] == "0" and md["symmetrized"] == "1"
    assert "node_ids" not in header and ids == [str(i) for i in range(n)]
    edges = set((i, i) for i in range(n))
    for l in open(base + ".cites"):
        if l.strip():
            a, b = (index[x] for x in l.split())
            edges.add((a, b))
            edges.add((b, a))
    indptr, indices = tensor("graph.indptr", "i"), tensor("graph.indices", "i")
    assert int(md["edges"]) == len(indices) == len(edges)
    got = set()
    for i in range(n):
        row = indices[indptr[i] : indptr[i + 1]]
        assert row == sorted(set(row)) and i in row
        got.update((i, j) for j in row)
    assert got == edges, "graph differs from the .cites file"
    xp, xi, xv = tensor("features.indptr", "i"), tensor("features.indices", "i"), tensor("features.data", "f")
    for i, l in enumerate(lines):
        want = [(c, float(v)) for c, v in enumerate(l[1:-1]) if float(v) != 0]
        assert list(zip(xi[xp[i] : xp[i + 1]], xv[xp[i] : xp[i + 1]])) == want, f"features of node {i}"
    assert tensor("labels", "i") == [classes.index(l[-1]) for l in lines]
    split = [0] * n
    for l in open(base + ".split"):
        if l.strip():
            s, w = l.split()
            split[index[s]] = {"train": 1, "val": 2, "test": 3}[w]
    assert tensor("split", "B") == split
    print(f"ok: {n} nodes, {len(indices)} edges, {len(xi)} feature non-zeros, {len(spans)} tensors")


if __name__ == "__main__":
    main()
