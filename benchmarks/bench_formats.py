"""Formats end to end: one tool call whose argument text is N characters, in small deltas.

For each family in `FAMILIES` and each size N (1 K, 10 K, 100 K by default), the model output
is one call to `write_file(path, content)` whose `content` is N characters of code (`<`, `>`,
quotes, backslashes, tabs, newlines, non-ASCII), rendered the way the family's template
writes it. A session (two declared tools) is fed the output in 4-character deltas; reported:

- the total time of all `feed` calls plus `finish` (validation of the arguments included),
- the median µs per delta over the first and the last 10 % of the deltas, and their ratio
  (flat ≈ 1; the target is ≤ 1.3 with ≤ 3 µs per delta),
- the 99th percentile and the maximum of the time of one delta over every delta of the
  call (none left out: the session's first delta and the one completing the call count
  too), in the thread's CPU time (a preemption by another process does not count), each
  delta's time being its best over `REPEATS` runs (a cost every session pays at that delta
  stays, noise at some delta in one run goes); and the maximum in the row's first run,
  before those, where a cost paid once per process would show (as it did when validators
  were built on first use: the first completed call imported jsonschema, 65–250 ms),
- the one-shot time: `protocall.parse` of the whole output,
- each the best of `REPEATS` runs (the median of the first 10 % and that of the last 10 %
  are minimised separately), which filters the noise of a shared machine,
- Python-level calls per delta (cProfile's count over the middle 80 % of the deltas): the
  work per delta, independent of the machine's load,
- the 10 K run again with 500 declared tools (`--tools`), 499 of them sharing the called
  name as a prefix: the totals' ratio to the two-tool run shows that name handling does
  not grow with the tool count,
- creating a parser for 500 tools whose schemas all differ: the first time in the process
  (every schema checked against its metaschema and its validator compiled) and again
  (from the cache of checked schemas).

The `floor` row is the session machinery alone (a grammar that only streams content), the
least any format can cost per delta on this machine.

To add a family, add a `Family` to `FAMILIES`: `render(code)` gives the model's output for
the call and `prompt` the generation prompt the session starts from.

Run: python benchmarks/bench_formats.py [--sizes 1000,10000,100000] [--delta 4]
     [--formats qwen3-coder,ling-3] [--tools 500]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import protocall
from protocall import ast, formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import tag, until
from protocall.session import Session
from protocall.tools import normalize_tools

REPEATS = 5
"""Runs per measurement; each figure is the best (lowest) of them, to filter machine noise."""

CODE_LINES = (
    "def handle(request):",
    '    path = request.get("path", "/tmp/a b")',
    "    if len(path) > 3 and path[0] < 'z':\t# compare <, >",
    '        raise ValueError("missing \\"path\\" in <request>")',
    "    return {'ok': True, 'size': len(path), 'name': \"naïve 配置 🙂\"}",
)


def code(size: int) -> str:
    """`size` characters of code, cut at a line end."""
    text, lines = "", 0
    while len(text) < size:
        text += CODE_LINES[lines % len(CODE_LINES)] + "\n"
        lines += 1
    return text[:size].rstrip("\n") + "\n"


def tool(name: str) -> dict[str, Any]:
    properties = {"path": {"type": "string"}, "content": {"type": "string"}}
    parameters = {"type": "object", "properties": properties, "required": ["path", "content"]}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def tools(count: int) -> list[dict[str, Any]]:
    """`write_file` and `count - 1` others, many sharing its prefix (`write_file_1`, …)."""
    return [tool("write_file"), *(tool(f"write_file_{i}") for i in range(1, count))]


@dataclass(frozen=True)
class Family:
    """How a family writes `write_file(path="/tmp/a.py", content=code)`, and its prompt."""

    render: Callable[[str], str]
    prompt: str | None = None


def _kimi_k3(content: str) -> str:
    def argument(key: str, value: str) -> str:
        return f'<|open|>argument key="{key}" type="string"<|sep|>{value}<|close|>argument<|sep|>'

    return (
        "Write it.<|close|>think<|sep|><|open|>response<|sep|>Saving.<|close|>response<|sep|>"
        '<|open|>tools<|sep|><|open|>call tool="write_file" index="1"<|sep|>'
        + argument("path", "/tmp/a.py")
        + argument("content", content)
        + "<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>"
    )


FAMILIES: dict[str, Family] = {
    "hermes": Family(
        lambda content: (
            "<tool_call>\n"
            + json.dumps(
                {"name": "write_file", "arguments": {"path": "/tmp/a.py", "content": content}}
            )
            + "\n</tool_call><|im_end|>"
        )
    ),
    "qwen3-coder": Family(
        lambda content: (
            "Saving.\n\n<tool_call>\n<function=write_file>\n<parameter=path>\n"
            f"/tmp/a.py\n</parameter>\n<parameter=content>\n{content}\n</parameter>\n</function>\n"
            "</tool_call><|im_end|>"
        )
    ),
    "ling-3": Family(
        lambda content: (
            "Write it.</think>Saving.\n<tool_call>write_file\n<arg_key>path</arg_key>"
            f"\n<arg_value>/tmp/a.py</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{content}"
            "</arg_value>\n</tool_call><|role_end|>"
        ),
        "<role>ASSISTANT</role>\n<think>",
    ),
    "kimi-k3": Family(_kimi_k3, '<|open|>message role="assistant"<|sep|><|open|>think<|sep|>'),
    "kimi-k2": Family(
        lambda content: (
            "Write it.</think>Saving.<|tool_calls_section_begin|><|tool_call_begin|>"
            "functions.write_file:0<|tool_call_argument_begin|>"
            + json.dumps({"path": "/tmp/a.py", "content": content}, ensure_ascii=False)
            + "<|tool_call_end|><|tool_calls_section_end|><|im_end|>"
        ),
        "<|im_assistant|>assistant<|im_middle|><think>",
    ),
    "deepseek-v3": Family(
        lambda content: (
            "Write it.\n</think>\n\nSaving.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function"
            "<｜tool▁sep｜>write_file\n```json\n"
            + json.dumps({"path": "/tmp/a.py", "content": content}, ensure_ascii=False)
            + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
        ),
        "<｜Assistant｜><think>\n",
    ),
    "deepseek-v3.1": Family(
        lambda content: (
            "Saving.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>"
            + json.dumps({"path": "/tmp/a.py", "content": content}, ensure_ascii=False)
            + "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
        ),
        "<｜Assistant｜></think>",
    ),
    **{
        name: Family(
            lambda content, block=block, dsml=dsml: (
                f'Write it.</think>Saving.\n\n<{dsml}{block}>\n<{dsml}invoke name="write_file">\n'
                f'<{dsml}parameter name="path" string="true">/tmp/a.py</{dsml}parameter>\n'
                f'<{dsml}parameter name="content" string="true">{content}</{dsml}parameter>\n'
                f"</{dsml}invoke>\n</{dsml}{block}><｜end▁of▁sentence｜>"
            ),
            "<｜Assistant｜><think>",
        )
        for name, block, dsml in (
            ("deepseek-v3.2", "function_calls", "｜DSML｜"),
            ("deepseek-v4", "tool_calls", "｜DSML｜"),
            ("deepseek-v4.1", "calls", "｜DSML｜ "),
        )
    },
}


def _rendered(name: str) -> Family:
    """A family whose output is its own renderer's (`Format.render`): content, then the call."""
    fmt = formats.get(name)

    def render(content: str) -> str:
        call = ToolUse("write_file", {"path": "/tmp/a.py", "content": content})
        return fmt.render(Turn(None, ("Saving.", call)), None)

    return Family(render, fmt.prompt_for(None))


