#!/usr/bin/env python3
"""Reads a partition written by gat-partition (Cora, 3 parts) with nothing but struct and json,
as a program without libgat would, and checks it against the Cora text files parsed here
independently: each part file's safetensors layout (sorted, contiguous, 64-byte aligned), its
metadata against the manifest, every node owned once, the in-edges mapped to global ids equal
to the .cites graph with self-loops, halo nodes and their owners, raw features, labels, split.
Usage: test_partition.py GAT_PARTITION DATASETS_DIR"""
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile


def read_part(path):
    blob = open(path, "rb").read()
    (hlen,) = struct.unpack_from("<Q", blob, 0)
    header = json.loads(blob[8 : 8 + hlen].decode("utf-8"))
    data = blob[8 + hlen :]
    assert (8 + hlen) % 64 == 0, f"{path}: data section not 64-byte aligned"
    md = header.pop("__metadata__")
    spans = sorted((e["data_offsets"][0], e["data_offsets"][1], k) for k, e in header.items())
    at = 0
    for b, e, k in spans:
        assert b == at, f"{path}: {k} starts at {b}, expected {at} (no holes)"
        at = e
    assert at == len(data), f"{path}: tensors do not cover the data section"

    def tensor(name, fmt):
        b, end = header[name]["data_offsets"]
        n = (end - b) // struct.calcsize("<" + fmt)
        return list(struct.unpack_from(f"<{n}{fmt}", data, b)) if fmt != "B" else list(data[b:end])

    return md, tensor


def main():
    partition, datasets = sys.argv[1], sys.argv[2]
    base = os.path.join(datasets, "cora", "cora")
    K = 3
    lines = [l.split() for l in gzip.open(base + ".content.gz", "rt") if l.strip()]
    index = {l[0]: i for i, l in enumerate(lines)}
    classes = sorted({l[-1] for l in lines})
    n = len(lines)
    edges = set((i, i) for i in range(n))
    for l in open(base + ".cites"):
        if l.strip():
            a, b = (index[x] for x in l.split())
            edges.update([(a, b), (b, a)])
    split = [0] * n
    for l in open(base + ".split"):
        if l.strip():
            s, w = l.split()
            split[index[s]] = {"train": 1, "val": 2, "test": 3}[w]

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p")
        subprocess.run([partition, "--quiet", "--dataset", os.path.join(datasets, "cora"),
                        "--parts", str(K), "--out", out], check=True)
        manifest = json.load(open(os.path.join(out, "manifest.json")))
        assert manifest["format"] == "libgat-partition" and manifest["parts"] == K
        assert (manifest["nodes"], manifest["edges"]) == (n, len(edges))
        owner = [-1] * n
        got = set()
        halos = []
        for k, entry in enumerate(manifest["part_files"]):
            assert entry["file"] == f"part-{k}.gatd"
            md, tensor = read_part(os.path.join(out, entry["file"]))
            assert md["format"] == "libgat-part" and int(md["part"]) == k and int(md["parts"]) == K
            assert md["fingerprint"] == manifest["fingerprint"] and md["assignment"] == manifest["assignment"]
            no, nh = int(md["nodes"]), int(md["halo"])
            assert (no, int(md["edges"]), nh) == (entry["nodes"], entry["edges"], entry["halo"])
            gid, howner = tensor("part.global_ids", "i"), tensor("part.halo_owner", "i")
            assert len(gid) == no + nh and len(howner) == nh and gid[:no] == sorted(gid[:no])
            for r in range(no):
                assert owner[gid[r]] == -1, f"node {gid[r]} owned twice"
                owner[gid[r]] = k
            indptr, indices = tensor("graph.indptr", "i"), tensor("graph.indices", "i")
            xp, xi, xv = tensor("features.indptr", "i"), tensor("features.indices", "i"), tensor("features.data", "f")
            labels, sp = tensor("labels", "i"), tensor("split", "B")
            for r in range(no):
                i = gid[r]
                row = indices[indptr[r] : indptr[r + 1]]
                assert row == sorted(set(row)) and r in row, f"part {k} row {r}"
                got.update((i, gid[c]) for c in row)
                want = [(c, float(v)) for c, v in enumerate(lines[i][1:-1]) if float(v) != 0]
                assert list(zip(xi[xp[r] : xp[r + 1]], xv[xp[r] : xp[r + 1]])) == want, f"features of node {i}"
                assert labels[r] == classes.index(lines[i][-1]) and sp[r] == split[i]
            halos.append((k, gid[no:], howner, {gid[c] for c in indices if c >= no}))
        assert min(owner) >= 0, "a node owned by no part"
        assert got == edges, "the parts' in-edges differ from the .cites graph"
        for k, hg, ho, sources in halos:
            assert set(hg) == sources and len(hg) == len(sources), f"part {k}: halo is not the set of foreign sources"
            assert all(owner[j] == o != k for j, o in zip(hg, ho)), f"part {k}: wrong halo owner"
            assert list(zip(ho, hg)) == sorted(zip(ho, hg)), f"part {k}: halo not sorted by (owner, id)"
    print(f"ok: {K} parts, {n} nodes owned once, {len(edges)} edges, halos {[len(h[1]) for h in halos]}")


if __name__ == "__main__":
    main()
