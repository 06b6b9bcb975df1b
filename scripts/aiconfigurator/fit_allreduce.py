#!/usr/bin/env python3
"""Fit decodecalc's all-reduce latency constants to aiconfigurator's
measured all-reduce tables (data/kernels/allreduce.csv).

Model (core/src/timing/collective.rs states the same):
  custom (vLLM's one/two-shot kernel over P2P):
      t = c0 + c1 (n - 1) + bytes x 2 (n - 1) / n / (link_bw x e)
  NCCL ring:
      t = n0 + hop x 2 (n - 1) + bytes x 2 (n - 1) / n / (link_bw x e)
one set of constants per link kind (NVLink, PCIe), link_bw the GPU
preset's interconnect_gb_s. Fitted on CUDA-graph custom rows up to 8 MiB
(vLLM's max size) where vLLM runs its own kernel (NVLink, or 2 GPUs), and on
NCCL all_reduce rows up to 64 MiB; least squares on log ratios. Prints
the constants; they are copied into collective.rs by hand.

NCCL's large messages (a prefill chunk's all-reduce: 4,096 tokens of a
5,120-wide model are 42 MB) run a protocol of higher latency and higher
bandwidth than the small ones the line above is fitted to, and NCCL's tuner
takes whichever is faster. A second line fitted on the rows from 16 MiB,
      t = L0 + bytes x 2 (n - 1) / n / (link_bw x eL)
and the call's time the lesser of the two, is kept per system where it is
that regime (eL above e and L0 above n0): the NVLink systems; on the PCIe
ones the fit finds no such regime (L0 = 0) and the one line stands.

NCCL all-gather and reduce-scatter (data/kernels/allgather_reducescatter.csv,
the MoE dispatch and combine of vLLM's default all2all backend):
      t = b0 + hop x (n - 1) + buffer x (n - 1) / n / (link_bw x e)
buffer the whole gathered (or reduced) buffer, rows up to 64 MiB; the same
groups, both ops fitted together (they take the same ring steps and move
the same bytes), printed as the GPU presets' [[kernels.allreduce]] row with
implementation gather_scatter (`--gather-scatter`).
Usage: python3 scripts/aiconfigurator/fit_allreduce.py (numpy, scipy)
"""
import csv
import re
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = {
    "a100_sxm": "a100-80gb", "h100_sxm": "h100-sxm", "h200_sxm": "h200",
    "b200_sxm": "b200", "b300_sxm": "b300", "gb200": "gb200", "gb300": "gb300",
    "l40s": "l40s",
    "rtx_pro_6000_server": "rtx-pro-6000-server",
}
# The per-link constants of collective.rs were fitted before the GB200 and
# GB300 tables were read: those two get constants of their own only.
PER_SYSTEM_ONLY = {"gb200", "gb300"}


def link(pid):
    text = (ROOT / "data" / "gpus" / f"{pid}.toml").read_text()
    kind = re.search(r'^interconnect = "(\w+?)\d*"', text, re.M).group(1)
    bw = float(re.search(r"^interconnect_gb_s = ([\d.]+)", text, re.M).group(1))
    return kind, bw * 1e9


def fit_system(system):
    """The custom and NCCL constants of one system: {impl: (base_us, per_step_us, bw_eff)}."""
    return FITS.get(system, {})


FITS = {}
# system -> (large_base_us, large_bw_eff): NCCL's large-message regime.
LARGE = {}


def main(quiet=False):
    lines = [l for l in open(ROOT / "data" / "kernels" / "allreduce.csv") if not l.startswith("#")]
    rows = [r for r in csv.DictReader(lines) if r["op"] == "all_reduce"]
    groups = [(k, None) for k in ["nvlink", "pcie"]] + [(None, s) for s in SYSTEMS]
    for kind, system in groups:
        for impl in ["custom", "nccl"]:
            data = []
            for r in rows:
                pid = SYSTEMS.get(r["system"])
                if pid is None or r["implementation"] != impl:
                    continue
                if kind and r["system"] in PER_SYSTEM_ONLY:
                    continue
                if (kind and link(pid)[0] != kind) or (system and r["system"] != system):
                    continue
                kind_of = link(pid)[0]
                n, b = int(r["world_size"]), int(r["message_bytes"])
                if impl == "custom":
                    if r["cuda_graph"] != "1" or b >= 8 << 20 or (kind_of == "pcie" and n > 2):
                        continue
                elif b > 64 << 20 or r["dtype"] != "half":
                    continue
                data.append((n, b, link(pid)[1], float(r["latency_us"]) * 1e-6))
            n, b, bw, t = (np.array(x, dtype=float) for x in zip(*data))
            f = lambda x: np.log((x[0] * 1e-6 + x[1] * 1e-6 * (n - 1) * (2 if impl == "nccl" else 1)
                                  + b * 2 * (n - 1) / n / (bw * x[2])) / t)
            r = least_squares(f, [5.0, 1.0, 0.5], bounds=([0, 0, 0.01], [100, 50, 2.0]))
            err = np.abs(np.expm1(r.fun))
            if len(t) < 5:
                continue
            if system:
                FITS.setdefault(system, {})[impl] = tuple(r.x)
                if impl == "nccl":
                    fit_large(system, SYSTEMS[system], rows, r.x, quiet)
            if quiet:
                continue
            print(f"{kind or system} {impl}: base {r.x[0]:.2f} us, per step {r.x[1]:.3f} us, bw eff {r.x[2]:.3f};"
                  f" {len(t)} rows, median err {np.median(err)*100:.1f}%, p90 {np.percentile(err, 90)*100:.1f}%")


