#!/usr/bin/env python3
"""Convert measured vLLM kernel latency tables into compact CSV data for decodecalc.

What it reads
    The measured per-kernel latency tables (parquet) of the Apache-2.0 project
    ai-dynamo/aiconfigurator (https://github.com/ai-dynamo/aiconfigurator), at
        aic-core/src/aiconfigurator_core/systems/data/<system>/<family>/vllm/<version>/<table>.parquet
        aic-core/src/aiconfigurator_core/systems/data/<system>/comm/nccl/<nccl version>/nccl_perf.parquet
    plus the `reuse.yaml` files of those version folders (a folder whose
    reuse.yaml names a table it does not hold itself takes that table from the
    `from_version` folder).  Only measured numbers are converted; no code or
    prose of that repository is copied.

    For every system the newest vLLM version folder that provides the table
    (natively or through reuse.yaml) is used; the `vllm_version` column holds
    the version the numbers were measured with (the folder the parquet file
    was read from).  For NCCL the newest NCCL version folder is used.

What it writes (into <repository root>/data/kernels/, two levels above this
script, or into --out)
    gemm.csv, allreduce.csv, allgather_reducescatter.csv, generation_attention.csv, context_attention.csv,
    moe.csv, gdn.csv (mamba2.csv only if vLLM mamba2 tables exist).  Each file
    starts with '#' comment lines (source, commit, licence, the exact source
    paths read, the columns and their units, the subsampling applied), then
    one CSV header row, then the rows.  Latencies are converted from ms to
    microseconds and written with at least 4 significant digits.
    data/kernels/README.md is written by hand, not by this script.

How to run
    pip install pyarrow pandas
    python3 scripts/aiconfigurator/convert_kernels.py SOURCE COMMIT [--out DIR]

    SOURCE is a checkout of ai-dynamo/aiconfigurator or a bare git directory
    of it; COMMIT is the commit to read (a full or abbreviated hash, or a ref).
    When SOURCE is a git directory (bare or not) the files are read from the
    git objects of COMMIT, so the work tree state does not matter.  When it is
    a plain directory without git metadata the files are read from disk and
    COMMIT is only recorded.

    Example:
    python3 scripts/aiconfigurator/convert_kernels.py \\
        /work/.mirror/ai-dynamo+aiconfigurator/repo 095f58a51c4ca8e61b66ec108d86f223f8d559ce
"""

import argparse
import io
import math
import os
import re
import subprocess
import sys

try:
    import pandas as pd
    import pyarrow  # noqa: F401  (pandas' parquet engine)
except ImportError:  # pragma: no cover
    sys.exit("needs pyarrow and pandas: pip install pyarrow pandas")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import moe_routing  # noqa: E402  (the touched_experts column of moe.csv)

REPO_URL = "https://github.com/ai-dynamo/aiconfigurator"
LICENSE = "Apache-2.0"
DATA_ROOT = "aic-core/src/aiconfigurator_core/systems/data"
CONVERTER = "scripts/aiconfigurator/convert_kernels.py"

SYSTEMS = [
    "a100_sxm", "h100_sxm", "h200_sxm", "b200_sxm", "b300_sxm",
    "gb200", "gb300", "l40s", "rtx_pro_6000_server",
]

# ---------------------------------------------------------------- selections
# GEMM: m (token rows) kept, and the (n, k) weight shapes kept.  The source
# grid has n, k in {32 .. 16384, 51200, 65536}; 14336 / 28672 are not in it,
# so the nearest grid shapes stand in for those model dimensions.
GEMM_M = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
GEMM_SHAPES = [  # (n, k)
    (1024, 1024), (2048, 2048), (4096, 4096), (8192, 8192), (16384, 16384),
    (1024, 4096),                   # small n (e.g. a KV projection slice)
    (6144, 4096),                   # Llama-3.1-8B / Qwen3-8B-like qkv
    (12288, 4096), (16384, 4096),   # gate_up-like (28672 not in grid)
    (4096, 12288),                  # down-like (14336 not in grid)
    (65536, 4096),                  # lm_head-like
    (10240, 5120), (51200, 5120), (5120, 8192),   # Qwen3-32B qkv, gate_up, o_proj
    (10240, 8192), (8192, 3584),    # Llama-3.1-70B qkv; down at TP8
]

# Attention head configurations kept: (num_heads, num_kv_heads, head_dim, window).
# GQA-8 with 128-dim heads at kv heads 8/4/2/1 is Llama-3.1-70B / Qwen3-32B at
# TP 1/2/4/8 (32/4 is also Qwen3-30B-A3B at TP1); 32/8 is Llama-3.1-8B /
# Qwen3-8B / Mistral-7B at TP1; 64/8/64 is gpt-oss (full-attention layers
# window 0, sliding-window layers window 128).
ATTN_HEADS = [
    (64, 8, 128, 0), (32, 4, 128, 0), (16, 2, 128, 0), (8, 1, 128, 0),
    (32, 8, 128, 0), (64, 8, 64, 0), (64, 8, 64, 128),
]
GEN_BATCH = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
GEN_KV_LEN = [256, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]
CTX_HEADS = ATTN_HEADS
CTX_BATCH = [1, 4, 16, 64, 256]
CTX_SEQ = [16, 128, 512, 1024, 2048, 4096, 8192, 16384]

