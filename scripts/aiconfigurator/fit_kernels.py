#!/usr/bin/env python3
"""Fit each GPU's kernel figures to aiconfigurator's measured kernel tables.

Reads data/kernels/gemm.csv and data/kernels/generation_attention.csv (see
data/kernels/README.md for their provenance) and the GPU presets' peak
bandwidth and tensor peak, and fits per GPU the few figures of decodecalc's
kernel model (core/src/timing/kernels.rs, which states the same formulas):

  GEMM (m x k) x (k x n), per weight format:
    bytes = n k w + 2 (m k + m n)            w: bytes per weight
    flops = 2 m n k
    t = floor + ((bytes / (BW e_bw))^P + (flops / (peak x e_c))^P)^(1/P)
  Rows whose working set (weights; KV) is under the L2 cache's size are left
  out: the tables time one layer over and over, so such a set stays in
  L2, which a real step (every layer's weights and KV in turn) does not
  see (kernels.rs L2_RESIDENT_FACTOR).
  prefill attention, one layer, batch b of causal prompts of L tokens, h query
  heads of head_dim hd:
    t = floor + b L h row + (b L (L+1)/2 x 4 h hd) / (peak e_c)
  GDN decode, one layer (conv update + recurrent delta rule), batch b of
  sequences whose state is S bytes (fp32 recurrent, bf16 conv):
    t = floor + b 2 S / (BW e_bw)
  decode attention, one layer, batch b at kv_len L:
    bytes = b L kv_heads head_dim 2 kv_bytes  (L capped at the window)
    t = floor + b x per_seq + bytes / (BW e_bw)

  fused MoE, one layer of E experts (hidden h, per-GPU intermediate i,
  gated: three h x i matrices each), T tokens routed top-k:
    touched = the row's touched_experts (what the table's routing generator
              did: scripts/aiconfigurator/moe_routing.py)
    bytes = touched x 3 h i w                      (the experts' weights)
          + T k (3 h + 6 i) 2                      (16-bit activations: rows
            gathered in, the gate/up output, the activation, the down
            output, the weighted sum)
          + T k h row_bytes                        (per routed row, what the
            kernel family moves besides: permutation, activation
            quantization and scales; fitted)
    flops = 2 T k x 3 h i
    t = floor + touched x per_expert
          + ((bytes / (BW e_bw))^P + (flops / (peak x e_c))^P)^(1/P)
  fitted on every row (uniform and skewed routing alike).

  all-reduce per implementation (vLLM's custom kernel, NCCL): constants of
    scripts/aiconfigurator/fit_allreduce.py.

Least squares on log(predicted / measured). Prints a [[kernels...]] TOML
block per GPU preset; with --write it replaces the block between the
`# kernels: fitted` markers of data/gpus/<preset>.toml. Not run by the
tests; they check that the shipped figures reproduce the tables.

Usage: python3 scripts/aiconfigurator/fit_kernels.py [--write]
Needs numpy and scipy (pip install numpy scipy).
"""
import csv
import math
import re
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_allreduce  # noqa: E402  (the all-reduce constants, same tables)

ROOT = Path(__file__).resolve().parents[2]
L2_FACTOR = 1.0  # working sets below this many L2 caches are left out (kernels.rs L2_RESIDENT_FACTOR)
P = 4.0  # smoothness of the memory-to-compute transition (kernels.rs GEMM_SMOOTH_P)
SYSTEMS = {
    "a100_sxm": "a100-80gb",
    "h100_sxm": "h100-sxm",
    "h200_sxm": "h200",
    "b200_sxm": "b200",
    "b300_sxm": "b300",
    "gb200": "gb200",
    "gb300": "gb300",
    "l40s": "l40s",
    "rtx_pro_6000_server": "rtx-pro-6000-server",
}
# weight format: (table dtype, bytes per weight, tensor peak multiple of bf16)
MOE_FORMATS = {
    # format: (table dtype, bytes per weight, tensor peak multiple of bf16)
    "bf16": ("bfloat16", 2.0, 1.0),
    "fp8": ("fp8_block", 1.0, 2.0),
    "nvfp4": ("nvfp4", 0.5625, 4.0),
    "mxfp4": ("w4a16_mxfp4", 0.53125, 1.0),
    # int4 weights with a 16-bit scale per 128 (the source's collector's
    # default group), 16-bit activations: Marlin (kernels.rs MoeFormat::Int4).
    "int4": ("int4_wo", 0.515625, 1.0),
}
FORMATS = {
    "bf16": ("bfloat16", 2.0, 1.0),
    "fp8": ("fp8", 1.0, 2.0),
    "nvfp4": ("nvfp4", 0.5625, 4.0),
}
# Weight-only formats (int4 / int8 weights dequantized to 16-bit tensor cores),
# from data/kernels/gemm_weight_only.csv: TensorRT-LLM's kernels standing in
# for vLLM's Marlin (that file's notes), fitted with the same GEMM model.
WEIGHT_ONLY_FORMATS = {
    "int4": ("int4_wo", 0.5, 1.0),
    "int8": ("int8_wo", 1.0, 1.0),
}


