"""The SGLang plug-ins' cost inside SGLang's own chat endpoint, beside SGLang's own parsers.

Each request goes through SGLang 0.5.23's `OpenAIServingChat` over the stand-in engine of
tests/integrations/sglang_loop.py (SGLang's request conversion, streaming generator, reasoning and
function-call parsers and SSE chunks run; the engine yields the tokenizer manager's
output dicts), streamed in deltas of `--delta` tokens of its character tokenizer (a token
of a real tokenizer averages about four characters), once per parser pair, same outputs,
same run:

- `protocall`: `--reasoning-parser protocall-<format> --tool-call-parser protocall-<format>`;
- `SGLang`: SGLang's own reasoning parser and function-call parser for the family;
- `nothing`: parsers that do nothing (the reasoning one passes each delta on as content,
  the function-call one returns it as content): the loop itself, without parsing.

Reported: CPU ms per streamed request through the loop (the best of `--runs`; a quarter
of them at `--size`), and protocall's share over SGLang's parsers' share, each share its
time minus `nothing`'s (`share`); the same for the CPU time inside the parser objects'
calls alone (`parsers only`: building them, every parse), which the loop's noise does not
blur. A share can be negative: parsers that hold a call back until it is complete send
fewer chunks than `nothing`, which sends every delta as content. Outputs: `typical`, a few
hundred characters of reasoning and content and one small call; `N`, one `write_file`
call whose `content` is N characters of code (`--size`).

Targets (issue #32): protocall's share at most a third of SGLang's on typical turns, a
tenth at 100 K characters.

Needs the sglang wheel (requirements/servers.txt; torch and the model runtime stood in by
tests/integrations/servers_shim.py).
Run: python benchmarks/bench_sglang.py [--size 100000] [--delta 4]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(TESTS / "integrations"), str(TESTS)]  # the servers' harness

import bench_formats  # noqa: E402
import servers_shim  # noqa: E402

servers_shim.sglang_serving()

from sglang.srt.function_call.base_format_detector import BaseFormatDetector  # noqa: E402
from sglang.srt.function_call.core_types import StreamingParseResult as ToolResult  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import (  # noqa: E402
    BaseReasoningFormatDetector,
    ReasoningParser,
)
from sglang.srt.parser.reasoning_parser import StreamingParseResult as ReasoningResult  # noqa: E402
from sglang_loop import Generation, Server, special_tokens  # noqa: E402

import protocall  # noqa: E402
from protocall.blocks.turns import ToolUse, Turn  # noqa: E402
from protocall.compile.format import Format  # noqa: E402

SGLANG_NAMES = {  # format: (SGLang's reasoning parser, SGLang's function-call parser)
    "qwen3-coder": ("qwen3", "qwen3_coder"),
    "kimi-k2": ("kimi_k2", "kimi_k2"),
    "deepseek-v3.2": ("deepseek-v3", "deepseekv32"),
    "glm-4.7": ("glm45", "glm47"),
}
NOTHING = "bench-nothing"


class PassOn(BaseReasoningFormatDetector):  # type: ignore[misc]
    """A reasoning detector that passes every delta on as content."""

    def __init__(self, stream_reasoning: bool = True, **_: Any) -> None:
        super().__init__("<think>", "</think>", stream_reasoning=stream_reasoning)

    def detect_and_parse(self, text: str) -> ReasoningResult:
        return ReasoningResult(normal_text=text)

    def parse_streaming_increment(self, new_text: str) -> ReasoningResult:
        return ReasoningResult(normal_text=new_text)


class NoCalls(BaseFormatDetector):  # type: ignore[misc]
    """A function-call detector that finds no call: its text is content."""

    def has_tool_call(self, text: str) -> bool:
        return False

    def detect_and_parse(self, text: str, tools: Any) -> ToolResult:
        return ToolResult(normal_text=text)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> ToolResult:
        return ToolResult(normal_text=new_text)

    def supports_structural_tag(self) -> bool:
        return False

    def structure_info(self) -> Any:
        raise NotImplementedError("no structure")


ReasoningParser.DetectorMap[NOTHING] = PassOn
FunctionCallParser.ToolCallParserEnum[NOTHING] = NoCalls

REASONING = "The user wants the handler written to disk. " * 7
CONTENT = "I will write the file now, then explain what it does. " * 4


def output(fmt: Format, size: int | None) -> Generation:
    """The typical turn (`size` None) or one call with `size` characters of code, as the
    family writes it, its stop token trimmed as SGLang's detokenizer trims it."""
    content = bench_formats.code(size if size else 120)
    call = ToolUse("write_file", {"path": "/tmp/a.py", "content": content})
    turn = Turn(REASONING, (CONTENT, call)) if size is None else Turn("Plan.", (call,))
    text = fmt.render(turn, "reasoning")
    stop = next((s for s in special_tokens(fmt) if text.endswith(s)), None)
    return Generation(text[: -len(stop)] if stop else text, stop)


