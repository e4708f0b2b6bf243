#!/usr/bin/env python3
# Offline converter: Planetoid pickles (ind.NAME.{x,y,tx,ty,allx,ally,graph,test.index})
# -> the LINQS-style text layout read by libgat (NAME.content.gz, NAME.cites, NAME.split).
# Reproduces Kipf's gcn load_data / PyG's read_planetoid_data, then re-reads its own output.
#
# Needs numpy and scipy (Debian: run with /usr/bin/python3). Not part of the build.
"""Convert a Planetoid dataset (Cora, Citeseer, ...) to libgat's text layout.

Reads ind.NAME.{x,y,tx,ty,allx,ally,graph,test.index} from PLANETOID_DIR and writes
OUTDIR/NAME.content.gz, OUTDIR/NAME.cites and OUTDIR/NAME.split (format: datasets/README.md).
After writing, the files are parsed back and compared with the pickles; any mismatch, or
statistics that differ from the published ones for cora/citeseer, exits with status 1.
"""

import argparse
import gzip
import os
import pickle
import sys
import warnings
from collections import Counter

import numpy as np
import scipy.sparse as sp

# Published statistics of the standard Planetoid splits (undirected edges after dropping
# self-loops and duplicates); a mismatch means the input files are not the standard ones.
KNOWN_STATS = {
    "cora": dict(nodes=2708, edges=5278, features=1433, classes=7,
                 train=140, val=500, test=1000),
    "citeseer": dict(nodes=3327, edges=4552, features=3703, classes=6,
                     train=120, val=500, test=1000),
}

VAL_SIZE = 500  # fixed by the Planetoid protocol: the 500 nodes after the training nodes


class ConvertError(Exception):
    """Bad input or a failed self-check; reported on stderr with exit status 1."""


# ----------------------------------------------------------------------------------------
# Reading the pickles


def read_raw(planetoid_dir, name):
    """Return the raw Planetoid objects as a dict, plus 'test.index' as a list of ints."""
    raw = {}
    for part in ("x", "y", "tx", "ty", "allx", "ally", "graph"):
        path = os.path.join(planetoid_dir, "ind.%s.%s" % (name, part))
        try:
            with open(path, "rb") as f, warnings.catch_warnings():
                # The pickles name scipy.sparse.csr, a module newer scipy deprecates.
                warnings.simplefilter("ignore", DeprecationWarning)
                # Python 2 pickles: latin1 lets numpy arrays inside them load unchanged.
                raw[part] = pickle.load(f, encoding="latin1")
        except OSError as e:
            raise ConvertError("cannot read %s: %s" % (path, e.strerror)) from e
    path = os.path.join(planetoid_dir, "ind.%s.test.index" % name)
    try:
        with open(path) as f:
            raw["test.index"] = [int(line) for line in f if line.strip()]
    except OSError as e:
        raise ConvertError("cannot read %s: %s" % (path, e.strerror)) from e
    except ValueError as e:
        raise ConvertError("%s: not one integer per line (%s)" % (path, e)) from e
    return raw


def load_planetoid(raw):
    """Features, labels and split exactly as gcn's load_data / PyG's read_planetoid_data.

    Returns (features (N, F) dense array of the raw values, labels (N,) int class indices,
    idx_train, idx_val, idx_test, n_zero_filled).
    """
    x, y, tx, ty, allx, ally = (raw[k] for k in ("x", "y", "tx", "ty", "allx", "ally"))
    test_idx_reorder = np.asarray(raw["test.index"], dtype=np.int64)
    test_idx_range = np.sort(test_idx_reorder)
    lo, hi = int(test_idx_range[0]), int(test_idx_range[-1])

    # The reference does this for citeseer only, whose test ids have gaps (nodes in the graph
    # that have no test row). For cora and pubmed the range has no gaps and this is the identity.
    # The gap nodes get a zero feature row and a zero label row.
    n_full = hi - lo + 1
    n_zero_filled = n_full - len(test_idx_range)
    if n_zero_filled:
        tx_extended = sp.lil_matrix((n_full, x.shape[1]), dtype=tx.dtype)
        tx_extended[test_idx_range - lo, :] = tx
        tx = tx_extended
        ty_extended = np.zeros((n_full, y.shape[1]), dtype=ty.dtype)
        ty_extended[test_idx_range - lo, :] = ty
        ty = ty_extended

    # Test rows are stored in test.index order; move them to their node ids. (The right-hand
    # side is copied before assignment, both for lil_matrix and for numpy fancy indexing.)
    features = sp.vstack((allx, tx)).tolil()
    features[test_idx_reorder, :] = features[test_idx_range, :]
    labels = np.vstack((ally, ty))
    labels[test_idx_reorder, :] = labels[test_idx_range, :]

    idx_train = list(range(len(y)))
    idx_val = list(range(len(y), len(y) + VAL_SIZE))
    idx_test = test_idx_range.tolist()
    # argmax of a zero row is 0: the zero-filled nodes get class 0, as in the reference.
    return (features.toarray(), labels.argmax(axis=1), idx_train, idx_val, idx_test,
            n_zero_filled)