RENDERED = ("cohere", "lfm2", "llama-4", "mistral", "pythonic", "gemma-4", "llama-3")
FAMILIES.update((name, _rendered(name)) for name in RENDERED)


@dataclass
class Row:
    family: str
    size: int
    deltas: int
    total: float
    first: float
    last: float
    one_shot: float
    calls: float
    p99: float
    max: float
    max_first_run: float

    @property
    def ratio(self) -> float:
        return self.last / self.first


def _median_us(times: Sequence[int]) -> float:
    return statistics.median(times) / 1000


def run(
    session: Session, chunks: Sequence[str], clock: Callable[[], int] = time.perf_counter_ns
) -> tuple[float, list[int]]:
    """Total seconds (all `feed` calls and `finish`), and the ns of each delta's `feed`."""
    feed = session.feed
    times = []
    start = clock()
    for chunk in chunks:
        before = clock()
        feed(chunk)
        times.append(clock() - before)
    session.finish()
    return (clock() - start) / 1e9, times


def spread(times: Sequence[int]) -> tuple[float, float]:
    """The 99th percentile and the maximum of `times`, in µs."""
    ranked = sorted(times)
    return ranked[len(ranked) * 99 // 100] / 1000, ranked[-1] / 1000


def calls_per_delta(session: Session, chunks: Sequence[str]) -> float:
    """Python-level calls per delta over the middle 80 % of the deltas (cProfile's count):
    a measure of the work per delta that, unlike time, does not depend on the machine's
    load."""
    tenth = max(len(chunks) // 10, 1)
    for chunk in chunks[:tenth]:
        session.feed(chunk)
    profile = cProfile.Profile()
    profile.enable()
    for chunk in chunks[tenth:-tenth]:
        session.feed(chunk)
    profile.disable()
    for chunk in chunks[-tenth:]:
        session.feed(chunk)
    session.finish()
    counted = pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
    return float(counted) / max(len(chunks) - 2 * tenth, 1)


def floor_session() -> Session:
    return Session(tag(ast.CONTENT, until("\x00never\x00")))


def measure(name: str, size: int, delta: int, declared: list[dict[str, Any]]) -> Row:
    text = FAMILIES[name].render(code(size)) if name != "floor" else code(size)
    prompt = FAMILIES[name].prompt if name != "floor" else None
    chunks = [text[i : i + delta] for i in range(0, len(text), delta)]
    normalized = normalize_tools(declared)

    def session() -> Session:
        return floor_session() if name == "floor" else formats.get(name).parser(normalized, prompt)

    def runs(clock: Callable[[], int]) -> list[tuple[float, list[int]]]:
        timed = []
        for _ in range(REPEATS):
            gc.collect()
            timed.append(run(session(), chunks, clock))
        return timed

    gc.collect()
    _, cold = run(session(), chunks, time.thread_time_ns)  # the row's first run
    per_delta = zip(*(times for _, times in runs(time.thread_time_ns)), strict=True)
    p99, worst = spread([min(each) for each in per_delta])
    wall = runs(time.perf_counter_ns)
    tenth = max(len(chunks) // 10, 1)
    total = min(seconds for seconds, _ in wall)
    first = min(_median_us(times[:tenth]) for _, times in wall)
    last = min(_median_us(times[-tenth:]) for _, times in wall)
    if name != "floor":
        check = session()
        for chunk in chunks:
            check.feed(chunk)
        check.finish()
        message = check.message
        assert not message.errors and message.tool_calls[0].arguments["content"] == code(size), (
            name,
            message.errors,
        )
    one_shot = min(_one_shot(name, text, normalized, prompt) for _ in range(REPEATS))
    calls = calls_per_delta(session(), chunks)
    worst_cold = spread(cold)[1]
    return Row(name, size, len(chunks), total, first, last, one_shot, calls, p99, worst, worst_cold)


def _one_shot(name: str, text: str, declared: Any, prompt: str | None) -> float:
    start = time.perf_counter()
    if name == "floor":
        session = floor_session()
        session.feed(text)
        session.finish()
    else:
        protocall.parse(text, name, declared, prompt)
    return time.perf_counter() - start


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| format | N | deltas | total | µs/delta first 10 % | last 10 % | last/first "
        "| p99 | max | max, 1st run (CPU) | one-shot | calls/delta |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.family} | {r.size:,} | {r.deltas:,} | {r.total:.3f} s | {r.first:.2f} | "
            f"{r.last:.2f} | {r.ratio:.2f} | {r.p99:.1f} µs | {r.max / 1000:.2f} ms | "
            f"{r.max_first_run / 1000:.2f} ms | {r.one_shot * 1000:.2f} ms | {r.calls:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--delta", type=int, default=4)
    parser.add_argument("--formats", default=",".join(FAMILIES))
    parser.add_argument("--tools", type=int, default=500, help="declared tools for the name run")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = ["floor", *(n for n in args.formats.split(",") if n)]
    rows = [measure(name, size, args.delta, tools(2)) for name in names for size in sizes]
    print(table(rows))
    print()
    print(f"Name handling with {args.tools} declared tools (N = 10,000; `write_file` and "
          f"{args.tools - 1} named `write_file_1`, …; feed + finish, and one-shot):")  # fmt: skip
    print()
    print(f"| format | total, 2 tools | total, {args.tools} tools | ratio | one-shot, 2 tools "
          f"| one-shot, {args.tools} tools | ratio |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name in names[1:]:
        few = measure(name, 10_000, args.delta, tools(2))
        many = measure(name, 10_000, args.delta, tools(args.tools))
        print(f"| {name} | {few.total * 1000:.1f} ms | {many.total * 1000:.1f} ms | "
              f"{many.total / few.total:.2f} | {few.one_shot * 1000:.2f} ms | "
              f"{many.one_shot * 1000:.2f} ms | {many.one_shot / few.one_shot:.2f} |")  # fmt: skip
    print()
    cold, warm = creation(args.tools)
    print(f"Creating a parser for {args.tools} tools with distinct schemas: {cold * 1000:.1f} ms "
          f"the first time in the process, {warm * 1000:.1f} ms again.")  # fmt: skip


def creation(count: int) -> tuple[float, float]:
    """Seconds to create a Hermes parser for `count` tools whose schemas all differ (each
    a parameter of its own name): the first time, then the best of `REPEATS` more."""
    declared = [tool(f"t{i}") for i in range(count)]
    for i, entry in enumerate(declared):
        entry["function"]["parameters"]["properties"][f"p{i}"] = {"type": "integer"}
    hermes = formats.get("hermes")
    times = []
    for _ in range(REPEATS + 1):
        start = time.perf_counter()
        hermes.parser(declared)
        times.append(time.perf_counter() - start)
    return times[0], min(times[1:])


if __name__ == "__main__":
    main()
