#!/usr/bin/python3
"""gat-train --save and gat-embed, checked from outside: the model file read by a safetensors
reader written to the published format, every export format read back with NumPy (and csv),
values against an independent NumPy GAT forward, attention and predictions, inductive use on
another graph, files from another writer (F64, other tensor order), and error exits.

usage: test_embed.py GAT_TRAIN GAT_EMBED TESTS_DATA_DIR DATASETS_DIR
Exits 77 (skipped) when NumPy is missing."""
import csv
import json
import os
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("python3-numpy is not installed: skipped")
    sys.exit(77)

GAT_TRAIN, GAT_EMBED, DATA, DATASETS = sys.argv[1:5]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, expect=0):
    p = subprocess.run(list(args), capture_output=True, text=True)
    if p.returncode != expect:
        print(p.stdout, p.stderr, sep="\n")
        raise SystemExit(f"{' '.join(args)}: exit {p.returncode}, expected {expect}")
    return p


# ---- safetensors, written to the published format -----------------------------------------

DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
          "I8": "i1", "U8": "u1", "BOOL": "?"}


def read_safetensors(path):
    """Returns (metadata, {name: array}), enforcing the format's rules."""
    raw = open(path, "rb").read()
    assert len(raw) >= 8, "shorter than the header length"
    (n,) = struct.unpack("<Q", raw[:8])
    assert 8 + n <= len(raw), "header past the end"
    text = raw[8:8 + n].decode("utf-8")
    assert text.startswith("{"), "header is not a JSON object"
    header = json.loads(text)  # trailing spaces are JSON whitespace
    data = raw[8 + n:]
    meta = header.pop("__metadata__", {})
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()), \
        "__metadata__ must map strings to strings"
    tensors, spans = {}, []
    for name, info in header.items():
        dt = np.dtype(DTYPES[info["dtype"]])
        shape = tuple(info["shape"])
        begin, end = info["data_offsets"]
        assert 0 <= begin <= end <= len(data), f"{name}: offsets outside the data"
        assert end - begin == int(np.prod(shape, dtype=np.int64)) * dt.itemsize, f"{name}: size"
        spans.append((begin, end))
        tensors[name] = np.frombuffer(data, dt, count=(end - begin) // dt.itemsize,
                                      offset=begin).reshape(shape)
    spans.sort()
    pos = 0  # the data must be covered exactly, without holes or overlaps
    for begin, end in spans:
        assert begin == pos, "hole or overlap in the data"
        pos = end
    assert pos == len(data), "bytes after the last tensor"
    return meta, tensors


def write_safetensors(path, meta, tensors, order):
    """A spec-following writer with tensors in `order` (names) and arrays as given."""
    header, chunks, pos = {"__metadata__": meta}, [], 0
    for name in order:
        a = np.ascontiguousarray(tensors[name])
        dtype = {np.dtype("<f4"): "F32", np.dtype("<f8"): "F64"}[a.dtype.newbyteorder("<")]
        b = a.astype(a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [pos, pos + len(b)]}
        chunks.append(b)
        pos += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(chunks))


# ---- the LINQS layout and a reference GAT in NumPy ----------------------------------------

def read_dataset(prefix, normalize=True):
    ids, feats, labels = [], [], []
    for line in open(prefix + ".content"):
        f = line.split()
        if f:
            ids.append(f[0])
            feats.append([float(v) for v in f[1:-1]])
            labels.append(f[-1])
    index = {s: i for i, s in enumerate(ids)}
    x = np.array(feats, dtype=np.float64)
    if normalize:
        s = x.sum(1, keepdims=True)
        x = np.where(s != 0, x / np.where(s == 0, 1, s), x)
    nbrs = [{i} for i in range(len(ids))]  # exactly one self-loop per node
    for line in open(prefix + ".cites"):
        f = line.split()
        if f:  # "a b": b -> a, made undirected
            a, b = index[f[0]], index[f[1]]
            nbrs[a].add(b)
            nbrs[b].add(a)
    return ids, x, labels, [sorted(s) for s in nbrs]