# MoE model shapes (hidden_size, inter_size, topk, num_experts) kept.
MOE_SHAPES = {
    (2048, 768, 8, 128): "Qwen3-30B-A3B",
    (4096, 1536, 8, 128): "Qwen3-235B-A22B",
    (2880, 2880, 4, 128): "gpt-oss-120b",
    (2880, 2880, 4, 32): "gpt-oss-20b",
    (7168, 2048, 8, 256): "DeepSeek-V3/R1",
    (4096, 14336, 2, 8): "Mixtral-8x7B",
    (4096, 1024, 10, 512): "Qwen3.5-397B-A17B",
    (3072, 1536, 8, 256): "MiniMax-M2/M2.5",
    (7168, 2048, 8, 384): "Kimi-K2/K2.5",
}
MOE_TOKENS = [1 << i for i in range(14)]   # 1 .. 8192
MOE_PAR = [(1, 1), (8, 1)]                 # (moe_tp, moe_ep)
MOE_DIST = ["balanced", "power_law_1.01", "power_law_1.2"]
# Weight-only int4 experts (vLLM's Marlin MoE: compressed-tensors WNA16, GPTQ,
# AWQ; Kimi-K2.5's own checkpoint) are taken from one pinned release per
# system, not the newest folder: from 0.18.0 on the source's int4_wo rows
# time another kernel (kernel_source vllm_marlin_int4_moe), 1.5-8.6x slower
# (median 2.8x) than 0.14.0's vllm_marlin_moe on the same rows of the kept
# shapes on the H200 (DeepSeek-V3's shape, moe_tp 8, 64 tokens, power law
# 1.01: 823 against 223 us); at that size Kimi-K2.5's 60 MoE layers alone
# would take 49 ms, more than the whole 31 ms step measured at 64 requests
# in the vLLM 0.16.0 int4 runs on the H200
# (data/runs/aiconfigurator-silicon-vllm.csv).
# 0.14.0 is the measured release nearest those runs; only the H200 has it.
MOE_INT4_PINNED = {"h200_sxm": "0.14.0"}
# Elsewhere the newest folder's int4_wo rows are kept unless they time that
# slower kernel: the 0.24.0 folders time Kimi-K2.5's shape (7168/2048/8/384)
# with the compressed-tensors WNA16 Marlin experts (kernel_source
# vllm_compressedtensorswna16marlinmoe_marlin_marlinexperts), 9-17% slower
# than 0.14.0's vllm_marlin_moe on the H200 (64 tokens, power law 1.01:
# 1,837 against 1,684 us at moe_tp 1, 326 against 279 us at moe_tp 8), not
# 2.8x. This gives the Blackwell GPUs an int4 table.
MOE_INT4_SLOW_KERNEL = "vllm_marlin_int4_moe"

# GDN (gated delta net linear attention of Qwen3.5; Qwen3-Next-80B-A3B has the
# same layer shape as Qwen3.5-35B-A3B): (model, per-GPU num_k_heads) kept.
GDN_CONFIGS = [("Qwen3.5-35B-A3B", 16), ("Qwen3.5-35B-A3B", 4),
               ("Qwen3.5-397B-A17B", 16)]
GDN_GEN_BATCH = [1, 4, 16, 64, 256, 1024]
GDN_CTX_BATCH = [1, 8, 64]
GDN_CTX_SEQ = [16, 256, 2048, 8192, 32768]

NCCL_AR_DTYPES = ["half", "int8"]   # NCCL all_reduce dtypes kept (all the source has)
ELEM_BYTES = {"bfloat16": 2, "half": 2, "float16": 2, "fp16": 2, "float32": 4,
              "int8": 1, "fp8": 1}


# ---------------------------------------------------------------- source access
class Source:
    """Reads files of the aiconfigurator repository from git objects or disk."""

    def __init__(self, path, commit):
        self.path = path
        self.git = False
        if self._is_git_root(path):
            r = subprocess.run(["git", "-C", path, "rev-parse", "--verify",
                                commit + "^{commit}"], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"commit {commit!r} not found in {path}: {r.stderr.strip()}")
            self.commit = r.stdout.strip()
            self.git = True
            out = subprocess.run(["git", "-C", path, "ls-tree", "-r", "--name-only",
                                  self.commit, DATA_ROOT + "/"],
                                 capture_output=True, text=True, check=True).stdout
            self.files = set(out.split("\n")) - {""}
        else:
            self.commit = commit
            self.files = set()
            base = os.path.join(path, DATA_ROOT)
            for root, _dirs, names in os.walk(base):
                for n in names:
                    full = os.path.join(root, n)
                    self.files.add(os.path.relpath(full, path).replace(os.sep, "/"))
            print(f"warning: {path} is not a git directory; reading the files on "
                  f"disk and recording commit {commit} unverified", file=sys.stderr)

    @staticmethod
    def _is_git_root(path):
        """True for a bare git dir or the top of a work tree (not a plain
        directory that merely sits inside some other repository)."""
        def git(*a):
            r = subprocess.run(["git", "-C", path, *a], capture_output=True, text=True)
            return r.stdout.strip() if r.returncode == 0 else None
        if git("rev-parse", "--is-bare-repository") == "true":
            return True
        top = git("rev-parse", "--show-toplevel")
        return bool(top) and os.path.realpath(top) == os.path.realpath(path)

    def read(self, rel):
        if self.git:
            return subprocess.run(["git", "-C", self.path, "cat-file", "blob",
                                   f"{self.commit}:{rel}"],
                                  capture_output=True, check=True).stdout
        with open(os.path.join(self.path, rel), "rb") as f:
            return f.read()

    def subdirs(self, prefix):
        """Immediate child directory names of prefix."""
        prefix = prefix.rstrip("/") + "/"
        out = set()
        for f in self.files:
            if f.startswith(prefix):
                rest = f[len(prefix):]
                if "/" in rest:
                    out.add(rest.split("/", 1)[0])
        return out


