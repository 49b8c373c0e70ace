"""Gemma 4 (FORMATS.md §6.15, SECONDARY): `<|tool_call>` calls with `<|"|>`-quoted strings.

<|channel>thought\\nR<channel|>content<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|><|tool_response>

FORMATS.md gives only the markers; the rest is from peers: vLLM `gemma4_tool_parser.py` and
`gemma4_reasoning_parser.py`, llama.cpp `common/parsers/gemma4.cpp`, and the chat template's
`format_argument` as vendored by llama-cpp-python forks. Agreed by these: the markers, the
call and value syntax, the `thought` label, the stops. From one source only: the empty
thinking block of the thinking-off prompt (a later template), quoted keys and `None` (vLLM),
JSON-quoted strings (a Rust port), `<eos>` as a stop, whitespace between tokens (llama.cpp).
INFERRED here: the optional `call:` prefix, thinking blocks after content.

- Calls: `<|tool_call>call:NAME{…}<tool_call|>`, several in a row. The arguments are an
  object with bare keys, which may contain spaces (`{my key:1}`; spaces around a key are
  not part of it), or `<|"|>`-quoted keys, `,` between members and elements, optional
  whitespace. A string is `<|"|>` raw text `<|"|>` — no escapes, so a
  string cannot contain `<|"|>`; numbers, `true`, `false`, `null` and JSON-quoted strings
  are JSON; `None` (older templates render null so) is null; objects and arrays nest. The
  arguments stream as JSON text (`{"key": "text", "n": 3}`): a key once its `:` has arrived,
  string text as it arrives (holding back a tail that may begin `<|"|>`), other scalars
  once complete. A repeated key is an error.
- The `call:` prefix is optional; the name is final once `{` follows.
  A call that fails after its name is skipped to `<tool_call|>` (consumed) or the next
  marker; one the stream ended inside is a truncated error.
- Thinking `<|channel>thought\\n…<channel|>` is reasoning (the `thought` label is not, and
  it may be missing: `<|channel>` alone opens thinking too), may appear anywhere, and ends
  at a genuine call, `<|channel>` or a stop. The prompt `<|turn>model\\n` opens nothing
  (the model opens thinking itself when it is enabled); the thinking-off prompt closes an
  empty block; a prompt ending `<|channel>thought\\n` pre-opens it. A stray `<channel|>`,
  `<tool_call|>` or `<|turn>model\\n` is dropped.
- `<turn|>`, `<|tool_response>` (where generation stops after calls) and `<eos>` end the
  turn; they are never content. Text outside thinking and calls is content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from json.encoder import encode_basestring
from typing import Any

from .. import ast
from ..combinators import (
    Backtrack,
    Input,
    Parser,
    Step,
    Text,
    alt,
    cut,
    fail,
    forward,
    generate,
    json_value,
    literal,
    optional,
    peek,
    regex,
    seq,
    until,
)
from ..combinators import whitespace as ws
from ..tools import Tools
from .base import Format
from .blocks import (
    Channel,
    Reasoning,
    Synthesised,
    arguments,
    channelled_turn,
    in_runs,
    render_turn,
    tool_calls,
    tool_name,
)
from .turns import ToolUse, Turn

QUOTE = '<|"|>'
THOUGHT = Channel("<|channel>", "<channel|>", ast.REASONING, label="thought")
TOOL_CALL, END_TOOL_CALL, CALL = "<|tool_call>", "<tool_call|>", "call:"
STOPS = ("<turn|>", "<|tool_response>", "<eos>")
DROPPED = (END_TOOL_CALL, "<|turn>model\n")
PROMPT = "<|turn>model\n"
THOUGHT_OPEN = "<|channel>thought\n"  # as the template writes it
BARE_KEY = r"[^\t\n\r\f\v:,{}\[\]<>\"']+"  # spaces inside: `{my key:1}`


class Quoted(Parser[str]):
    """`<|"|>` raw text `<|"|>`, streamed as a JSON string: `"` at the opening quote, the
    text escaped as it arrives (a tail that may begin the closing quote is held back), `"`
    at the closing quote. The value is the raw text. Fails at end of input while open."""

    def step(self, inp: Input, pos: int) -> Step[str]:
        _, pos = yield from literal(QUOTE).step(inp, pos)
        inp.out.append(Text('"', pos))
        pieces: list[str] = []
        emitted = pos
        while True:
            buf, base = inp.buf, inp.base
            found = buf.find(QUOTE, emitted - base)
            held = 0 if found >= 0 or inp.eof else _quote_prefix(buf)
            limit = base + (found if found >= 0 else len(buf) - held)
            if limit > emitted:
                piece = buf[emitted - base : limit - base]
                pieces.append(piece)
                inp.out.append(Text(encode_basestring(piece)[1:-1], emitted))
                emitted = limit
            if found >= 0:
                inp.out.append(Text('"', limit))
                return "".join(pieces), limit + len(QUOTE)
            if inp.eof:
                raise Backtrack(inp.end, (f"`{QUOTE}`",))
            yield emitted


def _quote_prefix(buf: str) -> int:
    """The length of the longest tail of `buf` that is a proper prefix of `<|"|>`."""
    return next((k for k in range(len(QUOTE) - 1, 0, -1) if buf.endswith(QUOTE[:k])), 0)


def items(opener: str, closer: str, item: Parser[Any], keyed: bool = False) -> Parser[Any]:
    """`opener`, items separated by `,`, `closer`, echoed as JSON text; the list of the items'
    values (with `keyed`, `(key, value)` pairs, a repeated key failing after it)."""
    more = ws.then(alt(literal(",").then(ws).result(False), peek(literal(closer))))

    @generate
    def parse() -> Generator[Parser[Any], Any, list[Any]]:
        yield literal(opener).then(Synthesised(opener)).then(ws)
        values: list[Any] = []
        keys: set[str] = set()
        done = yield optional(peek(literal(closer)))
        while not done:
            values.append((yield Synthesised(", ").then(item) if values else item))
            if keyed:
                if values[-1][0] in keys:
                    yield fail(f"a key other than {json.dumps(values[-1][0])} (repeated key)")
                keys.add(values[-1][0])
            done = yield more
        yield literal(closer).then(Synthesised(closer))
        return values

    return parse


def committed(lead: str, parser: Parser[Any]) -> Parser[Any]:
    """`parser`, committed to once `lead` is seen."""
    return peek(literal(lead)).then(cut).then(parser)


def gemma_arguments() -> Parser[dict[str, Any]]:
    """A call's arguments object, streamed as JSON text (see the module docstring). It cuts
    at each string and container, so it belongs after a call's head."""
    value = forward()
    quoted_key = seq(literal(QUOTE), until(QUOTE, emit=False, required=True), literal(QUOTE))
    bare_key = regex(BARE_KEY).desc("a key").map(lambda text: text.rstrip(" "))
    key = alt(quoted_key.map(lambda parts: parts[1]), bare_key)
    member = key.skip(seq(ws, literal(":"), ws)).bind(
        lambda k: Synthesised(f"{encode_basestring(k)}: ").then(value).map(lambda v: (k, v))
    )
    obj = items("{", "}", member, keyed=True).map(dict)
    none = literal("None").then(Synthesised("null")).result(None)
    value.define(alt(committed(QUOTE, Quoted()), committed("{", obj),
                     committed("[", items("[", "]", value)), none, json_value()))  # fmt: skip
    return obj


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    name = seq(optional(literal(CALL)), tool_name(), peek(ws.then(literal("{"))))
    head = literal(TOOL_CALL).then(name).map(lambda parts: parts[1])
    body = seq(ws, arguments(gemma_arguments()), ws, literal(END_TOOL_CALL))
    calls = tool_calls((TOOL_CALL,), head, lambda _: body, (END_TOOL_CALL, TOOL_CALL, *STOPS))
    return channelled_turn(channels={"reasoning": THOUGHT}, calls=in_runs(calls), stops=STOPS,
                           tokens=("<|", "<channel|>", END_TOOL_CALL, *STOPS), dropped=DROPPED,
                           start=start)  # fmt: skip


