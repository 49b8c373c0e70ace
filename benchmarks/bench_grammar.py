"""Grammar export: the time to derive a format's grammar for many tools, per dialect.

For each format the exporter writes (`protocall.formats.exportable()`) and each dialect
(`lark`, `gbnf`, `gbnf-lazy`, `structural-tag`), reported:

- the CPU time (process_time) of `Format.decoding_grammar` for N tools (500 by default),
  each with three parameters of differing schemas (a string, an integer, an object with
  properties; one required), the best of `REPEATS` runs; and for one tool;
- the size of the grammar text, and how many schema keywords it drops (`Export.dropped`);
- the CPU time the engine takes to compile it, the best of `REPEATS`: what a server pays
  once per request on top. For Lark, llguidance's `validate_grammar` (which compiles it);
  for GBNF, the lazy grammar and structural tags, xgrammar's `GrammarCompiler` over a
  byte-level vocabulary (xgrammar imports torch: the CPU build of
  requirements/servers-light.txt; its compile cache off).

With `--real`, the tools are the real-world tool set of the tests
(tests/grammar/data/real_tools.json: `$ref`, `format`, `pattern`, bounds, …), repeated under
numbered names up to `--tools`.

Run: python benchmarks/bench_grammar.py [--tools 500] [--formats hermes,qwen3-coder] [--real]
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocall import formats
from protocall.combinators import UsageError
from protocall.formats import exportable
from protocall.grammar import Options, export
from protocall.tools import normalize_tools

TESTS = Path(__file__).resolve().parent.parent / "tests"

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


def real_tools(count: int) -> Any:
    """`count` tools of the real-world set, repeated under numbered names."""
    real = json.loads((TESTS / "grammar" / "data" / "real_tools.json").read_text())
    return normalize_tools(
        [{**real[n % len(real)], "name": f"{real[n % len(real)]['name']}_{n}"}
         for n in range(count)]
    )  # fmt: skip


def xgrammar_compiler() -> Callable[[str, str], Any] | None:
    """A function compiling a GBNF (`gbnf`) or structural tag (`structural-tag`) text with
    xgrammar, or None where xgrammar is not installed."""
    try:
        import xgrammar as xgr
    except ImportError:
        return None
    vocabulary = xgr.TokenizerInfo([bytes([n]) for n in range(256)])

    def compile_text(kind: str, text: str) -> Any:
        compiler = xgr.GrammarCompiler(vocabulary, cache_enabled=False)
        if kind == "structural-tag":
            return compiler.compile_grammar(xgr.Grammar.from_structural_tag(text))
        return compiler.compile_grammar(text)

    return compile_text


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
    parser.add_argument("--real", action="store_true", help="the tests' real-world tool set")
    args = parser.parse_args()
    names = args.formats.split(",") if args.formats else exportable()
    declare = real_tools if args.real else tools
    many, one = declare(args.tools), declare(1)
    try:
        import llguidance
    except ImportError:
        llguidance = None
    xgrammar = xgrammar_compiler()
    print(f"| format | dialect | 1 tool | {args.tools} tools | size | dropped | compile |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        fmt = formats.get(name)
        derive = functools.partial(export, fmt, start=fmt.start_state(None), options=Options())
        for dialect in DIALECTS:
            try:
                single, _ = best(derive, one, dialect)
            except UsageError:
                print(f"| {name} | {dialect} | (not expressible) | | | | |")
                continue
            elapsed, exported = best(derive, many, dialect)
            text, compiled = exported.text, ""
            if dialect == "lark" and llguidance is not None:
                grammar = llguidance.LLMatcher.grammar_from_lark(text)
                seconds, error = best(llguidance.LLMatcher.validate_grammar, grammar)
                compiled = f"{seconds * 1000:.0f} ms" + (f" ({error[:40]})" if error else "")
            elif dialect != "lark" and xgrammar is not None:
                kind = "gbnf" if dialect != "structural-tag" else dialect
                written = json.loads(text)["grammar"] if dialect == "gbnf-lazy" else text
                seconds, _ = best(xgrammar, kind, written)
                compiled = f"{seconds * 1000:.0f} ms"
            size = f"{len(text.encode()) / 1024:.0f} KiB"
            print(f"| {name} | {dialect} | {single * 1000:.1f} ms | {elapsed * 1000:.0f} ms "
                  f"| {size} | {len(exported.dropped)} | {compiled} |")  # fmt: skip


if __name__ == "__main__":
    main()
