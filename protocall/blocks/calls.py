"""Call envelopes: how a format's calls begin (`Calls`), one call, a section of calls, a
run of calls, and a list of calls that completes together (`envelope`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    alt,
    cut,
    end_of_input,
    fail,
    literal,
    many,
    markers,
    not_followed_by,
    optional,
    peek,
    recover,
    regex,
    seq,
    tag,
    unfinished,
    until,
    whitespace,
)
from ..shortcuts.cache import built_once
from ..tools import Tools
from ..values.xmlargs import Layout, xml_arguments
from .names import (
    arguments,
    long_name_commits,
    per_tool,
    tool_name,
)
from .schema_typing import schema_typing


@dataclass(frozen=True)
class Calls:
    """How a format's tool calls begin and parse.

    `openers` are the markers at which content stops to try a call; `head` matches from an
    opener through whatever proves a genuine call (typically the tool name) and must not
    `cut`; `call` parses the whole region (one call or a section of calls) from the opener.
    `leading`, where a format has one, is a call tried only where content starts (the
    turn's start, right after a reasoning block or a channel): a call written without its
    opener (Gemma 4's bare `call:NAME{…}`).
    """

    openers: tuple[str, ...]
    head: Parser[Any]
    call: Parser[Any]
    leading: Parser[Any] | None = None


def tool_call(
    head: Parser[Any], body: Callable[[str], Parser[Any]], resync: Iterable[str]
) -> Parser[Any]:
    """One call: `head` (whose value is the tool name), a cut, then `body(name)`.

    A failure after the cut becomes an `error` node: the region is skipped up to the first
    `resync` marker, consuming the first one (the call's closer, "" for a call that has
    none) if that is what stopped it (see `skipped_call`). Another marker (the next call's
    opener) is never consumed: what it begins is read on.
    """
    closer, *others = resync
    skip = until(*([closer] if closer else []), *others, emit=False)
    return skipped_call(head, body, skip.then(optional(literal(closer))) if closer else skip)


def skipped_call(
    head: Parser[Any], body: Callable[[str], Parser[Any]], skip: Parser[Any]
) -> Parser[Any]:
    """One call: `head` (whose value is the tool name), a cut, then `body(name)` (built once
    per name, see `built_once`); a failure after the cut, or at a tool name too long (see
    `long_name_commits`), is an `error` node whose region `skip` ends. Where a region ends,
    the grammar tries a call before anything else a call's text could begin, so a run of
    calls failing the same way is one region (`recover`'s `runs`)."""

    def called(name: str) -> Parser[Any]:
        return cut.then(body(name))

    call = long_name_commits(head).bind(built_once(called))
    return recover(tag(ast.TOOL_CALL, call), skip, rivals=())


def call_section(begin: Parser[Any], call: Parser[Any], ends: Sequence[str]) -> Parser[Any]:
    """A tool section: `begin`, a cut, calls separated by optional whitespace, then one of
    `ends` (its spellings).

    A missing end is tolerated (the calls before it are kept): the section closes at the
    first thing that is not a call, which the turn then reads as content.
    """
    return seq(begin, cut, many(whitespace.then(call)), whitespace, optional(markers(*ends)))


def tool_calls(
    openers: Iterable[str],
    head: Parser[Any],
    body: Callable[[Any], Parser[Any]],
    resync: Iterable[str],
) -> Calls:
    """Calls opened by `openers`, each `head`, a cut, then `body(value of head)` (see
    `tool_call`). A head that the stream ended inside is a truncated call (see
    `unfinished`): reported as an error, kept out of content and reasoning."""
    return Calls(tuple(openers), unfinished(head), unfinished(tool_call(head, body, resync)))


def sealed(
    calls: Calls, openers: Iterable[str], opener: Parser[Any], stops: Iterable[str]
) -> Calls:
    """`calls`, and where `opener` (which starts at one of `openers`, added to the places
    content stops to try a call) begins none of them a damaged one: a malformed call (an
    `error` node) from the opener to a stop or the end of input, never content. For
    markers a model writes only to call (`Section.sealed`): a misspelt or cut-off section
    begin is an error region, and what follows it in the turn is its raw text. The head is
    `calls`'s own: a damaged one is no genuine call (in reasoning it stays text)."""
    damaged = skipped_call(
        opener, lambda _: fail("a section begin or a call"), until(*stops, emit=False)
    )
    more = tuple(o for o in openers if o not in calls.openers)
    return replace(calls, openers=(*calls.openers, *more), call=alt(calls.call, damaged))


def in_runs(calls: Calls) -> Calls:
    """`calls` where a call may be followed by more calls, each after optional whitespace:
    whitespace between consecutive calls separates them (what `render_turn` writes as
    `between_calls`) and is not content. Whitespace after the last call stays content."""
    next_call = seq(whitespace, peek(markers(*calls.openers)), calls.call)  # a whole opener
    return Calls(calls.openers, calls.head, seq(calls.call, many(next_call)))


def section_calls(
    openers: Iterable[str],
    begin: Parser[Any],
    head: Parser[Any],
    body: Callable[[Any], Parser[Any]],
    resync: Iterable[str],
    end: Parser[Any],
    *,
    bare: bool = False,
    bare_heads: bool = True,
    gap: Parser[Any] = whitespace,
) -> Calls:
    """Calls in a section: `begin`, calls (each `head` then `body`, as in `tool_calls`)
    separated by `gap` (optional whitespace; a format may let it skip noise), then `end`,
    whose absence is tolerated (the section closes at the first thing that is not a call;
    what follows the last call is then content). The first call's head starts with `begin`
    and the gap, so a section opener that heads no call is text, and one the stream ended
    inside is a truncated call; text that `end` matches is never a call (at end of input a
    `closer` matches a cut-off marker). With `bare`, the section's `begin` may be missing
    too (bare calls are separated by whitespace only); without `bare_heads` a bare call
    is read where the turn tries a call but is not among the genuine heads that end a
    reasoning block (`Calls.head`). Calls start only at a whole opener: a cut-off one at
    the end of input is text, as in prose."""
    openers = tuple(openers)
    inner = tool_calls(openers, head, body, resync)
    first = tool_calls(openers, seq(begin, gap).then(head), body, resync)

    def section(opening: Calls, gap: Parser[Any]) -> Parser[Any]:
        more = many(gap.then(not_followed_by(end)).then(inner.call))
        return seq(peek(markers(*openers)), opening.call, more, optional(gap.then(end)))

    if not bare:
        return Calls(first.openers, first.head, section(first, gap))
    sections = alt(section(first, gap), section(inner, whitespace))
    return Calls(first.openers, alt(first.head, inner.head) if bare_heads else first.head, sections)


@functools.lru_cache(maxsize=1024)
def closer(*texts: str) -> Parser[str]:
    """One of the closing markers `texts`; at end of input also a proper prefix of one: a
    closer cut off by the end of the stream still closes (its partial text is no content).
    Built once per `texts` and shared by every grammar that uses it."""
    prefixes = sorted({text[:k] for text in texts for k in range(1, len(text))}, key=len)
    cut_off = regex("|".join(map(re.escape, reversed(prefixes)))).skip(end_of_input)
    return alt(markers(*texts), cut_off)


def xml_calls(
    tools: Tools | None,
    layout: Layout,
    opener: str,
    name_end: str | Parser[Any] = "",
    *,
    stops: Iterable[str] = (),
    section: tuple[str, str] | None = None,
    lead: str = "",
) -> Calls:
    """Calls with tag-delimited arguments (GLM, Ling, MiniMax, Seed-OSS): `opener`, optional
    whitespace, the tool name and `name_end` (its text, or a parser of it where pieces of
    it may be missing), then `layout` arguments typed by the tool's schema, then
    `layout.end` (or one of its `other_ends`), which closes the call. Without `name_end`
    the name ends where, after optional whitespace, an argument opener or an end follows (a
    call may have no arguments); it is final only then.

    With `section` (begin, end) the calls stand in `begin` … `end`, separated by optional
    whitespace, a missing end tolerated (see `section_calls`). `lead` (a newline) is what
    the template writes before each call, or each section: where present it belongs to the
    call, not to the content. Calls or sections separated only by whitespace form one run
    (`in_runs`). A call that fails after its head is skipped (see `tool_call`) to its
    closer (the first end; another one stops the skip unconsumed), the next opener, the
    section end or one of `stops`."""
    parameters = per_tool(
        tools, lambda schema: arguments(xml_arguments(layout, schema_typing(schema)))
    )
    ends = (layout.end, *layout.other_ends)
    following = peek(whitespace.then(markers(layout.opener, *ends)))
    if isinstance(name_end, str):
        ending = literal(name_end) if name_end else following
    else:
        ending = name_end

    def head(start: Parser[Any]) -> Parser[str]:
        return seq(start, whitespace, tool_name(), ending).map(lambda parts: parts[2])

    def body(name: str) -> Parser[Any]:
        return parameters(name).skip(markers(*ends))

    first = section[0] if section else opener
    openers = (lead + first, first) if lead else (first,)
    led = seq(optional(literal(lead)), literal(first)) if lead else literal(first)
    resync = (layout.end, opener, *layout.other_ends, *(section or ()), *stops)
    if section is None:
        calls = tool_calls(openers, head(led), body, resync)
    else:
        calls = section_calls(openers, led, head(literal(opener)), body, resync, closer(section[1]))
    return in_runs(calls)


def envelope(calls: Parser[Any], resync: Parser[Any]) -> Parser[Any]:
    """A list of calls as one envelope: a `tool_calls` node whose calls the session
    completes only when it closes. A failure after `calls` has cut that no element took as
    its own (see `judged`: a list cut off, brackets that do not close) makes the whole
    region one `error` node, skipped with `resync` (see `recover`), so none of its calls
    is released: an executor never runs part of a list the model broke off. A
    run of lists failing the same way is one region (see `tool_call`)."""
    return recover(tag(ast.TOOL_CALLS, calls), resync, rivals=())
