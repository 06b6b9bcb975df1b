#!/usr/bin/env python3
"""Write data/runs/aiconfigurator-silicon-vllm-ep.csv: the vLLM rows of
aiconfigurator's measured end-to-end sample that run expert or data
parallelism, for the models decodecalc reads.

A sibling of convert_silicon.py (which converts the plain tensor-parallel
rows into data/runs/aiconfigurator-silicon-vllm.csv); the same source file,
the same provenance and the same assumptions (SILICON_NOTES.md), plus the two
last columns of the runs format for the parallel layout
(`data_parallel_size`, `enable_expert_parallel`; fit/src/runs.rs). No fit
reads the file: tests/tests/suite/expert_parallel.rs predicts it.

Parallel layout: aiconfigurator keeps tp x attention_dp = moe_tp x moe_ep;
its vLLM generator (src/aiconfigurator/generator/rule_plugin/vllm.rule) sets
--tensor-parallel-size to moe_tp x moe_ep / dp, --data-parallel-size to dp
and --enable-expert-parallel when moe_ep > 1. dp is attention_dp_size, or
where that is empty (the 0.12.0 gap-analysis rows) moe_tp x moe_ep / tp.
silicon_concurrency is the client's concurrency over all replicas: where
attention_dp_size is given it is batch_size x dp in every kept row (batch_size
is per replica); the 0.12.0 gap-analysis rows, without attention_dp_size,
record silicon_concurrency = batch_size.

Run (from the repository root; Python 3.9+, standard library only):
    python3 scripts/aiconfigurator/convert_silicon_ep.py \
        --repo /work/.mirror/ai-dynamo+aiconfigurator/repo --commit HEAD [--summary]
"""
from __future__ import annotations

import argparse
import collections
import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import convert_silicon  # noqa: E402  (the sibling: same source, same columns)

SAMPLE_PATH = convert_silicon.SAMPLE_PATH
REPO_URL = convert_silicon.REPO_URL
ROOT = convert_silicon.ROOT
DEFAULT_OUT = ROOT / "data" / "runs" / "aiconfigurator-silicon-vllm-ep.csv"
# The runs format's columns plus its two last, optional ones (fit/src/runs.rs).
COLUMNS = convert_silicon.COLUMNS + ["data_parallel_size", "enable_expert_parallel"]
# (model_path, precision) -> the model decodecalc reads (a preset or a Hub id
# of its real-config corpus, data/hub/), a label, and the checkpoint read.
MAPPED = {
    ("Qwen/Qwen3-235B-A22B-FP8", "fp8"): dict(
        model="qwen3-235b-a22b-fp8", slug="qwen3-235b-a22b-fp8", label="fp8",
        kv_cache_dtype="fp8", kv_note="generator",
        checkpoint="checkpoint Qwen/Qwen3-235B-A22B-FP8, Qwen's block-wise fp8 release "
        "(read from its config.json); no --quantization"),
    ("MiniMaxAI/MiniMax-M2.5", "fp8"): dict(
        model="MiniMaxAI/MiniMax-M2.5", slug="minimax-m2.5", label="fp8",
        kv_cache_dtype="fp8", kv_note="generator",
        checkpoint="checkpoint MiniMaxAI/MiniMax-M2.5 in its own block-wise fp8 "
        "(precision/gemm/moe quant fp8 = the checkpoint's format); no --quantization"),
    ("MiniMaxAI/MiniMax-M2.5", "fp4"): dict(
        model="nvidia/MiniMax-M2.5-NVFP4", slug="minimax-m2.5", label="nvfp4",
        kv_cache_dtype="fp8", kv_note="modelopt",
        checkpoint="checkpoint read as nvidia/MiniMax-M2.5-NVFP4 (ModelOpt NVFP4): "
        "model_path names the fp8 base, but the same deployments' fp8 rows measure "
        "other figures, so the fp4 rows served another checkpoint, and NVIDIA's "
        "NVFP4 release is the published one; an assumption"),
    ("moonshotai/Kimi-K2.5", "fp4"): dict(
        model="nvidia/Kimi-K2.5-NVFP4", slug="kimi-k2.5", label="nvfp4",
        kv_cache_dtype="fp8", kv_note="modelopt",
        checkpoint="checkpoint read as nvidia/Kimi-K2.5-NVFP4 (ModelOpt NVFP4), as "
        "convert_silicon.py reads the same (model_path, precision) of the "
        "tensor-parallel rows: model_path names the base repo, whose own experts are "
        "int4, and precision fp4 with quant modes nvfp4 is aiconfigurator's mode for an "
        "NVFP4 checkpoint; an assumption. The int4 checkpoint's Marlin experts would "
        "prefill an 8,192-token prompt on 4 B200s in about 0.58 s, where these rows "
        "measure a 0.23 s TTFT at 4 requests"),
}
GPUS = {"h100_sxm": "h100-sxm", "h200_sxm": "h200", "b200_sxm": "b200", "b300_sxm": "b300"}
GPUS_PER_NODE = 8  # HGX H100 / H200 / B200 / B300 servers
RELEASE = re.compile(r"^\d+\.\d+(\.\d+)?$")
IMAGE_RELEASE = re.compile(r"vllm/vllm-openai:v(\d+\.\d+(?:\.\d+)?)")
CONCURRENCY = re.compile(r"silicon_concurrency=(\d+)")
PROMPTS_PER_CONCURRENCY = 50
# aiconfigurator's generated vLLM deployments, as for the plain
# tensor-parallel rows (convert_silicon.py: `agg max_seq_len`, and each
# worker's, each data-parallel rank's, step limits: generator_seqs and
# max_num_batched_tokens = that + isl + 1500). The models' own lengths
# (Kimi-K2.5's 262,144) would not start on 4 B200s.
MODEL_LEN_MARGIN = convert_silicon.GENERATOR_LEN_MARGIN
generator_seqs = convert_silicon.generator_seqs
GENERATOR_MIN_SEQS = convert_silicon.GENERATOR_MIN_SEQS
MAX_PROMPTS = 100_000  # the runs format's bound (serve::MAX_PROMPTS)
GPU_MEMORY_UTILIZATION = "0.9"