def fit_large(system, pid, rows, small, quiet):
    """NCCL's large-message line of `system` (rows from 16 MiB, half),
    kept in LARGE where it is a regime of its own (see the module's doc)."""
    data = [(int(r["world_size"]), int(r["message_bytes"]), float(r["latency_us"]) * 1e-6)
            for r in rows if r["system"] == system and r["implementation"] == "nccl"
            and r["dtype"] == "half" and int(r["message_bytes"]) >= 16 << 20]
    if len(data) < 5:
        return
    n, b, t = (np.array(x, dtype=float) for x in zip(*data))
    bw = link(pid)[1]
    f = lambda x: np.log((x[0] * 1e-6 + b * 2 * (n - 1) / n / (bw * x[1])) / t)
    r = least_squares(f, [50.0, 0.8], bounds=([0, 0.01], [2000, 2.0]))
    kept = r.x[1] > small[2] and r.x[0] > small[0]
    if kept:
        LARGE[system] = tuple(r.x)
    if not quiet:
        err = np.abs(np.expm1(r.fun))
        print(f"{system} nccl large messages: base {r.x[0]:.1f} us, bw eff {r.x[1]:.3f};"
              f" {len(t)} rows, median err {np.median(err)*100:.1f}%"
              f" ({'kept' if kept else 'not a regime of its own: not kept'})")


def fit_gather_scatter(quiet=False):
    """All-gather and reduce-scatter rows together: the same ring steps and
    bytes, one set of constants (the medians printed per op). Returns
    system -> (base_us, per_step_us, bw_eff), the presets' `gather_scatter`
    row (fit_kernels.py writes it)."""
    out = {}
    lines = [l for l in open(ROOT / "data" / "kernels" / "allgather_reducescatter.csv")
             if not l.startswith("#")]
    rows = list(csv.DictReader(lines))
    groups = [(k, None) for k in ["nvlink", "pcie"]] + [(None, s) for s in SYSTEMS]
    for kind, system in groups:
        data = []
        for r in rows:
            pid = SYSTEMS.get(r["system"])
            if pid is None or int(r["buffer_bytes"]) > 64 << 20:
                continue
            if kind and (r["system"] in PER_SYSTEM_ONLY or link(pid)[0] != kind):
                continue
            if system and r["system"] != system:
                continue
            data.append((int(r["world_size"]), int(r["buffer_bytes"]), link(pid)[1],
                         float(r["latency_us"]) * 1e-6, r["op"] == "all_gather"))
        if len(data) < 5:
            continue
        n, b, bw, t, ag = (np.array(x, dtype=float) for x in zip(*data))
        f = lambda x: np.log((x[0] * 1e-6 + x[1] * 1e-6 * (n - 1)
                              + b * (n - 1) / n / (bw * x[2])) / t)
        r = least_squares(f, [5.0, 1.0, 0.5], bounds=([0, 0, 0.01], [100, 50, 2.0]))
        err = np.abs(np.expm1(r.fun))
        if system:
            out[system] = tuple(r.x)
        if quiet:
            continue
        print(f"{kind or system} gather_scatter: base {r.x[0]:.3f} us, per step {r.x[1]:.4f} us, "
              f"bw eff {r.x[2]:.4f}; {len(t)} rows, median err all_gather "
              f"{np.median(err[ag == 1])*100:.1f}%, reduce_scatter {np.median(err[ag == 0])*100:.1f}%")
    return out


if __name__ == "__main__":
    import sys
    if "--gather-scatter" in sys.argv:
        fit_gather_scatter()
    else:
        main()