def clean_edges(graph, n_nodes):
    """Undirected edge list (sorted (a, b) with a < b) from the adjacency dict, and counts.

    Self-loops and repeated entries are dropped; the counts describe the raw dict.
    """
    edges = set()
    stats = Counter()
    for a, nbrs in graph.items():
        for b in nbrs:
            a, b = int(a), int(b)
            if not (0 <= a < n_nodes and 0 <= b < n_nodes):
                raise ConvertError("graph: edge %d-%d outside 0..%d" % (a, b, n_nodes - 1))
            stats["entries"] += 1
            if a == b:
                stats["self_loop_entries"] += 1
                continue
            edges.add((min(a, b), max(a, b)))
    # Directed (a, b) entries that occur more than once, and pairs listed one way only.
    directed = Counter((int(a), int(b)) for a, nbrs in graph.items() for b in nbrs if a != b)
    stats["duplicate_entries"] = sum(c - 1 for c in directed.values())
    stats["one_way_pairs"] = sum(1 for (a, b) in directed if (b, a) not in directed)
    stats["self_loop_nodes"] = sum(1 for a, nbrs in graph.items() if a in nbrs)
    return sorted(edges), stats


# ----------------------------------------------------------------------------------------
# Writing


def format_value(v):
    """Shortest exact text for a feature: integers as such, else 9 significant digits
    (enough to round-trip a float32)."""
    v = float(v)
    if np.isfinite(v) and v == round(v):
        return str(int(v))  # also maps -0.0 to "0"
    return "%.9g" % v


def feature_tokens(features):
    """(N, F) array of feature strings; each distinct value is formatted once."""
    uniq, inverse = np.unique(features, return_inverse=True)
    texts = np.array([format_value(u) for u in uniq], dtype=object)
    return texts[inverse.reshape(features.shape)]


def write_outputs(outdir, name, features, labels, edges, split):
    os.makedirs(outdir, exist_ok=True)
    tokens = feature_tokens(features)

    # mtime=0 and a fixed name field make the .gz byte-reproducible (given the same zlib).
    path = os.path.join(outdir, name + ".content.gz")
    with open(path, "wb") as raw_file, \
            gzip.GzipFile(filename=name + ".content", mode="wb", fileobj=raw_file,
                          compresslevel=9, mtime=0) as gz:
        for i in range(features.shape[0]):
            line = "%d\t%s\tc%d\n" % (i, "\t".join(tokens[i]), labels[i])
            gz.write(line.encode("ascii"))

    with open(os.path.join(outdir, name + ".cites"), "w", newline="\n") as f:
        for a, b in edges:
            f.write("%d\t%d\n" % (a, b))

    with open(os.path.join(outdir, name + ".split"), "w", newline="\n") as f:
        for part in ("train", "val", "test"):
            for i in split[part]:
                f.write("%d\t%s\n" % (i, part))


# ----------------------------------------------------------------------------------------
# Independent check: parse the written text the way the C loader will (any run of blanks
# separates fields) and compare with the pickles through the documented meaning of the
# Planetoid files rather than through load_planetoid(): allx row i is node i, tx row k is
# node test.index[k], the graph dict lists each node's neighbours.


def open_text(path_plain):
    if os.path.exists(path_plain + ".gz"):
        return gzip.open(path_plain + ".gz", "rt", encoding="ascii")
    return open(path_plain, encoding="ascii")