PARSER_CALLS = (
    (ReasoningParser, ("__init__", "parse_stream_chunk", "parse_stream_end", "parse_non_stream")),
    (
        FunctionCallParser,
        ("__init__", "parse_stream_chunk", "parse_stream_end", "parse_non_stream", "has_tool_call"),
    ),
)
"""The parser objects' methods SGLang's chat endpoint calls: building them (a session is
made there) and every parse."""
inside = [0.0]  # CPU seconds spent in PARSER_CALLS since the last reset


def _metered(method: Any) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            inside[0] += time.process_time() - start

    return call


for cls, names in PARSER_CALLS:
    for attribute in names:
        setattr(cls, attribute, _metered(getattr(cls, attribute)))


def cpu_ms(server: Server, generation: Generation, runs: int) -> tuple[float, float]:
    """The best CPU time of `runs` streamed requests for `generation`, and the best time
    inside the parsers' calls, in ms."""
    request = {"tools": bench_formats.tools(1), "stream": True}
    best, parsers = float("inf"), float("inf")
    for _ in range(runs):
        inside[0] = 0.0
        start = time.process_time()
        server.respond(request, generation)
        best = min(best, time.process_time() - start)
        parsers = min(parsers, inside[0])
    return best * 1000, parsers * 1000


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--size", type=int, default=100_000)
    cli.add_argument("--delta", type=int, default=4)
    cli.add_argument("--runs", type=int, default=5)
    cli.add_argument("--formats", default=",".join(SGLANG_NAMES))
    args = cli.parse_args()
    print(f"{args.delta}-token deltas of a character tokenizer; CPU ms per streamed request")
    print("(in the loop, and inside the parsers' calls)\n")
    print("| format | output | deltas | protocall | SGLang | nothing | share | parsers only |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.formats.split(","):
        fmt = protocall.formats.get(name)
        servers = {
            "protocall": Server(fmt),
            "SGLang": Server(fmt, reasoning=SGLANG_NAMES[name][0], tool=SGLANG_NAMES[name][1]),
            "nothing": Server(fmt, reasoning=NOTHING, tool=NOTHING),
        }
        for label, size in (("typical", None), (f"{args.size:,}", args.size)):
            generation = output(fmt, size)
            generation.sizes = (args.delta,)
            deltas = -(
                -len(servers["nothing"].engine.tokenizer.encode(generation.text)) // args.delta
            )
            runs = args.runs if size is None else max(1, args.runs // 4)
            loop, parsing = {}, {}
            for parser, server in servers.items():
                if size is None:  # warm-up: imports, caches, first calls
                    cpu_ms(server, generation, 1)
                loop[parser], parsing[parser] = cpu_ms(server, generation, runs)
            figures = [f"{loop[p]:.1f}" for p in ("protocall", "SGLang", "nothing")]
            print("| " + " | ".join((name, label, f"{deltas:,}", *figures,
                  _share(loop), _share(parsing))) + " |")  # fmt: skip


def _share(times: dict[str, float]) -> str:
    """protocall's share over SGLang's: each one's time minus the do-nothing parsers'."""
    ours, theirs = times["protocall"] - times["nothing"], times["SGLang"] - times["nothing"]
    return f"{ours:.1f} / {theirs:.1f} = {ours / theirs:.2f}" if theirs > 0 else "n/a"


if __name__ == "__main__":
    main()
