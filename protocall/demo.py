"""`protocall demo`: bundled model outputs streamed through their parsers, shown live.

Each example is fed a few characters at a time, as a server receives tokens. The display
has one lane per thing a UI may show — reasoning, content, a tentative call (its name, then
its arguments as they stream) — and an executor lane that gets a call only when its
`ToolCallEnd` arrives with valid arguments. Examples whose format is not registered are
skipped, so the demo grows as formats land. No network, no files.
"""

from __future__ import annotations

import json
import random
import textwrap
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any, ClassVar

from . import formats
from .combinators import UsageError
from .events import (
    ContentDelta,
    Event,
    ProtocolError,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from .message import Message
from .openai import finish_reason

SCHEMAS: dict[str, dict[str, Any]] = {
    "get_weather": {
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "days": {"type": "integer"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "hourly": {"type": "boolean"},
        },
        "required": ["location"],
    },
    "get_weather_forecast": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    },
    "get_time": {
        "type": "object",
        "properties": {"zone": {"type": "string"}},
        "required": ["zone"],
    },
    "write_file": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}
"""The demo's tools (those of FORMATS.md, plus a name that extends `get_weather`)."""

STANDARD_TOOLS = ("get_weather", "get_time", "write_file")


@dataclass(frozen=True)
class Example:
    """A model output to stream, what it shows, and the outcome it must have: the names of
    the calls that complete, those of them whose arguments violate the schema (withheld
    from the executor) and the codes of the errors, in order."""

    name: str
    format: str
    title: str
    text: str
    note: str
    generation_prompt: str | None = None
    tools: tuple[str, ...] = STANDARD_TOOLS
    calls: tuple[str, ...] = ()
    invalid: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def tool_list(self) -> list[dict[str, Any]]:
        return [
            {"type": "function", "function": {"name": name, "parameters": SCHEMAS[name]}}
            for name in self.tools
        ]


def _hermes_call(name: str, arguments: str) -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call>'


