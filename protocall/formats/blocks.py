"""Building blocks that format definitions compose: tool names, calls, reasoning, the turn.

A turn is: an optional reasoning block (or one the generation prompt pre-opened), then
content and tool calls in any order, with end-of-turn tokens consumed wherever they appear.
Text that merely looks like a call opener (`<tool_call>` in prose) stays text: an opener
counts only where the format's *head* — the opener through the tool name — matches, and,
in a `fenced` turn, only outside Markdown code (see `code_span`).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import ast
from ..combinators import (
    ERROR,
    Backtrack,
    Close,
    Input,
    Open,
    ParseFailure,
    Parser,
    Recovered,
    Step,
    Text,
    alt,
    as_text,
    cut,
    emit,
    end_of_input,
    fail,
    generate,
    json_object,
    json_string,
    json_value,
    literal,
    many,
    not_followed_by,
    optional,
    peek,
    python_call,
    recover,
    regex,
    seq,
    success,
    tag,
    until,
    whitespace,
)
from ..combinators.glance import Glance
from ..combinators.parser import Wrapper
from ..combinators.primitives import markers as markers  # formats take it from here too
from ..combinators.xmlargs import Layout, xml_arguments
from ..tools import Tools
from .base import Format
from .turns import ToolUse, Turn

NAME_LIMIT = 256
"""The longest tool name read: a longer run is no tool name (its call head fails there), so
a head waiting on an endless name holds back a bounded text (OpenAI allows 64)."""
NAME_CHARS = rf"[^\s<>\"'`(){{}}\[\],;|=]{{1,{NAME_LIMIT}}}"
"""A tool name: a run of characters that cannot terminate one in any format."""


def tool_name(parser: Parser[str] | None = None) -> Parser[str]:
    """The tool name as a `tool_name` node (by default a run of `NAME_CHARS`), closed only
    once its terminator has arrived, so `get_weather` never shows while `get_weather_x`
    is still arriving."""
    return tag(ast.TOOL_NAME, parser or regex(NAME_CHARS).desc("a tool name"))


def json_name() -> Parser[str]:
    """A tool name written as a JSON string (`"get_weather"`), as a `tool_name` node: one
    whose text runs past `NAME_LIMIT` characters fails there."""
    return tool_name(json_string(max_size=NAME_LIMIT + 2))


def declared(tools: Tools | None, pattern: str = NAME_CHARS) -> Parser[str]:
    """A tool name that must be one of `tools` (any name when none are declared); an
    undeclared one fails, so the text around it is not taken for a call."""
    names = regex(pattern).desc("a tool name")
    if tools is None:
        return names
    expected = f"a declared tool name ({len(tools)} declared)"
    return names.bind(lambda name: success(name) if name in tools else fail(expected))


def lenient(text: str) -> Parser[str]:
    """`text` with any whitespace before it (decoders sometimes add some around markers)."""
    return whitespace.then(literal(text))


@dataclass(frozen=True)
class Calls:
    """How a format's tool calls begin and parse.

    `openers` are the markers at which content stops to try a call; `head` matches from an
    opener through whatever proves a genuine call (typically the tool name) and must not
    `cut`; `call` parses the whole region (one call or a section of calls) from the opener.
    """

    openers: tuple[str, ...]
    head: Parser[Any]
    call: Parser[Any]


def tool_call(
    head: Parser[Any], body: Callable[[str], Parser[Any]], resync: Iterable[str]
) -> Parser[Any]:
    """One call: `head` (whose value is the tool name), a cut, then `body(name)`.

    A failure after the cut becomes an `error` node: the region is skipped up to the first
    `resync` marker, consuming the first one (the call's closer) if that is what stopped it.
    """
    closer, *others = resync
    skip = until(closer, *others, emit=False).then(optional(literal(closer)))
    return recover(tag(ast.TOOL_CALL, head.bind(lambda name: cut.then(body(name)))), skip)


def section(begin: Parser[Any], call: Parser[Any], end: str) -> Parser[Any]:
    """A tool section: `begin`, a cut, calls separated by optional whitespace, then `end`.

    A missing `end` is tolerated (the calls before it are kept): the section closes at the
    first thing that is not a call, which the turn then reads as content.
    """
    return seq(begin, cut, many(whitespace.then(call)), whitespace, optional(literal(end)))


def arguments(parser: Parser[Any]) -> Parser[Any]:
    """The `tool_arguments` node: its streamed text is the arguments JSON."""
    return tag(ast.TOOL_ARGUMENTS, parser)


def per_tool(
    tools: Tools | None, build: Callable[[Any], Parser[Any]]
) -> Callable[[str], Parser[Any]]:
    """`name -> parser` built once per name from the tool's parameter schema (None when
    the tool is not declared), so lookups cost one dict access whatever the tool count."""
    cache: dict[str, Parser[Any]] = {}

    def for_name(name: str) -> Parser[Any]:
        parser = cache.get(name)
        if parser is None:
            tool = tools.get(name) if tools is not None else None
            parser = cache[name] = build(tool.parameters if tool is not None else None)
        return parser

    return for_name


@dataclass(frozen=True)
class Reasoning:
    """A reasoning block `open` … `close`, also written as any (open, close) pair of `also`.

    With `ends_at_call`, a genuine call inside a block the generation prompt pre-opened ends
    it implicitly (the call is then parsed as a call): the model may not know it is
    reasoning. So does one inside a block the model opened, unless `explicit` (the model
    writes the opener itself and quotes calls in it): that block ends only at its close, an
    end-of-turn marker or the end of input, and a call inside it is reasoning text.

    `phrases` (openings, closings) is reasoning written as text (Granite 3.2): a turn that
    starts, after whitespace, with an opening phrase is reasoning up to a closing one (or
    a stop, or a genuine call); the phrase counts only there, held back until decided.
    """

    open: str
    close: str
    ends_at_call: bool = True
    explicit: bool = False
    also: tuple[tuple[str, str], ...] = ()
    phrases: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    @property
    def spellings(self) -> tuple[tuple[str, str], ...]:
        return ((self.open, self.close), *self.also)


BACKTICK = "`"
LONGEST_FENCE = 16
"""Backticks a closing run needs at most: a longer opening run closes at a run of this many
(its closing marker, a literal, costs its length at every backtick: a degenerate run of a
million backticks must not make a marker of a million)."""


def code_span(stops: tuple[str, ...]) -> Parser[str]:
    """Markdown code quoted in prose, all of it text: a run of N backticks, then text up to
    the next run of at least N backticks (of `LONGEST_FENCE` when N is more; consumed whole), one of
    `stops`, a newline when N < 3 (an inline span stays on its line), or the end of input.
    So a call opener inside a fence or inline code is an example, never a call; an
    unclosed fence lasts to the end of the turn. Needs more while the opening or closing
    run reaches the end of input."""
    run = as_text(regex("`+").desc("a backtick"))

    @functools.cache
    def body(width: int) -> Parser[Any]:
        ends = (BACKTICK * width, *stops, *(("\n",) if width < 3 else ()))
        return seq(cut, until(*ends), optional(run))

    return run.bind(lambda opening: body(min(len(opening), LONGEST_FENCE)))


def prose(
    node: str, stops: tuple[str, ...], calls: Calls | None, *, fenced: bool = False
) -> Parser[Any]:
    """A `node`-tagged text region, streamed, up to a stop marker or a genuine call.

    An opener that does not head a call is kept as text, and so is, when `fenced`, Markdown
    code (`code_span`). Ends (consuming nothing more) at a stop marker, at a call head, or
    at end of input.
    """
    openers = calls.openers if calls else ()
    text = until(*stops, *openers, *(BACKTICK,) * fenced, nonempty=True, commit=True)
    segments: list[Parser[Any]] = [*(code_span(stops),) * fenced, text]
    if openers and calls is not None:
        segments.append(seq(not_followed_by(calls.head, "text"), as_text(markers(*openers))))
    return tag(node, many(alt(*segments)))


def reasoning_block(
    reasoning: Reasoning,
    calls: Calls | None,
    stops: tuple[str, ...],
    pre_opened: bool,
    *,
    fenced: bool = False,
) -> Parser[Any]:
    """The reasoning block: pre-opened by the generation prompt, or opened by the model
    at the very start (after optional whitespace), in any of its spellings. It ends at its
    close marker (consumed), at a genuine call (if `ends_at_call`, and unless the model
    opened an `explicit` block), at an end-of-turn marker or at end of input. A redundant
    opener right after a pre-opened prompt (optional whitespace, then `<think>` again) is
    dropped, not reasoning text; the block then ends at that spelling's close."""

    def block(close: str, ends_at_call: bool) -> Parser[Any]:
        body = prose(ast.REASONING, (close, *stops), calls if ends_at_call else None,
                     fenced=fenced)  # fmt: skip
        return body.skip(optional(literal(close)))

    def opened(ends_at_call: bool) -> list[Parser[Any]]:
        return [seq(whitespace, literal(open_), cut, block(close, ends_at_call))
                for open_, close in reasoning.spellings]  # fmt: skip

    at_call = reasoning.ends_at_call
    if pre_opened:
        return alt(*opened(at_call), block(reasoning.close, at_call))
    return optional(alt(*opened(at_call and not reasoning.explicit)))


