#!/usr/bin/env python3
"""Fit each speculative method's default acceptance curve to the published
mean acceptance lengths in data/speculative/acceptance_curves.csv.

Model (core/src/speculative.rs, AcceptanceCurve): draft position j is
accepted, given position j-1 was, with chance first * decay^(j-1); the
mean acceptance length at k draft tokens is
    AL(k) = 1 + sum_{i=1..k} prod_{j=1..i} first * decay^(j-1).
Least squares on AL over every row of the method (models, thinking on and
off, k = 1..8 pooled). Prints the two figures per method; they are copied
into DEFAULT_ACCEPTANCE by hand. Not run by the tests.
Usage: python3 scripts/spec-acceptance-fit.py (numpy, scipy)

With --derive AL K it prints instead the per-position rates a published
mean acceptance length AL at K draft tokens implies with the MTP default's
decay (0.944), for a source that gives the AL alone (the rows of
data/speculative/acceptance_published.csv whose rates_from says "derived
from the AL alone"): the first position's conditional acceptance solved by
bisection so that 1 + the rates' sum is AL.
"""
import sys
import csv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def al(first, decay, k):
    p, c, total = 1.0, first, 1.0
    for _ in range(k):
        p *= min(c, 1.0)
        total += p
        c *= decay
    return total


def main():
    import numpy as np
    from scipy.optimize import least_squares

    lines = [l for l in open(ROOT / "data" / "speculative" / "acceptance_curves.csv") if not l.startswith("#")]
    rows = list(csv.DictReader(lines))
    for method in sorted({r["method"] for r in rows}):
        mine = [(int(r["num_speculative_tokens"]), float(r["mean_acceptance_length"])) for r in rows if r["method"] == method]
        fun = lambda x: [al(x[0], x[1], k) - a for k, a in mine]
        r = least_squares(fun, [0.8, 0.98], bounds=([0.0, 0.5], [1.0, 1.0]))
        rms = float(np.sqrt(np.mean(np.square(r.fun))))
        print(f"{method}: first {r.x[0]:.3f} decay {r.x[1]:.3f} over {len(mine)} rows, rms AL error {rms:.3f}")


def derive(target, k, decay=0.944):
    lo, hi = 0.0, 1.0 / decay ** k
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if al(mid, decay, k) < target else (lo, mid)
    p, c, rates = 1.0, lo, []
    for _ in range(k):
        p *= min(c, 1.0)
        rates.append(p)
        c *= decay
    print(" ".join(f"{r:.3f}" for r in rates))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--derive"]:
        derive(float(sys.argv[2]), int(sys.argv[3]))
    else:
        main()