EXAMPLES: tuple[Example, ...] = (
    Example(
        "ling-3-call-in-reasoning",
        "ling-3",
        "Ling 3.0: a call made inside the pre-opened reasoning block",
        "I should call the weather tool.\n<tool_call>get_weather\n<arg_key>location</arg_key>\n"
        "<arg_value>Paris</arg_value>\n</tool_call><|role_end|>",
        "The template pre-opens <think> and the model calls the tool before </think>. A parser "
        "that ends reasoning only at </think> files the whole turn, call included, under "
        "reasoning_content, and the call never runs (llama.cpp #27462).",
        generation_prompt="<role>ASSISTANT</role>\n<think>",
        calls=("get_weather",),
    ),
    Example(
        "hermes-call-in-reasoning",
        "hermes",
        "Qwen3 thinking: a call inside the pre-opened <think>",
        "The user wants the Paris weather; I will call the tool.\n"
        + _hermes_call("get_weather", '{"location": "Paris", "days": 2}')
        + "<|im_end|>",
        "The thinking template pre-opens <think>; <tool_call> ends the open reasoning block, "
        "so the call comes out as a call.",
        generation_prompt="<|im_start|>assistant\n<think>\n",
        calls=("get_weather",),
    ),
    Example(
        "hermes-marker-in-argument",
        "hermes",
        "Marker text inside an argument is data",
        "I'll save the note.\n"
        + _hermes_call(
            "write_file",
            '{"path": "notes.md", "content": "Calls look like <tool_call>{...}</tool_call>, '
            'turns end with <|im_end|>."}',
        )
        + "<|im_end|>",
        "The inner </tool_call> and <|im_end|> sit inside a JSON string: the call is not cut "
        "there and the turn does not end there.",
        calls=("write_file",),
    ),
    Example(
        "hermes-truncated-call",
        "hermes",
        "A call cut off by the end of the stream",
        "Checking both cities.\n"
        + _hermes_call("get_weather", '{"location": "Paris"}')
        + '\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Ber',
        "The stream stops (max_tokens) inside the second call. It gets a `truncated` error "
        "holding its raw text and never reaches the executor; nothing is auto-closed or "
        "guessed. The first call stands, and finish_reason is `length`, not `tool_calls`.",
        calls=("get_weather",),
        errors=("truncated",),
    ),
    Example(
        "hermes-quoted-opener",
        "hermes",
        "<tool_call> quoted in prose stays prose",
        "<think>They ask how to write a <tool_call> tag by hand; no tool is needed.</think>"
        "Write <tool_call>, then a JSON object with name and arguments, then </tool_call>."
        "<|im_end|>",
        "An opener counts only where a call head follows it, so neither the reasoning nor the "
        "answer is cut short by the quoted marker.",
    ),
    Example(
        "hermes-undeclared-tool",
        "hermes",
        "A call to a tool that was never declared",
        "Deleting it now.\n"
        + _hermes_call("delete_repository", '{"name": "protocall"}')
        + "<|im_end|>",
        "An undeclared name is never announced (no ToolCallStart) and never dispatched: an "
        "`unknown_tool` error carries the raw text, also passed through as content.",
        errors=("unknown_tool",),
    ),
    Example(
        "hermes-malformed-call",
        "hermes",
        "A malformed call is reported, not repaired",
        _hermes_call("get_weather", '{location: "Paris"}') + "\nSorry.<|im_end|>",
        "The key is not quoted: the call the UI saw starting ends in a `malformed` error, "
        "and the raw text is passed through as content so a reader sees what the model wrote.",
        errors=("malformed",),
    ),
    Example(
        "hermes-invalid-arguments",
        "hermes",
        "A complete call whose arguments break the schema",
        "Here is the forecast request.\n"
        + _hermes_call("get_weather", '{"location": "Paris", "days": "two"}')
        + "<|im_end|>",
        "The call is complete, so it ends with ToolCallEnd, but `days` must be an integer: the "
        "violation travels on the call (validation_errors) and the executor withholds it "
        "(reject_invalid=True would turn it into an `invalid_arguments` error instead).",
        calls=("get_weather",),
        invalid=("get_weather",),
    ),
    Example(
        "qwen3-coder-prefix-names",
        "qwen3-coder",
        "Qwen3-Coder: a declared name that extends another",
        "<tool_call>\n<function=get_weather_forecast>\n<parameter=location>\nParis\n"
        "</parameter>\n</function>\n</tool_call><|im_end|>",
        "get_weather is declared and is a prefix of get_weather_forecast: the name is announced "
        "only once its terminator has arrived, so no event ever names the shorter tool.",
        tools=("get_weather", "get_weather_forecast"),
        calls=("get_weather_forecast",),
    ),
    Example(
        "qwen3-coder-marker-in-argument",
        "qwen3-coder",
        "Qwen3-Coder: call markers inside a raw value",
        "<tool_call>\n<function=write_file>\n<parameter=path>\nREADME.md\n</parameter>\n"
        "<parameter=content>\nCall a tool with <tool_call> and <function=NAME>.\n</parameter>\n"
        "</function>\n</tool_call><|im_end|>",
        "Markers inside a parameter value are text: no second call is invented.",
        calls=("write_file",),
    ),
    Example(
        "kimi-k2-call-in-reasoning",
        "kimi-k2",
        "Kimi K2.5: the tool section opened inside <think>",
        "I need the weather first. <|tool_calls_section_begin|><|tool_call_begin|>"
        'functions.get_weather:2<|tool_call_argument_begin|>{"location": "Paris"}'
        "<|tool_call_end|><|tool_calls_section_end|><|im_end|>",
        "The section opener ends the pre-opened reasoning, and the model's own id "
        "functions.get_weather:2 is kept as the call id.",
        generation_prompt="<|im_assistant|>assistant<|im_middle|><think>",
        calls=("get_weather",),
    ),
    Example(
        "kimi-k3-call-in-reasoning",
        "kimi-k3",
        "Kimi K3: tools opened before the reasoning was closed",
        'I should look this up.<|open|>tools<|sep|><|open|>call tool="get_time" index="1"'
        '<|sep|><|open|>argument key="zone" type="string"<|sep|>Europe/Paris<|close|>argument'
        "<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>",
        "Every K3 marker is several tokens (<|open|>, tools, <|sep|>): partial markers are held "
        "back, and <|open|>tools<|sep|> ends the reasoning the model forgot to close.",
        generation_prompt='<|open|>message role="assistant"<|sep|><|open|>think<|sep|>',
        calls=("get_time",),
    ),
    Example(
        "deepseek-v3-parallel-calls",
        "deepseek-v3",
        "DeepSeek R1: two calls in fenced JSON",
        "Two lookups.\n</think>\n\n<｜tool▁calls▁begin｜>"
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"location": "Paris"}\n```<｜tool▁call▁end｜>\n'
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n"
        '{"zone": "Europe/Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
        "Each call is dispatched as soon as its own envelope closes, before the next one ends.",
        generation_prompt="<｜Assistant｜><think>\n",
        calls=("get_weather", "get_time"),
    ),
    Example(
        "deepseek-v3.1-truncated-call",
        "deepseek-v3.1",
        "DeepSeek V3.1: arguments cut off mid-JSON",
        "Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
        '{"location": "Paris", "da',
        "Partial JSON is never auto-closed into a plausible call: `truncated`, no ToolCallEnd.",
        generation_prompt="<｜Assistant｜></think>",
        errors=("truncated",),
    ),
    Example(
        "deepseek-v3.2-call-in-reasoning",
        "deepseek-v3.2",
        "DeepSeek V3.2: a DSML block inside unclosed reasoning",
        'I need the forecast.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n'
        '<｜DSML｜parameter name="location" string="true">Paris</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n</｜DSML｜function_calls><｜end▁of▁sentence｜>",
        "The block opener ends the open reasoning block; the \\n\\n before it belongs to the "
        "envelope, not to the reasoning.",
        generation_prompt="<｜Assistant｜><think>",
        calls=("get_weather",),
    ),
    Example(
        "deepseek-v4-raw-string",
        "deepseek-v4",
        "DeepSeek V4: a raw string argument keeps its whitespace",
        'Saving it now.\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name="write_file">\n'
        '<｜DSML｜parameter name="path" string="true">/tmp/a.py</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="content" string="true">def f():\n    return 1\n'
        "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls><｜end▁of▁sentence｜>",
        'string="true" values are taken verbatim: indentation and the final newline of the '
        "code survive (a server that strips values breaks them).",
        generation_prompt="<｜Assistant｜></think>",
        calls=("write_file",),
    ),
)


def available(examples: Iterable[Example] = EXAMPLES) -> list[Example]:
    """The examples whose format is registered."""
    registered = set(formats.names())
    return [example for example in examples if example.format in registered]


def select(names: Sequence[str]) -> list[Example]:
    """Examples by example or format name (all available ones when `names` is empty)."""
    if not names:
        return available()
    chosen: list[Example] = []
    for name in names:
        matches = [e for e in EXAMPLES if name in (e.name, e.format)]
        if not matches:
            raise UsageError(
                f"no demo example or format named {name!r} (see `protocall demo --list`)"
            )
        ready = available(matches)
        if not ready:
            raise UsageError(f"{name!r} needs the format {matches[0].format!r}, not registered yet")
        chosen += [example for example in ready if example not in chosen]
    return chosen


def list_examples(out: IO[str]) -> None:
    registered = set(formats.names())
    for example in EXAMPLES:
        status = "" if example.format in registered else "  (format not registered yet)"
        out.write(f"{example.name:<34}{example.title}{status}\n")


def run(example: Example) -> tuple[list[list[Event]], Message]:
    """Stream `example` through its parser in the demo's chunks: the events of each chunk
    (then of `finish()`) and the final message. Ids are seeded, so output is repeatable."""
    session = formats.get(example.format).parser(
        example.tool_list(), example.generation_prompt, seed=0
    )
    per_chunk = [session.feed(chunk) for chunk in chunks(example.text)]
    per_chunk.append(session.finish())
    return per_chunk, session.message


def chunks(text: str) -> list[str]:
    """`text` in pieces of 1 to 6 characters (a repeatable stand-in for tokens)."""
    sizes = random.Random(0)
    pieces, start = [], 0
    while start < len(text):
        size = sizes.randint(1, 6)
        pieces.append(text[start : start + size])
        start += size
    return pieces


def play_all(
    examples: Sequence[Example], out: IO[str], *, delay: float = 0.0, color: bool = False
) -> None:
    display = Display(out, color)
    display.intro()
    for number, example in enumerate(examples, 1):
        play(example, display, number, delay)
    missing = sorted({e.format for e in EXAMPLES} - set(formats.names()))
    if missing and len(examples) == len(available()):
        display.line(
            f"(more examples appear once these formats are registered: {', '.join(missing)})"
        )


def play(example: Example, display: Display, number: int, delay: float) -> None:
    display.header(f"{number}. {example.title}", example.format)
    if example.generation_prompt is not None:
        display.line(f"generation prompt {example.generation_prompt!r}", "dim")
    per_chunk, message = run(example)
    for events in per_chunk:
        for event in events:
            display.event(event)
        if delay:
            display.flush()
            time.sleep(delay)
    display.end_lane()
    calls = ", ".join(call.name for call in message.tool_calls) or "none"
    summary = (
        f"message: content {_short(message.content)}, reasoning {_short(message.reasoning_content)}"
        f", calls: {calls}, finish_reason: {finish_reason(message)}"
    )
    display.line(summary, "dim")
    display.line(textwrap.fill(example.note, 96), "note")
    display.flush()


class Display:
    """Writes events into labelled lanes; a lane continues while the same kind of event
    keeps coming, so streamed text reads as text."""

    STYLES: ClassVar[dict[str, str]] = {
        "reasoning": "2;3",
        "content": "0",
        "call": "33",
        "executor": "1;32",
        "withheld": "1;31",
        "error": "31",
        "header": "1;36",
        "dim": "2",
        "note": "3",
    }
    GUTTER = 22

    def __init__(self, out: IO[str], color: bool) -> None:
        self.out = out
        self.color = color
        self.lane: str | None = None

    def intro(self) -> None:
        self.line("protocall demo: model outputs streamed through their parsers, a few")
        self.line("characters at a time. A UI may show reasoning, content and tentative calls")
        self.line("as they stream; the executor receives a call only once the protocol says it")
        self.line("is complete and its arguments are valid (ToolCallEnd).")

    def header(self, title: str, format: str) -> None:
        self.end_lane()
        self.out.write("\n")
        self.line(f"── {title}  [{format}]", "header")

    def event(self, event: Event) -> None:
        if isinstance(event, ReasoningDelta):
            self.write("reasoning", "reasoning", event.text)
        elif isinstance(event, ContentDelta):
            self.write("content", "content", event.text)
        elif isinstance(event, ToolCallStart):
            self.write(f"call {event.index} (tentative)", "call", f"{event.name} ")
        elif isinstance(event, ToolCallArgumentsDelta):
            self.write(f"call {event.index} (tentative)", "call", event.text)
        elif isinstance(event, ToolCallEnd):
            self.executor(event)
        elif isinstance(event, ProtocolError):
            self.end_lane()
            self.labelled("error ✗", "error", f"{event.code}: {event.message}")
            self.labelled("", "error", f"raw text kept in the error: {_short(event.raw, 60)}")

    def executor(self, event: ToolCallEnd) -> None:
        call = event.call
        self.end_lane()
        if call.validation_errors:
            problems = "; ".join(call.validation_errors)
            self.labelled("executor ✗ withheld", "withheld", f"{call.name}: {problems}")
            return
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        self.labelled("executor ▶ runs", "executor", f"{call.name}({arguments})  id {call.id}")

    def write(self, lane: str, style: str, text: str) -> None:
        """Stream `text` into `lane` (opening it if another lane is current)."""
        if lane != self.lane:
            self.end_lane()
            self.out.write(self._paint("dim", f"{lane:>{self.GUTTER - 2}} │ "))
            self.lane = lane
        gutter = "\n" + self._paint("dim", f"{'':>{self.GUTTER - 2}} │ ")
        self.out.write(gutter.join(self._paint(style, line) for line in text.split("\n")))

    def labelled(self, label: str, style: str, text: str) -> None:
        self.out.write(f"{self._paint(style, f'{label:>{self.GUTTER - 2}}')} │ ")
        self.out.write(self._paint(style, text) + "\n")

    def line(self, text: str, style: str | None = None) -> None:
        self.end_lane()
        self.out.write((self._paint(style, text) if style else text) + "\n")

    def end_lane(self) -> None:
        if self.lane is not None:
            self.out.write("\n")
            self.lane = None

    def flush(self) -> None:
        self.out.flush()

    def _paint(self, style: str, text: str) -> str:
        if not self.color or not text:
            return text
        return f"\x1b[{self.STYLES[style]}m{text}\x1b[0m"


def _short(text: str | None, limit: int = 40) -> str:
    if text is None:
        return "None"
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


__all__ = ["EXAMPLES", "Display", "Example", "available", "chunks", "play_all", "run", "select"]
