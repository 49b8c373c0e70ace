"""Machine instructions per delta, family by family: the cost per delta without the noise.

Timings on a shared 2-core machine swing by half between runs; instruction counts do not.
For each family of `bench_formats.FAMILIES` (and the `floor`), the output for one call with
N characters of code is fed to a session in 4-character deltas under valgrind's callgrind,
three times: stopping before the first delta, after the first 10 % of the deltas, and after
90 %. The differences of the totals, divided by the deltas in between, are the mean
instructions per delta of the first 10 % (at N = 1 K: the envelope, markers and names,
rather than argument text) and of the middle 80 % (setup and imports cancel out).

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
from typing import Any

import bench_formats

HERE = Path(__file__).resolve().parent


def feed(name: str, size: int, stop: float) -> int:
    """Feed the first `stop` of the deltas of `name`'s output to a session (after a whole
    warm-up session); the number fed."""
    from protocall import formats
    from protocall.tools import normalize_tools

    family = bench_formats.FAMILIES.get(name)
    text = family.render(bench_formats.code(size)) if family else bench_formats.code(size)
    deltas = [text[i : i + 4] for i in range(0, len(text), 4)]

    def session() -> Any:
        if family is None:
            return bench_formats.floor_session()
        return formats.get(name).parser(normalize_tools(bench_formats.tools(2)), family.prompt)

    warm = session()  # compiled patterns and caches, as in a server that has been running
    for delta in deltas:
        warm.feed(delta)
    warm.finish()
    measured = session()
    end = len(deltas) // 10 if stop == 0.1 else int(len(deltas) * stop)
    for delta in deltas[:end]:
        measured.feed(delta)
    return end


def instructions(name: str, size: int, stop: float) -> tuple[int, int]:
    """(instructions of the whole process, deltas fed)."""
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, __file__, "--child", name, str(size), str(stop),
    ]  # fmt: skip
    same_hashes = {**os.environ, "PYTHONHASHSEED": "0"}  # the same dict layouts every run
    done = subprocess.run(
        command, capture_output=True, text=True, check=True, cwd=HERE, env=same_hashes
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
    print(f"N = {args.size:,} characters, 4-character deltas, mean instructions per delta\n")
    print("| format | first 10 % | middle 80 % |")
    print("|---|---|---|")
    for name in args.formats.split(","):
        (start, _), (tenth, first), (ninth, last) = (
            instructions(name, args.size, stop) for stop in (0.0, 0.1, 0.9)
        )
        print(f"| {name} | {(tenth - start) / first:,.0f} | "
              f"{(ninth - tenth) / (last - first):,.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
