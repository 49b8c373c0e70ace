"""Grammar export: the time to derive a format's grammar for many tools, per dialect.

For each format the exporter writes (`protocall.grammar.exportable()`) and each dialect
(`lark`, `gbnf`, `gbnf-lazy`, `structural-tag` where the format's calls are JSON), reported:

- the CPU time (process_time) of `Format.decoding_grammar` for N tools (500 by default),
  each with three parameters of differing schemas (a string, an integer, an object with
  properties; one required), the best of `REPEATS` runs; and for one tool;
- the size of the grammar text;
- for Lark, the CPU time llguidance takes to check the grammar (`validate_grammar`, which
  compiles it), the best of `REPEATS`: what a server pays once per request on top.

Run: python benchmarks/bench_grammar.py [--tools 500] [--formats hermes,qwen3-coder]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from protocall import formats
from protocall.combinators import UsageError
from protocall.grammar import exportable
from protocall.tools import normalize_tools

REPEATS = 3
DIALECTS = ("lark", "gbnf", "gbnf-lazy", "structural-tag")


def tools(count: int) -> Any:
    """`count` tools whose schemas all differ."""
    return normalize_tools(
        [
            {"name": f"tool_{n}", "parameters": {"type": "object", "required": [f"q{n}"],
             "properties": {f"q{n}": {"type": "string"}, "limit": {"type": "integer"},
                            "options": {"type": "object", "properties": {
                                "unit": {"type": "string", "enum": ["c", f"f{n}"]}}}}}}
            for n in range(count)
        ]
    )  # fmt: skip


def best(run: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """The least CPU time of `REPEATS` calls `run(*args)`, and its result."""
    times, result = [], None
    for _ in range(REPEATS):
        start = time.process_time()
        result = run(*args)
        times.append(time.process_time() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--formats", help="comma-separated names (default: every exportable)")
    args = parser.parse_args()
    names = args.formats.split(",") if args.formats else exportable()
    many, one = tools(args.tools), tools(1)
    try:
        import llguidance
    except ImportError:
        llguidance = None
    print(f"| format | dialect | 1 tool | {args.tools} tools | size | llguidance check |")
    print("|---|---|---|---|---|---|")
    for name in names:
        fmt = formats.get(name)
        for dialect in DIALECTS:
            try:
                single, _ = best(fmt.decoding_grammar, one, dialect)
            except UsageError:
                print(f"| {name} | {dialect} | (not expressible) | | | |")
                continue
            elapsed, text = best(fmt.decoding_grammar, many, dialect)
            checked = ""
            if dialect == "lark" and llguidance is not None:
                grammar = llguidance.LLMatcher.grammar_from_lark(text)
                seconds, error = best(llguidance.LLMatcher.validate_grammar, grammar)
                checked = f"{seconds * 1000:.0f} ms" + (f" ({error[:40]})" if error else "")
            size = f"{len(text.encode()) / 1024:.0f} KiB"
            print(f"| {name} | {dialect} | {single * 1000:.1f} ms | {elapsed * 1000:.0f} ms "
                  f"| {size} | {checked} |")  # fmt: skip


if __name__ == "__main__":
    main()