def assistant_turn(
    *,
    calls: Calls | None,
    stops: Iterable[str],
    reasoning: Reasoning | None = None,
    start: str | None = None,
    fenced: bool = False,
    dropped: Iterable[str] = (),
) -> Parser[Any]:
    """A whole assistant turn (see the module docstring); `start == "reasoning"` when the
    generation prompt pre-opened the reasoning block. With `fenced`, Markdown code in the
    content and the reasoning is text, calls quoted in it included (see `code_span`).
    Strays are dropped where they stand in the content, never content: the `dropped`
    markers and a reasoning close marker (the block ended at a call, or was closed
    already); in the reasoning they are its text."""
    stops = tuple(stops)
    lead = (
        reasoning_block(reasoning, calls, stops, pre_opened=start == "reasoning", fenced=fenced)
        if reasoning is not None
        else success(None)
    )
    if reasoning is not None and reasoning.phrases[0] and start != "reasoning":
        opening, closing = reasoning.phrases
        thought = prose(ast.REASONING, (*closing, *stops), calls)
        lead = alt(
            seq(whitespace, markers(*opening), cut, thought, optional(markers(*closing))), lead
        )
    closes = tuple(close for _, close in reasoning.spellings) if reasoning is not None else ()
    strays = (*closes, *dropped)
    segments: list[Parser[Any]] = [tag(ast.CONTENT, code_span(stops))] if fenced else []
    if calls is not None:
        segments.append(calls.call)
    if stops:
        segments.append(tag(ast.END_OF_TURN, markers(*stops)))
    if strays:
        segments.append(markers(*strays))
    if calls is not None:
        segments.append(tag(ast.CONTENT, as_text(markers(*calls.openers))))
    openers = calls.openers if calls else ()
    text = until(*stops, *strays, *openers, *(BACKTICK,) * fenced, nonempty=True, commit=True)
    segments.append(tag(ast.CONTENT, text))
    return seq(lead, many(alt(*segments)), end_of_input)


