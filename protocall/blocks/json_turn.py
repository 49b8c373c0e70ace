"""A turn written as one JSON object (llama.cpp's generic format): the string under one
key is the visible answer, the calls stand in an array under another or alone under a
third (`json_turn`), and its renderer (`render_json_turn`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Sequence
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    alt,
    cut,
    end_of_input,
    fail,
    generate,
    literal,
    markers,
    optional,
    peek,
    quiet,
    regex,
    rest,
    seq,
    tag,
    unfinished,
    until,
    whitespace,
)
from ..values import json_string, json_value
from ..values.json_text import json_text
from .calls import envelope
from .json_calls import COLON, call_elements, judged_call, member_end
from .prose import assistant_turn
from .turns import ToolUse, Turn


def json_turn(
    call: Parser[Any], *, content: str, calls: str, single: str, stops: Sequence[str]
) -> Parser[Any]:
    """A turn that is one JSON object, `{"<content>": "…"}`, `{"<calls>": [call, …]}` or
    `{"<single>": call}` (any of them together, in any order), then whitespace, then one
    of `stops` (the text after the object, if any, is content).

    The object counts as the turn's where it begins the output (after whitespace) with one
    of the three keys: `{` then that key and its `:` (held back until then), a cut. Any
    other output (prose, `{"answer": 42}`) is content, read as a turn without calls reads
    it. In the object:

    - the `content` member's string is a `content` node of its decoded characters,
      streamed as they arrive (`values.json_text`); another JSON value there is content as
      its JSON text;
    - each call (`call`, such as `call_object`) is a `tool_call` node judged on its own
      (`judged_call`): one that fails but whose brackets close is a malformed error of its
      own raw text, the others still calls;
    - the object is the calls' envelope (a `tool_calls` node): they complete only once its
      `}` has arrived, and an object that fails otherwise (a repeated key, a value of the
      wrong kind, brackets that do not close, the stream ending inside) is one error node
      of its raw text up to a stop or the end, releasing none of them (text its content
      member streamed before the failure stays content: it was final when emitted);
    - other members are stepped over, their values emitted nowhere (llama.cpp's own
      template fallback writes `"content": ""` after the calls).

    A stream that ends inside the object's head (`{"tool_ca`) is a truncated error."""
    stops = tuple(stops)
    element = judged_call(call, stops)
    text = peek(literal('"')).then(cut).then(json_text())  # streams: committed at its quote
    values: dict[str, Parser[Any]] = {
        content: tag(ast.CONTENT, alt(text, json_value())),
        calls: seq(literal("["), whitespace, call_elements(element)),
        single: element,
    }
    key, other, more = quiet(json_string()), quiet(json_value()), member_end()

    @generate
    def members() -> Generator[Parser[Any], Any, None]:
        seen: set[str] = set()
        done = False
        while not done:
            name = yield key
            if name in seen:
                yield fail(f"a key other than {json.dumps(name)} (repeated key)")
            seen.add(name)
            yield COLON.then(values.get(name, other))
            done = yield more
        yield literal("}")

    keys = markers(*map(json.dumps, values))
    head = seq(whitespace, literal("{"), whitespace, keys, COLON)
    skip = until(*stops, emit=False) if stops else regex(r"(?s:.*)")
    body = seq(whitespace, literal("{"), cut, whitespace, members)
    turn = unfinished(peek(head).then(envelope(body, skip)))
    if stops:
        return seq(optional(turn), assistant_turn(calls=None, stops=stops, reasoning=None))
    return seq(optional(turn), tag(ast.CONTENT, rest()), end_of_input)


def render_json_turn(
    turn: Turn,
    call: Callable[[ToolUse, int], str],
    *,
    content: str,
    calls: str,
    stop: str,
) -> str:
    """`turn` as one JSON object: its content parts joined under `content` (where it has
    any, or no calls), its calls in an array under `calls` (each written by `call(use,
    index)`), then `stop`."""
    members = []
    text = "".join(part for part in turn.parts if isinstance(part, str))
    if text or not turn.calls:
        members.append(f"{json.dumps(content)}: {json.dumps(text, ensure_ascii=False)}")
    if turn.calls:
        written = ", ".join(call(use, index) for index, use in enumerate(turn.calls))
        members.append(f"{json.dumps(calls)}: [{written}]")
    return "{" + ", ".join(members) + "}" + stop
