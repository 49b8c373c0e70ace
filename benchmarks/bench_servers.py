"""protocall's server plug-ins inside the servers' own serving loops: CPU per request.

Each section streams the same outputs through one server's own chat-completions code, once
per parser, same run, and reports the CPU time (`process_time`) per request, the best of
`--repeats` runs of `--requests` requests (of one request for a 100 K turn), and each parser's
share of the loop: its time minus the do-nothing parser's (`floor`). `protocall/server` is
protocall's share over the server's own parser's for the family.

- `vllm`: vLLM 0.33's `OpenAIServingChat`, streamed, over the fake engine of
  tests/integrations/vllm_serving.py (vLLM's `OutputProcessor` and incremental
  detokenizer over a byte-level Hugging Face tokenizer holding the family's added tokens,
  `--delta` tokens per engine step), the server's SSE text collected. Parsers:
  `--tool-call-parser protocall-<format> --reasoning-parser protocall-<format>`; vLLM's own
  tool and reasoning parsers for the family; `floor`, a tool parser that sends no chunk
  but the last; `echo`, one that sends each delta's text on as content (what vLLM spends
  on the chunks of a parser that streams every delta).
- `sglang`: SGLang 0.5.23's `OpenAIServingChat.handle_request`, streamed, over the
  stand-in engine of tests/integrations/sglang_loop.py (SGLang's request conversion,
  streaming generator, parsers and SSE chunks run; the engine yields the tokenizer
  manager's output dicts in `--delta`-token deltas of a character tokenizer whose special
  tokens are the family's markers; the stop token's text trimmed as SGLang's detokenizer
  trims it). Parsers: protocall's, SGLang's own reasoning and function-call parsers for the
  family, and `floor`, parsers that pass every delta on as content. The `in parsers` column
  is the CPU time inside the parser objects' calls alone (building them, every parse),
  which the loop's noise does not blur. A share can be negative: parsers that hold a call
  back until it is complete send fewer chunks than `floor`, which sends every delta.

Two kinds of turn: `typical` (about 300 characters of reasoning, 200 of content and one
small call) and `100K` (one `write_file` call whose content is 100 K characters of code,
as benchmarks/bench_formats.py writes it for the family, else as the format renders it).
Targets (issue #32): protocall's share at most a third of the server's parser's on
typical turns, a tenth at 100 K.

Needs the server wheels (requirements/servers.txt; torch is stood in by
tests/integrations/servers_shim.py) and, for vLLM's own parsers, `pip install ijson
mistral-common pydantic-extra-types pycountry`.
Run: PYTHONPATH=. python benchmarks/bench_servers.py [--formats qwen3-coder] [--delta 4]
     [--requests 20] [--repeats 3] [--size 100000] [--sections vllm,sglang]
"""

from __future__ import annotations

import argparse
import functools
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(TESTS / "integrations"), str(TESTS)]  # the servers' harness

import bench_formats  # noqa: E402

import protocall  # noqa: E402
from protocall.blocks.turns import ToolUse, Turn  # noqa: E402

SERVER_NAMES = {  # format: (vLLM's tool and reasoning parsers, SGLang's reasoning and tool)
    "qwen3-coder": (("qwen3_coder", "qwen3"), ("qwen3", "qwen3_coder")),
    "kimi-k2": (("kimi_k2", "kimi_k2"), ("kimi_k2", "kimi_k2")),
    "deepseek-v3.2": (("deepseek_v32", "deepseek_v3"), ("deepseek-v3", "deepseekv32")),
    "glm-4.7": (("glm47", "glm45"), ("glm45", "glm47")),
}

REASONING = (
    "The user wants the build script saved. I should check which directory it goes to, "
    "then write it with the right permissions in mind; the path they gave is absolute, so "
    "no lookup is needed. The content is short: a shebang, a set -e, and the two build "
    "commands. Nothing here needs another tool first, so one call does it.\n"
)
CONTENT = (
    "I'll save the build script to /tmp/build.sh now. It stops at the first failing "
    "command and then runs the two steps you listed, in order.\n"
)
SMALL_CALL = ToolUse("write_file", {"path": "/tmp/build.sh", "content": "set -e\nmake\n"})
Row = list[str]


def turns(name: str, size: int) -> dict[str, tuple[str, str]]:
    """The outputs measured, by kind: (output text, generation prompt)."""
    fmt = protocall.formats.get(name)
    start = "reasoning" if "reasoning" in fmt.prompts else None
    prompt = fmt.prompt_for(start) or ""
    typical = fmt.render(Turn(REASONING if start else None, (CONTENT, SMALL_CALL)), start)
    family = bench_formats.FAMILIES.get(name)
    code = bench_formats.code(size)
    if family is not None:
        big, big_prompt = family.render(code), family.prompt or prompt
    else:
        call = ToolUse("write_file", {"path": "/tmp/a.py", "content": code})
        big, big_prompt = fmt.render(Turn("Write it." if start else None, (call,)), start), prompt
    return {"typical": (typical, prompt), f"{size // 1000}K": (big, big_prompt)}