def version_key(v):
    parts = re.findall(r"\d+|[A-Za-z]+", v)
    key = []
    for p in parts:
        key.append((0, int(p), "") if p.isdigit() else (-1, 0, p))  # 'dev' sorts low
    return tuple(key)


def parse_reuse(text):
    """table -> from_version, from the simple reuse.yaml layout."""
    out = {}
    table = None
    for line in text.splitlines():
        m = re.match(r"^\s*-\s*table:\s*['\"]?([\w.\-]+)", line)
        if m:
            table = m.group(1)
            continue
        m = re.match(r"^\s*from_version:\s*['\"]?([\w.\-]+)", line)
        if m and table:
            out[table] = m.group(1)
            table = None
    return out


class Resolver:
    def __init__(self, src):
        self.src = src
        self.read_paths = {}   # file key -> list of paths read
        self.notes = {}        # file key -> list of notes

    def resolve(self, system, family, table, framework="vllm"):
        """Newest version folder providing `table`; returns (newest_dir, data_version, path)."""
        base = f"{DATA_ROOT}/{system}/{family}/{framework}"
        versions = sorted(self.src.subdirs(base), key=version_key, reverse=True)
        for v in versions:
            got = self._provide(base, v, table, seen=set())
            if got is not None:
                return v, got[0], got[1]
        return None

    def _provide(self, base, v, table, seen):
        if v in seen:
            return None
        seen.add(v)
        native = f"{base}/{v}/{table}.parquet"
        if native in self.src.files:
            return v, native
        reuse = f"{base}/{v}/reuse.yaml"
        if reuse in self.src.files:
            donors = parse_reuse(self.src.read(reuse).decode())
            if table in donors:
                return self._provide(base, donors[table], table, seen)
        return None

    def load(self, key, system, family, table, framework="vllm"):
        got = self.resolve(system, family, table, framework)
        if got is None:
            return None, None
        newest, data_v, path = got
        self.read_paths.setdefault(key, []).append(path)
        if newest != data_v:
            reuse_path = f"{DATA_ROOT}/{system}/{family}/{framework}/{newest}/reuse.yaml"
            self.read_paths[key].append(reuse_path)
            self.notes.setdefault(key, []).append(
                f"{system}: newest {framework} folder {newest} takes {table} from "
                f"{data_v} (reuse.yaml); vllm_version column says {data_v}")
        df = pd.read_parquet(io.BytesIO(self.src.read(path)))
        return df, data_v


# ---------------------------------------------------------------- formatting
def fmt_us(ms):
    """ms -> microseconds text with at least 4 significant digits, no exponent."""
    us = float(ms) * 1000.0
    if not math.isfinite(us) or us <= 0:
        raise ValueError(f"bad latency {ms!r}")
    digits = max(0, 3 - int(math.floor(math.log10(us))))
    s = f"{us:.{digits}f}"
    return s


def write_csv(out_dir, name, commit, paths, columns, selection, notes, header, rows):
    lines = [
        f"# source: {REPO_URL}",
        f"# commit: {commit}",
        f"# license: {LICENSE} (measured numbers converted; no code or prose copied)",
        f"# converted by {CONVERTER}",
        "# source paths read:",
    ]
    lines += [f"#   {p}" for p in paths]
    lines.append("# columns:")
    lines += [f"#   {c}" for c in columns]
    if selection:
        lines.append("# subsampling:")
        lines += [f"#   {s}" for s in selection]
    if notes:
        lines.append("# notes:")
        lines += [f"#   {n}" for n in notes]
    lines.append(",".join(header))
    for r in rows:
        lines.append(",".join(str(x) for x in r))
    path = os.path.join(out_dir, name)
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return path, len(rows)


def check_unique(df, key, what):
    d = df.duplicated(key, keep=False)
    if d.any():
        raise SystemExit(f"{what}: {int(d.sum())} rows share a key {key}")


# ---------------------------------------------------------------- converters
def kernel_notes(pairs):
    """pairs: iterable of (system, group, kernel) -> note lines listing the kernels."""
    seen = {}
    for sysname, group, kern in pairs:
        seen.setdefault((sysname, group), set()).add(kern)
    out = []
    for (sysname, group), ks in sorted(seen.items(), key=lambda x: (SYSTEMS.index(x[0][0]), x[0][1])):
        out.append(f"kernels {sysname} {group}: " + " | ".join(sorted(ks)))
    return out


KERNEL_NOTE = ("the source's kernel_source (the kernel vLLM dispatched) is a function of "
               "each row's key, so it is not a column; the kernels behind the kept rows are "
               "listed below per system")