def render_turn(
    turn: Turn,
    start: str | None,
    *,
    reasoning: Reasoning | None,
    call: Callable[[ToolUse], str],
    between_calls: str = "",
    section: tuple[str, str] | None = None,
    stop: str = "",
) -> str:
    """Write `turn` as a model would after a generation prompt that left `start` open:
    the reasoning block (its opener omitted when pre-opened), then content and calls —
    consecutive calls joined by `between_calls`, wrapped in `section` when the format has
    one — then the `stop` token."""
    out = []
    if reasoning is not None and (turn.reasoning is not None or start == "reasoning"):
        if start != "reasoning":
            out.append(reasoning.open)
        out += [turn.reasoning or "", reasoning.close]
    for group in turn.groups():
        if isinstance(group, str):
            out.append(group)
            continue
        body = between_calls.join(map(call, group))
        out.append(f"{section[0]}{body}{section[1]}" if section else body)
    out.append(stop)
    return "".join(out)


THINK = Reasoning("<think>", "</think>")
"""The `<think>` … `</think>` block most families use."""


def turn_format(
    name: str,
    calls: Callable[[Tools | None], Calls],
    *,
    stops: tuple[str, ...],
    render_call: Callable[[ToolUse, int], str],
    prompts: Mapping[str | None, str],
    summary: str,
    call_marker: str,
    reserved: tuple[str, ...] = (),
    reasoning: Reasoning | None = THINK,
    default_start: str | None = None,
    between_calls: str = "",
    section: tuple[str, str] | None = None,
    fenced: bool = False,
    written: Reasoning | None = None,
    call_stop: str | None = None,
    dropped: tuple[str, ...] = (),
) -> Format:
    """The `Format` of a family whose turn is a reasoning block, then content and calls,
    then one of `stops` (`assistant_turn`; `calls(tools)` gives the calls), rendered by
    `render_turn` with `render_call(call, its index in the turn)`, `between_calls`,
    `section` and the first stop (`call_stop` after a turn with calls, where given), the
    reasoning block laid out as `written` where given. Its
    reasoning channel and marker summary follow from `reasoning`; its reserved markers are
    the reasoning block's, the section's, `reserved` and the stops (and a backtick when
    `fenced`: Markdown code in prose is text, see `assistant_turn`). `dropped` markers are
    strays, dropped where they stand in the content."""

    def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
        return assistant_turn(
            calls=calls(tools),
            stops=stops,
            reasoning=reasoning,
            start=start,
            fenced=fenced,
            dropped=dropped,
        )

    def render(turn: Turn, start: str | None) -> str:
        index = itertools.count()
        stop = call_stop if call_stop is not None and turn.calls else stops[0]
        return render_turn(
            turn,
            start,
            reasoning=written or reasoning,
            stop=stop,
            section=section,
            call=lambda use: render_call(use, next(index)),
            between_calls=between_calls,
        )

    channels = {} if reasoning is None else {"reasoning": (reasoning.open, reasoning.close)}
    shown = {name: "…".join(block) for name, block in channels.items()} | {"call": call_marker}
    spelled = sum(reasoning.spellings, ()) if reasoning is not None else ()
    marked = _reserved(*spelled, *(section or ()), *reserved, *stops, *(BACKTICK,) * fenced)
    return Format(
        name,
        grammar,
        render,
        reserved=marked,
        channels=channels,
        default_start=default_start,
        prompts=prompts,
        summary=summary,
        markers=shown,
    )


