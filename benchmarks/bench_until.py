"""Stream prose through an `until`-based content scanner in 4-character deltas.

    python benchmarks/bench_until.py [--delta 4] [--sizes 1000,10000,100000,1000000]
    python benchmarks/bench_until.py --breakdown    # the scanner against simpler parsers

The scanner is the shape every format's content region has: a loop over "one of the
markers, or (after a cut) content up to the next marker". The prose has an occasional `<`
that starts a marker without completing it (`a <b>`, `<tool`, `</thin`), so hold-back is
exercised. Per size it prints (best of `--runs`) the CPU time of the whole stream, the
median wall time per delta in the first and the last 10 % of the stream and their ratio
(flat means linear total cost), the mean CPU time per delta over the same stretches (less
sensitive to other processes on a busy machine), and the CPU time of a one-shot `parse` of
the same text. `--breakdown` times, at 100 K characters, a parser that only waits (the
cost of `Run.feed` and `take` alone), a bare `until`, `tag(until)` and the scanner.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from dataclasses import dataclass

from protocall.combinators import Input, Parser, Step, alt, cut, literal, many, seq, tag, until

MARKERS = ("<think>", "</think>", "<tool_call>", "<|im_end|>")
WORDS = (
    "the", "model", "considers", "what", "user", "asked", "and", "answers", "with", "care",
    "while", "it", "checks", "each", "step", "of", "its", "reasoning", "before", "calls", "a",
    "tool", "or", "writes", "final", "reply",
)  # fmt: skip
NEAR_MISSES = ("a <b> tag", "x < y", "<tool", "</thin", "<|im", "<thinking", "<tool_cal")


def scanner(markers: tuple[str, ...] = MARKERS) -> Parser[object]:
    """Markers as literals; anything else is content up to the next marker, streamed."""
    content = seq(cut, tag("content", until(*markers)))
    return many(alt(*map(literal, markers), content))


def prose(size: int, seed: int = 0) -> str:
    """`size` characters of words and punctuation, with a near-miss marker now and then."""
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(NEAR_MISSES) if rng.random() < 0.03 else rng.choice(WORDS)
        word += rng.choice((" ", " ", " ", " ", ", ", ".\n"))
        parts.append(word)
        length += len(word)
    return "".join(parts)[:size]


@dataclass
class Streamed:
    total: float
    """CPU seconds for the whole stream."""
    wall: list[int]
    """Wall nanoseconds of each delta (feed and take)."""
    cpu_first: float
    cpu_last: float
    """Mean CPU µs per delta over the first and the last 10 % of the deltas."""


def stream(parser: Parser[object], text: str, delta: int) -> Streamed:
    """Feed `text` in `delta`-character pieces, draining the items after each."""
    run = parser.run()
    clock, cpu = time.perf_counter_ns, time.thread_time
    starts = range(0, len(text), delta)
    tenth = max(1, len(starts) // 10)
    marks = {0: 0.0, tenth: 0.0, len(starts) - tenth: 0.0, len(starts): 0.0}
    wall = []
    begin = cpu()
    for index, at in enumerate(starts):
        if index in marks:
            marks[index] = cpu()
        before = clock()
        run.feed(text[at : at + delta])
        run.take()
        wall.append(clock() - before)
    marks[len(starts)] = cpu()
    run.finish()
    run.take()
    total = cpu() - begin
    if run.error is not None:
        raise RuntimeError(f"the parser did not accept the text: {run.error}")
    first = (marks[tenth] - marks[0]) / tenth * 1e6
    last = (marks[len(starts)] - marks[len(starts) - tenth]) / tenth * 1e6
    return Streamed(total, wall, first, last)


class Waiting(Parser[None]):
    """Needs more until the end of input: a delta costs only the `Run` machinery."""

    def step(self, inp: Input, pos: int) -> Step[None]:
        while not inp.eof:
            yield inp.end
        return None, inp.end


def breakdown(text: str, delta: int, runs: int) -> None:
    parsers: dict[str, Parser[object]] = {
        "only waits (Run floor)": Waiting(),
        "until, emit=False": until(*MARKERS, emit=False),
        "until": until(*MARKERS),
        "tag(until)": tag("content", until(*MARKERS)),
        "scanner": scanner(),
    }
    streamed: dict[str, list[Streamed]] = {name: [] for name in parsers}
    for _ in range(runs):  # round robin, so that a slow spell of the machine hits them all
        for name, parser in parsers.items():
            streamed[name].append(stream(parser, text, delta))
    print("| parser | median µs/delta | mean CPU µs/delta |")
    print("|---|---|---|")
    for name, results in streamed.items():
        median = min(statistics.median(r.wall) for r in results) / 1000
        cpu = min(r.total for r in results) / len(results[0].wall) * 1e6
        print(f"| {name} | {median:.2f} | {cpu:.2f} |")


def one_shot(parser: Parser[object], text: str) -> float:
    start = time.thread_time()
    parser.parse(text)
    return time.thread_time() - start


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--delta", type=int, default=4, help="characters per feed")
    options.add_argument("--sizes", default="1000,10000,100000,1000000")
    options.add_argument("--runs", type=int, default=3, help="best of this many runs")
    options.add_argument("--breakdown", action="store_true", help="compare simpler parsers")
    args = options.parse_args()
    if args.breakdown:
        breakdown(prose(100_000), args.delta, args.runs)
        return
    parser = scanner()
    header = ("chars", "deltas", "total (CPU)", "median µs/delta first 10 %", "last 10 %",
              "last/first", "CPU µs/delta first → last 10 %", "one-shot (CPU)")  # fmt: skip
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for size in map(int, args.sizes.split(",")):
        text = prose(size)
        runs, shots = [], []
        for _ in range(args.runs):
            gc.collect()
            runs.append(stream(parser, text, args.delta))
            shots.append(one_shot(parser, text))
        tenth = max(1, len(runs[0].wall) // 10)
        first = min(statistics.median(r.wall[:tenth]) for r in runs) / 1000
        last = min(statistics.median(r.wall[-tenth:]) for r in runs) / 1000
        best = min(runs, key=lambda r: r.total)
        row = (
            f"{size:,}",
            f"{len(best.wall):,}",
            f"{best.total:.3f} s",
            f"{first:.2f}",
            f"{last:.2f}",
            f"{last / first:.2f}",
            f"{best.cpu_first:.2f} → {best.cpu_last:.2f}",
            f"{min(shots) * 1000:.2f} ms",
        )
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