def rows(name):
    with open(ROOT / "data" / "kernels" / name) as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def preset(pid):
    text = (ROOT / "data" / "gpus" / f"{pid}.toml").read_text()
    bw = float(re.search(r"^bandwidth_gb_s = ([\d.]+)", text, re.M).group(1))
    peak = float(re.search(r"^fp16_tflops = ([\d.]+)", text, re.M).group(1))
    l2 = float(re.search(r"^l2_cache_bytes = ([\d_]+)", text, re.M).group(1).replace("_", ""))
    return bw * 1e9, peak * 1e12, l2


def gemm_model(x, m, n, k, w, bw, peak):
    e_bw, e_c, floor = x
    b = n * k * w + 2 * (m * k + m * n)
    f = 2 * m * n * k
    tm = b / (bw * e_bw)
    tc = f / (peak * e_c)
    return floor * 1e-6 + (tm**P + tc**P) ** (1 / P)


def attn_model(x, b, L, kvh, hd, kvb, bw):
    e_bw, floor, per_seq = x
    by = b * L * kvh * hd * 2 * kvb
    return floor * 1e-6 + b * per_seq * 1e-6 + by / (bw * e_bw)


def prefill_attn_model(x, floor, b, L, h, hd, peak):
    e_c, row_ns = x
    flops = b * L * (L + 1) / 2 * 4 * h * hd
    return floor * 1e-6 + b * L * h * row_ns * 1e-9 + flops / (peak * e_c)


def moe_model(x, T, h, i, k, tch, w, bw, peak):
    e_bw, e_c, floor, per_expert, row_bytes = x
    b = tch * 3 * h * i * w + T * k * (3 * h + 6 * i) * 2 + T * k * h * row_bytes
    f = 2 * T * k * 3 * h * i
    tm = b / (bw * e_bw)
    tc = f / (peak * e_c)
    return (floor + tch * per_expert) * 1e-6 + (tm**P + tc**P) ** (1 / P)


def fit(fun, x0, lo, hi):
    r = least_squares(fun, x0, bounds=(lo, hi))
    return r.x, np.abs(np.expm1(r.fun))