class Unfinished(Wrapper[Any]):
    """`parser`, or a truncation: when the stream has ended and `parser` failed (before any
    cut) at the very end of input, having started on some text, that text becomes one
    `error` node whose `Recovered` value is marked truncated, and the match runs to the end.

    So an opener whose head was cut off (`<tool_call>\\n<function=get_w` at the end) is an
    unfinished call, reported and kept out of content, never read as text. Needs more while
    `parser` does; every other failure passes through unchanged.
    """

    def __init__(self, parser: Parser[Any]) -> None:
        self.parser = parser

    def step(self, inp: Input, pos: int) -> Step[Any]:
        barrier = inp.open_choice(pos, barrier=True)
        try:
            result = yield from self.parser.step(inp, pos)
        except ParseFailure as failure:
            cut_off = inp.eof and failure.position >= inp.end > pos
            if not cut_off or barrier.committed or not isinstance(failure, Backtrack):
                inp.close_choice(barrier, keep_output=False)
                raise
            recovered = Recovered(failure, inp.raw(pos, inp.end), pos, truncated=True)
            inp.close_choice(barrier, keep_output=False)
            inp.out.append(Open(ERROR, pos))
            inp.out.append(Text(recovered.raw, pos))
            inp.out.append(Close(ERROR, inp.end, recovered))
            return recovered, inp.end
        inp.close_choice(barrier, keep_output=True)
        return result

    def _glance(self, window: str) -> Glance | None:
        return self.parser.glance(window)  # where the window is, the input did not end


def unfinished(parser: Parser[Any]) -> Parser[Any]:
    """`parser`, or a truncated `error` node if the stream ended inside it (see `Unfinished`)."""
    return Unfinished(parser)


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


def in_runs(calls: Calls) -> Calls:
    """`calls` where a call may be followed by more calls, each after optional whitespace:
    whitespace between consecutive calls separates them (what `render_turn` writes as
    `between_calls`) and is not content. Whitespace after the last call stays content."""
    next_call = seq(whitespace, peek(markers(*calls.openers)), calls.call)  # a whole opener
    return Calls(calls.openers, calls.head, seq(calls.call, many(next_call)))


@dataclass(frozen=True)
class Channel:
    """A channel `open` … `close` whose body is text tagged `node` (reasoning or content).
    A `label` may follow the opener (Gemma 4's `<|channel>thought`): where it does, and no
    word character follows it, it belongs to the opener, not to the body. `written` is the
    opener as the model writes it, where that differs (in prompts and summaries)."""

    open: str
    close: str
    node: str
    label: str = ""
    written: str = ""

    def opener(self) -> Parser[Any]:
        """The opener, a cut, then the label where it stands."""
        opened = literal(self.open).then(cut)
        if not self.label:
            return opened
        return opened.then(optional(seq(literal(self.label), not_followed_by(regex(r"\w")))))


def channelled_turn(
    *,
    channels: Mapping[str, Channel],
    calls: Calls,
    stops: Iterable[str],
    tokens: Iterable[str],
    dropped: Iterable[str] = (),
    start: str | None = None,
) -> Parser[Any]:
    """A turn made of channels (Kimi K3): the channel named `start` pre-opened by the
    generation prompt, then channels, call regions and end-of-turn `stops` in any order;
    text outside every channel is content.

    Every marker begins with one of the special `tokens`: text runs up to a token and there
    the marker is parsed whole, so a marker of several tokens is held back until complete.
    A channel body ends at its close (consumed), at any channel's opener or close, at a
    genuine call head, at an end-of-turn marker, at a `dropped` marker or at end of input
    (the close is optional). A close with no open channel, and a `dropped` marker (markup
    that carries nothing when it stands alone, such as a repeated region close), is
    dropped; a token that begins no marker is text. At end of input a marker cut off after
    its token is a truncated error, never text.
    """
    stops, tokens = tuple(stops), tuple(tokens)
    opens = tuple(channel.open for channel in channels.values())
    closes = (*(channel.close for channel in channels.values()), *dropped)
    known = unfinished(alt(calls.head, markers(*stops, *opens, *closes)))
    stray = seq(not_followed_by(known, "text"), as_text(markers(*tokens)))
    run = until(*tokens, nonempty=True, commit=True)

    def text(node: str) -> Parser[Any]:
        return tag(node, many(alt(run, stray), minimum=1))

    def body(channel: Channel) -> Parser[Any]:
        return optional(text(channel.node)).skip(optional(literal(channel.close)))

    opened = (c.opener().then(body(c)) for c in channels.values())
    end = tag(ast.END_OF_TURN, markers(*stops))
    structure = alt(calls.call, end, *opened, markers(*closes))
    lead = body(channels[start]) if start is not None else success(None)
    segment = alt(peek(markers(*tokens)).then(unfinished(structure)), text(ast.CONTENT))
    return seq(lead, many(segment), end_of_input)


