"""Calls written as JSON: one call object (`{"name": …, "arguments": …}`) and a JSON array
of them after an opener."""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable, Sequence
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    Synthesised,
    alt,
    cut,
    fail,
    generate,
    judged,
    literal,
    many,
    markers,
    not_followed_by,
    optional,
    peek,
    recover,
    regex,
    seq,
    string_token,
    tag,
    unfinished,
    until,
    whitespace,
)
from ..values import (
    json_object,
    json_string,
    json_value,
)
from .calls import (
    Calls,
    closer,
    envelope,
)
from .names import (
    arguments,
    json_name,
)

COLON = seq(whitespace, literal(":"), whitespace)
"""A JSON member's colon, whitespace around it."""


def call_object(
    name: str = "name",
    arguments_keys: Iterable[str] = ("arguments",),
    id_key: str | None = None,
    within: str | None = None,
) -> Parser[Any]:
    """One call written as a JSON object (`{"name": N, "arguments": {…}}`): the name is the
    string under `name` (a `tool_name` node, final once its closing quote has arrived), the
    arguments the object under one of `arguments_keys` (a `tool_arguments` node streamed by
    `json_object`; absent: no arguments), the call id the value under `id_key` (a `tool_id`
    node: a string as is, another value as JSON text; one after both the name and the
    arguments, where pre-v11 Mistral writes it, is skipped: the call was announced, with an
    id, when its arguments began). Members come in any order; other members are skipped.
    Arguments that come before the name are read whole and given, re-serialised, right
    after it (deltas belong to an announced call), so they stream only after the name.
    Fails just after a repeated key, at the `}` of an object without a name, and at the `}`
    of one whose other members stand where no arguments do (a misspelled arguments key is
    no call without arguments); needs more while the object is open.

    With `within`, the name and the arguments stand in an object of their own under that
    key, read as above (OpenAI's `{"id": …, "type": "function", "function": {"name": …,
    "arguments": …}}`): the outer object holds it and the id, in any order, its other
    members skipped; it fails at its `}` without that member, and skips an id after it."""
    arguments_keys = tuple(arguments_keys)
    values: dict[str, Parser[Any]] = {name: json_name()}
    values.update(dict.fromkeys(arguments_keys, arguments(json_arguments())))
    if within is not None:  # the outer object: the inner one is what its name is to a call
        values, name, arguments_keys = {within: call_object(name, arguments_keys)}, within, ()
    if id_key is not None:
        values[id_key] = call_id()
    other = json_value()
    more = member_end()

    @generate
    def call() -> Generator[Parser[Any], Any, None]:
        yield literal("{").then(whitespace)
        seen: set[str] = set()
        others: list[str] = []  # keys of members skipped
        early: dict[str, Any] | None = None
        done = yield optional(peek(literal("}")))
        while not done:
            key = yield json_string()
            if key in seen:
                yield fail(f"a key other than `{_json_text(key)}` (repeated key)")
            if key in arguments_keys and name not in seen:
                early = yield COLON.then(json_arguments())
            elif key == id_key and name in seen and not seen.isdisjoint(arguments_keys or {name}):
                yield COLON.then(other)  # the call was announced (with an id) already
            else:
                others += [] if key in values else [key]
                yield COLON.then(values.get(key, other))
            seen.add(key)
            if key == name and early is not None:
                yield arguments(Synthesised(_json_text(early)).result(early))
            done = yield more
        if name not in seen:
            yield fail(f"a `{_json_text(name)}` member")
        if others and arguments_keys and seen.isdisjoint(arguments_keys):
            wanted = " or ".join(f"`{_json_text(key)}`" for key in arguments_keys)
            yield fail(f"a {wanted} member, not `{_json_text(others[0])}`")
        yield literal("}")

    return call


def json_arguments() -> Parser[Any]:
    """The arguments: a JSON object, streamed; or a JSON string holding one (Hermes-style
    models write `"arguments": "{\\"a\\": 1}"`), given decoded once the string closes."""
    return alt(_ENCODED.bind(_decoded), json_object())  # the object last: no choice holds it


_ENCODED = string_token('"', "a JSON string")
"""A JSON string token, read whole without streaming it (its text is not the arguments')."""


def _decoded(token: str) -> Parser[Any]:
    """The object a string-encoded arguments value holds, emitted as its JSON text; a
    string holding anything else fails the call."""
    try:
        value = json.loads(json.loads(token))
    except (ValueError, TypeError):
        value = None
    if not isinstance(value, dict):
        return fail("a JSON object, or a string holding one")
    return Synthesised(_json_text(value)).result(value)


def call_id() -> Parser[str]:
    """A call id as a JSON value (a `tool_id` node): a string as is, another value as
    JSON text."""
    return tag(ast.TOOL_ID, json_value().map(_id_text))


