#!/usr/bin/env python3
"""Writes the small synthetic graph of the graph-file tests and the README examples: a stochastic
block model of 3 blocks of 20 nodes (edge probability 0.25 inside a block, 0.02 across), node 59
isolated, 6 noisy features pointing at the block, block labels "c0".."c2" for nodes 0..53
(54..59 unlabelled). Outputs (same graph): sbm.edges (edgelist, 0-based), sbm.features (dense),
sbm.svm (sparse), sbm.labels, and sbm.graphml (features f0..f5 and numeric "class" as vertex
attributes, class missing for unlabelled nodes). Deterministic: python3 make_sbm.py."""
import random

rng = random.Random(7)
N, B = 60, 20
block = [i // B for i in range(N)]
edges = []
for i in range(N - 1):
    for j in range(i + 1, N - 1):  # node 59 stays isolated
        p = 0.25 if block[i] == block[j] else 0.02
        if rng.random() < p:
            edges.append((i, j))
feat = []
for i in range(N):
    row = [round(rng.gauss(0, 0.3), 3) for _ in range(6)]
    row[block[i]] += 1.0
    row[block[i] + 3] += 1.0
    feat.append([round(v, 3) if abs(v) >= 0.1 else 0.0 for v in row])
labelled = range(54)

with open("sbm.edges", "w") as f:
    f.writelines(f"{i} {j}\n" for i, j in edges)
with open("sbm.features", "w") as f:
    f.write("# node f0 f1 f2 f3 f4 f5\n")
    f.writelines(f"{i} " + " ".join(f"{v:g}" for v in feat[i]) + "\n" for i in range(N))
with open("sbm.svm", "w") as f:
    for i in range(N):
        f.write(f"{i}" + "".join(f" {k}:{v:g}" for k, v in enumerate(feat[i]) if v != 0) + "\n")
with open("sbm.labels", "w") as f:
    f.writelines(f"{i} c{block[i]}\n" for i in labelled)
with open("sbm.graphml", "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n')
    for k in range(6):
        f.write(f'  <key id="f{k}" for="node" attr.name="f{k}" attr.type="double"/>\n')
    f.write('  <key id="class" for="node" attr.name="class" attr.type="double"/>\n'
            '  <graph id="sbm" edgedefault="undirected">\n')
    for i in range(N):
        data = "".join(f'<data key="f{k}">{v:g}</data>' for k, v in enumerate(feat[i]))
        if i in labelled:
            data += f'<data key="class">{block[i]}</data>'
        f.write(f'    <node id="n{i}">{data}</node>\n')
    for i, j in edges:
        f.write(f'    <edge source="n{i}" target="n{j}"/>\n')
    f.write("  </graph>\n</graphml>\n")
