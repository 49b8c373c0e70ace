"""Llama 3.1 / 3.2 / 3.3 JSON calls (FORMATS.md §6.6): call objects with no section marker.

[<|python_tag|>]{"name": N, "parameters": {…}}[; {"name": M, "parameters": {…}}]<|eot_id|>

- `arguments` is accepted for `parameters`. Members may come in any order (see
  `call_object`); several calls are separated by `;`.
- Without `<|python_tag|>` nothing marks a call, so an object counts as one only once it
  shows `{"name": "<a declared tool>", "parameters":` (any name when none are declared; a
  `"type"` member may come first), or, in another layout, once it has closed holding such a
  name and arguments (within `LOOKAHEAD` characters and `LOOKAHEAD_DEPTH` levels). Until
  then its `{` is held back; an object that turns out otherwise (`{"answer": 42}`, an
  undeclared name, one beyond those bounds or the stream ended inside) is content. When
  no tools are declared, `{"name": "` followed by a name that runs past `NAME_LIMIT`
  characters heads a call too, which is then malformed, as after a marker (with tools
  declared, such a name is no declared one: content).
- FORMATS.md reads calls only when the whole output is JSON; here a call object may also
  follow content and be followed by content (as vLLM's complete-output parser finds them).
  After `<|python_tag|>` any name makes a call (the session reports an undeclared one).
- Built-in tool calls (Llama 3.1's `builtin_tools`): `<|python_tag|>NAME.call(k=v, …)`,
  Python-literal keyword arguments (`Section.method`), are calls of the tool NAME (the
  session reports an undeclared one), read but never written (the renderer writes JSON
  calls). Raw code after `<|python_tag|>` (the code interpreter's, `Environment: ipython`)
  is a call of a declared `python` tool, `{"code": …}` (`Section.code`, as llama.cpp takes
  it), the rest of the turn being its code; with no `python` tool declared it is content.
  After the tag a built-in call comes first, then a JSON object, then code.
- `<|eot_id|>` ends the turn, `<|eom_id|>` too (after a built-in tool call).
- Written as the template writes it: `{"name": N, "parameters": {…}}` objects joined by
  `; `, without `<|python_tag|>`.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from ..blocks.names import NAME_LIMIT
from ..combinators import (
    Parser,
    alt,
    fail,
    literal,
    optional,
    seq,
    success,
    whitespace,
)
from ..combinators.parser import Step, Wrapper
from ..combinators.result import Backtrack
from ..combinators.stream import Input
from ..compile.factory import build
from ..shortcuts.glance import WAITING, Glance, failing
from ..shortcuts.parser import glance_of
from ..spec import Call, ProofHook, Section, Spec, register_proof
from ..spec.codecs import NameAndArguments
from ..tools import Tools
from ..values import (
    json_string,
)
from ..values.json import NestedObjects

ARGUMENTS = ("parameters", "arguments")
LOOKAHEAD, LOOKAHEAD_DEPTH = 16_384, 16
"""The longest and the deepest bare object read to find whether it holds a call when its
name does not come first: one still open after this many characters, or nested deeper, is
text (so each `{` costs a bounded scan, and text held back while undecided is bounded).
The objects nested in one already read are decided by that reading (`NestedObjects`): a
run of nested openers costs one scan whatever the depth bound, and the content scan takes
each `{` whose object that scan decides is no call as text, without trying a call there."""
OBJECT_STARTS = ('{"', *(f"{{{space}" for space in " \t\n\r"))
"""Where a bare call object may begin: a `{` then a key or JSON whitespace. Any other `{`
(`{{{{…`, `{}`) is text at once, without trying a call."""


def key(name: str) -> Parser[Any]:
    return seq(whitespace, literal(f'"{name}"'), whitespace, literal(":"), whitespace)


DECLARED = ("a declared tool name",)


def declared(tools: Tools | None, name: Any) -> bool:
    return isinstance(name, str) and (tools is None or name in tools)


def whole_call(tools: Tools | None, found: dict[str, Any]) -> Parser[Any]:
    if not any(key in found for key in ARGUMENTS):
        return fail("a call object")
    name = found.get("name")
    return success(name) if declared(tools, name) else fail(DECLARED[0])


_PLAIN_STRING = re.compile(r'"([^"\\\x00-\x1f]*)("?)')


class ToolName(Wrapper[str]):
    """A JSON string naming a declared tool (any name when none are declared); fails just
    after a string that names none. Its glance reads a name written without escapes (and
    waits while one is still arriving), so a choice (or a content scan) rules out a head
    naming no tool, or failing after its name, from the head's first characters."""

    def __init__(self, tools: Tools | None) -> None:
        self.tools = tools
        self.parser = json_string(max_size=NAME_LIMIT + 2)

    def step(self, inp: Input, pos: int) -> Step[str]:
        name, end = yield from self.parser.step(inp, pos)
        if not declared(self.tools, name):
            raise Backtrack(end, DECLARED)
        return name, end

    def _glance(self, window: str) -> Glance | None:
        glance = glance_of(self.parser, window)
        string = _PLAIN_STRING.match(window)
        if glance is not None or string is None:
            return glance
        if not string.group(2):  # cut off by the window's end, or by an escape
            return WAITING if string.end() == len(window) else None
        if declared(self.tools, string.group(1)):
            return Glance(string.end(), None)
        return failing(DECLARED, string.end())

    def _reach(self) -> int:
        return NAME_LIMIT + 2