def read_outputs(outdir, name):
    """Parse NAME.content[.gz], NAME.cites, NAME.split into plain Python/numpy values."""
    ids, rows, label_names = [], [], []
    with open_text(os.path.join(outdir, name + ".content")) as f:
        for lineno, line in enumerate(f, 1):
            fields = line.split()
            if len(fields) < 2:
                raise ConvertError("%s.content:%d: too few fields" % (name, lineno))
            ids.append(fields[0])
            rows.append([float(v) for v in fields[1:-1]])
            label_names.append(fields[-1])
    if len({len(r) for r in rows}) != 1:
        raise ConvertError("%s.content: rows have different numbers of features" % name)
    index = {node: i for i, node in enumerate(ids)}
    if len(index) != len(ids):
        raise ConvertError("%s.content: repeated node id" % name)

    edges = []
    with open(os.path.join(outdir, name + ".cites"), encoding="ascii") as f:
        for lineno, line in enumerate(f, 1):
            fields = line.split()
            if len(fields) != 2 or fields[0] not in index or fields[1] not in index:
                raise ConvertError("%s.cites:%d: bad line %r" % (name, lineno, line))
            edges.append((index[fields[0]], index[fields[1]]))

    split = {"train": [], "val": [], "test": []}
    with open(os.path.join(outdir, name + ".split"), encoding="ascii") as f:
        for lineno, line in enumerate(f, 1):
            fields = line.split()
            if len(fields) != 2 or fields[0] not in index or fields[1] not in split:
                raise ConvertError("%s.split:%d: bad line %r" % (name, lineno, line))
            split[fields[1]].append(index[fields[0]])
    return ids, np.array(rows, dtype=np.float64), label_names, edges, split


def verify(outdir, name, raw):
    """Recompute everything from the written files; raise ConvertError on any mismatch.

    Returns the statistics recomputed from the files.
    """
    ids, feats, label_names, edges, split = read_outputs(outdir, name)
    n, n_feat = feats.shape
    allx, tx = raw["allx"].toarray(), raw["tx"].toarray()
    ally, ty = np.asarray(raw["ally"]), np.asarray(raw["ty"])
    test_ids = raw["test.index"]

    def check(ok, what):
        if not ok:
            raise ConvertError("verify %s: %s" % (name, what))

    check(ids == [str(i) for i in range(n)], "node ids are not 0..N-1 in order")
    check(n == len(raw["graph"]), "%d nodes, the graph pickle has %d" % (n, len(raw["graph"])))
    check(n == allx.shape[0] + max(test_ids) - min(test_ids) + 1,
          "%d nodes, expected allx rows + test id range" % n)

    # Expected features/labels straight from the row meaning; gap nodes stay zero / class 0.
    exp_feat = np.zeros((n, allx.shape[1]), dtype=np.float64)
    exp_class = np.zeros(n, dtype=np.int64)
    exp_feat[:allx.shape[0]] = allx
    exp_class[:ally.shape[0]] = ally.argmax(axis=1)
    for k, node in enumerate(test_ids):
        exp_feat[node] = tx[k]
        exp_class[node] = ty[k].argmax()
    check(n_feat == exp_feat.shape[1], "%d features, expected %d" % (n_feat, exp_feat.shape[1]))
    # Parsed text compared in the pickles' float32 precision: exact for the written digits.
    check(np.array_equal(feats.astype(np.float32), exp_feat.astype(np.float32)),
          "feature values differ from the pickles")
    check(label_names == ["c%d" % c for c in exp_class], "labels differ from the pickles")

    exp_edges = {(min(a, b), max(a, b)) for a, nbrs in raw["graph"].items() for b in nbrs
                 if a != b}
    check(all(a < b for a, b in edges), ".cites has a self-loop or a larger id first")
    check(edges == sorted(edges), ".cites is not sorted")
    check(len(set(edges)) == len(edges), ".cites has a duplicate edge")
    check(set(edges) == exp_edges, "edge set differs from the graph pickle")

    n_train = len(raw["y"])
    check(split["train"] == list(range(n_train)), "train split is not 0..len(y)-1")
    check(split["val"] == list(range(n_train, n_train + VAL_SIZE)), "val split wrong")
    check(split["test"] == sorted(test_ids), "test split is not sorted(test.index)")
    all_split = split["train"] + split["val"] + split["test"]
    check(len(set(all_split)) == len(all_split), "splits overlap")

    return dict(nodes=n, edges=len(edges), features=n_feat, classes=len(set(label_names)),
                train=len(split["train"]), val=len(split["val"]), test=len(split["test"]))


