"""Typical turns: what one short request costs, session creation included.

A typical turn is about 300 characters of reasoning (where the format has a reasoning
block), about 100 of content and one call `get_weather(city, unit, days)`, written by the
format's own renderer and fed in 4-character deltas (about 110 to 200 of them). The
session declares 10 or 50 tools (`get_weather` and others shaped alike). For every format
and tool count, each figure the median of `--repeats` turns:

- cold: creating the session for a tool set the format has not compiled (the compiled-
  format cache emptied before each; the tools' schema validators, cached per schema
  content, and the grammar pieces built once per marker text stay warm, as in a server
  that served the format before), and with 500 tools;
- warm: creating it for a tool set seen before (the compiled grammar shared);
- first: the first delta; median: the median delta of the turn; first/median;
- finish: `finish()`;
- turn: creation (warm) + every delta + finish, and its ratio to the steady cost of its
  deltas: each delta's median over the turns (a delta that completes a marker costs more
  than one inside a text, in a warm session too), the first one counted as a median delta
  (what it would cost had the session been running). The ratio is what being a new
  request costs: creation, the first delta's descent into the grammar, and `finish`.

Then, side by side in the same run for the formats vLLM and SGLang parse themselves, the
whole turn (10 tools) through each server's own parsers, their construction included as a
server pays it per request: vLLM 0.33's per-request `Parser` (`ParserManager.get_parser`,
its tool and reasoning parsers, `parse_delta` per delta) and SGLang's `ReasoningParser`
and `FunctionCallParser` (`parse_stream_chunk` per delta, `parse_stream_end`); protocall
bare (`Format.parser`, `feed`, `finish`) and through its vLLM plug-in (the same
`parse_delta` contract). The deltas are 4 tokens of a character tokenizer whose special
tokens are the format's markers (tests/integrations/servers_shim.py), the same text for
every parser.

Needs the vllm and sglang wheels and CPU torch for the second table
(requirements/servers.txt, servers-light.txt).
Run: python benchmarks/bench_typical.py [--formats hermes,kimi-k2] [--repeats 200]
     [--no-servers]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.compile.compiled import clear_cache

REASONING = (
    "The user asks for the weather in Paris over the weekend. I should call the weather "
    "tool with the city, a unit and a number of days. They wrote in English, but Paris "
    "uses Celsius and nothing says they prefer Fahrenheit, so Celsius it is. The weekend "
    "is three days from today if Friday evening counts. Then summarise it briefly."
)
CONTENT = "Let me look up the forecast for Paris over the next three days, in Celsius, for you."
CALL = ToolUse("get_weather", {"city": "Paris", "unit": "celsius", "days": 3})
DELTA = 4


def tool(name: str) -> dict[str, Any]:
    properties = {
        "city": {"type": "string", "description": "The city."},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1},
    }
    parameters = {"type": "object", "properties": properties, "required": ["city"]}
    function = {"name": name, "description": f"{name} for a city.", "parameters": parameters}
    return {"type": "function", "function": function}


def tools(count: int, family: str = "tool") -> list[dict[str, Any]]:
    """`get_weather` and `count - 1` others (`tool_1`, …), their schemas alike."""
    return [tool("get_weather"), *(tool(f"{family}_{i}") for i in range(1, count))]


def typical(fmt: formats.Format) -> tuple[str, str | None]:
    """The turn as the format writes it, and its generation prompt (reasoning pre-opened
    where the format's template can open it)."""
    start = "reasoning" if "reasoning" in fmt.prompts else fmt.default_start
    reasoning = REASONING if start == "reasoning" or "reasoning" in fmt.channels else None
    try:
        text = fmt.render(Turn(reasoning, (CONTENT, CALL)), start)
    except Exception:  # a format whose turn carries no reasoning block
        start, text = None, fmt.render(Turn(None, (CONTENT, CALL)), None)
    return text, fmt.prompt_for(start)


def pieces(text: str) -> list[str]:
    return [text[at : at + DELTA] for at in range(0, len(text), DELTA)]


@dataclass
class Row:
    name: str
    count: int
    deltas: int
    cold: float
    warm: float
    first: float
    median: float
    finish: float
    turn: float
    steady: float


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter_ns()
    value = call()
    return (time.perf_counter_ns() - start) / 1e3, value


def _fed(session: Any, chunks: Sequence[str]) -> list[float]:
    """µs of each `feed` of `chunks`."""
    feed, clock, times = session.feed, time.perf_counter_ns, []
    for chunk in chunks:
        start = clock()
        feed(chunk)
        times.append((clock() - start) / 1e3)
    return times


def measure(name: str, count: int, repeats: int) -> Row:
    """Figures in µs (medians of `repeats` turns)."""
    fmt = formats.get(name)
    text, prompt = typical(fmt)
    chunks = pieces(text)
    declared = tools(count)
    colds = []
    for _ in range(max(repeats // 10, 3)):
        clear_cache()
        colds.append(_timed(lambda: fmt.parser(declared, prompt))[0])
    warm, first, median, finish, turn, each = [], [], [], [], [], []
    gc.collect()  # once: the collector then runs as it would in a server, now and then
    for index in range(repeats + 1):
        created, session = _timed(lambda: fmt.parser(declared, prompt))
        times = _fed(session, chunks)
        finished, _ = _timed(session.finish)
        if index == 0:  # the message is checked once; the first turn warms the caches
            message = session.message
            assert not message.errors and [c.name for c in message.tool_calls] == [CALL.name]
            assert message.tool_calls[0].arguments == CALL.arguments, name
            continue
        warm.append(created)
        first.append(times[0])
        median.append(statistics.median(times))
        finish.append(finished)
        turn.append(created + sum(times) + finished)
        each.append(times)
    m = statistics.median
    steady = m(median) + sum(m(times) for times in list(zip(*each, strict=True))[1:])
    figures = (m(colds), m(warm), m(first), m(median), m(finish), m(turn), steady)
    return Row(name, count, len(chunks), *figures)


def cold_many(name: str, count: int, repeats: int) -> float:
    """µs to create a session for `count` tools the format has not compiled (median)."""
    fmt = formats.get(name)
    _, prompt = typical(fmt)
    times = []
    for index in range(repeats):
        declared = tools(count, family=f"t{index}")
        clear_cache()
        times.append(_timed(lambda declared=declared: fmt.parser(declared, prompt))[0])
    return statistics.median(times)


def table(rows: Sequence[Row], many: dict[str, float], count: int) -> str:
    lines = [
        f"| format | tools | deltas | cold | cold, {count} tools | warm | first | median "
        "| first/median | finish | turn | turn/steady |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = (
            r.name,
            str(r.count),
            str(r.deltas),
            f"{r.cold:.0f}",
            f"{many[r.name] / 1000:.1f} ms" if r.count == 10 else "",
            f"{r.warm:.1f}",
            f"{r.first:.1f}",
            f"{r.median:.2f}",
            f"{r.first / r.median:.1f}",
            f"{r.finish:.0f}",
            f"{r.turn:.0f}",
            f"{r.turn / r.steady:.2f}",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- the servers' own parsers ------------------------------------------------------------------

SERVERS = {  # format: (vLLM tool parser, vLLM reasoning parser, SGLang's two)
    "qwen3-coder": ("qwen3_coder", "qwen3", "qwen3_coder", "qwen3"),
    "kimi-k2": ("kimi_k2", "kimi_k2", "kimi_k2", "kimi_k2"),
    "deepseek-v3.2": ("deepseek_v32", "deepseek_v3", "deepseekv32", "deepseek-v3"),
    "glm-4.7": ("glm47", "glm45", "glm47", "glm45"),
}


def servers(names: Sequence[str], repeats: int) -> str:
    """The table of whole turns through the servers' parsers and protocall's."""
    TESTS = Path(__file__).resolve().parent.parent / "tests"
    sys.path[:0] = [str(TESTS / "integrations"), str(TESTS)]  # the servers' harness
    import servers_shim

    servers_shim.sglang_packages()
    import protocall.integrations.vllm  # noqa: F401  (registers protocall-<format>)

    lines = [
        "| format | protocall | protocall in vLLM's `parse_delta` | vLLM | SGLang "
        "| vLLM / protocall | SGLang / protocall |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in names:
        if name not in SERVERS:
            continue
        cost = {}
        for label, turn in server_turns(name, servers_shim).items():
            turn()  # warm-up: imports, caches, the compiled format
            times = []
            gc.collect()
            for _ in range(repeats):
                times.append(_timed(turn)[0])
            cost[label] = statistics.median(times)
        cells = (
            name,
            *(f"{value:.0f} µs" for value in cost.values()),
            f"{cost['vLLM'] / cost['protocall']:.1f}×",
            f"{cost['SGLang'] / cost['protocall']:.1f}×",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def server_turns(name: str, servers_shim: Any) -> dict[str, Callable[[], None]]:
    """One whole typical turn of format `name` (10 tools) by each parser, as a function."""
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest as SGLangRequest
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    fmt = formats.get(name)
    declared = tools(10)
    vllm_tool, vllm_reasoning, sglang_tool, sglang_reasoning = SERVERS[name]
    text, prompt_text = typical(fmt)
    markers = [*fmt.reserved, *(m for pair in fmt.channels.values() for m in pair)]
    tokenizer = servers_shim.Tokenizer([*markers, *fmt.prompts.values()])
    ids = tokenizer.encode(text)
    deltas = [
        (tokenizer.decode(ids[at : at + DELTA]), ids[at : at + DELTA])
        for at in range(0, len(ids), DELTA)
    ]
    prompt_ids = tokenizer.encode("<|im_start|>user\nx" + (prompt_text or ""))
    messages = [{"role": "user", "content": "x"}]
    vllm_request = ChatCompletionRequest(model="m", messages=messages, tools=declared, stream=True)
    sglang_request = SGLangRequest(model="m", messages=messages, tools=declared, stream=True)
    thinking = prompt_text is not None and prompt_text == fmt.prompt_for("reasoning")

    def bare() -> None:
        session = fmt.parser(declared, prompt_text)
        for piece, _ in deltas:
            session.feed(piece)
        session.finish()

    def in_vllm(tool: str, reasoning: str) -> Callable[[], None]:
        def turn() -> None:
            parser_cls: Any = ParserManager.get_parser(
                tool_parser_name=tool, reasoning_parser_name=reasoning,
                enable_auto_tools=True, model_name="m", tokenizer=tokenizer,
            )  # fmt: skip
            parser = parser_cls(
                tokenizer, vllm_request.tools, chat_template_kwargs={}, model_config=None
            )
            last = len(deltas) - 1
            for index, (piece, piece_ids) in enumerate(deltas):
                parser.parse_delta(
                    piece, piece_ids, vllm_request, prompt_ids, finished=index == last
                )

        return turn

    def sglang() -> None:
        reasoner = ReasoningParser(
            sglang_reasoning, True, thinking, sglang_request, tool_call_parser_active=True
        )
        parser = FunctionCallParser(sglang_request.tools, sglang_tool, tokenizer=None)
        for piece, _ in deltas:
            _, normal = reasoner.parse_stream_chunk(piece)
            if normal:
                parser.parse_stream_chunk(normal)
        _, normal = reasoner.parse_stream_end()
        if normal:
            parser.parse_stream_chunk(normal)
        parser.parse_stream_end()

    return {
        "protocall": bare,
        "plug-in": in_vllm("protocall-" + name, "protocall-" + name),
        "vLLM": in_vllm(vllm_tool, vllm_reasoning),
        "SGLang": sglang,
    }


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--formats", default=",".join(formats.names()))
    cli.add_argument("--repeats", type=int, default=200)
    cli.add_argument("--many", type=int, default=500, help="tools of the large cold creation")
    cli.add_argument("--no-servers", action="store_true")
    args = cli.parse_args()
    names = [name for name in args.formats.split(",") if name]
    rows = [measure(name, count, args.repeats) for name in names for count in (10, 50)]
    many = {name: cold_many(name, args.many, 5) for name in names}
    print(f"Typical turn, {DELTA}-character deltas; µs unless marked (medians of "
          f"{args.repeats} turns)\n")  # fmt: skip
    print(table(rows, many, args.many))
    if not args.no_servers:
        print(f"\nThe whole turn, 10 tools, {DELTA}-token deltas, parsers' construction "
              f"included (medians of {args.repeats} turns)\n")  # fmt: skip
        print(servers(names, args.repeats))


if __name__ == "__main__":
    main()
