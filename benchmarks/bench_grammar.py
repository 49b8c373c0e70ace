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
numbered names up to `--tools`; with `--bfcl`, the first `--tools` of BFCL's functions (as
tests/grammar/test_grammar_bfcl.py reads them from the `bfcl-eval` wheel,
requirements/bfcl.txt): real names, which Llama 3's, Llama 4's and pythonic free text
excludes as call heads. `--no-compile` leaves the engines out; `--dialects` picks some.

Run: python benchmarks/bench_grammar.py [--tools 500] [--formats hermes,qwen3-coder]
     [--real | --bfcl] [--no-compile] [--dialects lark,gbnf]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocall import formats
from protocall.combinators import UsageError
from protocall.formats import exportable
from protocall.grammar import Options, export, free_text
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


def bfcl_tools(count: int) -> Any:
    """The first `count` of BFCL's functions, as the tests read them."""
    sys.path.insert(0, str(TESTS / "grammar"))
    from test_grammar_bfcl import bfcl_tools as every

    return normalize_tools(list(every().values())[:count])


def installed(module: str) -> Any:
    """The module named `module`, or None where it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


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
    """The least CPU time of `REPEATS` calls `run(*args)`, and its result; each from a
    cold start (the cache of free text's automata cleared: as for a new tool set)."""
    times, result = [], None
    for _ in range(REPEATS):
        free_text.automaton.cache_clear()
        start = time.process_time()
        result = run(*args)
        times.append(time.process_time() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--formats", help="comma-separated names (default: every exportable)")
    parser.add_argument("--real", action="store_true", help="the tests' real-world tool set")
    parser.add_argument("--bfcl", action="store_true", help="BFCL's functions (bfcl-eval)")
    parser.add_argument("--no-compile", action="store_true", help="no engine compiles")
    parser.add_argument("--dialects", default=",".join(DIALECTS), help="comma-separated")
    args = parser.parse_args()
    names = args.formats.split(",") if args.formats else exportable()
    declare = bfcl_tools if args.bfcl else real_tools if args.real else tools
    many, one = declare(args.tools), declare(1)
    llguidance = None if args.no_compile else installed("llguidance")
    xgrammar = None if args.no_compile else xgrammar_compiler()
    print(f"| format | dialect | 1 tool | {args.tools} tools | size | dropped | compile |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        fmt = formats.get(name)
        derive = functools.partial(export, fmt, start=fmt.start_state(None), options=Options())
        for dialect in args.dialects.split(","):
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