def reference_forward(x, nbrs, t, layers, slope):
    """Per layer: outputs (N, width) and attention {(head, dst, src): alpha}."""
    h, outs, atts = x, [], []
    for l in range(layers):
        w = t[f"layer{l}.weight"].astype(np.float64)
        a_src = t[f"layer{l}.att_src"].astype(np.float64)
        a_dst = t[f"layer{l}.att_dst"].astype(np.float64)
        bias = t[f"layer{l}.bias"].astype(np.float64)
        heads, fo = a_src.shape
        z = (h @ w).reshape(len(h), heads, fo)
        s_src, s_dst = (z * a_src).sum(-1), (z * a_dst).sum(-1)
        agg, att = np.zeros_like(z), {}
        for i, js in enumerate(nbrs):
            e = s_dst[i] + s_src[js]
            e = np.where(e > 0, e, slope * e)
            p = np.exp(e - e.max(0))
            p /= p.sum(0)
            agg[i] = (p[:, :, None] * z[js]).sum(0)
            for k, j in enumerate(js):
                for hd in range(heads):
                    att[(hd, i, j)] = p[k, hd]
        if l == layers - 1:
            y = agg.mean(1) + bias
        else:
            y = agg.reshape(len(h), heads * fo) + bias
            y = np.where(y > 0, y, np.expm1(np.minimum(y, 0)))
        outs.append(y)
        atts.append(att)
        h = y
    return outs, atts


def softmax(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def close(a, b, what, tol=2e-4):
    ok = a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol)
    check(ok, f"{what}: largest difference "
              f"{np.abs(a - b).max() if a.shape == b.shape else (a.shape, b.shape)}")


# ---- the checks ----------------------------------------------------------------------------

