#!/usr/bin/env python3
"""Refresh the figures of the documented examples after a model change.

The README's ```console blocks and cli/tests/cmd/*.md are run by
`cargo test -p decodecalc --test examples` (trycmd). They show chosen lines
of each command's output, with `...` for lines left out and `[..]` for the
rest of a line. After a change that moves figures, run

    TRYCMD=dump cargo test -p decodecalc --test examples
    python3 scripts/refresh-examples.py

and review the diff: every shown line is replaced by the actual output line
with the same leading words (its label), cut at the same `[..]`; elisions
and the choice of lines stay as they were. A shown line with no actual
line of the same label is left alone and reported, for a person to fix.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

def key(line, words=4):
    """A shown line's label: its leading cells up to the first figure."""
    head = line.strip()
    if ":" in head.split("  ")[0]:
        return (head.split(":")[0],)
    toks = [t for t in re.split(r"\s{2,}|\s*\|\s*", head) if t]
    out = []
    for t in toks:
        if out and (re.search(r"\d\.\d", t) or re.match(r"^[-+]\d", t)):
            break
        out.append(t)
        if len(out) >= words:
            break
    return tuple(out)

def refresh(path, dumpdir):
    stem = os.path.splitext(os.path.basename(path))[0]
    lines = open(path).read().split("\n")
    out, i, in_console, problems = [], 0, False, []
    cmd_line = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_console = line.strip() == "```console"
            cmd_line = None
            out.append(line)
            i += 1
            continue
        if in_console and line.startswith("$ "):
            cmd_line = i + 1
            out.append(line)
            i += 1
            continue
        if in_console and cmd_line is not None:
            dump = os.path.join(dumpdir, f"{stem}-{cmd_line}.stdout")
            actual = open(dump).read().split("\n") if os.path.exists(dump) else None
            if actual is None or line.strip() == "..." or line == "":
                out.append(line)
                i += 1
                continue
            cut = line.find("[..]")
            want = line if cut < 0 else line[:cut]
            if any(a == line for a in actual) or (cut >= 0 and any(a.startswith(want) for a in actual)):
                out.append(line)
                i += 1
                continue
            k = key(want)
            cands = [a for a in actual if key(a) == k]
            if not cands:
                # The label may end at its first number ("TTFT (median)  12173 ms").
                short = lambda x: tuple(t for t in key(x) if not re.match(r"^[-+]?\d", t))
                cands = [a for a in actual if short(a) == short(want)]
            if len(cands) == 1:
                a = cands[0]
                out.append(a[:cut] + "[..]" if cut >= 0 else a)
            else:
                problems.append(f"{path}:{i + 1}: {line!r} ({len(cands)} candidates)")
                out.append(line)
            i += 1
            continue
        out.append(line)
        i += 1
    open(path, "w").write("\n".join(out))
    return problems

def dump_outputs():
    """Every example's actual output, as trycmd dumps it, in a new folder."""
    dumpdir = tempfile.mkdtemp(prefix="examples-dump-")
    env = dict(os.environ, TRYCMD="dump")
    # trycmd writes its dump under the working directory's `dump/`.
    here = os.path.join(os.getcwd(), "dump")
    subprocess.run(["cargo", "test", "-q", "-p", "decodecalc", "--test", "examples"],
                   env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if os.path.isdir(here):
        shutil.rmtree(dumpdir)
        shutil.move(here, dumpdir)
    return dumpdir

def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    made = len(sys.argv) < 2
    dumpdir = dump_outputs() if made else sys.argv[1]
    problems = []
    for path in ["README.md"] + sorted(glob.glob("cli/tests/cmd/*.md")):
        problems += refresh(path, dumpdir)
    if made:
        shutil.rmtree(dumpdir, ignore_errors=True)
    for p in problems:
        print("not refreshed:", p)

if __name__ == "__main__":
    main()