def rows(
    name: str,
    kind: str,
    tokens: int,
    own: str,
    times: dict[str, float],
    inside: dict[str, float] | None = None,
) -> list[Row]:
    """One row per parser (seconds in): CPU per request, its share, and on protocall's row
    its share over the server's parser's; with `inside`, the time in the parser objects'
    calls, and on protocall's row the same ratio of those over the floor's."""
    lines = []
    for label, cpu in times.items():
        share = "" if label == "floor" else f"{(cpu - times['floor']) * 1e3:.2f} ms"
        ratio = _ratio(times, own) if label == "protocall" else ""
        parsers = "" if inside is None else f"{inside[label] * 1e3:.2f} ms"
        if inside is not None and label == "protocall":
            parsers += f" ({_ratio(inside, own)})"
        lines.append(
            [name, kind, label, f"{tokens:,}", f"{cpu * 1e3:.2f} ms", share, ratio, parsers]
        )
    return lines


def _ratio(times: dict[str, float], own: str) -> str:
    """protocall's share over the server's parser's, each its time minus the floor's."""
    ours, theirs = times["protocall"] - times["floor"], times[own] - times["floor"]
    return f"{ours / theirs:.2f}" if theirs > 0 else "n/a"


# -- vLLM --------------------------------------------------------------------------------------


@functools.cache
def vllm() -> Any:
    """vLLM's harness, with the `floor` and `echo` tool parsers registered."""
    import servers_shim

    servers_shim.install()
    import vllm_samples
    import vllm_serving
    from vllm.entrypoints.generate.base.protocol import (
        DeltaMessage,
        ExtractedToolCallInformation,
    )
    from vllm.tool_parsers import ToolParser, ToolParserManager

    import protocall.integrations.vllm  # noqa: F401  (registers protocall-<format>)

    class Floor(ToolParser):  # type: ignore[misc]
        """A tool parser that does nothing: no delta gives a chunk to send. The serving
        loop, the request's tools included, with no parsing and nothing streamed."""

        engine_based_streaming = True

        def extract_tool_calls(self, model_output: str, request: Any) -> Any:
            return ExtractedToolCallInformation(
                tools_called=False, tool_calls=[], content=model_output
            )

        def extract_tool_calls_streaming(self, *args: Any) -> Any:
            return None

    class Echo(Floor):
        """A tool parser that sends each delta's text on as content."""

        def extract_tool_calls_streaming(self, *args: Any) -> Any:
            return DeltaMessage.model_construct(content=args[2], tool_calls=[])

    ToolParserManager.register_module(name="floor", module=Floor)
    ToolParserManager.register_module(name="echo", module=Echo)
    return vllm_samples, vllm_serving


def vllm_section(name: str, outputs: dict[str, tuple[str, str]], args: Any) -> list[Row]:
    vllm_samples, vllm_serving = vllm()
    tok = vllm_samples.tokenizer(name)
    tool, reasoning = SERVER_NAMES[name][0]
    own = f"vLLM {tool}"
    servers = {
        "protocall": ("protocall-" + name, "protocall-" + name),
        own: (tool, reasoning),
        "echo": ("echo", None),
        "floor": ("floor", None),
    }
    lines = []
    for kind, (text, prompt) in outputs.items():
        ids = vllm_serving.encode(tok, text)
        requests = 1 if len(text) > 10_000 else args.requests
        times = {label: per_request(tok, prompt, ids, pair, requests, args) for label, pair
                 in servers.items()}  # fmt: skip
        lines += rows(name, kind, len(ids), own, times)
    return lines


def per_request(
    tok: Any, prompt: str, ids: list[int], parsers: tuple[str, str | None], count: int, args: Any
) -> float:
    """CPU seconds per streamed request through vLLM: the best of `args.repeats` runs of
    `count` (1 for a 100 K turn), after a request for the first `WARM_UP` ids."""
    vllm_samples, vllm_serving = vllm()
    engine = vllm_serving.Engine(tok, vllm_serving.encode(tok, "Go.\n" + prompt))
    engine.output, engine.steps, engine.finish = ids, [args.delta], "length"
    chat = vllm_serving.serving(engine, *parsers)
    request = vllm_serving.request(vllm_samples.SAMPLE_TOOLS, True)
    engine.output = ids[:WARM_UP]
    vllm_serving.run(chat, request.model_copy(deep=True))  # imports, caches, first calls
    engine.output = ids
    best = float("inf")
    for _ in range(args.repeats):
        gc.collect()
        begin = time.process_time()
        for _ in range(count):
            vllm_serving.run(chat, request.model_copy(deep=True))
        best = min(best, (time.process_time() - begin) / count)
    return best


WARM_UP = 400
"""How many of a turn's ids a first, unmeasured request streams."""


# -- SGLang ------------------------------------------------------------------------------------