# ----------------------------------------------------------------------------------------


def check_known(name, stats):
    """Compare with KNOWN_STATS[name] if the name is known; raise on a mismatch."""
    known = KNOWN_STATS.get(name)
    if known is None:
        print("%s: no published statistics to compare with" % name)
        return
    bad = ["%s %d (expected %d)" % (k, stats[k], v) for k, v in known.items() if stats[k] != v]
    if bad:
        raise ConvertError("%s: statistics differ from the standard split: %s"
                           % (name, ", ".join(bad)))
    print("%s: statistics match the standard Planetoid split" % name)


def print_stats(name, stats):
    print("%s: %d nodes, %d undirected edges, %d features, %d classes, "
          "%d/%d/%d train/val/test"
          % (name, stats["nodes"], stats["edges"], stats["features"], stats["classes"],
             stats["train"], stats["val"], stats["test"]))


def convert(args):
    raw = read_raw(args.planetoid_dir, args.name)
    features, labels, idx_train, idx_val, idx_test, n_zero_filled = load_planetoid(raw)
    n = features.shape[0]
    if len(raw["graph"]) != n:
        raise ConvertError("graph has %d nodes but the feature matrix has %d rows"
                           % (len(raw["graph"]), n))
    edges, graph_stats = clean_edges(raw["graph"], n)

    stats = dict(nodes=n, edges=len(edges), features=features.shape[1],
                 classes=raw["y"].shape[1], train=len(idx_train), val=len(idx_val),
                 test=len(idx_test))
    print_stats(args.name, stats)
    degree = np.bincount(np.array(edges, dtype=np.int64).ravel(), minlength=n)
    print("  raw graph: %d adjacency entries; dropped %d self-loop entries (%d nodes), "
          "%d duplicate entries; %d pairs listed one way only"
          % (graph_stats["entries"], graph_stats["self_loop_entries"],
             graph_stats["self_loop_nodes"], graph_stats["duplicate_entries"],
             graph_stats["one_way_pairs"]))
    print("  %d zero-filled test-range nodes (zero features, class c0); "
          "%d nodes without edges; %d all-zero feature rows"
          % (n_zero_filled, int((degree == 0).sum()),
             int((~features.any(axis=1)).sum())))
    print("  class sizes: %s" % ", ".join(
        "c%d %d" % (c, k) for c, k in enumerate(np.bincount(labels, minlength=stats["classes"]))))
    check_known(args.name, stats)

    if not args.verify:
        write_outputs(args.outdir, args.name, features, labels, edges,
                      dict(train=idx_train, val=idx_val, test=idx_test))
        print("  wrote %s" % ", ".join(
            "%s (%d bytes)" % (f, os.path.getsize(os.path.join(args.outdir, f)))
            for f in (args.name + ".content.gz", args.name + ".cites", args.name + ".split")))

    reread = verify(args.outdir, args.name, raw)
    if reread != stats:
        raise ConvertError("statistics recomputed from the files differ: %s" % reread)
    print("%s: verified %s against the pickles" % (args.name, args.outdir))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: %(prog)s ../shared/datasets/planetoid cora datasets/cora")
    parser.add_argument("planetoid_dir", metavar="PLANETOID_DIR",
                        help="directory holding ind.NAME.{x,y,tx,ty,allx,ally,graph,test.index}")
    parser.add_argument("name", metavar="NAME", help="dataset name, e.g. cora or citeseer")
    parser.add_argument("outdir", metavar="OUTDIR", help="output directory (created if missing)")
    parser.add_argument("--verify", action="store_true",
                        help="do not write; only check existing files in OUTDIR against the "
                             "pickles (the check also runs after every conversion)")
    args = parser.parse_args()
    try:
        convert(args)
    except ConvertError as e:
        print("planetoid_convert: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
