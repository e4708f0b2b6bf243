#!/usr/bin/env python3
"""Fits the rational erf of the kernels' GELU (src/layers/fused_elem.c: ERF_P, ERF_Q) and checks
it as the kernels evaluate it (in double, rounded to float).

erf(x) / x = P(x^2) / Q(x^2) on (0, X1], P of degree 6, Q of degree 5 with Q(0) = 1: a linearised
least-squares fit in the Chebyshev basis of x^2 / X1^2 (well conditioned, unlike monomials),
reweighted toward the minimax relative error, then converted to monomials in x^2.

Needs NumPy and SciPy (Debian: python3-numpy python3-scipy); not part of the build.
Usage: tools/fit-erf.py       prints the coefficients and the check's figures
"""
import numpy as np
from numpy.polynomial import chebyshev as C
from numpy.polynomial import Polynomial
from scipy.special import erf

X1 = 3.92  # past it every float's erf rounds to +-1
NP, NQ = 6, 5


def fit():
    x = np.linspace(1e-5, X1, 60000)
    u = 2 * (x / X1) ** 2 - 1
    f = erf(x) / x
    w = np.ones_like(x)
    best = None
    for _ in range(80):
        a = np.hstack([C.chebvander(u, NP), -(f[:, None] * C.chebvander(u, NQ)[:, 1:])])
        c, *_ = np.linalg.lstsq(a * (w / f)[:, None], w, rcond=None)
        pc, qc = c[:NP + 1], np.concatenate([[1.0], c[NP + 1:]])
        rel = (C.chebval(u, pc) / C.chebval(u, qc) - f) / f
        m = np.max(np.abs(rel))
        if best is None or m < best[0]:
            best = (m, pc, qc)
        w = np.maximum(w * (np.abs(rel) / m) ** 0.3 / np.max(w), 1e-6)
    m, pc, qc = best
    to_s = Polynomial([-1.0, 2 / X1**2])  # u as a polynomial in s = x^2
    p = Polynomial(C.cheb2poly(pc))(to_s).coef
    q = Polynomial(C.cheb2poly(qc))(to_s).coef
    return m, p / q[0], q / q[0]


def main():
    m, p, q = fit()
    print("max relative error of the rational: %.3g" % m)
    print("ERF_P:", ", ".join("%.17g" % c for c in p))
    print("ERF_Q:", ", ".join("%.17g" % c for c in q))
    bits = np.arange(1, np.float32(X1).view(np.uint32) + 1, 37, dtype=np.uint32)
    xs = bits.view(np.float32).astype(np.float64)
    s = xs * xs
    got = np.float32(xs * np.polyval(p[::-1], s) / np.polyval(q[::-1], s)).astype(np.float64)
    want = erf(xs)
    ulps = np.abs(got - want) / np.spacing(np.float32(want)).astype(np.float64)
    print("every 37th float in (0, %g]: %d values, max error %.3f ulp" % (X1, len(xs), ulps.max()))
    x1 = np.float64(np.float32(X1))
    print("at X1: %r" % np.float32(x1 * np.polyval(p[::-1], x1 * x1) / np.polyval(q[::-1], x1 * x1)))


if __name__ == "__main__":
    main()
