#!/usr/bin/env python3
"""Writes the small-classes dataset of the split tests: a Cora-layout dataset (small.content,
small.cites, no split file) shaped like a held-out WebKB-style graph: 5 classes of 19 to 83 nodes
(course 36, faculty 42, project 19, staff 25, student 83; 205 nodes), 24 binary bag-of-words
features (3 topic words per class switched on with probability 0.5, every word with 0.08),
615 undirected edges (mean degree 6), 70 % of them drawn inside a class. With the default random
split (20 training nodes per class, 500 validation, 1000 test, sizes adapted to the data) the
classes give 18, 20, 9, 12 and 20 training nodes and the remaining 126 nodes split 42 / 84.
Node ids are "n000".."n204" in shuffled class order.
Deterministic (random.Random.random only): python3 make_small.py."""
import random

rng = random.Random(11)
sizes = {"student": 83, "faculty": 42, "course": 36, "staff": 25, "project": 19}
names = sorted(sizes)
label = [c for c in names for _ in range(sizes[c])]
# Fisher-Yates with random() so that the order does not depend on randrange's implementation
for i in range(len(label) - 1, 0, -1):
    j = int(rng.random() * (i + 1))
    label[i], label[j] = label[j], label[i]
N, F = len(label), 24
ids = [f"n{i:03d}" for i in range(N)]
with open("small.content", "w") as f:
    for i in range(N):
        c = names.index(label[i])
        row = [1 if rng.random() < 0.08 else 0 for _ in range(F)]
        for w in range(3 * c, 3 * c + 3):
            if rng.random() < 0.5:
                row[w] = 1
        f.write(ids[i] + "\t" + "\t".join(map(str, row)) + "\t" + label[i] + "\n")
members = {c: [i for i in range(N) if label[i] == c] for c in names}
edges = set()
while len(edges) < 3 * N:
    a = int(rng.random() * N)
    pool = members[label[a]] if rng.random() < 0.7 else range(N)
    b = pool[int(rng.random() * len(pool))]
    if a != b:
        edges.add((min(a, b), max(a, b)))
with open("small.cites", "w") as f:
    f.writelines(f"{ids[a]}\t{ids[b]}\n" for a, b in sorted(edges))
