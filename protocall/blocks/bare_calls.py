"""Call objects standing bare in the content (Llama 3's, xLAM's): what proves a JSON object
a call before it has closed, for a format whose calls no marker opens.

An object counts as a call once it shows `{"name": "<a declared tool>", "parameters":` (any
name when none are declared; a `"type"` member may come first; `arguments` for
`parameters`), or, in another layout, once it has closed holding such a name and arguments
(within `LOOKAHEAD` characters and `LOOKAHEAD_DEPTH` levels). When no tools are declared,
`{"name": "` followed by a name that runs past `NAME_LIMIT` characters heads a call too
(then malformed, as after a marker). `spec.parts` registers `proof` as the proof
`declared-call`."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

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
from ..shortcuts.glance import WAITING, Glance, failing
from ..shortcuts.parser import glance_of
from ..tools import Tools
from ..values import (
    json_string,
)
from ..values.json import NestedObjects
from .names import NAME_LIMIT

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