# The columns and subsampling gemm.csv and gemm_weight_only.csv share.
GEMM_SHAPE_COLUMNS = [
    "m: rows of the activation = tokens in the batch",
    "n: output features (weight rows)",
    "k: input features (reduction dimension); y[m,n] = x[m,k] * W[n,k]^T",
]
GEMM_SELECTION = [
    "m in " + " ".join(map(str, GEMM_M)) + " (those present)",
    "(n,k) in " + " ".join(f"{n}x{k}" for n, k in GEMM_SHAPES) + " (those present)",
]


def gemm_rows(df, s, version, what, rows, kerns, kernel=lambda k: k):
    """Append one system's kept GEMM rows (GEMM_M x GEMM_SHAPES, sorted) of
    `df` to rows, and their kernels to kerns."""
    check_unique(df, ["gemm_dtype", "m", "n", "k"], f"{s} {what}")
    nk = pd.Series(list(zip(df.n, df.k)), index=df.index)
    d = df[df.m.isin(GEMM_M) & nk.isin(GEMM_SHAPES)]
    for r in d.sort_values(["gemm_dtype", "n", "k", "m"]).itertuples():
        rows.append((s, version, r.gemm_dtype, r.m, r.n, r.k, fmt_us(r.latency)))
        kerns.append((s, r.gemm_dtype, kernel(r.kernel_source)))


def conv_gemm(res):
    rows, kerns = [], []
    for s in SYSTEMS:
        df, v = res.load("gemm", s, "gemm", "gemm_perf")
        if df is None:
            continue
        gemm_rows(df, s, v, "gemm", rows, kerns)
    return dict(
        name="gemm.csv",
        header=["system", "vllm_version", "dtype", "m", "n", "k", "latency_us"],
        columns=[
            "system: aiconfigurator system name (GPU)",
            "vllm_version: vLLM release the row was measured with",
            "dtype: GEMM quantisation as the source names it (bfloat16; fp8 = per-tensor FP8 "
            "W8A8; fp8_block = 128x128 block-scaled FP8; nvfp4 = NVFP4 W4A4)",
        ] + GEMM_SHAPE_COLUMNS + [
            "latency_us: measured latency of the linear layer (kernel incl. any activation "
            "quantisation vLLM runs with it), microseconds",
        ],
        selection=GEMM_SELECTION,
        extra_notes=[
            "fp8_block rows were timed without a CUDA graph (eager launches), so at small m "
            "and small shapes they are dominated by host-side overhead (tens to hundreds of "
            "microseconds, e.g. 1024x1024) and do not show CUDA-graph decode cost",
            "bfloat16 and fp8 rows cycle several copies of the weight and divide by the copy "
            "count; fp8_block and nvfp4 rows reuse one weight, so small weights can stay in "
            "L2 and look faster than DRAM allows",
        ] + [KERNEL_NOTE] + kernel_notes(kerns),
        rows=rows)


# Weight-only GEMMs (int4 / int8 weights, 16-bit activations: what vLLM runs
# GPTQ and AWQ checkpoints through, with its Marlin kernels). The source has no
# vLLM table of them; its TensorRT-LLM tables time that engine's weight-only
# kernels (WeightOnlyQuantMatmul: a dequantizing GEMV/GEMM of the same data
# movement) on three GPUs, at the folders below, the only ones with int4_wo
# and int8_wo rows.
WEIGHT_ONLY = {"a100_sxm": "1.0.0", "l40s": "1.0.0", "h200_sxm": "1.2.0rc5"}
WEIGHT_ONLY_DTYPES = ["int4_wo", "int8_wo"]


def conv_gemm_weight_only(res):
    rows, kerns = [], []
    for s in SYSTEMS:
        v = WEIGHT_ONLY.get(s)
        if v is None:
            continue
        path = f"{DATA_ROOT}/{s}/gemm/trtllm/{v}/gemm_perf.parquet"
        res.read_paths.setdefault("gemm_weight_only", []).append(path)
        df = pd.read_parquet(io.BytesIO(res.src.read(path)))
        df = df[df.gemm_dtype.isin(WEIGHT_ONLY_DTYPES)]
        gemm_rows(df, s, "trtllm " + v, "weight-only gemm", rows, kerns,
                  kernel=lambda k: k.split("/")[-1])
    return dict(
        name="gemm_weight_only.csv",
        header=["system", "engine_version", "dtype", "m", "n", "k", "latency_us"],
        columns=[
            "system: aiconfigurator system name (GPU)",
            "engine_version: the engine and release the row was measured with (TensorRT-LLM)",
            "dtype: int4_wo = 4-bit weights, int8_wo = 8-bit weights, 16-bit activations",
        ] + GEMM_SHAPE_COLUMNS + [
            "latency_us: measured latency of the linear layer, microseconds",
        ],
        selection=["dtype in " + " ".join(WEIGHT_ONLY_DTYPES)] + GEMM_SELECTION,
        extra_notes=[
            "TensorRT-LLM's weight-only kernels, not vLLM's: the source times no vLLM "
            "weight-only GEMM; these stand in for vLLM's Marlin kernels (same bytes moved, "
            "dequantized in registers, 16-bit tensor cores)",
        ] + kernel_notes(kerns),
        rows=rows)


