"""Calls written as Python pseudo-function calls: a bracketed list of them, or one a line
inside a section."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    Synthesised,
    alt,
    cut,
    emit,
    fail,
    json_escaped,
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
    success,
    tag,
    unfinished,
    until,
    whitespace,
)
from ..tools import Tools
from ..values import (
    python_call,
    python_name,
)
from .calls import (
    Calls,
    closer,
    envelope,
)
from .names import (
    NAME_LIMIT,
    long_name_commits,
)

PYTHON_CALL, PYTHON_CALLEE = "python_call", "python_callee"


"""Tags of the call syntax that `python_call_list` parses inside each `tool_call` node."""


def _python_name(tools: Tools | None) -> Parser[str]:
    """A dotted name, `-` allowed (`read-file`, as MCP tools are named); with `tools`, only
    a declared one (see `python_name`)."""
    return python_name(tools, limit=NAME_LIMIT)


def _python_call(
    name: Parser[str], *, strict: bool = True, method: str = ""
) -> tuple[Parser[Any], Parser[Any]]:
    """`(proof, call)` of one pseudo-function call. The proof is the name and `(`, when
    `strict` then `)` or a first `key=`; the call, a `tool_call` node, cuts once the proof
    has arrived. The whole name is announced, without its `method` (a name that `name`
    read ending so); `python_call` reads the call from its last `-`-free part on (Python
    names have no `-`)."""
    keyword = alt(literal(")"), seq(regex(r"\w+"), whitespace, literal("=")))
    proof = seq(name, whitespace, literal("("), *([whitespace, keyword] if strict else []))

    syntax = python_call(call_tag=PYTHON_CALL, name_tag=PYTHON_CALLEE)

    def body(parts: tuple[Any, ...]) -> Parser[Any]:
        full: str = parts[0]
        prefix = full[: len(full) - len(full.rpartition("-")[2])]
        read = literal(prefix).then(syntax) if prefix else syntax
        tool = full[: len(full) - len(method)]
        return seq(cut, emit(ast.TOOL_NAME, tool), read).result(tool)

    return peek(proof), tag(ast.TOOL_CALL, long_name_commits(peek(proof)).bind(body))


def python_call_list(
    tools: Tools | None,
    stops: Iterable[str],
    *,
    section: tuple[Sequence[str], Sequence[str]] | None = None,
    bare: bool = True,
) -> Calls:
    """Calls as a Python list of pseudo-function calls, `[f(a=1), g(b="x")]` (Llama 3.2 and
    Llama 4 pythonic, LFM2), each a `tool_call` node whose arguments stream as JSON text
    (see `python_call`): inside `section` (its begins, its ends: any spelling of each) when
    given, and with `bare` also without one.

    A bare list has no marker to prove it a call: it is one only where `[` is followed by a
    declared tool's name (any name when none are declared), `(` and `)` or a first `key=`;
    otherwise, also when the stream ends before that, the `[` is text. Inside a section a
    name and `(` after `[` make a call (what it holds cannot turn it into text), any name
    (the session reports an undeclared one), and a section begin the stream ended inside
    is a truncated call. After the first call the list is committed.
    A trailing comma is allowed; a missing section end is tolerated.

    The list is the calls' envelope (see `envelope`): its calls are complete only once its
    `]` has arrived. A list the stream ended inside is one truncated error. Each call is
    judged on its own (see `judged`): a malformed one that is still a whole bracketed
    member (`g(a=float("nan"))`, `g(a=x)`) is an error of its own raw text and the list
    goes on, its other calls complete once it closes. Where the call's brackets do not
    close (or anything but a call or `]` follows a `,`) the whole list is one malformed
    error, skipped to the section end (consumed) or one of `stops`, releasing none of its
    calls.
    """
    stops = tuple(stops)
    bounds = (*section[1], *stops) if section is not None else stops
    skip = until(*bounds, emit=False)
    if section is not None:
        skip = skip.then(optional(markers(*section[1])))
    any_call = judged(_python_call(_python_name(None), strict=False)[1], bounds, triple_quotes=True)
    later = seq(whitespace, literal(","), cut, whitespace, alt(any_call, peek(literal("]"))))

    def listed(first: Parser[Any], begin: Parser[Any], end: Parser[Any]) -> Parser[Any]:
        calls = seq(begin, literal("["), whitespace, first, many(later), whitespace, literal("]"))
        return envelope(calls, skip).skip(end)

    heads, lists = [], []
    openers: list[str] = []
    if section is not None:
        begin = markers(*section[0]).then(whitespace)
        end = whitespace.then(closer(*section[1]))
        proof, first = _python_call(_python_name(None), strict=False)
        first = judged(first, bounds, triple_quotes=True)
        heads.append(unfinished(seq(begin, literal("["), whitespace, proof)))
        lists.append(unfinished(listed(first, begin, optional(end))))
        openers.extend(section[0])
    if bare:
        proof, first = _python_call(_python_name(tools))
        first = judged(first, bounds, triple_quotes=True)
        heads.append(seq(literal("["), whitespace, proof))
        lists.append(listed(first, success(None), success(None)))
        openers.extend(_list_starts(tools))
    return Calls(tuple(openers), alt(*heads), alt(*lists))


def python_method_call(
    section: tuple[Sequence[str], Sequence[str]], method: str, stops: Iterable[str]
) -> Calls:
    """A begin of `section` (its begins, its ends), then one pseudo-function call of a
    tool's `method`, `NAME{method}(k=v, …)` (Llama 3.1's built-in tools:
    `<|python_tag|>brave_search.call(query="…")`), then the section's end where it has one
    and it follows: a `tool_call` node of the tool NAME whose arguments stream as JSON text
    (see `python_call`), any name making a call (the session reports an undeclared one).

    The begin, whitespace, a dotted name ending with `method` and `(` prove the call; a
    begin followed by anything else is not this call (`<|python_tag|>{…}`, raw code). Once
    proven, what the call holds makes it malformed, never text: an error of its own raw
    text where its brackets close (see `judged`), else skipped to the end (consumed) or a
    stop; one the stream ended inside (the begin and a name included) is a truncated call.
    """
    begins, ends = section
    bounds = (*ends, *stops)
    named = _python_name(None).bind(partial(_of_method, method))
    proof, call = _python_call(named, strict=False, method=method)
    opening = markers(*begins).then(whitespace)
    skip = until(*bounds, emit=False).then(_end(ends))
    call = seq(opening, recover(judged(call, bounds, triple_quotes=True), skip), _end(ends))
    return Calls(tuple(begins), unfinished(opening.then(proof)), unfinished(call))


def code_call(
    section: tuple[Sequence[str], Sequence[str]], tool: str, key: str, stops: Iterable[str]
) -> Calls:
    """A begin of `section` (its begins, its ends), then raw code up to the section's end
    (consumed), a stop or the end of the output (Llama 3.1's code interpreter:
    `<|python_tag|>import sys\\nprint(sys.version)<|eom_id|>`): a `tool_call` node of
    `tool` whose one argument `key` is the code, its arguments streamed as the JSON text
    `{"KEY": "…"}` as the code arrives (the code's leading whitespace is not its own).

    The begin and, after whitespace, a character that begins no end or stop prove the call;
    a begin followed by an end or a stop is no such call, and one the stream ended right
    after is a truncated call. Meant as the last alternative after a begin: whatever
    follows it is this call's code.
    """
    begins, ends = section
    bounds = (*ends, *stops)
    opening = markers(*begins).then(whitespace)
    proof = seq(opening, not_followed_by(markers(*bounds)), peek(regex(r"\S")))
    code = seq(
        Synthesised(f'{{{json.dumps(key, ensure_ascii=False)}: "'),
        json_escaped(until(*bounds)),
        Synthesised('"}'),
    )
    arguments = tag(ast.TOOL_ARGUMENTS, code.map(lambda parts: {key: parts[1]}))
    call = seq(proof, cut, emit(ast.TOOL_NAME, tool), arguments, _end(ends))
    return Calls(tuple(begins), unfinished(proof), unfinished(tag(ast.TOOL_CALL, call)))


def _end(ends: Sequence[str]) -> Parser[Any]:
    """The section's end after its call, where it has one and it follows (else nothing)."""
    return optional(whitespace.then(closer(*ends))) if ends else success(None)


def _of_method(method: str, name: str) -> Parser[str]:
    """`name` where it is a tool's name then `method` (`brave_search.call`), else a failure."""
    if len(name) > len(method) and name.endswith(method):
        return success(name)
    return fail(f"a tool name then `{method}`")


def _list_starts(tools: Tools | None) -> list[str]:
    """Where a bare call list may begin: `[` then whitespace or, with `tools`, the first
    character of a declared name. Any other `[` (`[[[[…`, `[1, 2]`) is text at once, without
    trying a call; with no tools declared, any `[` is tried."""
    if tools is None:
        return ["["]
    return [f"[{first}" for first in sorted({*" \t\n\r", *(name[:1] for name in tools if name)})]


def python_call_lines(stops: Iterable[str], section: tuple[Sequence[str], Sequence[str]]) -> Calls:
    """Pseudo-function calls one per line inside `section` (its begins, its ends), as Olmo 3 writes
    them: `<function_calls>f(a=1)\\ng(b="x")</function_calls>`; each is a `tool_call` node
    whose arguments stream as JSON text (see `python_call`), any name making a call (the
    session reports an undeclared one).

    The begin heads a call list only where, after optional whitespace, a name and `(`
    follow it; otherwise it is text, and one the stream ended inside is a truncated call.
    (A call that begins so is a call: what it holds, a key with a marker in it or a
    positional argument, makes it malformed, not text that hides it.) Calls are separated
    by whitespace (the template writes a line break), which alone commits to nothing: a
    name and `(` after it make a call, and one cut off is a truncated one. A missing end
    is tolerated (the section closes at the first line that is no call). A malformed call
    is an error of its own raw text where its brackets close (see `judged`), the next line
    read on; else it is skipped to the end (consumed) or a stop.
    """
    begins, ends = section
    bounds = (*ends, *stops)
    skip = until(*bounds, emit=False).then(optional(markers(*ends)))
    proof, call = _python_call(_python_name(None), strict=False)
    opening = markers(*begins).then(whitespace)
    call = recover(judged(call, bounds, triple_quotes=True), skip)
    more = many(regex(r"\s+").then(unfinished(call)))
    calls = seq(opening, call, more, optional(whitespace.then(closer(*ends))))
    return Calls(tuple(begins), unfinished(opening.then(proof)), unfinished(calls))
