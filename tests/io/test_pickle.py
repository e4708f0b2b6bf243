#!/usr/bin/env python3
"""Planetoid pickles as Python 3 writes them, protocols 2 to 5 (protocol 2 keeps bytes as
_codecs.encode(str, 'latin1'); 4 adds frames, MEMOIZE and STACK_GLOBAL; 5 NumPy's _frombuffer),
with sparse (csr_matrix, csr_array where SciPy has it) and dense features of float32 and
float64 and one-hot labels of float64, int32, uint8 and int8: gat-convert reads each, and the .gatd it
writes (read here with struct and json) holds what Kipf's load_data builds from the same arrays
(features, labels, the symmetrised graph with self-loops, the public split). A pickle of an
object outside the allow-list is refused, naming the file and the global.
Usage: test_pickle.py GAT_CONVERT. Exits 77 (skipped) when NumPy or SciPy is missing."""
import collections
import json
import os
import pickle
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import scipy.sparse as sp
except ImportError:
    print("python3-numpy or python3-scipy is not installed: skipped")
    sys.exit(77)

C, F = 3, 12
N_TRAIN, N_ALL, N_TEST = 30, 550, 50  # x: the first 30 of allx; tx: the test nodes
N = N_ALL + N_TEST


def planetoid(rng):
    """The arrays of a small Pubmed-like set: allx/ally, tx/ty, the graph and test.index."""
    dense = (rng.random((N, F)) < 0.3) * rng.random((N, F))
    labels = rng.integers(0, C, N)
    onehot = np.eye(C)[labels]
    graph = collections.defaultdict(list)
    for i in range(N):
        for j in rng.integers(0, N, 2):
            if j != i:
                graph[i].append(int(j))
    test_index = list(range(N_ALL, N))
    rng.shuffle(test_index)
    return dense, onehot, graph, test_index


def write(d, name, arrays, protocol, sparse, ftype, ltype):
    dense, onehot, graph, test_index = arrays
    os.makedirs(d, exist_ok=True)
    feats = dense.astype(ftype)
    # tx row k is node test_index[k]'s (load_data puts it back there)
    allx, tx = feats[:N_ALL], feats[N_ALL:][np.argsort(np.argsort(test_index))]
    ally, ty = onehot[:N_ALL].astype(ltype), onehot[N_ALL:][np.argsort(np.argsort(test_index))].astype(ltype)
    if sparse:
        allx, tx = sparse(allx), sparse(tx)
    objs = dict(x=allx[:N_TRAIN], tx=tx, allx=allx, y=ally[:N_TRAIN], ty=ty, ally=ally, graph=graph)
    for k, v in objs.items():
        with open(os.path.join(d, f"ind.{name}.{k}"), "wb") as f:
            pickle.dump(v, f, protocol=protocol)
    with open(os.path.join(d, f"ind.{name}.test.index"), "w") as f:
        f.write("".join(f"{i}\n" for i in test_index))


def read_gatd(path):
    blob = open(path, "rb").read()
    (hlen,) = struct.unpack_from("<Q", blob, 0)
    header = json.loads(blob[8 : 8 + hlen].decode("utf-8"))
    md = header.pop("__metadata__")
    data = blob[8 + hlen :]

    def tensor(key, fmt):
        b, e = header[key]["data_offsets"]
        n = (e - b) // struct.calcsize("<" + fmt)
        return list(struct.unpack_from(f"<{n}{fmt}", data, b)) if fmt != "B" else list(data[b:e])

    return md, tensor


def check(path, arrays):
    dense, onehot, graph, test_index = arrays
    md, tensor = read_gatd(path)
    assert (int(md["nodes"]), int(md["features"]), int(md["classes"])) == (N, F, C), md
    xp, xi, xv = tensor("features.indptr", "i"), tensor("features.indices", "i"), tensor("features.data", "f")
    want = dense.astype(np.float32)
    for i in range(N):
        cols = [c for c in range(F) if want[i, c] != 0]
        assert xi[xp[i] : xp[i + 1]] == cols, f"{path}: feature columns of node {i}"
        assert xv[xp[i] : xp[i + 1]] == [float(want[i, c]) for c in cols], f"{path}: features of node {i}"
    assert tensor("labels", "i") == list(onehot.argmax(1)), f"{path}: labels"
    edges = {(i, i) for i in range(N)}
    for i, js in graph.items():
        for j in js:
            edges |= {(i, j), (j, i)}
    indptr, indices = tensor("graph.indptr", "i"), tensor("graph.indices", "i")
    got = {(i, j) for i in range(N) for j in indices[indptr[i] : indptr[i + 1]]}
    assert got == edges, f"{path}: the graph"
    split = [1] * N_TRAIN + [2] * 500 + [0] * (N_ALL - N_TRAIN - 500) + [3] * N_TEST
    assert tensor("split", "B") == split, f"{path}: the split"


def main():
    convert = sys.argv[1]
    arrays = planetoid(np.random.default_rng(7))
    csr_array = getattr(sp, "csr_array", None)
    cases = [(p, sp.csr_matrix, np.float32, np.float64) for p in (2, 3, 4, 5)]
    cases += [(4, None, np.float64, np.int32), (5, None, np.float32, np.float64), (2, None, np.float64, np.int32)]
    cases += [(3, sp.csr_matrix, np.float64, np.uint8), (5, sp.csr_matrix, np.float32, np.int8)]
    if csr_array is not None:
        cases.append((5, csr_array, np.float64, np.float64))
    with tempfile.TemporaryDirectory() as tmp:
        for k, (protocol, sparse, ftype, ltype) in enumerate(cases):
            d = os.path.join(tmp, f"case{k}")
            write(d, "pub", arrays, protocol, sparse, ftype, ltype)
            out = os.path.join(tmp, f"case{k}.gatd")
            r = subprocess.run([convert, "--quiet", os.path.join(d, "ind.pub"), out], capture_output=True, text=True)
            what = f"protocol {protocol}, {'dense' if not sparse else sparse.__name__}, {np.dtype(ftype).name} features, {np.dtype(ltype).name} labels"
            assert r.returncode == 0, f"{what}: {r.stderr}"
            check(out, arrays)
            print(f"ok: {what}")
        # an object outside the allow-list: refused, naming the file and the global
        d = os.path.join(tmp, "case0")
        with open(os.path.join(d, "ind.pub.graph"), "wb") as f:
            pickle.dump(collections.OrderedDict(a=1), f, protocol=4)
        r = subprocess.run([convert, "--quiet", os.path.join(d, "ind.pub"), os.path.join(tmp, "bad.gatd")],
                           capture_output=True, text=True)
        assert r.returncode == 1 and "ind.pub.graph: byte " in r.stderr and \
            "STACK_GLOBAL: 'collections.OrderedDict' is not allowed" in r.stderr, r.stderr
        assert not os.path.exists(os.path.join(tmp, "bad.gatd"))
        print("ok: collections.OrderedDict refused")


if __name__ == "__main__":
    main()