def conv_allreduce(res):
    rows = []
    for s in SYSTEMS:
        df, v = res.load("allreduce", s, "comm", "custom_allreduce_perf")
        if df is not None:
            df = df[df.op_name == "all_reduce"]
            graph = df.kernel_source.str.contains("graph")
            eager = df.kernel_source.str.contains("eager")
            if (graph == eager).any():
                raise SystemExit(f"{s}: cannot tell graph/eager from kernel_source")
            df = df.assign(graph=graph.astype(int))
            check_unique(df, ["allreduce_dtype", "num_gpus", "message_size", "graph"], f"{s} custom ar")
            for r in df.sort_values(["graph", "num_gpus", "message_size"],
                                    ascending=[False, True, True]).itertuples():
                eb = ELEM_BYTES[r.allreduce_dtype]
                rows.append((s, "all_reduce", "custom", v, "", r.graph, r.num_gpus,
                             r.allreduce_dtype, r.message_size * eb, fmt_us(r.latency)))
        df, nv = res.load("allreduce", s, "comm", "nccl_perf", framework="nccl")
        if df is not None:
            keep = ((df.op_name == "all_reduce") & df.nccl_dtype.isin(NCCL_AR_DTYPES)) | \
                   (df.op_name == "alltoall")
            df = df[keep]
            check_unique(df, ["op_name", "nccl_dtype", "num_gpus", "message_size"], f"{s} nccl")
            for r in df.sort_values(["op_name", "nccl_dtype", "num_gpus", "message_size"]).itertuples():
                eb = ELEM_BYTES[r.nccl_dtype]
                rows.append((s, r.op_name, "nccl", "", nv, "", r.num_gpus,
                             r.nccl_dtype, r.message_size * eb, fmt_us(r.latency)))
    return dict(
        name="allreduce.csv",
        header=["system", "op", "implementation", "vllm_version", "nccl_version", "cuda_graph",
                "world_size", "dtype", "message_bytes", "latency_us"],
        columns=[
            "system: aiconfigurator system name (GPU)",
            "op: all_reduce, or alltoall (NCCL only; kept because it is small)",
            "implementation: custom = vLLM's tensor-parallel all-reduce call as vLLM dispatches "
            "it (its custom all-reduce kernel where vLLM enables that, otherwise vLLM's "
            "fallback; comm/vllm tables); nccl = NCCL collective (comm/nccl tables)",
            "vllm_version: vLLM release of the custom rows (empty for nccl rows)",
            "nccl_version: NCCL release of the nccl rows (empty for custom rows)",
            "cuda_graph: custom rows: 1 = replayed inside a CUDA graph (how vLLM decodes), "
            "0 = eager launch (includes host launch overhead); empty for nccl rows (the source "
            "does not distinguish)",
            "world_size: number of GPUs taking part",
            "dtype: element type as the source names it (bfloat16; half = fp16; int8)",
            "message_bytes: per-GPU message size in bytes (the source counts elements; "
            "converted with 2 bytes for bfloat16/half, 1 for int8)",
            "latency_us: measured latency of one collective, microseconds",
        ],
        selection=["custom all-reduce: all rows",
                   "nccl: all_reduce with dtype " + "/".join(NCCL_AR_DTYPES)
                   + " and alltoall with every dtype; all_gather and reduce_scatter left out; "
                   "the newest NCCL version folder of each system"],
        extra_notes=[],
        rows=rows)


def conv_gather_scatter(res):
    """NCCL all_gather and reduce_scatter (the MoE layer's dispatch and
    combine under data parallelism, vLLM's default all2all backend)."""
    rows = []
    for s in SYSTEMS:
        df, nv = res.load("gather_scatter", s, "comm", "nccl_perf", framework="nccl")
        if df is None:
            continue
        df = df[df.op_name.isin(["all_gather", "reduce_scatter"]) & (df.nccl_dtype == "half")]
        check_unique(df, ["op_name", "num_gpus", "message_size"], f"{s} nccl ag/rs")
        for r in df.sort_values(["op_name", "num_gpus", "message_size"]).itertuples():
            rows.append((s, r.op_name, nv, r.num_gpus, r.message_size * ELEM_BYTES[r.nccl_dtype],
                         fmt_us(r.latency)))
    return dict(
        name="allgather_reducescatter.csv",
        header=["system", "op", "nccl_version", "world_size", "buffer_bytes", "latency_us"],
        columns=[
            "system: aiconfigurator system name (GPU)",
            "op: all_gather or reduce_scatter (NCCL, nccl-tests' all_gather_perf / "
            "reduce_scatter_perf as aiconfigurator's collector/network/collect_nccl.py runs them)",
            "nccl_version: NCCL release (the newest NCCL folder of the system)",
            "world_size: number of GPUs taking part",
            "buffer_bytes: the whole buffer in bytes, nccl-tests' size (all_gather: the gathered "
            "output, world_size x each GPU's part; reduce_scatter: the input each GPU reduces); "
            "the source counts half elements, converted with 2 bytes each",
            "latency_us: measured latency of one collective, microseconds",
        ],
        selection=["dtype half only (the source also has int8)"],
        extra_notes=[],
        rows=rows)


def _attn_select(df):
    if "window_size" not in df:
        df = df.assign(window_size=0)
    hk = pd.Series(list(zip(df.num_heads, df.num_key_value_heads, df.head_dim, df.window_size)),
                   index=df.index)
    return df[hk.isin(ATTN_HEADS) & (df.attn_dtype == "bfloat16") & (df.beam_width == 1)]