def main():
    gemm = rows("gemm.csv")
    weight_only = rows("gemm_weight_only.csv")
    attn = rows("generation_attention.csv")
    out = {}
    rows_cache = {}
    for system, pid in SYSTEMS.items():
        bw, peak, l2 = preset(pid)
        blocks = []
        formats = [(f, spec, gemm) for f, spec in FORMATS.items()]
        formats += [(f, spec, weight_only) for f, spec in WEIGHT_ONLY_FORMATS.items()]
        for fmt, (dtype, w, mult), table in formats:
            every = [r for r in table if r["system"] == system and r["dtype"] == dtype]
            if not every:
                continue
            # The floor: the fastest one-row GEMM of the table (the smallest
            # shape, cache-resident: launch and tail only).
            floor = min(float(r["latency_us"]) for r in every if r["m"] == "1")
            data = [r for r in every if float(r["n"]) * float(r["k"]) * w >= L2_FACTOR * l2]
            m = np.array([float(r["m"]) for r in data])
            n = np.array([float(r["n"]) for r in data])
            k = np.array([float(r["k"]) for r in data])
            t = np.array([float(r["latency_us"]) * 1e-6 for r in data])
            fun = lambda x: np.log(gemm_model([x[0], x[1], floor], m, n, k, w, bw, peak * mult) / t)
            x, err = fit(fun, [0.7, 0.6], [0.05, 0.02], [1.0, 1.0])
            x = [x[0], x[1], floor]
            small = err[m <= 256]
            print(f"{pid} gemm {fmt}: e_bw {x[0]:.3f} e_c {x[1]:.3f} floor {x[2]:.2f} us;"
                  f" median err {np.median(err)*100:.1f}%, m<=256 median {np.median(small)*100:.1f}%"
                  f" p90 {np.percentile(small, 90)*100:.1f}%", file=sys.stderr)
            blocks.append(
                f'[[kernels.gemm]]\nformat = "{fmt}"\nbw_eff = {x[0]:.4f}\n'
                f"compute_eff = {x[1]:.4f}\nfloor_us = {x[2]:.3f}\n"
            )
        moe = rows_cache.setdefault("moe", rows("moe.csv"))
        for fmt, (dtype, w, mult) in MOE_FORMATS.items():
            every = [r for r in moe if r["system"] == system and r["dtype"] == dtype]
            if not every:
                continue
            def arr(d, c):
                return np.array([float(r[c]) for r in d])
            T, h, k = arr(every, "num_tokens"), arr(every, "hidden_size"), arr(every, "topk")
            i = arr(every, "inter_size") / arr(every, "moe_tp")
            tch = arr(every, "touched_experts")
            t = arr(every, "latency_us") * 1e-6
            fun = lambda x: np.log(moe_model(x, T, h, i, k, tch, w, bw, peak * mult) / t)
            x, err = fit(fun, [0.6, 0.4, 20.0, 0.1, 1.0], [0.02, 0.01, 0.0, 0.0, 0.0],
                         [1.0, 1.0, 500.0, 50.0, 100.0])
            print(f"{pid} moe {fmt}: e_bw {x[0]:.3f} e_c {x[1]:.3f} floor {x[2]:.1f} us per expert {x[3]:.2f} us"
                  f" row bytes {x[4]:.2f} x h; median {np.median(err)*100:.1f}%"
                  f" p90 {np.percentile(err, 90)*100:.1f}%", file=sys.stderr)
            blocks.append(
                f'[[kernels.moe]]\nformat = "{fmt}"\nbw_eff = {x[0]:.4f}\n'
                f"compute_eff = {x[1]:.4f}\nfloor_us = {x[2]:.3f}\nper_expert_us = {x[3]:.4f}\n"
                f"row_bytes_per_hidden = {x[4]:.4f}\n"
            )
        if not rows_cache.get("allreduce"):
            fit_allreduce.main(quiet=True)
            rows_cache["allreduce"] = True
        if "gather_scatter" not in rows_cache:
            rows_cache["gather_scatter"] = fit_allreduce.fit_gather_scatter(quiet=True)
        impls = dict(sorted(fit_allreduce.fit_system(system).items()))
        if system in rows_cache["gather_scatter"]:
            impls["gather_scatter"] = rows_cache["gather_scatter"][system]
        for impl, (base, step, eff) in sorted(impls.items(), key=lambda kv: kv[0] == "gather_scatter"):
            large = fit_allreduce.LARGE.get(system) if impl == "nccl" else None
            blocks.append(
                f'[[kernels.allreduce]]\nimplementation = "{impl}"\nbase_us = {base:.3f}\n'
                f"per_step_us = {step:.4f}\nbw_eff = {eff:.4f}\n"
                + (f"large_base_us = {large[0]:.3f}\nlarge_bw_eff = {large[1]:.4f}\n" if large else "")
            )
        data = [r for r in attn if r["system"] == system and r["window"] == "0"]
        for kv in ["bfloat16"]:
            d = [r for r in data if r["kv_dtype"] == kv
                 and float(r["batch"]) * float(r["kv_len"]) * float(r["num_kv_heads"])
                 * float(r["head_dim"]) * 4 >= L2_FACTOR * l2]
            b = np.array([float(r["batch"]) for r in d])
            L = np.array([float(r["kv_len"]) for r in d])
            kvh = np.array([float(r["num_kv_heads"]) for r in d])
            hd = np.array([float(r["head_dim"]) for r in d])
            t = np.array([float(r["latency_us"]) * 1e-6 for r in d])
            fun = lambda x: np.log(attn_model(x, b, L, kvh, hd, 2.0, bw) / t)
            x, err = fit(fun, [0.7, 10.0, 0.1], [0.05, 0.0, 0.0], [1.5, 200.0, 50.0])
            print(f"{pid} decode attention: e_bw {x[0]:.3f} floor {x[1]:.2f} us per_seq {x[2]:.3f} us;"
                  f" median err {np.median(err)*100:.1f}% p90 {np.percentile(err, 90)*100:.1f}%",
                  file=sys.stderr)
            blocks.append(
                f"[kernels.decode_attention]\nbw_eff = {x[0]:.4f}\nfloor_us = {x[1]:.3f}\n"
                f"per_seq_us = {x[2]:.4f}\n"
            )
        # Prefill attention: causal over seq_len, no cached prefix; every row
        # (compute-bound from the start, so no L2 cut). The floor is the
        # table's fastest call.
        ctx = rows_cache.setdefault("ctx", rows("context_attention.csv"))
        d = [r for r in ctx if r["system"] == system and r["kv_dtype"] == "bfloat16"
             and r["window"] == "0"]
        if d:
            b, L, h, hd = (np.array([float(r[c]) for r in d])
                           for c in ("batch", "seq_len", "num_heads", "head_dim"))
            t = np.array([float(r["latency_us"]) * 1e-6 for r in d])
            floor = min(float(r["latency_us"]) for r in d)
            fun = lambda x: np.log(prefill_attn_model(x, floor, b, L, h, hd, peak) / t)
            x, err = fit(fun, [0.5, 0.1], [0.01, 0.0], [1.0, 1000.0])
            print(f"{pid} prefill attention: e_c {x[0]:.3f} floor {floor:.2f} us row {x[1]:.3f} ns;"
                  f" median err {np.median(err)*100:.1f}% p90 {np.percentile(err, 90)*100:.1f}%",
                  file=sys.stderr)
            blocks.append(
                f"[kernels.prefill_attention]\ncompute_eff = {x[0]:.4f}\nfloor_us = {floor:.3f}\n"
                f"row_ns = {x[1]:.4f}\n"
            )
        # GDN decode: one layer's causal_conv1d_update + fused recurrent
        # delta rule over a batch, reading and writing each sequence's fp32
        # recurrent state (Hv x dk x dv) and bf16 conv state (conv_dim x 3).
        # Only groups with both kernels (the source lacks some) and states of
        # at least two L2s (smaller ones stay partly cache-resident in the table's
        # repeated timing); the floor is the fastest whole layer.
        gdn = rows_cache.setdefault("gdn", rows("gdn.csv"))
        groups = {}
        for r in gdn:
            if r["system"] == system and r["phase"] == "generation":
                key = (r["model"], r["num_k_heads"], r["batch"])
                groups.setdefault(key, []).append(r)
        layers = []
        for (_, _, batch), rs in groups.items():
            if len({r["kernel"] for r in rs}) != 2:
                continue
            r = rs[0]
            hk, dk = float(r["num_k_heads"]), float(r["head_k_dim"])
            hv, dv = float(r["num_v_heads"]), float(r["head_v_dim"])
            state = hv * dk * dv * 4 + (2 * hk * dk + hv * dv) * 3 * 2
            layers.append((float(batch), state, sum(float(x["latency_us"]) for x in rs) * 1e-6))
        if layers:
            floor = min(t for _, _, t in layers) * 1e6
            d = [(b, st, t) for b, st, t in layers if b * st >= 2 * L2_FACTOR * l2]
            b = np.array([x[0] for x in d])
            st = np.array([x[1] for x in d])
            t = np.array([x[2] for x in d])
            fun = lambda x: np.log((floor * 1e-6 + b * 2 * st / (bw * x[0])) / t)
            x, err = fit(fun, [0.7], [0.05], [1.0])
            print(f"{pid} gdn decode: e_bw {x[0]:.3f} floor {floor:.2f} us; {len(d)} rows,"
                  f" median err {np.median(err)*100:.1f}% p90 {np.percentile(err, 90)*100:.1f}%",
                  file=sys.stderr)
            blocks.append(
                f"[kernels.gdn_decode]\nbw_eff = {x[0]:.4f}\nfloor_us = {floor:.3f}\n"
            )
        out[pid] = (system, blocks)
    for pid, (system, blocks) in out.items():
        block = (
            "# kernels: fitted by scripts/aiconfigurator/fit_kernels.py to aiconfigurator's\n"
            f"# measured tables for {system} (data/kernels/, commit 095f58a5)\n"
            "[kernels]\n"
            f'source = "aiconfigurator {system} kernel tables (data/kernels)"\n\n'
            + "\n".join(blocks)
            + "# kernels: end\n"
        )
        if "--write" in sys.argv:
            path = ROOT / "data" / "gpus" / f"{pid}.toml"
            text = path.read_text()
            if "# kernels: fitted" in text:
                a = text.index("# kernels: fitted")
                b = text.index("# kernels: end\n") + len("# kernels: end\n")
                text = text[:a] + block + text[b:]
            else:
                text = text.rstrip("\n") + "\n\n" + block
            path.write_text(text)
        else:
            print(f"## {pid}\n{block}")


if __name__ == "__main__":
    main()