def num(s: str) -> int | None:
    s = (s or "").strip()
    return int(float(s)) if s else None


def release_of(row: dict) -> str | None:
    image = IMAGE_RELEASE.search(row["silicon_data_source"])
    version = row["backend_version"].strip()
    if RELEASE.match(version):
        return None if image and image.group(1) != version else version
    return image.group(1) if image else None


def layout(row: dict) -> tuple[int, int, bool] | None:
    """(--tensor-parallel-size, --data-parallel-size, expert parallel)."""
    tp, mtp, mep = num(row["tp_size"]), num(row["moe_tp_size"]), num(row["moe_ep_size"])
    if not (tp and mtp and mep):
        return None
    dp = num(row["attention_dp_size"]) or max(1, (mtp * mep) // tp)
    return (mtp * mep) // dp, dp, mep > 1


def fmt(x: str) -> str:
    return f"{float(x):.4f}"


def figures2(r: dict) -> tuple[str, str]:
    return (f"{float(r['silicon_ttft_ms']):.2f}", f"{float(r['silicon_tpot_ms']):.2f}")


def convert(text: str, commit: str):
    rows = list(csv.DictReader(io.StringIO(text)))
    vllm = [r for r in rows if r["backend"] == "vllm" and r["mode"] == "agg"
            and num(r["pp_size"]) == 1]
    chosen = []
    for r in vllm:
        lay = layout(r)
        if lay is None or (lay[1] == 1 and not lay[2]):
            continue  # plain tensor parallelism: convert_silicon.py's
        chosen.append((r, lay))
    source = f"{REPO_URL}/blob/{commit}/{SAMPLE_PATH}"
    dropped = collections.Counter()
    db_figures = collections.defaultdict(set)
    for r, lay in chosen:
        if "kimi-k2.5-gap-analysis" not in r["silicon_data_source"]:
            db_figures[figures2(r)].add(lay)
    candidates = []
    for r, (tp, dp, ep) in chosen:
        m = MAPPED.get((r["model_path"], r["precision"]))
        release = release_of(r)
        gpu = GPUS.get(r["system"])
        conc = CONCURRENCY.search(r["silicon_data_source"])
        if m is None:
            dropped[f"no model mapping ({r['model_path']}, {r['precision']})"] += 1
        elif release is None:
            dropped["no vLLM release named (nightly image or none)"] += 1
        elif gpu is None:
            dropped[f"no GPU preset ({r['system']})"] += 1
        elif conc is None or (r["attention_dp_size"].strip()
                              and int(conc.group(1)) != num(r["batch_size"]) * dp):
            dropped["silicon_concurrency missing, or not batch_size x attention_dp_size"] += 1
        elif "kimi-k2.5-gap-analysis" in r["silicon_data_source"] and any(
                lay != (tp, dp, ep) for lay in db_figures.get(figures2(r), ())):
            dropped["Kimi gap-analysis row restating a DB measurement (same TTFT and TPOT "
                    "to 2 dp) under another parallel layout"] += 1
        else:
            c = int(conc.group(1))
            isl, osl = num(r["isl"]), num(r["osl"])
            run = (f"aic-{m['slug']}-{gpu}-{m['label']}-tp{tp}-dp{dp}{'-ep' if ep else ''}"
                   f"-v{release}-in{isl}-out{osl}")
            seqs = generator_seqs(num(r["batch_size"]) or 1)
            if seqs != GENERATOR_MIN_SEQS:
                # Another deployment: the generator's max-num-seqs is twice the batch.
                run += f"-seqs{seqs}"
            candidates.append(dict(r=r, m=m, gpu=gpu, tp=tp, dp=dp, ep=ep, release=release,
                                   isl=isl, osl=osl, c=c, run=run, seqs=seqs,
                                   point=f"c{c}-in{isl}-out{osl}"))
    by_point = collections.defaultdict(list)
    for c in candidates:
        by_point[(c["run"], c["point"])].append(c)
    kept = []
    for cs in by_point.values():
        distinct = {}
        for c in sorted(cs, key=lambda c: c["r"]["silicon_data_source"], reverse=True):
            key = (fmt(c["r"]["silicon_ttft_ms"]), fmt(c["r"]["silicon_tpot_ms"]))
            if key in distinct:
                distinct[key][1].append(c["r"]["id"])
                dropped["duplicate: the same measurement in another dump (identical figures)"] += 1
            else:
                distinct[key] = (c, [])
        several = len(distinct) > 1
        for c, dups in distinct.values():
            if several:  # two measurements of one point: both kept, told apart by row id
                c["point"] += f"-{c['r']['id']}"
            kept.append((c, dups))
    kept.sort(key=lambda kc: (kc[0]["run"], kc[0]["c"], kc[0]["point"]))
    return rows, chosen, [row_of(c, dups, source) for c, dups in kept], dropped


def row_of(c: dict, dups: list, source: str) -> dict:
    r, m = c["r"], c["m"]
    gpus = c["tp"] * c["dp"]
    flags = f"--tensor-parallel-size {c['tp']} --data-parallel-size {c['dp']}"
    flags += " --enable-expert-parallel" if c["ep"] else ""
    nodes = (f" {gpus} GPUs: more than one {GPUS_PER_NODE}-GPU server, so part of the "
             f"MoE exchange crossed the network between servers, which decodecalc prices as "
             f"NVLink." if gpus > GPUS_PER_NODE else "")
    notes = (
        f"aiconfigurator silicon_sample.csv row {r['id']} (Apache-2.0); silicon_data_source: "
        f"{r['silicon_data_source']}. {m['checkpoint']}. tp_size {r['tp_size']}, pp_size 1, "
        f"moe_tp_size {r['moe_tp_size']}, moe_ep_size {r['moe_ep_size']}, attention_dp_size "
        f"{r['attention_dp_size'] or 'empty'}: vLLM {flags} (aiconfigurator's vllm.rule).{nodes} "
        f"Release from backend_version {r['backend_version']} (checked against the image tag "
        f"where the source names one). Figures: silicon_ttft_ms -> mean_ttft_ms, silicon_tpot_ms "
        f"-> mean_tpot_ms (4 dp); the source does not say whether they are means or medians. "
        f"max_concurrency = silicon_concurrency, the client's over all {c['dp']} replica(s) "
        f"(batch_size {r['batch_size']}). Not recorded, assumed "
        f"(scripts/aiconfigurator/SILICON_NOTES.md): closed loop, fixed isl/osl with ignore_eos, "
        f"request_rate inf, num_prompts = {PROMPTS_PER_CONCURRENCY} x concurrency (at most "
        f"{MAX_PROMPTS:,}, the runs format's bound); "
        f"gpu_memory_utilization 0.9 (vLLM's default); max_model_len isl + osl + "
        f"{MODEL_LEN_MARGIN}, aiconfigurator's generated deployments' rule (vllm.rule), "
        f"since Kimi-K2.5's own 262,144 would not start on 4 B200s; max_num_seqs "
        f"{c['seqs']} and max_num_batched_tokens {c['seqs'] + c['isl'] + MODEL_LEN_MARGIN} "
        f"(= max_num_seqs + isl + {MODEL_LEN_MARGIN}) per rank, the same rule's step limits.")
    if m.get("kv_cache_dtype"):
        notes += f" {convert_silicon.KV_NOTES[m['kv_note']]}."
    if dups:
        notes += f" The same measurement (identical figures) is also row {', '.join(dups)}."
    out = {k: "" for k in COLUMNS}
    out.update({
        "run": c["run"], "point": c["point"], "vllm_version": c["release"],
        "model": m["model"], "gpu": c["gpu"], "tensor_parallel_size": c["tp"],
        "max_model_len": c["isl"] + c["osl"] + MODEL_LEN_MARGIN,
        "gpu_memory_utilization": GPU_MEMORY_UTILIZATION, "workload": "serve",
        "input_tokens": c["isl"], "output_tokens": c["osl"], "max_concurrency": c["c"],
        "num_prompts": min(PROMPTS_PER_CONCURRENCY * c["c"], MAX_PROMPTS),
        "mean_tpot_ms": fmt(r["silicon_tpot_ms"]), "mean_ttft_ms": fmt(r["silicon_ttft_ms"]),
        "source": source, "notes": notes, "kv_cache_dtype": m.get("kv_cache_dtype", ""),
        "data_parallel_size": c["dp"], "enable_expert_parallel": 1 if c["ep"] else 0,
        "max_num_seqs": c["seqs"],
        "max_num_batched_tokens": c["seqs"] + c["isl"] + MODEL_LEN_MARGIN,
    })
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", required=True)
    p.add_argument("--commit", default="HEAD")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--summary", action="store_true")
    args = p.parse_args()
    git = lambda *a: subprocess.run(["git", "--git-dir", args.repo, *a], check=True,
                                    capture_output=True, text=True).stdout
    if not Path(args.repo, "HEAD").exists():
        git = lambda *a: subprocess.run(["git", "-C", args.repo, *a], check=True,
                                        capture_output=True, text=True).stdout
    commit = git("rev-parse", args.commit).strip()
    rows, chosen, out_rows, dropped = convert(git("show", f"{commit}:{SAMPLE_PATH}"), commit)
    assert len(out_rows) + sum(dropped.values()) == len(chosen), "each row kept or dropped once"
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(out_rows)
    args.out.write_text(buf.getvalue())
    print(f"{args.out}: {len(out_rows)} rows of {len(chosen)} expert/data-parallel agg vLLM "
          f"rows at {commit}", file=sys.stderr)
    if args.summary:
        print("| dropped because | rows |\n|---|---:|")
        for reason, n in sorted(dropped.items(), key=lambda kv: -kv[1]):
            print(f"| {reason} | {n} |")
        groups = collections.Counter()
        runs = collections.defaultdict(set)
        for r in out_rows:
            k = (r["model"], r["gpu"], r["vllm_version"], r["tensor_parallel_size"],
                 r["data_parallel_size"], r["enable_expert_parallel"])
            groups[k] += 1
            runs[k].add(r["run"])
        print("\n| model | gpu | release | TP | DP | EP | runs | points |\n"
              "|---|---|---|---:|---:|---|---:|---:|")
        for k, n in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
            print(f"| {' | '.join(map(str, k))} | {len(runs[k])} | {n} |")


if __name__ == "__main__":
    main()