ATTN_SORT = ["head_dim", "window_size", "num_key_value_heads", "num_heads", "kv_cache_dtype"]
ATTN_ASC = [False, True, False, False, True]


def conv_gen_attn(res):
    rows, kerns = [], []
    for s in SYSTEMS:
        df, v = res.load("generation_attention", s, "attention", "generation_attention_perf")
        if df is None:
            continue
        d = _attn_select(df)
        d = d.assign(kv_len=d.isl + d.step)
        check_unique(d, ["kv_cache_dtype", "window_size", "num_heads", "num_key_value_heads",
                         "head_dim", "batch_size", "kv_len"], f"{s} gen attn")
        d = d[d.batch_size.isin(GEN_BATCH) & d.kv_len.isin(GEN_KV_LEN)]
        d = d.sort_values(ATTN_SORT + ["batch_size", "kv_len"], ascending=ATTN_ASC + [True, True])
        for r in d.itertuples():
            rows.append((s, v, r.kv_cache_dtype, r.window_size, r.num_heads, r.num_key_value_heads,
                         r.head_dim, r.batch_size, r.kv_len, fmt_us(r.latency)))
            kerns.append((s, "kv " + r.kv_cache_dtype, r.kernel_source))
    return dict(
        name="generation_attention.csv",
        header=["system", "vllm_version", "kv_dtype", "window", "num_heads", "num_kv_heads",
                "head_dim", "batch", "kv_len", "latency_us"],
        columns=[
            "system: aiconfigurator system name (GPU)",
            "vllm_version: vLLM release the row was measured with",
            "kv_dtype: KV-cache element type (bfloat16 or fp8); queries are bfloat16",
            "window: sliding-window size in tokens, 0 = full attention",
            "num_heads, num_kv_heads, head_dim: per-GPU query heads, KV heads, head size "
            "(under tensor parallelism the model's heads divided by TP)",
            "batch: sequences decoding one token each",
            "kv_len: tokens each sequence attends to, the new one included "
            "(= source isl + step; step = tokens already cached)",
            "latency_us: measured latency of one decode attention call for one layer (the "
            "new token's KV write plus attention), microseconds",
        ],
        selection=[
            "heads (num_heads/num_kv_heads/head_dim/window): "
            + " ".join(f"{a}/{b}/{c}/{w}" for a, b, c, w in ATTN_HEADS),
            "batch in " + " ".join(map(str, GEN_BATCH)),
            "kv_len in " + " ".join(map(str, GEN_KV_LEN)),
            "the source grid leaves out large batch x long kv_len corners, so those rows do not exist",
        ],
        extra_notes=[KERNEL_NOTE] + kernel_notes(kerns),
        rows=rows)


def conv_ctx_attn(res):
    rows, kerns = [], []
    for s in SYSTEMS:
        df, v = res.load("context_attention", s, "attention", "context_attention_perf")
        if df is None:
            continue
        d = _attn_select(df)
        d = d[d.step == 0]
        check_unique(d, ["kv_cache_dtype", "window_size", "num_heads", "num_key_value_heads",
                         "head_dim", "batch_size", "isl"], f"{s} ctx attn")
        d = d[d.batch_size.isin(CTX_BATCH) & d.isl.isin(CTX_SEQ)]
        d = d.sort_values(ATTN_SORT + ["batch_size", "isl"], ascending=ATTN_ASC + [True, True])
        for r in d.itertuples():
            rows.append((s, v, r.kv_cache_dtype, r.window_size, r.num_heads, r.num_key_value_heads,
                         r.head_dim, r.batch_size, r.isl, fmt_us(r.latency)))
            kerns.append((s, "kv " + r.kv_cache_dtype, r.kernel_source))
    return dict(
        name="context_attention.csv",
        header=["system", "vllm_version", "kv_dtype", "window", "num_heads", "num_kv_heads",
                "head_dim", "batch", "seq_len", "latency_us"],
        columns=[
            "system: aiconfigurator system name (GPU)",
            "vllm_version: vLLM release the row was measured with",
            "kv_dtype: KV-cache element type (bfloat16 or fp8)",
            "window: sliding-window size in tokens, 0 = full attention",
            "num_heads, num_kv_heads, head_dim: per-GPU query heads, KV heads, head size",
            "batch: sequences prefilled together",
            "seq_len: prompt tokens per sequence (source isl; no cached prefix, step = 0); "
            "causal attention over the prompt",
            "latency_us: measured latency of one prefill attention call for one layer (KV "
            "write plus attention), microseconds",
        ],
        selection=[
            "heads (num_heads/num_kv_heads/head_dim/window): "
            + " ".join(f"{a}/{b}/{c}/{w}" for a, b, c, w in CTX_HEADS),
            "batch in " + " ".join(map(str, CTX_BATCH)),
            "seq_len in " + " ".join(map(str, CTX_SEQ)),
            "the source grid leaves out large batch x long seq_len corners, so those rows do not exist",
        ],
        extra_notes=[KERNEL_NOTE] + kernel_notes(kerns),
        rows=rows)


