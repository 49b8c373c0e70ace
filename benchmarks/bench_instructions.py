"""Machine instructions per delta, family by family: the cost per delta without the noise.

Timings on a shared 2-core machine swing by half between runs; instruction counts do not.
For each family of `bench_formats.FAMILIES` (and the `floor`), the output for one call with
N characters of code is fed to a session in 4-character deltas under valgrind's callgrind,
twice: once stopping after the first 10 % of the deltas, once after 90 %. The difference of
the two totals, divided by the deltas in between, is the instructions per delta of the
middle 80 % (setup, imports and the end of the call cancel out).

With `--typical`, instead, the instructions of one whole typical turn of each format
(`bench_typical.py`'s: session creation for a tool set seen before, every delta, `finish`;
10 declared tools): a process that runs 2 turns (warming the caches) and then none, or 20
more; the difference over 20.

Needs valgrind (`apt install valgrind`); each family takes some seconds.

Run: python benchmarks/bench_instructions.py [--size 20000] [--formats floor,qwen3-coder]
     python benchmarks/bench_instructions.py --typical [--formats kimi-k2,glm-4.7]
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


TURNS = 20
"""Typical turns timed after the two that warm the caches (`--typical`)."""


def turns(name: str, count: int) -> int:
    """Run 2 + `count` typical turns of format `name`; `count`."""
    import bench_typical

    from protocall import formats

    fmt = formats.get(name)
    text, prompt = bench_typical.typical(fmt)
    chunks = bench_typical.pieces(text)
    declared = bench_typical.tools(10)
    for _ in range(2 + count):
        session = fmt.parser(declared, prompt)
        for chunk in chunks:
            session.feed(chunk)
        session.finish()
    return count


def instructions(name: str, size: int, stop: float, child: str = "--child") -> tuple[int, int]:
    """(instructions of the whole process, deltas fed after the first 10 %), or, with
    `child="--turns"`, (instructions, typical turns run after the first two) for `stop`
    turns."""
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, __file__, child, name, str(size), str(stop),
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
    default = "floor and bench_formats' families; with --typical, every format"
    options.add_argument("--formats", help=f"default: {default}")
    options.add_argument("--typical", action="store_true", help="per typical turn instead")
    options.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    options.add_argument("--turns", nargs=3, help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.child:
        name, size, stop = args.child
        print(feed(name, int(size), float(stop)))
        return
    if args.turns:
        print(turns(args.turns[0], int(float(args.turns[2]))))
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt install valgrind")
    if args.typical:
        from protocall import formats

        print("Typical turn (10 tools, 4-character deltas, warm), whole turn\n")
        print("| format | instructions per turn |")
        print("|---|---|")
        for name in (args.formats or ",".join(formats.names())).split(","):
            before, _ = instructions(name, 0, 0, "--turns")
            after, count = instructions(name, 0, TURNS, "--turns")
            print(f"| {name} | {(after - before) / count / 1e6:.2f} M |", flush=True)
        return
    names = args.formats or ",".join(["floor", *bench_formats.FAMILIES])
    print(f"N = {args.size:,} characters, 4-character deltas, middle 80 % of the deltas\n")
    print("| format | instructions per delta |")
    print("|---|---|")
    for name in names.split(","):
        before, _ = instructions(name, args.size, 0.1)
        after, deltas = instructions(name, args.size, 0.9)
        print(f"| {name} | {(after - before) / deltas:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
