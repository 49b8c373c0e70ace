"""Degenerate outputs: the time each format takes on repetition loops and adversarial text.

For every format and every input of `protocall.testing.degenerate_inputs` (each structural
character of the format's markers repeated, each marker and marker prefix repeated, nested
openers, whitespace runs, the call opener followed by endless argument text or name), the
output is parsed at 10 K, 100 K and 1 M characters

- one-shot (`protocall.parse`),
- streamed in 4-character deltas (a `Session`, feed + finish),
- streamed per character, at the sizes up to `--char-max` (100 K by default: a Python call
  per character costs about a second per million whatever the parser does),

each the best of `--repeats` runs, in CPU time (`time.process_time`: on a shared machine
wall-clock time counts the other processes' turns, which swamp a 10 K input's few ms).
Reported: the slowest input of each format and mode with its time at each size and the
growth ratio per 10× input (linear: ≈ 10), and every input whose ratio exceeds `--ratio`
(12) or whose largest size takes more than `--budget` (2 s).

Run: python benchmarks/bench_adversarial.py [--quick] [--sizes 10000,100000,1000000]
     [--formats llama-3,pythonic] [--modes one-shot,4,1] [--inputs "'{' repeated"] [--all]
`--quick` uses 1 K, 10 K and 100 K (per character up to 10 K); `--all` prints every input
(each format's table as soon as it is measured).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import protocall
from protocall import formats
from protocall.testing.degenerate import TOOLS, degenerate_inputs

Runner = Callable[[str, str], None]


def one_shot(name: str, text: str) -> None:
    protocall.parse(text, name, TOOLS)


def chunked(delta: int) -> Runner:
    def run(name: str, text: str) -> None:
        session = formats.get(name).parser(TOOLS)
        feed = session.feed
        for start in range(0, len(text), delta):
            feed(text[start : start + delta])
        session.finish()

    return run


MODES: dict[str, Runner] = {"one-shot": one_shot, "4": chunked(4), "1": chunked(1)}


@dataclass
class Row:
    fmt: str
    label: str
    mode: str
    times: dict[int, float]

    def ratios(self) -> list[float]:
        sizes = sorted(self.times)
        return [
            self.times[b] / max(self.times[a], 1e-6) * 10 ** (1 - math.log10(b / a))
            for a, b in itertools.pairwise(sizes)
        ]

    @property
    def worst_ratio(self) -> float:
        return max(self.ratios(), default=0.0)


def timed(run: Runner, name: str, text: str, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        run(name, text)
        best = min(best, time.process_time() - start)
    return best


def measure(name: str, sizes: Sequence[int], modes: dict[str, Sequence[int]], repeats: int,
            budget: float, inputs: Sequence[str]) -> list[Row]:  # fmt: skip
    rows = []
    for label, generate in degenerate_inputs(formats.get(name)).items():
        if inputs and not any(text in label for text in inputs):
            continue
        for mode, mode_sizes in modes.items():
            times: dict[int, float] = {}
            for size in (s for s in sizes if s in mode_sizes):
                times[size] = timed(MODES[mode], name, generate(size), repeats)
                if times[size] > 4 * budget:  # far off target: the larger sizes say nothing
                    break
            rows.append(Row(name, label, mode, times))
    return rows


def table(rows: Sequence[Row], sizes: Sequence[int]) -> str:
    head = " | ".join(f"{size:,}" for size in sizes)
    lines = [f"| format | input | mode | {head} | ratio per 10× |",
             "|---|---|---|" + "---|" * len(sizes) + "---|"]  # fmt: skip
    for row in rows:
        cells = " | ".join(f"{row.times[s]:.3f} s" if s in row.times else "" for s in sizes)
        ratios = ", ".join(f"{r:.1f}" for r in row.ratios())
        label = row.label.replace("|", "\\|")
        lines.append(f"| {row.fmt} | {label} | {row.mode} | {cells} | {ratios} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 K, 10 K, 100 K")
    parser.add_argument("--sizes", default=None)
    parser.add_argument("--char-max", type=int, default=None)
    parser.add_argument("--formats", default=",".join(formats.names()))
    parser.add_argument("--modes", default="one-shot,4,1")
    parser.add_argument("--inputs", default="", help="only inputs whose label contains one "
                        "of these comma-separated texts")  # fmt: skip
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--ratio", type=float, default=12.0)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--all", action="store_true", help="print every input's row")
    args = parser.parse_args()
    default = "1000,10000,100000" if args.quick else "10000,100000,1000000"
    sizes = [int(s) for s in (args.sizes or default).split(",")]
    char_max = args.char_max or (10_000 if args.quick else 100_000)
    modes = {m: [s for s in sizes if m != "1" or s <= char_max] for m in args.modes.split(",")}
    one_shot(formats.names()[0], "x")  # imports and caches: not timed
    worst, failing = [], []
    for name in args.formats.split(","):
        inputs = [text for text in args.inputs.split(",") if text]
        rows = measure(name, sizes, modes, args.repeats, args.budget, inputs)
        for mode in modes:
            of_mode = [row for row in rows if row.mode == mode]
            if of_mode:  # none where `--inputs` names no input of this format
                worst.append(max(of_mode, key=lambda row: max(row.times.values())))
        largest = max(sizes)
        failing += [row for row in rows if row.worst_ratio > args.ratio
                    or max(row.times.values()) > args.budget
                    or (row.mode != "1" and largest not in row.times)]  # fmt: skip
        print(f"{name}: {len(rows)} rows, {len(failing)} off target so far", flush=True)
        if args.all:
            print(table(rows, sizes), flush=True)
    print()
    print("Slowest input per format and mode:")
    print()
    print(table(worst, sizes))
    print()
    print(f"Off target (ratio > {args.ratio:g} or > {args.budget:g} s): {len(failing)}")
    if failing:
        print()
        print(table(failing, sizes))


if __name__ == "__main__":
    main()