def conv_moe(res):
    rows, kerns = [], []
    for s in SYSTEMS:
        df, v = res.load("moe", s, "moe", "moe_perf")
        if df is None:
            continue
        check_unique(df, ["moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk",
                          "num_experts", "moe_tp_size", "moe_ep_size", "distribution"], f"{s} moe")
        shape = pd.Series(list(zip(df.hidden_size, df.inter_size, df.topk, df.num_experts)),
                          index=df.index)
        par = pd.Series(list(zip(df.moe_tp_size, df.moe_ep_size)), index=df.index)
        d = df[shape.isin(list(MOE_SHAPES)) & par.isin(MOE_PAR) & df.num_tokens.isin(MOE_TOKENS)
               & df.distribution.isin(MOE_DIST)]
        # one FP8 flavour per shape: block-scaled where measured, else per-tensor
        blk = set(zip(d.hidden_size[d.moe_dtype == "fp8_block"], d.inter_size[d.moe_dtype == "fp8_block"],
                      d.topk[d.moe_dtype == "fp8_block"], d.num_experts[d.moe_dtype == "fp8_block"]))
        drop = (d.moe_dtype == "fp8") & pd.Series(
            list(zip(d.hidden_size, d.inter_size, d.topk, d.num_experts)), index=d.index).isin(blk)
        d = d[~drop].assign(version=v)
        d = d.sort_values(["hidden_size", "inter_size", "num_experts", "topk", "moe_dtype",
                           "moe_tp_size", "moe_ep_size", "distribution", "num_tokens"])
        pinned = MOE_INT4_PINNED.get(s)
        d = d[(d.moe_dtype != "int4_wo")
              | ((d.kernel_source != MOE_INT4_SLOW_KERNEL) & (pinned is None))]
        if pinned is not None:
            d = pd.concat([d, moe_int4_rows(res, s, pinned)])
        for r in d.itertuples():
            rows.append((s, r.version, r.moe_dtype, r.distribution, r.num_tokens, r.hidden_size,
                         r.inter_size, r.topk, r.num_experts, r.moe_tp_size, r.moe_ep_size,
                         fmt_us(r.latency)))
            kerns.append((s, r.moe_dtype, r.kernel_source))
    return dict(
        name="moe.csv",
        header=["system", "vllm_version", "dtype", "distribution", "num_tokens", "hidden_size",
                "inter_size", "topk", "num_experts", "moe_tp", "moe_ep", "latency_us"],
        columns=[
            "system: aiconfigurator system name (GPU)",
            "vllm_version: vLLM release the row was measured with",
            "dtype: expert weight/activation format as the source names it (bfloat16; fp8 = "
            "per-tensor FP8; fp8_block = block-scaled FP8; nvfp4 = NVFP4; w4a16_mxfp4 = MXFP4 "
            "weights with 16-bit activations, as gpt-oss ships; int4_wo = 4-bit integer weights, group-scaled, with 16-bit activations: Marlin)",
            "distribution: how the router spreads tokens over experts: balanced (uniform) or "
            "power_law_<alpha> (skewed; fewer distinct experts are hit at small token counts)",
            "num_tokens: tokens entering the MoE layer on this GPU",
            "hidden_size: model hidden size",
            "inter_size: per-expert intermediate size of the whole model (each GPU holds 1/moe_tp of it)",
            "topk: experts per token; num_experts: routed experts of the whole model",
            "moe_tp, moe_ep: tensor- and expert-parallel sizes of the MoE layer; one GPU is "
            "measured holding its 1/moe_tp slice of every expert or 1/moe_ep of the experts "
            "(no communication included)",
            "latency_us: measured latency of the fused MoE layer on one GPU (routing, expert "
            "GEMMs, activation), microseconds",
        ],
        selection=[
            "shapes (hidden/inter/topk/experts): "
            + "; ".join(f"{k[0]}/{k[1]}/{k[2]}/{k[3]} {n}" for k, n in MOE_SHAPES.items()),
            "(moe_tp x moe_ep) in " + " ".join(f"{a}x{b}" for a, b in MOE_PAR),
            "num_tokens in " + " ".join(map(str, MOE_TOKENS)),
            "distribution in " + " ".join(MOE_DIST),
            "every dtype measured for those shapes, except per-tensor fp8 where fp8_block "
            "exists for the same shape and system",
        ],
        extra_notes=[KERNEL_NOTE] + kernel_notes(kerns),
        rows=rows)


def moe_int4_rows(res, system, version):
    """The int4_wo rows of `system`'s moe_perf at the pinned `version`
    (MOE_INT4_PINNED), on the kept shapes, parallel layouts, token counts and
    distributions."""
    path = f"{DATA_ROOT}/{system}/moe/vllm/{version}/moe_perf.parquet"
    res.read_paths.setdefault("moe", []).append(path)
    res.notes.setdefault("moe", []).append(
        f"{system}: int4_wo rows from the {version} folder (pinned: the newer folders time "
        f"another int4 kernel, see MOE_INT4_PINNED in {CONVERTER})")
    df = pd.read_parquet(io.BytesIO(res.src.read(path)))
    shape = pd.Series(list(zip(df.hidden_size, df.inter_size, df.topk, df.num_experts)),
                      index=df.index)
    par = pd.Series(list(zip(df.moe_tp_size, df.moe_ep_size)), index=df.index)
    d = df[(df.moe_dtype == "int4_wo") & shape.isin(list(MOE_SHAPES)) & par.isin(MOE_PAR)
           & df.num_tokens.isin(MOE_TOKENS) & df.distribution.isin(MOE_DIST)].copy()
    d["version"] = version
    return d.sort_values(["hidden_size", "inter_size", "num_experts", "topk", "moe_dtype",
                          "moe_tp_size", "moe_ep_size", "distribution", "num_tokens"])


