#!/usr/bin/env python3
"""Distinct experts each row of data/kernels/moe.csv routed its tokens to.

aiconfigurator's MoE collector does not draw its routing from a probability
law per token: it builds the router's choice deterministically (balanced) or
from per-expert token counts sampled once per iteration (power_law_<alpha>).
How many distinct experts a row's kernel read is therefore a property of
that generator, and the kernel fit (fit_kernels.py) and the kernel test
(tests/tests/suite/timing.rs) must use it, not a model of real routing. The
generator, as read at the converted commit (collector/helper.py:
`balanced_logits`, `sample_power_law`, `_generate_power_law_distribution`,
`_round_robin_adjust_per_rank`; collector/vllm/collect_moe.py, which averages
five power-law draws per row), restated here in words and re-implemented:

  balanced: token t takes experts (t + j s) mod E, j < top_k, s = ceil(E /
    top_k) (for fewer tokens than s, t's offset is floor(t s / T)): every
    routed row lands on its own expert until all E are taken, so the row
    touches min(E, T top_k) experts exactly.
  power_law_<a>: E counts drawn by inverse CDF from x^-a on [1, 0.8 T]
    (on [0.01, 2] when T top_k <= E), scaled to sum T top_k and rounded,
    clamped at T, then the shortfall added one at a time to the smallest
    count (zeros first) and an excess taken from the largest; an expert is
    touched when its count is positive. The expected number over 256 draws
    seeded by the row's key (tokens, top_k, experts, alpha) is written (each
    row averaged five draws).

Usage: python3 scripts/aiconfigurator/moe_routing.py --annotate data/kernels/moe.csv
  adds (or rewrites) the `touched_experts` column, as convert_kernels.py
  writes it. Needs numpy. Not run by the tests.
"""
import math
import sys

import numpy as np

DRAWS = 256
SEED = 20261205
COLUMN_NOTE = ("touched_experts: distinct experts the source's routing generator sends the "
               "row's tokens to (balanced: exact; power_law: mean over 256 seeded draws), "
               "computed by scripts/aiconfigurator/moe_routing.py from the generator's "
               "definition, not measured")


def balanced(tokens, top_k, experts):
    stride = math.ceil(experts / top_k)
    t = np.arange(tokens)[:, None]
    j = np.arange(top_k)[None, :]
    if tokens >= stride:
        sel = (t + j * stride) % experts
    else:
        sel = (np.floor(t * stride / tokens).astype(np.int64) + j * stride) % experts
    return float(len(np.unique(sel)))


def power_law(tokens, top_k, experts, alpha, rng):
    target = tokens * top_k
    lo, hi = (1.0, 0.8 * tokens) if target > experts else (0.01, 2.0)
    out = []
    for _ in range(DRAWS):
        u = rng.random(experts)
        x = ((hi ** (1 - alpha) - lo ** (1 - alpha)) * u + lo ** (1 - alpha)) ** (1 / (1 - alpha))
        counts = np.round(x / x.sum() * target).astype(np.int64)
        overflow = int(np.clip(counts - tokens, 0, None).sum())
        counts = np.minimum(counts, tokens)
        # The overflow and any shortfall go one at a time to the smallest
        # count under the cap: every zero is filled before any count grows.
        added = overflow + max(target - (int(counts.sum()) + overflow), 0)
        nonzero = int((counts > 0).sum())
        out.append(nonzero + min(experts - nonzero, added))
    return float(np.mean(out))


def touched_experts(distribution, tokens, top_k, experts, moe_ep):
    # Each row's draws are seeded by its own key, so adding shapes to the
    # file leaves the other rows' values as they were.
    alpha_milli = round(float(distribution.rsplit("_", 1)[-1]) * 1000) if "_" in distribution else 0
    rng = np.random.default_rng([SEED, tokens, top_k, experts, alpha_milli])
    if moe_ep != 1:
        raise SystemExit(f"moe_ep {moe_ep}: only whole-expert rows (moe_ep 1) are annotated")
    if distribution == "balanced":
        return balanced(tokens, top_k, experts)
    if distribution.startswith("power_law_"):
        return power_law(tokens, top_k, experts, float(distribution[len("power_law_"):]), rng)
    raise SystemExit(f"unknown distribution {distribution}")


def annotate(path):
    with open(path) as f:
        lines = f.read().splitlines()
    comments = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if not l.startswith("#")]
    header = body[0].split(",")
    col = "touched_experts"
    if col in header:
        at = header.index(col)
        header.pop(at)
        body = [",".join(header)] + [",".join(c for i, c in enumerate(l.split(",")) if i != at)
                                      for l in body[1:]]
    header = body[0].split(",")
    ix = {c: i for i, c in enumerate(header)}
    insert = ix["moe_ep"] + 1
    cache = {}
    rows = [",".join(header[:insert] + [col] + header[insert:])]
    for line in body[1:]:
        r = line.split(",")
        key = (r[ix["distribution"]], int(r[ix["num_tokens"]]), int(r[ix["topk"]]),
               int(r[ix["num_experts"]]), int(r[ix["moe_ep"]]))
        if key not in cache:
            cache[key] = touched_experts(*key)
        rows.append(",".join(r[:insert] + [f"{cache[key]:.2f}"] + r[insert:]))
    comments = [c for c in comments if not c.startswith("#   touched_experts:")]
    at = next(i for i, c in enumerate(comments) if c.startswith("#   moe_tp, moe_ep:")) + 1
    comments.insert(at, "#   " + COLUMN_NOTE)
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(comments + rows) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--annotate":
        raise SystemExit(__doc__)
    annotate(sys.argv[2])
