"""Peak memory per session as a multiple of its input, for degenerate outputs.

For every format and every input of `protocall.testing.degenerate_inputs`, the output is
parsed one-shot (`protocall.parse`) and streamed in 4-character deltas (a `Session`, feed
+ finish), under `tracemalloc`; the peak of memory allocated while parsing, the input
itself not counted, is reported as a multiple of the input's size in memory (a Python
string holds 1 byte a character for ASCII, 2 for DSML's `｜` and others up to U+FFFF:
every copy of such text costs twice as much, and so does its input). Reported: each
format's worst input per mode, and every input above `--target` (20×).

Run: python benchmarks/bench_memory.py [--size 100000] [--formats hermes,llama-3]
     [--modes one-shot,4] [--inputs "backslash"] [--all]
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc
from collections.abc import Callable

from protocall import formats
from protocall.testing.degenerate import degenerate_inputs, parse


def inputs(name: str) -> dict[str, Callable[[int], str]]:
    return dict(degenerate_inputs(formats.get(name)))


def size_in_memory(text: str) -> int:
    """The bytes `text`'s characters take in a Python string (1, 2 or 4 each, by the
    widest)."""
    widest = ord(max(text)) if text else 0
    return len(text) * (1 if widest < 0x100 else 2 if widest < 0x10000 else 4)


def multiple(name: str, text: str, delta: int) -> float:
    """Peak memory parsing `text`, over its size."""
    gc.collect()
    tracemalloc.start()
    try:
        parse(name, text, delta)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / size_in_memory(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--formats", default=",".join(formats.names()))
    parser.add_argument("--modes", default="one-shot,4")
    parser.add_argument("--inputs", default="", help="only inputs whose label contains this")
    parser.add_argument("--target", type=float, default=20.0)
    parser.add_argument("--all", action="store_true", help="print every input's row")
    args = parser.parse_args()
    deltas = {"one-shot": 0, "4": 4}
    modes = {mode: deltas[mode] for mode in args.modes.split(",")}
    parse(formats.names()[0], "x", 0)  # imports and caches: not measured
    print(f"| format | input | mode | peak / input at {args.size:,} characters |")
    print("|---|---|---|---|")
    over = []
    for name in args.formats.split(","):
        for mode, delta in modes.items():
            rows = []
            for label, generate in inputs(name).items():
                if args.inputs and args.inputs not in label:
                    continue
                rows.append((multiple(name, generate(args.size), delta), label))
            for value, label in sorted(rows, reverse=True)[: None if args.all else 1]:
                shown = label.replace("|", "\\|")
                print(f"| {name} | {shown} | {mode} | {value:.1f}× |")
            over += [(name, label, mode, value) for value, label in rows if value > args.target]
    print(f"\nAbove {args.target:g}×: {len(over)}")
    for name, label, mode, value in over:
        print(f"  {name} | {label} | {mode} | {value:.1f}×")


if __name__ == "__main__":
    main()