def conv_gdn(res):
    rows = []
    for s in SYSTEMS:
        df, v = res.load("gdn", s, "linear_attention", "gdn_perf")
        if df is None:
            continue
        df = df.assign(model=df.model_name.str.split("/").str[-1])
        check_unique(df, ["kernel_source", "phase", "batch_size", "seq_len", "d_model",
                          "num_k_heads", "num_v_heads", "head_k_dim", "head_v_dim", "model"], f"{s} gdn")
        cfg = pd.Series(list(zip(df.model, df.num_k_heads)), index=df.index)
        d = df[cfg.isin(GDN_CONFIGS)]
        gen = d[(d.phase == "generation") & d.batch_size.isin(GDN_GEN_BATCH)]
        ctx = d[(d.phase == "context") & d.batch_size.isin(GDN_CTX_BATCH) & d.seq_len.isin(GDN_CTX_SEQ)]
        d = pd.concat([gen, ctx]).sort_values(
            ["model", "num_k_heads", "phase", "kernel_source", "batch_size", "seq_len"],
            ascending=[True, False, True, True, True, True])
        for r in d.itertuples():
            if r.num_tokens != r.batch_size * r.seq_len:
                raise SystemExit(f"{s} gdn: num_tokens != batch*seq_len")
            rows.append((s, v, r.model, r.phase, r.kernel_source, r.batch_size, r.seq_len,
                         r.d_model, r.num_k_heads, r.head_k_dim, r.num_v_heads, r.head_v_dim,
                         fmt_us(r.latency)))
    return dict(
        name="gdn.csv",
        header=["system", "vllm_version", "model", "phase", "kernel", "batch", "seq_len",
                "d_model", "num_k_heads", "head_k_dim", "num_v_heads", "head_v_dim", "latency_us"],
        columns=[
            "system: aiconfigurator system name (GPU)",
            "vllm_version: vLLM release the row was measured with",
            "model: checkpoint whose gated-delta-net layer shape was measured",
            "phase: context (prefill) or generation (decode, seq_len 1)",
            "kernel: the measured kernel; one layer runs both kernels of its phase: "
            "causal_conv1d_fn + chunk_gated_delta_rule_* (context), "
            "causal_conv1d_update + fused_recurrent_gated_delta_rule_* (generation)",
            "batch: sequences; seq_len: new tokens per sequence (tokens = batch * seq_len)",
            "d_model: model hidden size",
            "num_k_heads, head_k_dim, num_v_heads, head_v_dim: per-GPU key and value heads "
            "and their sizes (the model's heads divided by TP)",
            "latency_us: measured latency of that kernel for one layer, microseconds",
        ],
        selection=[
            "(model, num_k_heads): " + ", ".join(f"{m} {k}" for m, k in GDN_CONFIGS),
            "generation: batch in " + " ".join(map(str, GDN_GEN_BATCH)),
            "context: batch in " + " ".join(map(str, GDN_CTX_BATCH))
            + ", seq_len in " + " ".join(map(str, GDN_CTX_SEQ)),
        ],
        extra_notes=[],
        rows=rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", help="checkout or bare git dir of ai-dynamo/aiconfigurator")
    ap.add_argument("commit", help="commit to read")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "..", "data", "kernels")))
    args = ap.parse_args()

    src = Source(args.source, args.commit)
    res = Resolver(src)
    os.makedirs(args.out, exist_ok=True)

    keys = {"gemm.csv": "gemm", "allreduce.csv": "allreduce",
            "generation_attention.csv": "generation_attention",
            "context_attention.csv": "context_attention", "moe.csv": "moe", "gdn.csv": "gdn",
            "allgather_reducescatter.csv": "gather_scatter",
            "gemm_weight_only.csv": "gemm_weight_only"}
    for conv in (conv_gemm, conv_gemm_weight_only, conv_allreduce, conv_gather_scatter, conv_gen_attn, conv_ctx_attn,
                 conv_moe, conv_gdn):
        spec = conv(res)
        key = keys[spec["name"]]
        if not spec["rows"]:
            print(f"{spec['name']}: no data, not written")
            continue
        path, n = write_csv(args.out, spec["name"], src.commit, res.read_paths.get(key, []),
                            spec["columns"], spec["selection"],
                            res.notes.get(key, []) + spec["extra_notes"],
                            spec["header"], spec["rows"])
        if spec["name"] == "moe.csv":
            # The experts each row's routing generator touched (moe_routing.py).
            moe_routing.annotate(path)
        print(f"{spec['name']}: {n} rows, {os.path.getsize(path)} bytes")

    mamba = sorted(f for f in src.files if "/vllm/" in f and f.endswith("mamba2_perf.parquet"))
    if mamba:
        print("note: vLLM mamba2 tables exist but no converter is written for them:", *mamba, sep="\n  ")
    else:
        print("mamba2.csv: no vLLM mamba2 table in the source, not written")


if __name__ == "__main__":
    main()
