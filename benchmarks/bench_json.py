"""Partial JSON: protocall's incremental parser against re-parsing the growing prefix.

Tool-call-shaped argument documents (nested objects, strings with escapes, raw and escaped
non-ASCII, numbers, literals, arrays) of about 1 K, 10 K and 100 K characters arrive in
4-character deltas. For each size it reports the total time and the median µs per delta in
the first and last 10 % of the deltas for

- protocall `json_value()` run incrementally (`feed` + `take` per delta), and the core
  `Run` floor (the same loop over a parser that only waits, i.e. what any parser pays);
- re-parsing the prefix on every delta with jiter's partial mode and partial-json-parser
  (optional: `pip install -e '.[bench]'`; a missing one shows "n/a"). These are quadratic,
  so they are timed on an evenly spaced sample of deltas and the total extrapolated;
- one-shot `orjson.loads` of the whole document.

Run: python benchmarks/bench_json.py [--sizes 1000,10000,100000] [--delta 4] [--clock cpu|wall]
     python benchmarks/bench_json.py --trace   (lines run per delta: flat whatever the load)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Generator
from functools import partial
from types import FrameType
from typing import Any

import orjson

from protocall.combinators import Input, Parser
from protocall.shortcuts import json as json_shortcuts
from protocall.values import json as json_module
from protocall.values import json_value

try:
    import jiter
except ImportError:  # optional benchmark dependency
    jiter = None  # type: ignore[assignment]

try:
    import partial_json_parser  # type: ignore[import-untyped]
except ImportError:  # optional benchmark dependency
    partial_json_parser = None

WORDS = ["return", "value", "données", "naïve", "façade", "配置", "文件", "Ελλάδα", "🙂", "x"]
CODE_LINES = [
    "def handle(request):",
    '    path = request.get("path", "/tmp/a b")',
    "    if not path:\t# tab-indented comment",
    '        raise ValueError("missing \\"path\\"")',
    "    return {'ok': True, 'size': len(path)}",
]
SAMPLES = 300  # re-parse baselines: deltas timed per document
Row3 = tuple[float, float, float]  # total seconds, µs per delta in the first and last 10 %


def document(size: int, seed: int = 0) -> str:
    """Tool-call-shaped JSON arguments of about `size` characters: a few options, then edits
    until the size is reached, each with numbers, literals, prose with raw non-ASCII, code
    with escapes, and a note whose non-ASCII is written as `\\u` escapes (surrogate pairs
    included). The mix is the same all along, so the first and last deltas compare."""
    rng = random.Random(seed)

    def prose(words: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(words))

    head = {"path": "src/app/handlers.py", "options": {"dry_run": False, "ratio": 0.75}}
    text = json.dumps(head)[:-1] + ', "edits": ['
    edits: list[str] = []
    length = len(text) + 2
    while True:
        edit = {
            "line": rng.randrange(1, 10_000),
            "column": None,
            "old": prose(rng.randrange(2, 8)),
            "new": "\n".join(
                rng.choice(CODE_LINES) for _ in range(rng.randrange(1, min(30, size // 80)))
            ),
            "score": round(rng.uniform(-1, 1), 6),
            "flags": [True, False, None],
        }
        note = json.dumps(prose(rng.randrange(2, 10)))  # ensure_ascii: \u escapes
        edits.append(json.dumps(edit, ensure_ascii=False)[:-1] + f', "note": {note}}}')
        length += len(edits[-1]) + 2
        if length > size:
            if len(edits) > 1 and length - size > size - (length - len(edits[-1]) - 2):
                edits.pop()  # closer to the size without it
            return text + ", ".join(edits) + "]}"


class Wait(Parser[None]):
    """Waits for the end of input: the cost of the `Run` loop itself."""

    def step(self, inp: Input, pos: int) -> Generator[int, None, tuple[None, int]]:
        while not inp.eof:
            yield inp.end
        return None, inp.end


def deltas_of(text: str, width: int) -> list[str]:
    return [text[i : i + width] for i in range(0, len(text), width)]


def run_total(parser: Parser[Any], deltas: list[str], clock: Callable[[], float]) -> float:
    run = parser.run()
    start = clock()
    for delta in deltas:
        run.feed(delta)
        run.take()
    run.finish()
    return clock() - start


def run_per_delta(parser: Parser[Any], deltas: list[str]) -> tuple[list[float], Any]:
    """Wall time of each delta, less the cost of reading the clock."""
    clock = time.perf_counter
    reading = statistics.median(-clock() + clock() for _ in range(1001))
    run = parser.run()
    times = []
    for delta in deltas:
        start = clock()
        run.feed(delta)
        run.take()
        times.append(clock() - start - reading)
    run.finish()
    return times, run.value


def edge_medians(times: list[float]) -> tuple[float, float]:
    """Median of the first and of the last 10 %, in µs."""
    tenth = max(1, len(times) // 10)
    return statistics.median(times[:tenth]) * 1e6, statistics.median(times[-tenth:]) * 1e6


def reparse(parse: Callable[[Any], Any], as_bytes: bool, text: str, width: int) -> Row3:
    """Re-parsing the prefix at every delta, timed on `SAMPLES` evenly spaced deltas (the
    best of two rounds each): (extrapolated total s, first-10 % median µs, last-10 % median
    µs)."""
    count = len(range(0, len(text), width))
    picked = range(0, count, max(1, count // SAMPLES))
    times = []
    for index in picked:
        prefix = text[: (index + 1) * width]
        data: str | bytes = prefix.encode() if as_bytes else prefix
        best = math.inf
        for _ in range(2):
            start = time.perf_counter()
            parse(data)
            best = min(best, time.perf_counter() - start)
        times.append(best)
    tenth = max(1, count // 10)
    first = [t for i, t in zip(picked, times, strict=True) if i < tenth]
    last = [t for i, t in zip(picked, times, strict=True) if i >= count - tenth]
    return (
        statistics.mean(times) * count,
        statistics.median(first) * 1e6,
        statistics.median(last) * 1e6,
    )


def best_of(repeats: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(repeats))


# name: (parse the prefix, whether it takes bytes), or None when not installed.
BASELINES: dict[str, tuple[Callable[[Any], Any], bool] | None] = {
    "jiter": None if jiter is None else (partial(jiter.from_json, partial_mode=True), True),
    "partial-json-parser": None
    if partial_json_parser is None
    else (partial_json_parser.loads, False),
}


CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}


def measure(size: int, width: int, repeats: int, clock: Callable[[], float]) -> dict[str, Any]:
    """One table row: every column for a document of about `size` characters."""
    text = document(size)
    deltas = deltas_of(text, width)
    total = best_of(repeats, lambda: run_total(json_value(), deltas, clock))
    floor = best_of(repeats, lambda: run_total(Wait(), deltas, clock))
    medians = []
    for _ in range(3):
        times, value = run_per_delta(json_value(), deltas)
        assert value == orjson.loads(text)
        medians.append(edge_medians(times))
    row: dict[str, Any] = {
        "size": len(text),
        "deltas": len(deltas),
        "protocall": (total, min(m[0] for m in medians), min(m[1] for m in medians)),
        "floor": floor / len(deltas) * 1e6,
        "orjson": best_of(repeats * 3, lambda: _time(lambda: orjson.loads(text))),
    }
    for name, baseline in BASELINES.items():
        row[name] = None if baseline is None else reparse(*baseline, text=text, width=width)
    return row


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--sizes", default="1000,10000,100000")
    options.add_argument("--delta", type=int, default=4)
    options.add_argument("--repeats", type=int, default=7)
    options.add_argument(
        "--clock",
        choices=CLOCKS,
        default="cpu",
        help="for the protocall totals: the thread's CPU time (default; on a shared machine it"
        " leaves out time spent waiting for a core) or wall time",
    )
    options.add_argument(
        "--trace",
        action="store_true",
        help="instead of timing, count the Python lines the JSON parser runs per delta and"
        " the most text its run holds: a load-independent check that the cost is flat",
    )
    args = options.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    if args.trace:
        for size in sizes:
            lines, held = trace(deltas_of(document(size), args.delta))
            print(f"{size:>7,} characters: {lines:.1f} lines per delta, at most {held} held")
        return
    clock = CLOCKS[args.clock]
    rows = [measure(size, args.delta, args.repeats, clock) for size in sizes]
    print(table(rows, args.delta, args.clock))


def trace(deltas: list[str]) -> tuple[float, int]:
    """Python lines of the JSON modules (the parser and its shortcuts) run per delta, and
    the largest buffer of the run."""
    modules = {json_module.__file__, json_shortcuts.__file__}
    lines = 0

    def count(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines
        if event == "line":
            lines += 1
        return count

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return count if frame.f_code.co_filename in modules else None

    run = json_value().run()
    held = 0
    sys.settrace(calls)
    try:
        for delta in deltas:
            run.feed(delta)
            run.take()
            held = max(held, len(run._inp.buf))
        run.finish()
    finally:
        sys.settrace(None)
    return lines / len(deltas), held


def _time(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _cell(result: Row3 | None) -> str:
    if result is None:
        return "n/a"
    total, first, last = result
    return f"{_seconds(total)} ({first:.1f} → {last:.1f} µs)"


def _seconds(value: float) -> str:
    return f"{value * 1e3:.1f} ms" if value < 1 else f"{value:.2f} s"


def table(rows: list[dict[str, Any]], width: int, clock: str) -> str:
    load = os.getloadavg()[0]
    lines = [
        f"{width}-character deltas; protocall totals in {clock} time, best of the runs;"
        f" load average {load:.2f} on {os.cpu_count()} CPUs",
        "",
        "| chars | deltas | protocall total (µs/delta first → last 10 %) | core Run floor µs/delta "
        "| jiter re-parse* | partial-json-parser re-parse* | orjson one-shot | × vs jiter |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        jiter_total = row["jiter"][0] if row["jiter"] else None
        ratio = f"{jiter_total / row['protocall'][0]:.0f}×" if jiter_total else "n/a"
        lines.append(
            f"| {row['size']:,} | {row['deltas']:,} | {_cell(row['protocall'])} "
            f"| {row['floor']:.2f} | {_cell(row['jiter'])} | {_cell(row['partial-json-parser'])} "
            f"| {row['orjson'] * 1e3:.3f} ms | {ratio} |"
        )
    lines += [
        "",
        f"* re-parse baselines: {SAMPLES} evenly spaced deltas per document timed (best of 2"
        " each), the total extrapolated (mean × deltas); the medians are the sampled deltas'.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