class LongName(Parser[None]):
    """A JSON string that runs past `NAME_LIMIT` characters, read up to there: it heads a
    call whose name is too long. Fails where the string ends within the limit, or where
    what is there is no string."""

    def __init__(self) -> None:
        self.parser = json_string(max_size=NAME_LIMIT + 2)  # the quotes too
        self.too_long = self.parser.too_long  # type: ignore[attr-defined]

    def step(self, inp: Input, pos: int) -> Step[None]:
        try:
            _, end = yield from self.parser.step(inp, pos)
        except Backtrack as failure:
            if failure.expected != self.too_long:
                raise
            return None, failure.position
        raise Backtrack(end, (f"a tool name of over {NAME_LIMIT} characters",))


def proof(tools: Tools | None) -> Parser[Any]:
    """`{"name": "<a declared tool>", "parameters":` (a `"type"` member may come first);
    without tools, `{"name": "<a name past NAME_LIMIT>` (a call, malformed); or a whole
    object within the lookahead bounds holding such a name and arguments."""
    kind = optional(seq(key("type"), json_string(), whitespace, literal(",")))
    named = seq(
        literal("{"),
        kind,
        key("name"),
        ToolName(tools),
        whitespace,
        literal(","),
        alt(*map(key, ARGUMENTS)),
    )
    whole = NestedObjects(max_depth=LOOKAHEAD_DEPTH, max_size=LOOKAHEAD)
    if tools is not None:
        return alt(named, whole.bind(partial(whole_call, tools)))
    too_long = seq(literal("{"), kind, key("name"), LongName())
    return alt(named, too_long, whole.bind(partial(whole_call, tools)))


register_proof("llama-3", ProofHook(OBJECT_STARTS, proof))
SPEC = Spec(
    name="llama-3",
    summary="Llama 3.1 / 3.2 / 3.3: bare JSON {name, parameters} objects, ; between calls",
    turn=None,
    call=Call("{call}", NameAndArguments(ARGUMENTS), between="; ", proof="llama-3"),
    section=Section(
        ("<|python_tag|>",),
        (),
        bare=True,
        written_bare=True,
        method=".call",
        code=("python", "code"),
    ),
    stops=("<|eot_id|>", "<|eom_id|>"),
    prompt="<|start_header_id|>assistant<|end_header_id|>\n\n",
)
FORMAT = build(SPEC)
