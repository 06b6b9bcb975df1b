#!/usr/bin/env python3
"""Regenerate data/runs/aiconfigurator-silicon-vllm.csv from aiconfigurator's
measured end-to-end sample.

Reads `aic-core/src/aiconfigurator_core/systems/silicon_sample.csv` of
ai-dynamo/aiconfigurator (Apache-2.0) at one commit, keeps the vLLM rows that
decodecalc's runs format can describe (aggregated serving, one pipeline stage,
plain tensor parallelism, a named vLLM release, a model with a preset) and
writes them as `data/runs/*.csv` rows (columns and rules: core/src/runs.rs,
data/README.md section runs/*.csv). Only measured numbers are taken from the
source; why each column holds what it holds is in
scripts/aiconfigurator/SILICON_NOTES.md.

Run (from the repository root; Python 3.9+, standard library only):

    python3 scripts/aiconfigurator/convert_silicon.py \
        --repo /work/.mirror/ai-dynamo+aiconfigurator/repo --commit HEAD

  --repo    a clone or bare git dir of ai-dynamo/aiconfigurator; the file is
            read with `git show <commit>:<path>`, and the commit is resolved to
            its full hash for the `source` URL.
  --csv     instead of --repo: a copy of silicon_sample.csv on disk; then
            --commit must be the full hash it was taken from.
  --out     default data/runs/aiconfigurator-silicon-vllm.csv (next to this
            repository's data/).
  --summary print the kept/dropped counts (the tables of SILICON_NOTES.md).

The output is deterministic: rows sorted by run, then concurrency.
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

SAMPLE_PATH = "aic-core/src/aiconfigurator_core/systems/silicon_sample.csv"
REPO_URL = "https://github.com/ai-dynamo/aiconfigurator"
ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "data" / "runs" / "aiconfigurator-silicon-vllm.csv"

COLUMNS = [
    "run", "point", "vllm_version", "model", "gpu", "tensor_parallel_size",
    "max_model_len", "gpu_memory_utilization", "workload", "input_tokens",
    "output_tokens", "max_concurrency", "num_prompts", "output_tok_s",
    "mean_tpot_ms", "median_itl_ms", "mean_ttft_ms", "median_ttft_ms",
    "hf_overrides", "request_rate", "quantization", "source", "notes",
    "kv_cache_dtype", "speculative_config", "mean_acceptance_length",
    "max_num_seqs", "max_num_batched_tokens", "available_kv_gib",
]

# The five models in scope and, for the others, the architecture that keeps
# them out (decodecalc has no preset or layer model for it).
IN_SCOPE = {
    "Qwen/Qwen3-32B",
    "meta-llama/Llama-3.1-70B",
    "nvidia/Llama-3.1-8B-Instruct-FP8",
    "Qwen/Qwen3-235B-A22B-FP8",
    "openai/gpt-oss-120b",
    "MiniMaxAI/MiniMax-M2.5",
    "moonshotai/Kimi-K2.5",
}
OUT_OF_SCOPE_ARCH: dict[str, str] = {}

# (model_path, precision) -> preset, label for the run id, whether MoE, and
# what the row's checkpoint is. Precision "" is aiconfigurator's default for
# the checkpoint (its own dtype). `preset` is what the runs file's model
# column holds: a preset id, or a Hugging Face repo id whose config.json the
# CLI embeds (data/hub/, sources in SOURCES.md there); `slug` names the run
# (default: the preset).
MAPPED = {
    ("Qwen/Qwen3-32B", ""): dict(
        preset="qwen3-32b", label="bf16", moe=False,
        checkpoint="checkpoint Qwen/Qwen3-32B in its own bf16 (precision, "
        "gemm_quant_mode and moe_quant_mode empty: aiconfigurator's default "
        "for the checkpoint); no --quantization",
    ),
    ("Qwen/Qwen3-235B-A22B-FP8", "fp8"): dict(
        preset="qwen3-235b-a22b-fp8", label="fp8", moe=True,
        kv_cache_dtype="fp8", kv_note="generator",
        checkpoint="checkpoint Qwen/Qwen3-235B-A22B-FP8, Qwen's block-wise "
        "fp8 release (precision/gemm/moe quant fp8 = the checkpoint's own "
        "format, read from its config.json); no --quantization",
    ),
    ("openai/gpt-oss-120b", "fp4"): dict(
        preset="gpt-oss-120b", label="fp4", moe=True,
        checkpoint="checkpoint openai/gpt-oss-120b in its own MXFP4 format "
        "(the source's precision fp4 and quant modes nvfp4 are "
        "aiconfigurator's modelling labels, also given on Hopper, which has "
        "no NVFP4; not another checkpoint); no --quantization",
    ),
    ("MiniMaxAI/MiniMax-M2.5", "fp8"): dict(
        preset="MiniMaxAI/MiniMax-M2.5", slug="minimax-m2.5", label="fp8", moe=True,
        kv_cache_dtype="fp8", kv_note="generator",
        checkpoint="checkpoint MiniMaxAI/MiniMax-M2.5 in its own block-wise fp8 "
        "(quant_method fp8, 128x128 blocks, dynamic activations; precision/gemm/"
        "moe quant fp8 = the checkpoint's format; config data/hub/"
        "MiniMaxAI--MiniMax-M2.5.json); no --quantization",
    ),
    ("MiniMaxAI/MiniMax-M2.5", "fp4"): dict(
        preset="nvidia/MiniMax-M2.5-NVFP4", slug="minimax-m2.5-nvfp4", label="fp4", moe=True,
        kv_cache_dtype="fp8", kv_note="modelopt",
        checkpoint="checkpoint read as nvidia/MiniMax-M2.5-NVFP4, NVIDIA's ModelOpt "
        "NVFP4 release of MiniMax-M2.5 (model_path names the base repo; precision fp4 "
        "with gemm/moe quant nvfp4 is aiconfigurator's mode for an NVFP4 checkpoint "
        "and vLLM has no --quantization that makes NVFP4 of an fp8 checkpoint; "
        "attention and router unquantized per its ignore list; config data/hub/"
        "nvidia--MiniMax-M2.5-NVFP4.json); no --quantization",
    ),
    ("moonshotai/Kimi-K2.5", "int4"): dict(
        preset="moonshotai/Kimi-K2.5", slug="kimi-k2.5", label="int4", moe=True,
        checkpoint="checkpoint moonshotai/Kimi-K2.5 in its own format (compressed-"
        "tensors pack-quantized int4 routed experts, group 32; attention, shared "
        "expert and dense MLP bf16; precision int4 / int4_wo = that format; config "
        "data/hub/moonshotai--Kimi-K2.5.json); no --quantization",
    ),
    ("moonshotai/Kimi-K2.5", "fp4"): dict(
        preset="nvidia/Kimi-K2.5-NVFP4", slug="kimi-k2.5-nvfp4", label="fp4", moe=True,
        kv_cache_dtype="fp8", kv_note="modelopt",
        checkpoint="checkpoint read as nvidia/Kimi-K2.5-NVFP4, NVIDIA's ModelOpt "
        "NVFP4 release of Kimi-K2.5 (model_path names the base repo, whose own "
        "experts are int4; precision fp4 with gemm/moe quant nvfp4 is "
        "aiconfigurator's mode for an NVFP4 checkpoint; attention unquantized per "
        "its ignore list; config data/hub/nvidia--Kimi-K2.5-NVFP4.json); no "
        "--quantization",
    ),
}
# (model_path, precision) in scope but not mapped, with why.
UNMAPPED = {
    ("nvidia/Llama-3.1-8B-Instruct-FP8", "fp8"):
        "no preset: the ModelOpt FP8 checkpoint nvidia/Llama-3.1-8B-Instruct-FP8 "
        "(its real config.json / hf_quant_config.json not found)",
    ("Qwen/Qwen3-32B", "fp8"):
        "checkpoint not stated (Qwen/Qwen3-32B with fp8: Qwen3-32B-FP8 or "
        "--quantization fp8) and no silicon_concurrency (Dynamo deployment, "
        "client concurrency unknown)",
}

GPUS = {"h100_sxm": "h100-sxm", "h200_sxm": "h200", "b200_sxm": "b200", "b300_sxm": "b300"}

RELEASE = re.compile(r"^\d+\.\d+(\.\d+)?$")
IMAGE_RELEASE = re.compile(r"vllm/vllm-openai:v(\d+\.\d+(?:\.\d+)?)")
CONCURRENCY = re.compile(r"silicon_concurrency=(\d+)")

# A ModelOpt checkpoint's KV cache: its quantization_config has quant_method
# "modelopt" and kv_cache_scheme fp8 (8-bit float, static), and vLLM turns
# `--kv-cache-dtype auto` into the dtype the checkpoint names when it builds
# the cache config (vLLM 0.32 vllm/engine/arg_utils.py calling
# resolve_kv_cache_dtype_string of vllm/utils/torch_utils.py; since
# vllm-project/vllm PR #30785, merged 2025-12-16, before every release these
# rows name). decodecalc reads `auto` as the model dtype, so the column says
# what vLLM resolved; the notes say so.
MODELOPT_KV_NOTE = (
    "kv_cache_dtype fp8: not a flag the row records but what vLLM's `auto` "
    "resolves to for this ModelOpt checkpoint (quant_method modelopt, "
    "kv_cache_scheme 8-bit float; vLLM vllm/engine/arg_utils.py with "
    "resolve_kv_cache_dtype_string in vllm/utils/torch_utils.py, since PR #30785, "
    "2025-12-16)"
)

# The KV cache of the deployment aiconfigurator's generator writes for a
# checkpoint quantized to fp8 (per-tensor or block-wise) or NVFP4: its model
# layer infers the quant modes from the checkpoint's own quantization config
# and for those three gives the KV cache (and attention) fp8
# (aic-core/src/aiconfigurator_core/sdk/models/helpers.py,
# _infer_quant_modes_from_raw_config); the generator passes that mode as the
# worker's kv_cache_dtype (src/aiconfigurator/generator/module_bridge.py), and
# for vLLM as --kv-cache-dtype (generator/config/backend_config_mapping.yaml,
# backend_templates/vllm/cli_args.*.j2). bf16, MXFP4 (gpt-oss) and int4
# (Kimi-K2.5) checkpoints keep vLLM's auto, their model dtype.
GENERATOR_KV_NOTE = (
    "kv_cache_dtype fp8: not a field the row records but what aiconfigurator's "
    "generator writes for an fp8 or NVFP4 checkpoint (--kv-cache-dtype from the "
    "fp8 KV mode its model infers from the checkpoint's quantization config: "
    "aic-core/src/aiconfigurator_core/sdk/models/helpers.py, generator/"
    "module_bridge.py, generator/config/backend_config_mapping.yaml)"
)
KV_NOTES = {"modelopt": MODELOPT_KV_NOTE, "generator": GENERATOR_KV_NOTE}

# The engine limits of the deployment aiconfigurator's generator writes for
# an aggregated vLLM worker at batch size B, input isl and output osl, by its
# default rules (src/aiconfigurator/generator/rule_plugin/vllm.rule, applied
# in order: `agg_decode max_batch_size` = 512 below a batch of 512, else
# twice it; then `agg max_num_tokens` = that + isl + 1500 and `agg
# max_seq_len` = isl + osl + 1500; mapped to --max-num-seqs,
# --max-num-batched-tokens and --max-model-len by
# generator/config/backend_config_mapping.yaml). The silicon rows measure the
# configurations the generator enumerates for real-silicon sweeps
# (generator/enumerate.py, real_silicon_sweep), so these are taken for every
# row: vLLM's defaults (8,192 batched tokens on these GPUs) would pack up to
# eight 1,024-token prompts into one step where the deployment packs one or
# two, which sets TTFT and the prefill stalls in TPOT. (Its opt-in
# `rule=benchmark` keeps max-num-seqs at the batch: the same step budget
# within 500 tokens. MiniMax-M2.5 fp8 on one B300 would not even start at
# vLLM's default max_model_len: 22.8 GiB of KV against 46.5 GiB for 196,608
# tokens.)
GENERATOR_LEN_MARGIN = 1500
GENERATOR_MIN_SEQS = 512


def generator_seqs(batch: int) -> int:
    """--max-num-seqs of the generator's default vllm.rule for an agg batch."""
    return GENERATOR_MIN_SEQS if batch < GENERATOR_MIN_SEQS else 2 * batch