def main():
    tmp = tempfile.mkdtemp(prefix="gat-embed-test-")
    p = lambda name: os.path.join(tmp, name)
    tiny = os.path.join(DATA, "tiny", "tiny")
    ids, x, labels, nbrs = read_dataset(tiny)
    classes = sorted(set(labels))
    n, E = len(ids), sum(len(js) for js in nbrs)

    run(GAT_TRAIN, "--dataset", tiny, "--epochs", "20", "--hidden", "3", "--heads", "2",
        "--out-heads", "2", "--threads", "1", "--quiet", "--save", p("tiny.gat"))

    # the model file with a reader written to the format
    meta, t = read_safetensors(p("tiny.gat"))
    check(meta["in_features"] == "5" and meta["classes"] == str(len(classes)), "metadata sizes")
    check(meta["layers"] == "2" and meta["hidden"] == "3" and meta["heads"] == "2"
          and meta["out_heads"] == "2", "metadata layers")
    check(meta["score"] == "gat" and meta["activation"] == "elu", "metadata functions")
    check(meta["normalize"] == "1" and meta["symmetrize"] == "1", "metadata dataset options")
    check(json.loads(meta["class_names"]) == classes, "metadata class names")
    check(meta["dataset"] == tiny, "metadata dataset")
    check(t["layer0.weight"].shape == (5, 6) and t["layer0.att_src"].shape == (2, 3)
          and t["layer1.weight"].shape == (6, 8) and t["layer1.bias"].shape == (4,),
          "tensor shapes")
    check(all(a.dtype == np.float32 for a in t.values()), "tensor dtypes")
    outs, atts = reference_forward(x, nbrs, t, 2, float(meta["negative_slope"]))

    # npy: the default representation is the last hidden layer
    embed = lambda *a: run(GAT_EMBED, "--model", p("tiny.gat"), "--dataset", tiny,
                           "--threads", "1", "--quiet", *a)
    embed("--out", p("h.npy"))
    h = np.load(p("h.npy"))
    check(h.shape == (n, 6) and h.dtype == np.float32 and h.flags["C_CONTIGUOUS"], "npy shape/dtype")
    close(h, outs[0], "hidden layer vs NumPy")

    # TSV, CSV and word2vec carry the same floats
    embed("--out", p("h.tsv"))
    rows = [line.rstrip("\n").split("\t") for line in open(p("h.tsv"))]
    check(rows[0] == ["id"] + [f"d{c}" for c in range(6)], "tsv header")
    check([r[0] for r in rows[1:]] == ids, "tsv ids")
    check(np.array_equal(np.array([r[1:] for r in rows[1:]], dtype=np.float32), h), "tsv == npy")
    embed("--out", p("h.csv"), "--no-header")
    rows = list(csv.reader(open(p("h.csv"), newline="")))
    check(len(rows) == n and [r[0] for r in rows] == ids, "csv ids")
    check(np.array_equal(np.array([r[1:] for r in rows], dtype=np.float32), h), "csv == npy")
    embed("--out", p("h.w2v"))
    lines = open(p("h.w2v")).read().splitlines()
    check(lines[0] == f"{n} 6", "word2vec header")
    w = [line.split(" ") for line in lines[1:]]
    check([r[0] for r in w] == ids and all(len(r) == 7 for r in w), "word2vec rows")
    check(np.array_equal(np.array([r[1:] for r in w], dtype=np.float32), h), "word2vec == npy")
    embed("--out", p("h.txt"), "--format", "tsv")
    check(open(p("h.txt")).read() == open(p("h.tsv")).read(), "--format overrides the extension")

    # the output layer
    embed("--out", p("logits.npy"), "--layer", "logits")
    logits = np.load(p("logits.npy"))
    close(logits, outs[1], "logits vs NumPy")
    embed("--out", p("one.npy"), "--layer", "1")
    check(np.array_equal(np.load(p("one.npy")), logits), "--layer 1 == logits")
    embed("--out", p("probs.npy"), "--layer", "probs")
    probs = np.load(p("probs.npy"))
    close(probs, softmax(logits.astype(np.float64)), "probs == softmax(logits)", 1e-6)
    check(np.allclose(probs.sum(1), 1, atol=1e-6), "probabilities sum to 1")

    # attention: one line per (layer, head, edge) with self-loops; sums of 1 per destination
    embed("--attention-out", p("att.tsv"))
    lines = open(p("att.tsv")).read().splitlines()
    check(lines[0] == "layer\thead\tdst\tsrc\talpha\tedge\tself_loop", "attention header")
    check(len(lines) - 1 == E * (2 + 2), f"attention lines {len(lines) - 1}, expected {E * 4}")
    sums, loops, worst = {}, {}, 0.0
    index = {s: i for i, s in enumerate(ids)}
    # `edge` names the .cites data line an edge came from ("a b" is b -> a, symmetrised): the
    # first line giving src -> dst itself, else the first giving its reverse; -1 for self-loops
    cites = [line.split() for line in open(tiny + ".cites") if line.split()]

    def want_edge(dst, src):
        if dst == src:
            return -1
        own = [k for k, (a, b) in enumerate(cites) if (a, b) == (dst, src)]
        rev = [k for k, (a, b) in enumerate(cites) if (a, b) == (src, dst)]
        return (own or rev)[0]

    for line in lines[1:]:
        l, hd, dst, src, a, edge, self_loop = line.split("\t")
        check(int(self_loop) == (dst == src), f"self_loop of {dst} <- {src}")
        check(int(edge) == want_edge(dst, src),
              f"edge of {dst} <- {src}: {edge}, expected {want_edge(dst, src)}")
        key = (int(l), int(hd), dst)
        sums[key] = sums.get(key, 0.0) + float(a)
        loops[key] = loops.get(key, 0) + (dst == src)
        worst = max(worst, abs(float(a) - atts[int(l)][(int(hd), index[dst], index[src])]))
    check(len(sums) == 2 * 2 * n, "a sum per (layer, head, node)")
    check(all(abs(s - 1) < 1e-5 for s in sums.values()), "attention sums to 1 per node and head")
    check(all(c == 1 for c in loops.values()), "one self-loop per node, layer and head")
    check(worst < 1e-4, f"attention vs NumPy: largest difference {worst}")

    # predictions: class name of the largest logit and its probability
    embed("--predict", p("pred.tsv"))
    lines = open(p("pred.tsv")).read().splitlines()
    check(lines[0] == "id\tclass\tprobability" and len(lines) == n + 1, "predict header/lines")
    for i, line in enumerate(lines[1:]):
        node, cls, prob = line.split("\t")
        best = int(np.argmax(logits[i]))
        check(node == ids[i] and cls == classes[best], f"prediction of {node}")
        check(abs(float(prob) - probs[i, best]) < 1e-6, f"probability of {node}")

    # files from another writer: F64 tensors, reversed order; the same embeddings
    order = list(t)[::-1]
    write_safetensors(p("f64.gat"), meta, {k: v.astype(np.float64) for k, v in t.items()}, order)
    run(GAT_EMBED, "--model", p("f64.gat"), "--dataset", tiny, "--threads", "1", "--quiet",
        "--out", p("f64.npy"))
    check(np.array_equal(np.load(p("f64.npy")), h), "an F64 file in another order loads the same")

    # inductive: another graph with 5 features
    os.mkdir(p("other"))
    with open(p("other/other.content"), "w") as f:
        f.write("u 1 0 0 0 1 A\nv 0 2 0 1 0 B\nw 0 0 3 0 0 A\nz 1 1 1 1 1 B\n")
    with open(p("other/other.cites"), "w") as f:
        f.write("u v\nw v\nz u\n")
    oids, ox, _, onbrs = read_dataset(p("other/other"))
    run(GAT_EMBED, "--model", p("tiny.gat"), "--dataset", p("other"), "--quiet",
        "--out", p("other.npy"), "--predict", p("other.tsv"))
    close(np.load(p("other.npy")), reference_forward(ox, onbrs, t, 2,
                                                    float(meta["negative_slope"]))[0][0],
          "inductive embeddings vs NumPy")
    got = [line.split("\t")[1] for line in open(p("other.tsv")).read().splitlines()[1:]]
    check(all(c in classes for c in got), "inductive predictions use the model's class names")

    # errors: feature mismatch names both sizes; a bad file; usage
    r = run(GAT_EMBED, "--model", p("tiny.gat"), "--dataset", os.path.join(DATASETS, "cora"),
            "--out", p("x.npy"), expect=1)
    check("1433" in r.stderr and "expects 5" in r.stderr, "feature mismatch message: " + r.stderr)
    with open(p("bad.gat"), "wb") as f:
        f.write(open(p("tiny.gat"), "rb").read()[:100])
    r = run(GAT_EMBED, "--model", p("bad.gat"), "--dataset", tiny, "--out", p("x.npy"), expect=1)
    check(r.stderr.startswith("gat-embed: cannot load the model: ") and "bad.gat" in r.stderr,
          "bad model message: " + r.stderr)
    run(GAT_EMBED, "--model", p("tiny.gat"), expect=2)
    run(GAT_EMBED, "--model", p("tiny.gat"), "--out", p("x.npy"), "--layer", "2", expect=2)
    run(GAT_EMBED, "--model", p("tiny.gat"), "--out", p("x.npy"), "--format", "xml", expect=2)
    run(GAT_TRAIN, "--dataset", tiny, "--runs", "2", "--save", p("x.gat"), expect=2)
    check(not os.path.exists(p("x.npy")) and not os.path.exists(p("x.gat")), "no stray outputs")
    check(sorted(f for f in os.listdir(tmp) if ".tmp-" in f) == [], "no temporary files left")

    # the documented example on Cora (few epochs): one row of 8 x 8 per node
    run(GAT_TRAIN, "--dataset", "cora", "--heads", "8", "--epochs", "3", "--quiet",
        "--save", p("cora.gat"))
    run(GAT_EMBED, "--model", p("cora.gat"), "--dataset", "cora", "--out", p("cora.npy"),
        "--quiet")
    c = np.load(p("cora.npy"))
    check(c.shape == (2708, 64) and c.dtype == np.float32, f"cora embeddings {c.shape}")

    subprocess.run(["rm", "-rf", tmp])
    print(f"{len(failures)} checks failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