def render_channels(
    turn: Turn,
    start: str | None,
    *,
    channels: Mapping[str, Channel],
    call: Callable[[ToolUse, int], str],
    section: tuple[str, str],
    stop: str,
) -> str:
    """Write `turn` as channels after a generation prompt that left channel `start` open:
    that channel first (its opener omitted), then the others in order — a reasoning channel
    only when the turn has reasoning or it is pre-opened, a content channel always, holding
    all the turn's content text in order — then every call, `call(use, position)` with
    1-based positions, in one `section`, then `stop`."""
    content = "".join(part for part in turn.parts if isinstance(part, str))
    out = []
    for name in sorted(channels, key=lambda name: name != start):
        channel = channels[name]
        reasoning = channel.node == ast.REASONING
        if reasoning and turn.reasoning is None and name != start:
            continue
        opener = "" if name == start else channel.open
        out += [opener, (turn.reasoning or "") if reasoning else content, channel.close]
    if turn.calls:
        out += [section[0], *map(call, turn.calls, itertools.count(1)), section[1]]
    out.append(stop)
    return "".join(out)


def _reserved(*markers: str) -> tuple[str, ...]:
    """Reserved markers without surrounding whitespace, duplicates or empty ones, in order."""
    return tuple(dict.fromkeys(m.strip() for m in markers if m.strip()))


def channel_format(
    name: str,
    calls: Callable[[Tools | None], Calls],
    *,
    channels: Mapping[str, Channel],
    stops: tuple[str, ...],
    tokens: tuple[str, ...],
    prompt: str,
    summary: str,
    call_marker: str,
    render: Callable[[Turn, str | None], str] | None = None,
    render_call: Callable[[ToolUse, int], str] | None = None,
    section: tuple[str, str] = ("", ""),
    dropped: tuple[str, ...] = (),
    starts: tuple[str, ...] | None = None,
    reserved: tuple[str, ...] = (),
    default_start: str | None = None,
) -> Format:
    """The `Format` of a family whose turn is made of channels: `channelled_turn` over
    `channels`, `calls(tools)`, `stops`, `tokens` and `dropped`. It renders with `render`,
    or else `render_channels` with `render_call`, `section` and the stops joined. The
    channels named in `starts` (default: all) are the start states a generation prompt can
    leave open, the prompt for each being `prompt` plus its opener (`prompt` alone opens
    none); the reserved markers are every channel's open and close, the section's,
    `reserved` and the stops; the marker summary shows the reasoning channel and
    `call_marker`."""

    def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
        return channelled_turn(channels=channels, calls=calls(tools), stops=stops,
                               tokens=tokens, dropped=dropped, start=start)  # fmt: skip

    def rendered(turn: Turn, start: str | None) -> str:
        assert render_call is not None
        return render_channels(turn, start, channels=channels, call=render_call,
                               section=section, stop="".join(stops))  # fmt: skip

    opened = {key: channels[key] for key in (channels if starts is None else starts)}
    thinking = next((c for c in channels.values() if c.node == ast.REASONING), None)
    opener = (thinking.written or thinking.open).replace("\n", "\\n") if thinking else ""
    shown = {"reasoning": f"{opener}…{thinking.close}"} if thinking else {}
    return Format(
        name, grammar, render or rendered, default_start=default_start, summary=summary,
        reserved=_reserved(*(m for c in channels.values() for m in (c.open, c.close)), *section,
                           *reserved, *stops),
        channels={key: (channel.open, channel.close) for key, channel in opened.items()},
        prompts={None: prompt} | {key: prompt + (channel.written or channel.open)
                                  for key, channel in opened.items()},
        markers=shown | {"call": call_marker},
    )  # fmt: skip


def escape_attribute(value: str) -> str:
    """An attribute value as XML-style formats write it: `&` as `&amp;`, then `"` as `&quot;`."""
    return value.replace("&", "&amp;").replace('"', "&quot;")


def unescape_attribute(value: str) -> str:
    """The inverse of `escape_attribute`: `&quot;` is decoded before `&amp;`."""
    return value.replace("&quot;", '"').replace("&amp;", "&")


def raw_text(value: Any) -> str:
    """A value as raw-text argument formats write it: a string verbatim, anything else as
    JSON (non-ASCII kept)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def json_type(value: Any) -> str:
    """The JSON type name of a value (string, number, boolean, null, object, array), as a
    type attribute writes it."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else "boolean"
    kinds = {str: "string", int: "number", float: "number", dict: "object", list: "array"}
    return kinds[type(value)]


def loose(text: str) -> Parser[str]:
    """`text` (a layout such as `"\\n```json\\n"`), allowing any whitespace, or none,
    wherever it has whitespace and around each `<…>` tag in it, as decoders vary the
    spacing; its value is `text`. Whitespace before it is allowed only if it starts with
    some (so a head never starts on whitespace alone)."""
    pieces = [piece for piece in re.split(r"\s+|(?=<)|(?<=>)", text) if piece]
    parsers = [lenient(piece) if i or text[0].isspace() else literal(piece)
               for i, piece in enumerate(pieces)]  # fmt: skip
    if not parsers or text[-1].isspace():
        parsers.append(whitespace)
    return seq(*parsers).result(text)