# Assumptions for what no row records (SILICON_NOTES.md says why).
PROMPTS_PER_CONCURRENCY = 50
GPU_MEMORY_UTILIZATION = "0.9"  # vLLM's default for 0.11.2-0.18.0


def read_sample(args) -> tuple[str, str]:
    """The CSV text and the full commit hash."""
    if args.repo:
        commit = subprocess.run(
            ["git", "-C", args.repo, "rev-parse", args.commit],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
        text = subprocess.run(
            ["git", "-C", args.repo, "show", f"{commit}:{SAMPLE_PATH}"],
            check=True, capture_output=True, text=True,
        ).stdout
        return text, commit
    if not re.fullmatch(r"[0-9a-f]{40}", args.commit or ""):
        sys.exit("--csv needs --commit <full 40-hex hash of the file's commit>")
    return Path(args.csv).read_text(), args.commit


def num(s: str) -> int | None:
    s = (s or "").strip()
    return int(s) if s else None


def release_of(row: dict) -> str | None:
    """The vLLM release the row ran, from backend_version, else from an image
    tag in silicon_data_source; None if neither names one or they disagree."""
    image = IMAGE_RELEASE.search(row["silicon_data_source"])
    version = row["backend_version"].strip()
    if RELEASE.match(version):
        if image and image.group(1) != version:
            return None
        return version
    return image.group(1) if image else None


def attention_dp(row: dict, moe: bool) -> int:
    """Attention data parallelism: the column, else for an MoE row
    moe_tp x moe_ep / tp (aiconfigurator's parallel layout keeps
    tp x dp = moe_tp x moe_ep); a dense row without it has none."""
    dp = num(row["attention_dp_size"])
    if dp is not None:
        return dp
    if moe:
        tp, mtp, mep = num(row["tp_size"]), num(row["moe_tp_size"]), num(row["moe_ep_size"])
        if tp and mtp and mep:
            return (mtp * mep) // tp
    return 1


def fmt(x: str) -> str:
    return f"{float(x):.4f}"


MEASURED = re.compile(r"measured=([0-9T:.Z-]+)")
DUMP = re.compile(r"(?:source_file=|db-dump/)(\d{4}-\d{2}-\d{2})")


def dump_of(c: dict) -> str:
    m = MEASURED.search(c["r"]["silicon_data_source"])
    d = DUMP.search(c["r"]["silicon_data_source"])
    return f"measured {m.group(1)[:10] if m else 'not recorded'}, dump {d.group(1) if d else 'not named'}"


def newest(c: dict) -> tuple[str, str, str]:
    """Sort key of a measurement: its date, its dump's date, its source."""
    src = c["r"]["silicon_data_source"]
    m = MEASURED.search(src)
    d = DUMP.search(src)
    return (m.group(1)[:10] if m else "", d.group(1) if d else "", src)


def figures_of(c: dict) -> tuple[str, str]:
    return fmt(c["r"]["silicon_ttft_ms"]), fmt(c["r"]["silicon_tpot_ms"])


def convert(text: str, commit: str):
    rows = list(csv.DictReader(io.StringIO(text)))
    vllm = [r for r in rows if r["backend"] == "vllm"]
    source = f"{REPO_URL}/blob/{commit}/{SAMPLE_PATH}"
    dropped = collections.Counter()
    dropped_detail = collections.Counter()
    candidates = []
    for r in vllm:
        model = r["model_path"]
        if model not in IN_SCOPE:
            arch = OUT_OF_SCOPE_ARCH.get(model, "unknown architecture")
            dropped[f"model out of scope: {arch} ({model})"] += 1
            continue
        key = (model, r["precision"])
        moe = MAPPED.get(key, {}).get(
            "moe", any(x in model for x in ("235B", "gpt-oss", "MiniMax", "Kimi")))
        if r["mode"] != "agg":
            dropped["disaggregated serving (mode disagg)"] += 1
            dropped_detail[(model, r["system"], r["precision"], "disagg")] += 1
            continue
        if num(r["pp_size"]) != 1:
            dropped["pipeline parallelism (pp_size != 1)"] += 1
            continue
        if attention_dp(r, moe) > 1:
            dropped["attention data parallelism (attention_dp_size > 1, or moe_tp x moe_ep > tp)"] += 1
            dropped_detail[(model, r["system"], r["precision"], "DP")] += 1
            continue
        if (num(r["moe_ep_size"]) or 0) > 1:
            dropped["expert parallelism (moe_ep_size > 1)"] += 1
            dropped_detail[(model, r["system"], r["precision"], "EP")] += 1
            continue
        release = release_of(r)
        if release is None:
            dropped["no vLLM release named (backend_version empty and no vllm-openai image tag in silicon_data_source)"] += 1
            dropped_detail[(model, r["system"], r["precision"], "release")] += 1
            continue
        if key in UNMAPPED:
            dropped[UNMAPPED[key]] += 1
            dropped_detail[(model, r["system"], r["precision"], "preset")] += 1
            continue
        m = MAPPED[key]
        gpu = GPUS.get(r["system"])
        if gpu is None:
            dropped[f"no GPU preset ({r['system']})"] += 1
            continue
        conc = CONCURRENCY.search(r["silicon_data_source"])
        batch = num(r["batch_size"])
        if conc is None or batch is None or int(conc.group(1)) != batch:
            dropped["client concurrency not recorded or not batch_size"] += 1
            continue
        tp = num(r["tp_size"])
        if m["moe"] and num(r["moe_tp_size"]) != tp:
            dropped["MoE tensor parallelism differs from attention's"] += 1
            continue
        isl, osl = num(r["isl"]), num(r["osl"])
        run = f"aic-{m.get('slug', m['preset'])}-{gpu}-{m['label']}-tp{tp}-v{release}-in{isl}-out{osl}"
        if generator_seqs(batch) != GENERATOR_MIN_SEQS:
            # Another deployment: the generator's max-num-seqs is twice the batch.
            run += f"-seqs{generator_seqs(batch)}"
        point = f"c{batch}-in{isl}-out{osl}"
        candidates.append(dict(r=r, m=m, gpu=gpu, tp=tp, release=release,
                               isl=isl, osl=osl, batch=batch, run=run, point=point))

    # One point measured more than once: the same measurement in two dumps
    # (2026-03-25.csv and 2026-04-06.csv, identical figures), or the same
    # deployment measured again (another dump, workflow run or gap-analysis
    # file, figures a few percent apart). The newest measurement is kept (by
    # `measured=`, then the dump's date); the others' ids, and their figures
    # where they differ, go in its notes.
    by_point = collections.defaultdict(list)
    for c in candidates:
        by_point[(c["run"], c["point"])].append(c)
    kept = []
    for key, cs in by_point.items():
        if len(cs) == 1:
            kept.append((cs[0], []))
            continue
        cs.sort(key=newest, reverse=True)
        first = figures_of(cs[0])
        others = []
        for c in cs[1:]:
            if figures_of(c) == first:
                others.append(c["r"]["id"])
                dropped["duplicate: the same measurement in an earlier dump (identical figures)"] += 1
            else:
                ttft, tpot = figures_of(c)
                others.append(f"{c['r']['id']} (TTFT {ttft} ms, TPOT {tpot} ms, {dump_of(c)})")
                dropped["another measurement of the same point, older (figures in the kept row's notes)"] += 1
        kept.append((cs[0], others))

    kept.sort(key=lambda kc: (kc[0]["run"], kc[0]["batch"]))
    out_rows = []
    for c, dups in kept:
        r, m = c["r"], c["m"]
        parallel = f"tp_size {c['tp']}, pp_size 1"
        if m["moe"]:
            parallel += f", moe_tp_size {r['moe_tp_size']}, moe_ep_size {r['moe_ep_size']}"
        parallel += f", attention_dp_size {r['attention_dp_size'] or 'empty (= 1)'}: plain vLLM tensor parallelism"
        release_note = (
            f"release from backend_version {r['backend_version']}"
            if r["backend_version"].strip() else "release from the image tag in silicon_data_source"
        )
        if "aic-auto-gap-analysis" in r["silicon_data_source"]:
            release_note += (
                " (collection path .../vllm/0.12.0/; sibling rows of that collection name image "
                "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0, so the server may have been a Dynamo "
                "frontend with a vLLM 0.12.0 worker)"
            )
        max_model_len = c["isl"] + c["osl"] + GENERATOR_LEN_MARGIN
        seqs = generator_seqs(c["batch"])
        max_batched = seqs + c["isl"] + GENERATOR_LEN_MARGIN
        notes = (
            f"aiconfigurator silicon_sample.csv row {r['id']} (Apache-2.0); silicon_data_source: "
            f"{r['silicon_data_source']}. {m['checkpoint']}. {parallel}. {release_note}. "
            f"Figures: silicon_ttft_ms -> mean_ttft_ms, silicon_tpot_ms -> mean_tpot_ms (4 dp); the "
            f"source does not say whether they are means or medians. Not recorded, assumed "
            f"(scripts/aiconfigurator/SILICON_NOTES.md): closed loop at max_concurrency = batch_size "
            f"= silicon_concurrency, fixed isl/osl with ignore_eos, request_rate inf, num_prompts = "
            f"{PROMPTS_PER_CONCURRENCY} x concurrency (aiconfigurator's generated aiperf job); "
            f"gpu_memory_utilization 0.9 is vLLM {c['release']}'s default; max_num_seqs "
            f"{seqs}, max_num_batched_tokens {max_batched} = max_num_seqs + isl + "
            f"{GENERATOR_LEN_MARGIN} and max_model_len {max_model_len} = isl + osl + "
            f"{GENERATOR_LEN_MARGIN}, the engine limits aiconfigurator's generator writes for an "
            f"aggregated vLLM worker at this batch size (generator/rule_plugin/vllm.rule)."
        )
        if m.get("kv_cache_dtype"):
            notes += f" {KV_NOTES[m['kv_note']]}."
        if dups:
            notes += (f" The same point is also row {'; '.join(dups)} (figures given where they "
                      f"differ from this row's; this row is the newest measurement).")
        out_rows.append({
            "run": c["run"], "point": c["point"], "vllm_version": c["release"],
            "model": m["preset"], "gpu": c["gpu"], "tensor_parallel_size": c["tp"],
            "max_model_len": max_model_len, "gpu_memory_utilization": GPU_MEMORY_UTILIZATION,
            "workload": "serve", "input_tokens": c["isl"], "output_tokens": c["osl"],
            "max_concurrency": c["batch"],
            "num_prompts": PROMPTS_PER_CONCURRENCY * c["batch"],
            "output_tok_s": "", "mean_tpot_ms": fmt(r["silicon_tpot_ms"]),
            "median_itl_ms": "", "mean_ttft_ms": fmt(r["silicon_ttft_ms"]),
            "median_ttft_ms": "", "hf_overrides": "", "request_rate": "",
            "quantization": "", "source": source, "notes": notes,
            "kv_cache_dtype": m.get("kv_cache_dtype", ""),
            "max_num_seqs": seqs, "max_num_batched_tokens": max_batched,
        })
    return rows, vllm, out_rows, dropped, dropped_detail


def write(out_rows, path: Path):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(out_rows)
    path.write_text(buf.getvalue())


def summary(rows, vllm, out_rows, dropped, detail):
    print(f"rows in file: {len(rows)}; backend vllm: {len(vllm)}; kept: {len(out_rows)}")
    print("\n| dropped because | rows |\n|---|---:|")
    for reason, n in sorted(dropped.items(), key=lambda kv: -kv[1]):
        print(f"| {reason} | {n} |")
    print(f"| total dropped | {sum(dropped.values())} |")
    print("\n| in-scope drops: model, system, precision, reason | rows |\n|---|---:|")
    for k, n in sorted(detail.items()):
        print(f"| {' / '.join(x or '(empty)' for x in k)} | {n} |")
    groups = collections.Counter()
    runs = collections.defaultdict(set)
    for r in out_rows:
        label = r["run"].split(f"-{r['gpu']}-", 1)[1].split("-tp", 1)[0]
        k = (r["model"], r["gpu"], label, r["vllm_version"])
        groups[k] += 1
        runs[k].add(r["run"])
    print("\n| model | gpu | precision | release | runs | points |\n|---|---|---|---|---:|---:|")
    for k, n in sorted(groups.items()):
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {len(runs[k])} | {n} |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo")
    p.add_argument("--csv")
    p.add_argument("--commit", default="HEAD")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--summary", action="store_true")
    args = p.parse_args()
    if bool(args.repo) == bool(args.csv):
        sys.exit("give one of --repo or --csv")
    text, commit = read_sample(args)
    rows, vllm, out_rows, dropped, detail = convert(text, commit)
    assert len(out_rows) + sum(dropped.values()) == len(vllm), "every vllm row is kept or dropped once"
    write(out_rows, args.out)
    print(f"{args.out}: {len(out_rows)} rows from {len(vllm)} vllm rows at {commit}", file=sys.stderr)
    if args.summary:
        summary(rows, vllm, out_rows, dropped, detail)


if __name__ == "__main__":
    main()