def render_value(value: Any) -> str:
    """`value` as the template's `format_argument` writes it (keys sorted, bare where they
    can be, else quoted)."""
    if isinstance(value, str):
        return f"{QUOTE}{value}{QUOTE}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{render_key(k)}:{render_value(v)}"
                              for k, v in sorted(value.items())) + "}"  # fmt: skip
    if isinstance(value, list):
        return "[" + ",".join(map(render_value, value)) + "]"
    return json.dumps(value)


def render_key(key: str) -> str:
    bare = re.fullmatch(BARE_KEY, key) and key.strip(" ") == key
    return key if bare else f"{QUOTE}{key}{QUOTE}"


def render(turn: Turn, start: str | None) -> str:
    def call(use: ToolUse) -> str:
        return f"{TOOL_CALL}{CALL}{use.name}{render_value(use.arguments)}{END_TOOL_CALL}"

    reasoning = Reasoning(THOUGHT_OPEN, THOUGHT.close)
    return render_turn(turn, start, reasoning=reasoning, call=call,
                       stop=STOPS[1] if turn.calls else STOPS[0])  # fmt: skip


FORMAT = Format(
    "gemma-4",
    grammar,
    render,
    reserved=(THOUGHT.open, THOUGHT.close, TOOL_CALL, END_TOOL_CALL, QUOTE, *STOPS, *DROPPED),
    channels={"reasoning": (THOUGHT.open, THOUGHT.close)},
    default_start=None,
    prompts={None: PROMPT, "reasoning": PROMPT + THOUGHT_OPEN},
    summary='Gemma 4: <|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>',
    markers={"reasoning": "<|channel>thought\\n…<channel|>",
             "call": '<|tool_call>call:NAME{key:<|"|>…<|"|>}<tool_call|>'},
)  # fmt: skip