def section_calls(
    openers: Iterable[str],
    begin: Parser[Any],
    head: Parser[Any],
    body: Callable[[Any], Parser[Any]],
    resync: Iterable[str],
    end: Parser[Any],
    *,
    bare: bool = False,
    gap: Parser[Any] = whitespace,
) -> Calls:
    """Calls in a section: `begin`, calls (each `head` then `body`, as in `tool_calls`)
    separated by `gap` (optional whitespace; a format may let it skip noise), then `end`,
    whose absence is tolerated (the section closes at the first thing that is not a call;
    what follows the last call is then content). The first call's head starts with `begin`
    and the gap, so a section opener that heads no call is text, and one the stream ended
    inside is a truncated call; text that `end` matches is never a call (at end of input a
    `closer` matches a cut-off marker). With `bare`, the section's `begin` may be missing
    too (bare calls are separated by whitespace only). Calls start only at a whole opener:
    a cut-off one at the end of input is text, as in prose."""
    openers = tuple(openers)
    inner = tool_calls(openers, head, body, resync)
    first = tool_calls(openers, seq(begin, gap).then(head), body, resync)

    def section(opening: Calls, gap: Parser[Any]) -> Parser[Any]:
        more = many(gap.then(not_followed_by(end)).then(inner.call))
        return seq(peek(markers(*openers)), opening.call, more, optional(gap.then(end)))

    if not bare:
        return Calls(first.openers, first.head, section(first, gap))
    return Calls(first.openers, alt(first.head, inner.head),
                 alt(section(first, gap), section(inner, whitespace)))  # fmt: skip


def closer(*texts: str) -> Parser[str]:
    """One of the closing markers `texts`; at end of input also a proper prefix of one: a
    closer cut off by the end of the stream still closes (its partial text is no content)."""
    prefixes = sorted({text[:k] for text in texts for k in range(1, len(text))}, key=len)
    cut_off = regex("|".join(map(re.escape, reversed(prefixes)))).skip(end_of_input)
    return alt(markers(*texts), cut_off)


def xml_calls(
    tools: Tools | None,
    layout: Layout,
    opener: str,
    name_end: str = "",
    *,
    stops: Iterable[str] = (),
    section: tuple[str, str] | None = None,
    lead: str = "",
) -> Calls:
    """Calls with tag-delimited arguments (GLM, Ling, MiniMax, Seed-OSS): `opener`, optional
    whitespace, the tool name and `name_end`, then `layout` arguments typed by the tool's
    schema, then `layout.end`, which closes the call. Without `name_end` the name ends where,
    after optional whitespace, an argument opener or `layout.end` follows (a call may have no
    arguments); it is final only then.

    With `section` (begin, end) the calls stand in `begin` … `end`, separated by optional
    whitespace, a missing end tolerated (see `section_calls`). `lead` (a newline) is what
    the template writes before each call, or each section: where present it belongs to the
    call, not to the content. Calls or sections separated only by whitespace form one run
    (`in_runs`). A call that fails after its head is skipped (see `tool_call`) to its
    closer, the next opener, the section end or one of `stops`."""
    parameters = per_tool(tools, lambda schema: arguments(xml_arguments(layout, schema)))
    following = peek(whitespace.then(markers(layout.opener, layout.end)))
    ending = literal(name_end) if name_end else following

    def head(start: Parser[Any]) -> Parser[str]:
        return seq(start, whitespace, tool_name(), ending).map(lambda parts: parts[2])

    def body(name: str) -> Parser[Any]:
        return parameters(name).skip(literal(layout.end))

    first = section[0] if section else opener
    openers = (lead + first, first) if lead else (first,)
    led = seq(optional(literal(lead)), literal(first)) if lead else literal(first)
    resync = (layout.end, opener, *(section or ()), *stops)
    if section is None:
        calls = tool_calls(openers, head(led), body, resync)
    else:
        calls = section_calls(openers, led, head(literal(opener)), body, resync, closer(section[1]))
    return in_runs(calls)


def render_argument(layout: Layout, key: str, value: Any) -> str:
    """One argument of a layout whose key is an attribute, the way `xml_arguments` reads it
    back: the opener with the key attribute and, where the layout has one, the type
    attribute (the value's JSON type, or the `type_values` entry for `string` or `json`),
    then `key_close`, the raw text (a string verbatim, other values as JSON) and
    `value_close`. Attribute values are entity-escaped where the layout decodes entities."""
    escape = escape_attribute if layout.decode_entities else str
    attributes = f' {layout.key_attribute}="{escape(key)}"'
    if layout.type_attribute is not None:
        kind = json_type(value)
        if layout.type_values:
            spelled = {name: attribute for attribute, name in layout.type_values.items()}
            kind = spelled.get(kind) or spelled["json"]
        attributes += f' {layout.type_attribute}="{kind}"'
    return f"{layout.opener}{attributes}{layout.key_close}{raw_text(value)}{layout.value_close}"


