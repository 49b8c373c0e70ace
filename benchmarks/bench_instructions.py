"""Machine instructions per delta, family by family: the cost per delta without the noise.

Timings on a shared 2-core machine swing by half between runs; instruction counts do not.
For each family of `bench_formats.FAMILIES` (and the `floor`), the output for one call with
N characters of code is fed to a session in 4-character deltas under valgrind's callgrind,
twice: once stopping after the first 10 % of the deltas, once after 90 %. The difference of
the two totals, divided by the deltas in between, is the instructions per delta of the
middle 80 % (setup, imports and the end of the call cancel out).

Needs valgrind (`apt install valgrind`); each family takes some seconds.

Run: python benchmarks/bench_instructions.py [--size 20000] [--formats floor,qwen3-coder]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import bench_formats

HERE = Path(__file__).resolve().parent


def feed(name: str, size: int, stop: float) -> int:
    """Feed the first `stop` of the deltas of `name`'s output; the number fed after 10 %."""
    from protocall import formats
    from protocall.tools import normalize_tools

    family = bench_formats.FAMILIES.get(name)
    text = family.render(bench_formats.code(size)) if family else bench_formats.code(size)
    deltas = [text[i : i + 4] for i in range(0, len(text), 4)]
    if family is None:
        session = bench_formats.floor_session()
    else:
        tools = normalize_tools(bench_formats.tools(2))
        session = formats.get(name).parser(tools, family.prompt)
    tenth, end = len(deltas) // 10, int(len(deltas) * stop)
    for delta in deltas[:end]:
        session.feed(delta)
    return end - tenth


def instructions(name: str, size: int, stop: float) -> tuple[int, int]:
    """(instructions of the whole process, deltas fed after the first 10 %)."""
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, __file__, "--child", name, str(size), str(stop),
    ]  # fmt: skip
    # The tree this script is in, not an installed copy; a fixed hash seed makes the count
    # exact (with random seeds, runs of one tree differ by up to 4 %).
    environment = {**os.environ, "PYTHONPATH": str(HERE.parent), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        command, capture_output=True, text=True, check=True, cwd=HERE, env=environment
    )
    collected = re.search(r"Collected : (\d+)", done.stderr)
    assert collected is not None, done.stderr
    return int(collected.group(1)), int(done.stdout.split()[-1])


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--size", type=int, default=20_000)
    options.add_argument("--formats", default=",".join(["floor", *bench_formats.FAMILIES]))
    options.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.child:
        name, size, stop = args.child
        print(feed(name, int(size), float(stop)))
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt install valgrind")
    print(f"N = {args.size:,} characters, 4-character deltas, middle 80 % of the deltas\n")
    print("| format | instructions per delta |")
    print("|---|---|")
    for name in args.formats.split(","):
        before, _ = instructions(name, args.size, 0.1)
        after, deltas = instructions(name, args.size, 0.9)
        print(f"| {name} | {(after - before) / deltas:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