@functools.cache
def sglang() -> Any:
    """SGLang's harness, with the `floor` parsers registered and the parser objects'
    calls metered (`inside`)."""
    import servers_shim

    servers_shim.sglang_serving()
    import sglang_loop
    from sglang.srt.function_call.base_format_detector import BaseFormatDetector
    from sglang.srt.function_call.core_types import StreamingParseResult as ToolResult
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector, ReasoningParser
    from sglang.srt.parser.reasoning_parser import StreamingParseResult as ReasoningResult

    class PassOn(BaseReasoningFormatDetector):  # type: ignore[misc]
        """A reasoning detector that passes every delta on as content."""

        def __init__(self, stream_reasoning: bool = True, **_: Any) -> None:
            super().__init__("<think>", "</think>", stream_reasoning=stream_reasoning)

        def detect_and_parse(self, text: str) -> Any:
            return ReasoningResult(normal_text=text)

        def parse_streaming_increment(self, new_text: str) -> Any:
            return ReasoningResult(normal_text=new_text)

    class NoCalls(BaseFormatDetector):  # type: ignore[misc]
        """A function-call detector that finds no call: its text is content."""

        def has_tool_call(self, text: str) -> bool:
            return False

        def detect_and_parse(self, text: str, tools: Any) -> Any:
            return ToolResult(normal_text=text)

        def parse_streaming_increment(self, new_text: str, tools: Any) -> Any:
            return ToolResult(normal_text=new_text)

        def supports_structural_tag(self) -> bool:
            return False

        def structure_info(self) -> Any:
            raise NotImplementedError("no structure")

    ReasoningParser.DetectorMap[FLOOR] = PassOn
    FunctionCallParser.ToolCallParserEnum[FLOOR] = NoCalls
    for cls in (ReasoningParser, FunctionCallParser):  # what the chat endpoint calls
        for method in ("__init__", "parse_stream_chunk", "parse_stream_end", "parse_non_stream",
                       "has_tool_call"):  # fmt: skip
            if hasattr(cls, method):
                setattr(cls, method, _metered(getattr(cls, method)))
    return sglang_loop


FLOOR = "bench-floor"
inside = [0.0]
"""CPU seconds spent in the SGLang parser objects' calls since the last reset."""


def _metered(method: Any) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            inside[0] += time.process_time() - start

    return call


def sglang_section(name: str, outputs: dict[str, tuple[str, str]], args: Any) -> list[Row]:
    sglang_loop = sglang()
    fmt = protocall.formats.get(name)
    reasoning, tool = SERVER_NAMES[name][1]
    own = f"SGLang {tool}"
    servers = {
        "protocall": sglang_loop.Server(fmt),
        own: sglang_loop.Server(fmt, reasoning=reasoning, tool=tool),
        "floor": sglang_loop.Server(fmt, reasoning=FLOOR, tool=FLOOR),
    }
    stops = sglang_loop.special_tokens(fmt)
    lines = []
    for kind, (text, _) in outputs.items():  # the template pre-opens reasoning (`thinking`)
        stop = next((s for s in stops if text.endswith(s)), None)
        generation = sglang_loop.Generation(text[: -len(stop)] if stop else text, stop)
        generation.sizes = (args.delta,)
        tokens = len(servers["floor"].engine.tokenizer.encode(generation.text))
        requests = 1 if len(text) > 10_000 else args.requests
        times, parsers = {}, {}
        for label, server in servers.items():
            times[label], parsers[label] = per_sglang_request(server, generation, requests, args)
        lines += rows(name, kind, tokens, own, times, parsers)
    return lines


def per_sglang_request(server: Any, generation: Any, count: int, args: Any) -> tuple[float, float]:
    """CPU seconds per streamed request through SGLang, and inside its parser objects: the
    best of `args.repeats` runs of `count` (1 for a 100 K turn), after an unmeasured
    request."""
    request = {"tools": bench_formats.tools(1), "stream": True}
    server.respond(request, generation)  # imports, caches, first calls
    best, parsers = float("inf"), float("inf")
    for _ in range(args.repeats):
        gc.collect()
        inside[0] = 0.0
        begin = time.process_time()
        for _ in range(count):
            server.respond(request, generation)
        best = min(best, (time.process_time() - begin) / count)
        parsers = min(parsers, inside[0] / count)
    return best, parsers


SECTIONS: dict[str, Callable[[str, dict[str, tuple[str, str]], Any], list[Row]]] = {
    "vllm": vllm_section,
    "sglang": sglang_section,
}


def main() -> None:
    cli = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    cli.add_argument("--formats", default=",".join(SERVER_NAMES))
    cli.add_argument("--sections", default=",".join(SECTIONS))
    cli.add_argument("--delta", type=int, default=4, help="tokens per engine step")
    cli.add_argument("--requests", type=int, default=20, help="typical requests per run")
    cli.add_argument("--repeats", type=int, default=3)
    cli.add_argument("--size", type=int, default=100_000)
    args = cli.parse_args()
    print(f"{args.delta}-token engine steps; CPU per streamed request, best of {args.repeats}\n")
    print("| format | turn | server | tokens | CPU/request | parser's share | protocall/server "
          "| in parsers |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for section in args.sections.split(","):
        for name in args.formats.split(","):
            for row in SECTIONS[section](name, turns(name, args.size), args):
                print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