def call_object(
    name: str = "name", arguments_keys: Iterable[str] = ("arguments",), id_key: str | None = None
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
    no call without arguments); needs more while the object is open."""
    arguments_keys = tuple(arguments_keys)
    values: dict[str, Parser[Any]] = {name: json_name()}
    values.update(dict.fromkeys(arguments_keys, arguments(json_object())))
    if id_key is not None:
        values[id_key] = tag(ast.TOOL_ID, json_value().map(_id_text))
    other = json_value()
    colon = seq(whitespace, literal(":"), whitespace)
    more = whitespace.then(alt(literal(",").then(whitespace).result(False), peek(literal("}"))))

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
                early = yield colon.then(json_object())
            elif key == id_key and name in seen and not seen.isdisjoint(arguments_keys):
                yield colon.then(other)  # the call was announced with an id already
            else:
                others += [] if key in values else [key]
                yield colon.then(values.get(key, other))
            seen.add(key)
            if key == name and early is not None:
                yield arguments(Synthesised(_json_text(early)).result(early))
            done = yield more
        if name not in seen:
            yield fail(f"a `{_json_text(name)}` member")
        if others and seen.isdisjoint(arguments_keys):
            wanted = " or ".join(f"`{_json_text(key)}`" for key in arguments_keys)
            yield fail(f"a {wanted} member, not `{_json_text(others[0])}`")
        yield literal("}")

    return call


class Synthesised(Parser[None]):
    """Matches nothing and emits `text` as one `Text` item where it stands: text the grammar
    derived (re-serialised arguments) rather than read from the input."""

    def __init__(self, text: str) -> None:
        self.text = text

    def step(self, inp: Input, pos: int) -> Step[None]:
        inp.out.append(Text(self.text, pos))
        return None, pos
        yield pos  # pragma: no cover - makes this a generator


def _id_text(value: Any) -> str:
    return value if isinstance(value, str) else _json_text(value)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def json_call_list(
    openers: Iterable[str], call: Parser[Any], resync: Iterable[str], end: str | None = None
) -> Calls:
    """Calls written as one JSON array after an opener (`[TOOL_CALLS] [{…}, {…}]`,
    `<|START_ACTION|>[…]<|END_ACTION|>`): an opener, optional whitespace, `[` and a `{` or
    `]` after optional whitespace head the section (an opener without them after it is text,
    so `<TOOLCALL>[ here` quoted in prose stays prose), a cut, then the array's elements, each
    `call` (such as `call_object`) as its own `tool_call` node, then `]` and, after optional
    whitespace, `end` (when the format has one; a missing or cut-off `end` is tolerated).

    The array is the calls' envelope (a `tool_calls` node, see `envelope`): its calls are
    complete only once its `]` has arrived. An array the stream ended inside is one
    truncated error, and one with any invalid element (or anything but `,` or `]` after
    an element) one malformed error, from its opener to the first `resync` marker (consuming
    `end` if that is what stopped it); neither releases any of its calls."""
    openers = tuple(openers)
    begin = seq(markers(*openers), whitespace, literal("["), whitespace, peek(markers("{", "]")))
    element = tag(ast.TOOL_CALL, call)
    later = seq(whitespace, literal(","), cut, whitespace, element)
    elements = alt(literal("]"), seq(element, many(later), whitespace, literal("]")))
    skip = until(*resync, emit=False)
    if end is not None:
        skip = skip.then(optional(literal(end)))
    body = envelope(seq(begin, cut, elements), skip)
    if end is not None:
        body = body.skip(optional(whitespace.then(closer(end))))
    return Calls(openers, unfinished(begin), unfinished(body))


def envelope(calls: Parser[Any], resync: Parser[Any]) -> Parser[Any]:
    """A list of calls as one envelope: a `tool_calls` node whose calls the session
    completes only when it closes. A failure after `calls` has cut (an invalid sibling, a
    list cut off) makes the whole region one `error` node, skipped with `resync` (see
    `recover`), so none of its calls is released: an executor never runs part of a list."""
    return recover(tag(ast.TOOL_CALLS, calls), resync)


PYTHON_CALL, PYTHON_CALLEE = "python_call", "python_callee"
"""Tags of the call syntax that `python_call_list` parses inside each `tool_call` node."""
_PYTHON_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def _python_name(tools: Tools | None) -> Parser[str]:
    """A dotted name, `-` allowed (`read-file`, as MCP tools are named); with `tools`, only
    a declared one."""

    def check(name: str) -> Parser[str]:
        if _PYTHON_NAME.fullmatch(name.rpartition("-")[2]) is None:
            return fail("a tool name")
        if tools is not None and name not in tools:
            return fail(f"a declared tool name ({len(tools)} declared)")
        return success(name)

    return regex(rf"[^\W\d][\w.-]{{0,{NAME_LIMIT - 1}}}").desc("a tool name").bind(check)


def _python_call(name: Parser[str], *, strict: bool = True) -> tuple[Parser[Any], Parser[Any]]:
    """`(proof, call)` of one pseudo-function call. The proof is the name and `(`, when
    `strict` then `)` or a first `key=`; the call, a `tool_call` node, cuts once the proof
    has arrived. The whole name is announced; `python_call` reads the call from its last
    `-`-free part on (Python names have no `-`)."""
    keyword = alt(literal(")"), seq(regex(r"\w+"), whitespace, literal("=")))
    proof = seq(name, whitespace, literal("("), *([whitespace, keyword] if strict else []))

    syntax = python_call(call_tag=PYTHON_CALL, name_tag=PYTHON_CALLEE)

    def body(parts: tuple[Any, ...]) -> Parser[Any]:
        full: str = parts[0]
        prefix = full[: len(full) - len(full.rpartition("-")[2])]
        read = literal(prefix).then(syntax) if prefix else syntax
        return seq(cut, emit(ast.TOOL_NAME, full), read).result(full)

    return peek(proof), tag(ast.TOOL_CALL, peek(proof).bind(body))


def python_call_list(
    tools: Tools | None,
    stops: Iterable[str],
    *,
    section: tuple[str, str] | None = None,
    bare: bool = True,
) -> Calls:
    """Calls as a Python list of pseudo-function calls, `[f(a=1), g(b="x")]` (Llama 3.2 and
    Llama 4 pythonic, LFM2), each a `tool_call` node whose arguments stream as JSON text
    (see `python_call`): inside `section` (begin, end) when given, and with `bare` also
    without one.

    A bare list has no marker to prove it a call: it is one only where `[` is followed by a
    declared tool's name (any name when none are declared), `(` and `)` or a first `key=`;
    otherwise, also when the stream ends before that, the `[` is text. Inside a section any
    name makes a call (the session reports an undeclared one) and a section begin the
    stream ended inside is a truncated call. After the first call the list is committed.
    A trailing comma is allowed; a missing section end is tolerated.

    The list is the calls' envelope (see `envelope`): its calls are complete only once its
    `]` has arrived. A list the stream ended inside is one truncated error, and one with a
    malformed call (or anything but a call or `]` after a `,`) one malformed error, skipped
    to the section end (consumed) or one of `stops`; neither releases any of its calls.
    """
    stops = tuple(stops)
    skip = until(*stops, emit=False)
    if section is not None:
        skip = until(section[1], *stops, emit=False).then(optional(literal(section[1])))
    _, any_call = _python_call(_python_name(None), strict=False)
    later = seq(whitespace, literal(","), cut, whitespace, alt(any_call, peek(literal("]"))))

    def listed(first: Parser[Any], begin: Parser[Any], end: Parser[Any]) -> Parser[Any]:
        calls = seq(begin, literal("["), whitespace, first, many(later), whitespace, literal("]"))
        return envelope(calls, skip).skip(end)  # fmt: skip

    heads, lists, openers = [], [], []
    if section is not None:
        begin, end = literal(section[0]).then(whitespace), whitespace.then(closer(section[1]))
        proof, first = _python_call(_python_name(None))
        heads.append(unfinished(seq(begin, literal("["), whitespace, proof)))
        lists.append(unfinished(listed(first, begin, optional(end))))
        openers.append(section[0])
    if bare:
        proof, first = _python_call(_python_name(tools))
        heads.append(seq(literal("["), whitespace, proof))
        lists.append(listed(first, success(None), success(None)))
        openers.extend(_list_starts(tools))
    return Calls(tuple(openers), alt(*heads), alt(*lists))


def _list_starts(tools: Tools | None) -> list[str]:
    """Where a bare call list may begin: `[` then whitespace or, with `tools`, the first
    character of a declared name. Any other `[` (`[[[[…`, `[1, 2]`) is text at once, without
    trying a call; with no tools declared, any `[` is tried."""
    if tools is None:
        return ["["]
    return [f"[{first}" for first in sorted({*" \t\n\r", *(name[:1] for name in tools if name)})]


def python_call_lines(stops: Iterable[str], section: tuple[str, str]) -> Calls:
    """Pseudo-function calls one per line inside `section` (begin, end), as Olmo 3 writes
    them: `<function_calls>f(a=1)\\ng(b="x")</function_calls>`; each is a `tool_call` node
    whose arguments stream as JSON text (see `python_call`), any name making a call (the
    session reports an undeclared one).

    The begin heads a call list only where, after optional whitespace, a name, `(` and `)`
    or a first `key=` follow it; otherwise it is text, and one the stream ended inside is a
    truncated call. Calls are separated by whitespace (the template writes a line break),
    which alone commits to nothing: a name and `(` after it make a call, and one cut off
    is a truncated one. A missing end is tolerated (the section closes at the first
    line that is no call). A malformed call is skipped to the end (consumed) or a stop.
    """
    begin, end = section
    skip = until(end, *stops, emit=False).then(optional(literal(end)))
    proof, first = _python_call(_python_name(None))
    _, later = _python_call(_python_name(None), strict=False)
    opening = literal(begin).then(whitespace)
    calls = seq(opening, recover(first, skip),
                many(regex(r"\s+").then(unfinished(recover(later, skip)))),
                optional(whitespace.then(closer(end))))  # fmt: skip
    return Calls((begin,), unfinished(opening.then(proof)), unfinished(calls))