def _id_text(value: Any) -> str:
    return value if isinstance(value, str) else _json_text(value)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def json_call_list(
    openers: Iterable[str],
    call: Parser[Any],
    resync: Iterable[str],
    ends: Sequence[str] = (),
    proof: Parser[Any] | None = None,
    *,
    single: bool = False,
) -> Calls:
    """Calls written as one JSON array after an opener (`[TOOL_CALLS] [{…}, {…}]`,
    `<|START_ACTION|>[…]<|END_ACTION|>`): an opener, optional whitespace, `[` and a `{` or
    `]` after optional whitespace head the section (an opener without them after it is text,
    so `<TOOLCALL>[ here` quoted in prose stays prose), a cut, then the array's elements, each
    `call` (such as `call_object`) as its own `tool_call` node, then `]` and, after optional
    whitespace, one of `ends` (when the format has any; a missing or cut-off one is tolerated).

    The array is the calls' envelope (a `tool_calls` node, see `envelope`): its calls are
    complete only once its `]` has arrived. An array the stream ended inside is one
    truncated error. Each element is judged on its own (see `judged`): one that is no call
    but a whole bracketed member (`{"name": "f", "argumentz": {}}`) is a malformed error of
    its own raw text, and the list goes on, its other calls complete once it closes. An
    element that is no such member (unbalanced brackets, no `{`), or anything but `,` or `]`
    after one, makes the whole list one malformed error, from its opener to the first
    `resync` marker (consuming an end if that is what stopped it), releasing none of its
    calls.

    With `proof` (a parser matching, without a cut, the start of an object that is a call)
    the array may also stand bare, without an opener: a `[` whose first element `proof`
    matches heads it (xLAM's `[{"name": "<a declared tool>", …`); any other `[` is text.

    With `single`, an opener followed by a call object without the brackets (Nemotron's
    `<TOOLCALL>{"name": …}</TOOLCALL>`) is a list of that one call."""
    openers = tuple(openers)
    opening = seq(markers(*openers), whitespace)
    begin = seq(opening, literal("["), whitespace, peek(markers("{", "]")))
    if proof is not None:
        begin = alt(begin, seq(literal("["), whitespace, peek(proof)))
        openers += tuple(f"[{after}" for after in "{ \t\n\r")  # `[[[…` tries no list
    resync = tuple(resync)
    element = judged_call(call, (*resync, *ends))
    listed = seq(begin, cut, call_elements(element))
    if single:
        lone = seq(opening, peek(literal("{")))
        listed = alt(listed, seq(lone, cut, element))
        begin = alt(begin, lone)
    skip = until(*resync, emit=False)
    if ends:
        skip = skip.then(optional(markers(*ends)))
    body = envelope(listed, skip)
    if ends:
        body = body.skip(optional(whitespace.then(closer(*ends))))
    return Calls(openers, unfinished(begin), unfinished(body))


def judged_call(call: Parser[Any], bounds: Sequence[str]) -> Parser[Any]:
    """`call` (such as `call_object`) as a `tool_call` node after a cut, judged on its own
    as a member of a list whose `bounds` end any member (see `judged`): where it fails but
    its brackets close, its raw text is a malformed error of its own."""
    return judged(cut.then(tag(ast.TOOL_CALL, call)), bounds)


def call_elements(element: Parser[Any]) -> Parser[Any]:
    """The rest of a JSON array of calls after its `[` (and whitespace): `]`, or `element`s
    separated by `,` (a cut after each), then `]`."""
    later = seq(whitespace, literal(","), cut, whitespace, element)
    return alt(literal("]"), seq(element, many(later), whitespace, literal("]")))


def member_end() -> Parser[bool]:
    """After a JSON object's member: `,` (and whitespace: more members follow, False) or,
    not consumed, its closing `}` (True); whitespace before either."""
    comma = literal(",").then(whitespace).result(False)
    return whitespace.then(alt(comma, peek(literal("}")).result(True)))


def json_call_lines(
    begins: Sequence[str], ends: Sequence[str], stops: Sequence[str], call: Parser[Any]
) -> Calls:
    """Call objects one a line in a section whose begin heads them (MiniMax-M1's
    `<tool_calls>\n{…}\n{…}\n</tool_calls>`): a begin, then, after optional whitespace, a
    `{` heads the section (a begin followed by anything else is text; one the stream ended
    inside, a truncated call); then lines up to one of `ends` (a missing one tolerated: the
    section then runs to a stop or the end of the output), each `call` (a call object's
    parser: `call_object`, or a codec's head and body) as its own `tool_call` node.

    Everything in the section is its own: a call that fails but whose braces close is a
    `malformed` error of its own raw text (see `judged`), one whose braces do not close an
    error up to the section's end or a stop, and a line that is no call (not a `{`) a
    `malformed` error of the line's text; the section goes on after each, so its end never
    reaches the content."""
    bounds = (*ends, *stops)
    rest = until(*bounds, emit=False) if bounds else regex(r"(?s:.*)")
    line = until("\n", *bounds, emit=False)
    one = recover(judged(cut.then(tag(ast.TOOL_CALL, call)), bounds), rest)
    no_call = recover(cut.then(fail("a call object `{…}` on its line")), line)
    starts = seq(whitespace, peek(regex(r"\S")))
    if bounds:
        starts = starts.skip(not_followed_by(closer(*bounds)))  # cut off at the end too
    item = starts.then(alt(peek(literal("{")).then(one), no_call))
    begin = markers(*begins)
    head = seq(begin, whitespace, peek(literal("{")))
    section = seq(head, cut, many(item), whitespace)
    if ends:
        section = section.skip(optional(closer(*ends)))
    return Calls(tuple(begins), unfinished(head), unfinished(section))
