"""The spec walk: a format's `Spec` and declared tools as a `Grammar` of what the format
writes (the turns its renderer writes, with free text and typed values where they stand).

The grammar is the written form, not every tolerance of the parser: a model constrained by
it writes what the parser reads without a warning. Every field of the spec is either used to
write the grammar, a read tolerance the written form does not need (`TOLERATED`), or, when
it has a value other than its default, a `UsageError` naming it: a field added to the spec
later is never ignored silently.

Choices where the parser accepts more than one form: properties (JSON members, XML
parameters, keywords) are written required first, each group in schema order; the first
spelling of a section or a key is written; any stop ends the turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, fields, is_dataclass
from typing import Any, Protocol

from ..blocks.channels import under_header
from ..blocks.render import escape_attribute, json_type
from ..combinators import UsageError
from ..spec import Call, Channel, Channels, JsonTurn, Messages, Spec, Think
from ..spec.codecs import (
    Attribute,
    BareObject,
    IdName,
    JsonObject,
    NameAndArguments,
    NameKey,
    Plain,
    PythonKeywords,
    XmlArguments,
)
from ..spec.tags import spelled
from ..tools import Tool, Tools
from ..values.xmlargs import Layout
from . import schemas, values
from .ir import (
    FREE,
    STRING_KEYWORDS,
    Alt,
    Free,
    Grammar,
    Lit,
    Members,
    Node,
    Opt,
    Pattern,
    Star,
    Token,
    Until,
    alt,
    head,
    json_node,
    raw_string,
    seq,
)

HANDLED: Mapping[str, frozenset[str]] = {
    "Spec": frozenset(
        {
            "name",
            "summary",
            "call",
            "stops",
            "turn",
            "section",
            "prompt",
            "default_start",
            "call_stop",
        }
    ),
    "Think": frozenset({"open", "close", "written", "opened_by", "off", "prompt"}),
    "Channels": frozenset({"channels", "tokens", "interleaved", "header", "label"}),
    "Channel": frozenset({"name", "open", "close", "label", "written"}),
    "Messages": frozenset(
        {
            "bodies",
            "start",
            "channel",
            "message",
            "end",
            "to",
            "functions",
            "types",
            "code",
            "dropped",
        }
    ),
    "JsonTurn": frozenset({"content", "calls", "single"}),
    "Call": frozenset({"template", "arguments", "name", "between", "optional", "id_pattern"}),
    "Section": frozenset({"begins", "ends", "each", "array", "framing", "written_bare"}),
    "Plain": frozenset({"pattern", "prefix"}),
    "Attribute": frozenset({"pattern"}),
    "IdName": frozenset({"prefix", "chars"}),
    "JsonObject": frozenset(),
    "XmlArguments": frozenset({"layout", "separator", "newline"}),
    "Layout": frozenset(
        {
            "opener",
            "key_close",
            "value_close",
            "end",
            "key_attribute",
            "value_open",
            "framing_newlines",
            "framing_written",
            "decode_entities",
            "type_attribute",
            "type_values",
        }
    ),
    "PythonKeywords": frozenset({"literals"}),
    "BareObject": frozenset({"quote"}),
    "NameAndArguments": frozenset({"keys", "name", "id", "within", "constants"}),
    "NameKey": frozenset(),
}
"""The spec fields the walk writes into the grammar, by kind."""

TOLERATED: Mapping[str, frozenset[str]] = {
    # `primed`: after a prompt ending with one, `export` begins inside the marker (`primed`)
    "Spec": frozenset(
        {
            "dropped",
            "placeholder",
            "malformed_as_content",
            "fenced",
            "respelled",
            "primed",
            "content_lead",
        }
    ),
    "Think": frozenset({"ends_at_call", "explicit", "also", "phrases", "ends_at"}),
    "Channels": frozenset({"starts"}),
    "Channel": frozenset({"also"}),
    "Plain": frozenset({"doubled"}),
    "Call": frozenset(
        {
            "spaced",
            "stray_closers",
            "unclosed",
            "unclosed_value",
            "bare",
            "loose",
            "empty",
            "proof",
            "closer_proves",
            "other_closers",
        }
    ),
    "Section": frozenset(
        {
            "bare",
            "noise",
            "empty",
            "stray_ends",
            "opens_at",
            "opener",
            "element",
            "loose",
            "single",
            "sealed",
            "bare_ends_reasoning",
            "method",
            "code",
        }
    ),
    "XmlArguments": frozenset({"block"}),
    "NameAndArguments": frozenset({"anywhere"}),
    "Layout": frozenset(
        {
            "committed_opener",
            "unclosed_at_opener",
            "unclosed_at_end",
            "quote",
            "quote_when",
            "other_ends",
        }
    ),
}
"""Read tolerances: other spellings and strays the parser accepts, which the written form
(the grammar) never needs. Among them `Channels.starts` (which channels a prompt may leave
open: the grammar follows the prompt it is given), `Call.proof` (what proves a bare object a
call when read: the grammar writes the call object itself) and `Section.element` (an older
spelling read behind the same opener, Mistral's pre-v11 array: the template's calls are
written), `Layout.quote` (values are written unquoted) and `NameAndArguments.anywhere` (the
name is written first)."""

REFUSED: Mapping[str, str] = {
    "XmlElements": (
        "an element's closing tag repeats its name, which a grammar can say only for the "
        "keys a schema declares, while the template writes every object and list as "
        "elements, declared or not (and leaves a null out)"
    ),
}
"""Why the walk writes no grammar for a part of these kinds."""

AUTO_SPECIAL = re.compile(r"<\|[^|<>\s]+\|>|<｜[^｜<>]+｜>")
"""Markers taken for special tokens unless the caller lists them: `<|…|>` and `<｜…｜>`."""


@dataclass(frozen=True)
class Options:
    """What the grammar allows: `tool_choice` `auto` (content or calls), `required` (at
    least one call) or a tool name (at least one call, to it only); `parallel` (more than
    one call); `reasoning` (a reasoning block, where the format has one); `stop` (the turn
    ends with one of the format's stops; False: it ends where the stop would begin, for
    engines whose stop token ends generation outside the grammar, as xgrammar's does)."""

    tool_choice: str = "auto"
    parallel: bool = True
    reasoning: bool = True
    stop: bool = True


def chosen_tools(tools: Tools, options: Options) -> list[Tool]:
    """The tools a call may name under `options.tool_choice`."""
    choice = options.tool_choice
    if choice in ("auto", "required"):
        if choice == "required" and not tools:
            raise UsageError('tool_choice "required" with no tools declared')
        return list(tools.values())
    if choice not in tools:
        raise UsageError(
            f'tool_choice is "auto", "required" or a declared tool name, not {choice!r}'
        )
    return [tools[choice]]


def check_fields(spec: Spec) -> None:
    """A `UsageError` naming the first spec field, or part kind, the walk cannot write."""
    _check(spec, "spec")


def _check(value: Any, where: str) -> None:
    if isinstance(value, tuple):
        for number, item in enumerate(value):
            _check(item, f"{where}[{number}]")
        return
    if not is_dataclass(value) or isinstance(value, type):
        return
    kind = type(value).__name__
    if kind not in HANDLED:
        reason = f": {REFUSED[kind]}" if kind in REFUSED else ""
        raise UsageError(f"no grammar for a spec part of kind {kind} ({where}){reason}")
    for f in fields(value):
        current = getattr(value, f.name)
        if f.name in HANDLED[kind]:
            _check(current, f"{where}.{f.name}")
        elif f.name not in TOLERATED.get(kind, ()) and current != _default(f):
            raise UsageError(
                f"no grammar for {kind}.{f.name} = {current!r} ({where}): the grammar "
                "exporter does not handle this field"
            )


def _default(f: Any) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not MISSING else MISSING


class Described(Protocol):
    """What the exporter reads of a format (a `Format` has it): its `name`, the `Spec` it
    was built from (or none) and its `reserved` markers."""

    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> Any: ...

    @property
    def reserved(self) -> tuple[str, ...]: ...


def build(
    fmt: Described,
    tools: Tools,
    start: str | None,
    options: Options,
    special: Iterable[str] | None = None,
) -> Grammar:
    """The grammar of a turn of `fmt` (which must have a `spec`) calling `tools`, after a
    generation prompt that left `start` open; `special` lists the marker texts that are
    special tokens (default: `AUTO_SPECIAL`)."""
    return Walk(fmt, spec_of(fmt), tools, start, options, special).grammar


def build_lazy(
    fmt: Described, tools: Tools, start: str | None, options: Options
) -> tuple[Grammar, tuple[str, ...]]:
    """The grammar of the rest of a turn from its first call on, and the words that trigger
    it (the calls' opening marker), for a lazy grammar: text before the trigger is free.
    Markers are all text (a lazy grammar is matched against text)."""
    walked = Walk(fmt, spec_of(fmt), tools, start, options, (), lazy=True)
    return walked.grammar, walked.triggers


def build_runs(
    fmt: Described, tools: Tools, options: Options
) -> tuple[Grammar, tuple[tuple[str, Node], ...]]:
    """The rules of a run of calls of `fmt` to `tools` (markers all text), and the runs as
    (the text that opens one, the node of the rest of it): one where the calls have an
    opening marker, one per tool where only a call's own beginning marks it (`[get(`)."""
    walked = Walk(fmt, spec_of(fmt), tools, None, options, (), runs=True)
    return walked.grammar, walked.runs


def spec_of(fmt: Described) -> Spec:
    """`fmt`'s spec, every field of it one the walk handles (else a `UsageError`)."""
    spec = fmt.spec
    if not isinstance(spec, Spec):
        raise UsageError(
            f"format {fmt.name!r} has no spec (it is written in code): no grammar can be "
            "derived from it"
        )
    spec = spelled(spec)
    check_fields(spec)
    array = spec.section is not None and spec.section.array
    if spec.call.template == "{call}" and not (array or spec.call.proof or whole_object(spec)):
        raise UsageError(
            f"no grammar for format {fmt.name!r}: a `{{call}}` template alone in a section "
            "that holds no JSON array (the exporter writes calls from their template's tags)"
        )
    return spec


def whole_object(spec: Spec) -> bool:
    """Whether `spec`'s turn is one JSON object (a `JsonTurn`), which no marker opens."""
    return isinstance(spec.turn, JsonTurn)


def no_trigger(spec: Spec) -> None:
    """A `UsageError` for a turn whose calls no marker opens: a `JsonTurn` is one JSON
    object from its first character, so a lazy grammar or a structural tag (text free up
    to a trigger) cannot write it."""
    if whole_object(spec):
        raise UsageError(
            f"no lazy grammar or structural tag for {spec.name!r}: the whole turn is one "
            "JSON object, which no trigger opens (export the lark or gbnf grammar)"
        )


class Walk:
    def __init__(
        self,
        fmt: Described,
        spec: Spec,
        tools: Tools,
        start: str | None,
        options: Options,
        special: Iterable[str] | None,
        lazy: bool = False,
        runs: bool = False,
    ) -> None:
        self.spec, self.options, self.start = spec, options, start
        self.header = spec.turn.header if isinstance(spec.turn, Channels) else ""
        self.triggers: tuple[str, ...] = ()
        self.special: re.Pattern[str] | None = AUTO_SPECIAL
        if special is not None:
            tokens = sorted(special, key=len, reverse=True)
            self.special = re.compile("|".join(map(re.escape, tokens))) if tokens else None
        excluded = (m for m in fmt.reserved if m.strip() and not self._has_token(m))
        self.grammar = Grammar(tuple(dict.fromkeys(m.strip() for m in excluded)))
        self.tools = chosen_tools(tools, options)
        self.grammar.rules["start"] = Lit("")  # first, whatever its body needs to name
        self.lazy = lazy
        self.runs: tuple[tuple[str, Node], ...] = ()
        if runs:
            self.runs = self._runs()
        else:
            self.grammar.rules["start"] = self._lazy() if lazy else self._turn()

    def _has_token(self, text: str) -> bool:
        return self.special is not None and self.special.search(text) is not None

    def text(self, text: str) -> Node:
        """`text` of the format: special tokens as tokens, the rest as text."""
        if not text or self.special is None:
            return Lit(text)
        parts: list[Node] = []
        at = 0
        for match in self.special.finditer(text):
            parts += [Lit(text[at : match.start()]), Token(match[0])]
            at = match.end()
        return seq(*parts, Lit(text[at:]))

    # -- the turn --------------------------------------------------------------------

    def _turn(self) -> Node:
        turn = self.spec.turn
        if isinstance(turn, Messages):
            return self._messages(turn)
        if isinstance(turn, JsonTurn):
            return self._json_turn(turn)
        if isinstance(turn, Channels):
            return self._interleaved(turn) if turn.interleaved else self._channels(turn)
        reasoning: Node = Lit("")
        if isinstance(turn, Think):
            opened, closed = turn.written or (turn.open, turn.close)
            if self.start == "reasoning":
                if not self.options.reasoning:
                    raise UsageError(
                        "reasoning=False, but the generation prompt opened the reasoning block"
                    )
                reasoning = seq(FREE, self.text(closed))
            elif self.options.reasoning:
                reasoning = Opt(seq(self.text(opened), self._explicit(turn), self.text(closed)))
        return seq(reasoning, self._body())

    def _messages(self, turn: Messages) -> Node:
        """A turn of headed messages as the renderer writes it: messages joined by the
        spec's `prompt`, each a message closed by the turn's `end` (reasoning, with
        `reasoning`, and a content preamble), a call (closed as its template closes) or the
        answer (in the channel the content start state opens, closed by what ends the
        turn); a turn that ends otherwise (or has no message) ends with the first stop. A
        call names its recipient after the channel's name, as the spec's template writes
        it, or before the channel, as a chat template renders a call, each with every one
        of the content types. A generation prompt that opened a channel leaves its first
        message's body open; its calls as `options` allow. With `lazy`, the turn from the
        first call's opener (either placement) on, the triggers set."""
        options, text, stop = self.options, self.text, self.spec.stops[0]
        if self.start == "reasoning" and not options.reasoning:
            raise UsageError(
                "reasoning=False, but the generation prompt opened the "
                f"{turn.opened('reasoning')} channel"
            )
        end = text(turn.end)
        other = alt(
            *(
                seq(text(turn.opener(name)), FREE, end)
                for name, node, close in turn.bodies
                if close == turn.end and (options.reasoning or node != "reasoning")
            )
        )
        answer = turn.opened("content")
        final = seq(text(turn.opener(answer)), FREE, text(turn.close(answer)))
        ending = alt(final, seq(other, text(stop)))
        after = text(self.spec.prompt)
        gap = Star(seq(other, after))
        rest = alt(seq(gap, ending), text(stop))  # the stop alone: an empty turn
        if self.tools:
            in_channel, in_header = (
                alt(*(self.pieces(header, tool) for tool in self.tools for header in headers))
                for headers in _call_headers(self.spec.call.template, turn)
            )
            calls = alt(in_channel, in_header)
            call = self.grammar.rule("call", seq(gap, calls))
            more = Star(seq(after, call)) if options.parallel else Lit("")
            with_calls = seq(call, more, Opt(seq(after, rest)))
            if self.lazy:  # from the first call's opener (either trigger) on
                split = [head(spelling) for spelling in (in_channel, in_header)]
                self.triggers = tuple(trigger for trigger, _ in split)
                first = alt(*(seq(Lit(trigger), after_trigger) for trigger, after_trigger in split))
                return seq(first, more, Opt(seq(after, rest)))
            rest = with_calls if options.tool_choice != "auto" else alt(with_calls, rest)
        if self.start is None:
            return rest
        # the prompt opened the first message: its body, then the rest of the turn
        then = seq(after, rest)
        if options.tool_choice == "auto" or not self.tools:
            then = alt(text(stop), then)
        return seq(FREE, text(turn.end), then)

    def _json_turn(self, turn: JsonTurn) -> Node:
        """The turn as the renderer writes it, one JSON object: the answer (a JSON string
        under `content`), and with tools the calls in an array under `calls` after it or
        alone (an array of one call without `parallel`; with a tool choice, the calls are
        there); then a stop. (The parser also reads a call alone under `single`.)"""

        def member(key: str, value: Node) -> Node:
            return seq(Lit(json.dumps(key, ensure_ascii=False)), _WS, Lit(":"), _WS, value)

        answer = member(turn.content, _JSON_STRING)
        members = answer
        if self.tools:
            calls = member(turn.calls, self._array())
            with_answer = (
                seq(answer, _COMMA, calls)
                if self.options.tool_choice != "auto"
                else (seq(answer, Opt(seq(_COMMA, calls))))
            )
            members = alt(with_answer, calls)
        return self._end(seq(Lit("{"), _WS, members, _WS, Lit("}")))

    def _explicit(self, turn: Think) -> Free:
        """The free text of a reasoning block the model opened: where the block is
        `explicit`, it ends only at its close or a stop (calls and other markers in it are
        reasoning text, as the parser reads them), else at any excluded marker."""
        if not turn.explicit:
            return FREE
        closes = (turn.close, *(close for _, close in turn.also), *self.spec.stops)
        return Free(tuple(dict.fromkeys(m.strip() for m in closes if not self._has_token(m))))

    def _end(self, gap: Node) -> Node:
        """`gap` (free text, or content blocks) then one of the stops; without `stop`, or
        for a spec that names none, `gap` up to the end of the turn."""
        if self.options.stop and self.spec.stops:
            return alt(*(seq(gap, self.text(stop)) for stop in self.spec.stops))
        return Until(Lit("")) if gap is FREE else gap

    def _joined_stops(self) -> Node:
        """The stops written one after the other (channels); without `stop`, all but the
        last, the one the engine's stop token is."""
        stops = self.spec.stops if self.options.stop else self.spec.stops[:-1]
        return self.text("".join(stops))

    def _lazy(self) -> Node:
        """From the first call's opening marker (the trigger) to the end of the turn."""
        if not self.tools:
            raise UsageError("a lazy grammar needs declared tools (its trigger opens a call)")
        no_trigger(self.spec)
        if isinstance(self.spec.turn, Messages):  # its grammar sets the triggers
            return self._messages(self.spec.turn)
        opener, rest = self._run()
        turn = self.spec.turn
        after = self._joined_stops()  # channels: one section, then stops
        if not isinstance(turn, Channels) or turn.interleaved:
            content = self._content(turn) if isinstance(turn, Channels) else None
            gap = Star(content) if content is not None else FREE
            end = self._end(gap)
            run = self.grammar.rule("run", seq(gap, opener, rest))
            after = seq(Star(run), end) if self.options.parallel else end
        assert isinstance(opener, Lit)
        bare = rest.items if isinstance(rest, Alt) else (rest,)  # each run its own marker
        self.triggers = (opener.text,) if opener.text else tuple(head(run)[0] for run in bare)
        return seq(opener, rest, after)

    def _runs(self) -> tuple[tuple[str, Node], ...]:
        """The runs of calls, each split into the text that opens it and the rest (see
        `build_runs`)."""
        if not self.tools:
            raise UsageError("runs of calls need declared tools")
        no_trigger(self.spec)
        opener, rest = self._run()
        assert isinstance(opener, Lit)
        if opener.text:
            return ((opener.text, rest),)
        return tuple(head(run) for run in (rest.items if isinstance(rest, Alt) else (rest,)))

    def _body(self, block: Node | None = None) -> Node:
        """Content and runs of calls, then a stop: the content free text, or `block`s (a
        content channel) around the runs."""
        gap = Star(block) if block is not None else FREE
        end = self._end(gap)
        if not self.tools:
            return end
        opener, rest = self._run()
        run = self.grammar.rule("run", seq(gap, opener, rest))
        if not self.options.parallel:
            one = seq(run, end)
            return one if self.options.tool_choice != "auto" else alt(one, end)
        more = Star(run)
        if self.options.tool_choice == "auto":
            return seq(more, end)
        return seq(run, more, end)

    def _interleaved(self, turn: Channels) -> Node:
        """The reasoning channel first (if any), then content in the first content channel
        (free text where there is none) and runs of calls in any order, then a stop."""
        reasoning: Node = Lit("")
        for channel in turn.channels:
            block = seq(self._opener(channel), FREE, self.text(channel.close))
            if channel.name != "reasoning":
                continue
            if self.start == "reasoning":
                if not self.options.reasoning:
                    raise UsageError(
                        "reasoning=False, but the generation prompt opened the reasoning channel"
                    )
                reasoning = seq(FREE, self.text(channel.close))
            elif self.options.reasoning:
                reasoning = Opt(block)
        return seq(reasoning, self._body(self._content(turn)))

    def _opener(self, channel: Channel) -> Node:
        """A channel's opener as the model writes it, after the turn's header if any (unless
        it begins with the header: a message header naming its channel)."""
        return self.text(under_header(self.header, _opener(channel)))

    def _content(self, turn: Channels) -> Node | None:
        """The first content channel, a block of free text (None where there is none)."""
        for channel in turn.channels:
            if channel.name != "reasoning":
                return seq(self._opener(channel), FREE, self.text(channel.close))
        return None

    def _channels(self, turn: Channels) -> Node:
        """Channels in the order the renderer writes them (the open one first, the others
        only if present), then the calls in one section, then the stops joined."""
        order = sorted(turn.channels, key=lambda c: c.name != self.start)
        parts: list[Node] = []
        for channel in order:
            opened = Lit("") if channel.name == self.start else self._opener(channel)
            block = seq(opened, FREE, self.text(channel.close))
            if channel.name == "reasoning" and channel.name != self.start:
                block = Opt(block) if self.options.reasoning else Lit("")
            elif channel.name != self.start:  # a content channel the model may leave out
                block = Opt(block)  # (as with thinking off, going straight to its calls)
            elif channel.name == "reasoning" and not self.options.reasoning:
                raise UsageError(
                    "reasoning=False, but the generation prompt opened the reasoning channel"
                )
            parts.append(block)
        stop = self._joined_stops()
        if not self.tools:
            return seq(*parts, stop)
        opener, rest = self._run()
        calls = seq(opener, rest)
        if self.options.tool_choice == "auto":
            calls = Opt(calls)
        return seq(*parts, calls, stop)

    # -- runs of calls ---------------------------------------------------------------

    def _run(self) -> tuple[Node, Node]:
        """A run of calls (one section, where the format has one), split into its opening
        marker and the rest."""
        spec, section = self.spec, self.spec.section
        if section is not None and section.written_bare:
            section = None  # the calls as the template writes them
        if section is not None and section.array:
            closer = section.ends[0] if section.ends else ""
            return self.text(section.begins[0]), seq(self._array(), self.text(closer))
        prefix = re.split(r"\{(?:name|id|index|arguments|call)\}", spec.call.template)[0]
        calls = [self.call(tool, len(prefix)) for tool in self.tools]
        between = self.text(spec.call.between)
        if self.header and section is not None:
            raise UsageError("no grammar for a Channels.header before calls in a section")
        if self.header:  # each call headed and named: a run per tool, as `_bare` writes
            label = self.spec.turn.label if isinstance(self.spec.turn, Channels) else "{name}"
            named = [
                seq(self.text(self.header + label.replace("{name}", tool.name) + prefix), call)
                for tool, call in zip(self.tools, calls, strict=True)
            ]
            one = self.grammar.rule("call", alt(*named))
            more = Star(seq(between, one)) if self.options.parallel else Lit("")
            return Lit(""), alt(*(seq(call, more) for call in named))
        rest = self.grammar.rule("call", alt(*calls))
        call = seq(self.text(prefix), rest)
        more = Star(seq(between, call)) if self.options.parallel else Lit("")
        listed = isinstance(spec.call.arguments, PythonKeywords) and spec.call.between != "\n"
        if listed and section is not None:  # a Python list of the calls
            begin, end = self.text(section.begins[0]), self.text(section.ends[0])
            return begin, seq(Lit("["), call, more, Lit("]"), end)
        if listed or spec.call.proof:
            return Lit(""), self._bare("[" if listed else "", calls, more, "]" if listed else "")
        if section is not None:
            begin, end = self.text(section.begins[0]), self.text(section.ends[0])
            if section.each:
                wrapped = self.grammar.rule("wrapped", seq(begin, call, end))
                more = Star(seq(between, wrapped)) if self.options.parallel else Lit("")
                return begin, seq(call, end, more)
            return begin, seq(call, more, end)
        if not prefix:
            raise UsageError(
                f"no grammar for calls that begin with no marker: {spec.call.template!r}"
            )
        return self.text(prefix), seq(rest, more)

    def _bare(self, opener: str, calls: list[Node], more: Node, closer: str) -> Node:
        """A run of calls that only their own beginning marks (Python's `[name(`, Llama
        3's `{"name": "NAME", "parameters":`): each tool's run begins with that marker,
        which free text therefore never holds (it may hold the `[` or `{` otherwise), nor
        any other spacing of what the parser takes for a call's beginning: `[`, the name
        and `(` (Python), or the member `"name": "NAME"` anywhere (JSON, whose calls the
        parser also finds with their members in another order)."""
        for tool in self.tools:
            if opener:
                self.grammar.heads += (("[", tool.name, "("),)
            else:
                name = json.dumps(tool.name, ensure_ascii=False)
                self.grammar.heads += (('"name"', ":", name),)
        runs = []
        for call in calls:
            for spelling in call.items if isinstance(call, Alt) else (call,):
                text, rest = head(spelling)
                self.grammar.openers += (opener + text,)
                runs.append(seq(Lit(opener + text), rest, more, Lit(closer)))
        return alt(*runs)

    def _array(self) -> Node:
        """The calls of an array section: one JSON array of call objects."""
        codec = self.spec.call.arguments
        elements = []
        for tool in self.tools:
            if isinstance(codec, NameKey):
                elements.append(self._object([(tool.name, self._parameters(tool), True)]))
            else:
                assert isinstance(codec, NameAndArguments)
                elements.append(self._named(codec, tool))
        element = self.grammar.rule("element", alt(*elements))
        more = Star(seq(_COMMA, element)) if self.options.parallel else Lit("")
        return seq(Lit("["), _WS, element, more, _WS, Lit("]"))

    def _named(self, codec: NameAndArguments, tool: Tool) -> Node:
        """`{"name": NAME, "arguments": {…}}`, members in that order (a bare one, which
        its beginning proves a call, exactly as the renderer writes it up to its
        arguments)."""
        if self.spec.call.proof:  # each key the parser reads, up to its colon (where the
            # parser takes the object for a call), is an opener of its own
            written = json.dumps({codec.name: tool.name}, ensure_ascii=False)[:-1]
            arguments = seq(_WS, self._parameters(tool), _WS, Lit("}"))
            return alt(*(seq(Lit(f'{written}, "{key}":'), arguments) for key in codec.keys))
        name = (codec.name, Lit(json.dumps(tool.name, ensure_ascii=False)), True)
        members = [name, (codec.keys[0], self._parameters(tool), True)]
        if codec.within is not None:  # in an object of their own
            members = [(codec.within, seq(Lit("{"), _WS, *_fixed(members), _WS, Lit("}")), True)]
        constants = [(key, Lit(json.dumps(value)), True) for key, value in codec.constants]
        members = [*constants, *members]
        if codec.id is not None:  # the call id, written first: any JSON string
            members.insert(0, (codec.id, _JSON_STRING, True))
        return seq(Lit("{"), _WS, *_fixed(members), _WS, Lit("}"))

    # -- JSON values -------------------------------------------------------------------

    def _parameters(self, tool: Tool) -> Node:
        """A tool's arguments: a JSON object of its parameters (one `Json` node where they
        use `$ref`, which must resolve in the whole schema)."""
        schema = {"type": "object", **tool.parameters}
        where = f"the parameters of {tool.name!r}"
        if has_ref(schema):
            return json_node(_ordered(schema), where)
        return self._json(schema, where)

    def _json(self, schema: Mapping[str, Any], where: str) -> Node:
        """A JSON value for `schema`: an object of declared properties as `Members` (any
        order, as models and the parser allow), anything else as a `Json` node."""
        properties = schema.get("properties")
        plain = set(schema) <= _PLAIN_OBJECT and schema.get("type", "object") == "object"
        if not plain or not isinstance(properties, Mapping) or not properties:
            return json_node(_ordered(schema), where)
        required = set(schema.get("required") or ())
        order = sorted(properties, key=lambda key: key not in required)
        return self._object(
            [(key, self._json(properties[key], f"{where}.{key}"), key in required) for key in order]
        )

    def _object(self, members: list[tuple[str, Node, bool]]) -> Node:
        """A JSON object of `members` (key, value, required), required ones first."""
        items = tuple(
            seq(Lit(json.dumps(key, ensure_ascii=False)), _WS, Lit(":"), _WS, value)
            for key, value, _ in members
        )
        required = sum(1 for _, _, needed in members if needed)
        return seq(Lit("{"), _WS, Members(items, required, _COMMA), _WS, Lit("}"))

    # -- one call ----------------------------------------------------------------------

    def call(self, tool: Tool, skip: int) -> Node:
        """One call to `tool`, written from the template, without its first `skip`
        characters (its fixed beginning). Of its `optional` pieces, one holding `{id}` is
        written for a call with an id (so it may be missing), the others always."""
        call = self.spec.call
        template = call.template[skip:]
        optional = "".join(call.optional)
        if optional:
            before, after = template.split(optional, 1)
            written = [
                Opt(self.pieces(piece, tool)) if "{id}" in piece else self.pieces(piece, tool)
                for piece in call.optional
            ]
            return seq(self.pieces(before, tool), *written, self.pieces(after, tool))
        return self.pieces(template, tool)

    def pieces(self, template: str, tool: Tool) -> Node:
        """A part of a call template (the spec's, or a grammar piece's other spelling of
        it), written for a call to `tool`."""
        call = self.spec.call
        parts: list[Node] = []
        for piece in re.split(r"(\{(?:name|id|index|arguments|call)\})", template):
            if piece == "{name}":
                parts.append(Lit(self._name(call, tool.name)))
            elif piece == "{id}" and not isinstance(call.name, IdName):
                parts.append(Pattern(call.id_pattern))  # the call id, a token of its own
            elif piece == "{id}":  # `functions.NAME:0`, or the name without its prefix
                spellings = (Lit(self._name(call, tool.name) + ":"), Lit(tool.name + ":"))
                parts += [alt(*spellings), Pattern("[0-9]{1,20}")]
            elif piece == "{index}":
                parts.append(Pattern("[0-9]{1,20}"))
            elif piece == "{arguments}":
                parts.append(self._arguments(call, tool))
            elif piece == "{call}":
                assert isinstance(call.arguments, NameAndArguments)
                parts.append(self._named(call.arguments, tool))
            else:
                parts.append(self.text(piece))
        return seq(*parts)

    @staticmethod
    def _name(call: Call, name: str) -> str:
        codec = call.name
        written = escape_attribute(name) if isinstance(codec, Attribute) else name
        if isinstance(codec, IdName):
            written = codec.prefix + name
        if not re.fullmatch(
            codec.pattern, written if not isinstance(codec, IdName) else f"{written}:0"
        ):
            raise UsageError(f"tool name {name!r} cannot be written as {codec!r}")
        return codec.prefix + written if isinstance(codec, Plain) else written

    def _arguments(self, call: Call, tool: Tool) -> Node:
        codec = call.arguments
        if isinstance(codec, JsonObject):
            return self._parameters(tool)
        where, root = f"the parameters of {tool.name!r}", tool.parameters
        if isinstance(codec, BareObject):
            return values.Values(values.bare(codec, self.text), self.grammar, root).value(
                {"type": "object", **root}, where
            )
        parameters = [(k, _rooted(v, root), needed) for k, v, needed in _ordered_parameters(root)]
        required = sum(1 for _, _, needed in parameters if needed)
        if isinstance(codec, PythonKeywords):
            typed = values.Values(values.python(self.text), self.grammar, root).value
            if codec.literals == "json":
                typed = self._json
            keywords = tuple(
                seq(Lit(f"{key}="), typed(schema, f"parameter {key!r} of {tool.name!r}"))
                for key, schema, _ in parameters
            )
            return Members(keywords, required, Lit(", "))
        assert isinstance(codec, XmlArguments)
        end = "\n" if codec.newline else ""
        pairs = tuple(
            seq(self._pair(codec, key, schema, f"parameter {key!r} of {tool.name!r}"), Lit(end))
            for key, schema, _ in parameters
        )
        return Members(pairs, required, self.text(codec.separator))

    def _pair(self, codec: XmlArguments, key: str, schema: Mapping[str, Any], where: str) -> Node:
        """One argument of an XML layout, its value typed by `schema`."""
        layout = codec.layout
        close = self.text(layout.value_close)
        options = []
        framing = "\n" if layout.framing_newlines and layout.framing_written else ""
        for kind, value in self._raw_values(schema, where, schema):
            if layout.key_attribute:
                head = self.text(
                    f"{layout.opener}{_attributes(layout, key, kind)}{layout.key_close}{framing}"
                )
                options.append(seq(head, value, Lit(framing), close))
                continue
            gap = "\n" if codec.newline and layout.value_open else ""
            head = self.text(
                f"{layout.opener}{key}{layout.key_close}{gap}{layout.value_open}{framing}"
            )
            options.append(seq(head, value, Lit(framing), close))
        return alt(*options)

    def _raw_values(
        self, schema: Mapping[str, Any], where: str, root: Mapping[str, Any]
    ) -> list[tuple[str, Node]]:
        """The written forms of a raw-text value for `schema` (its `$ref`s into `root`),
        with the JSON type each has: a string as free text (or one of its `enum`/`const`
        values verbatim; its pattern, format and lengths as far as the dialect writes
        them, see `ir.raw_string`), anything else as JSON."""
        schema = _rooted(schemas.resolve(schema, root), root)
        if "const" in schema or "enum" in schema:
            allowed = [schema["const"]] if "const" in schema else list(schema["enum"])
            return [
                (json_type(v), Lit(v if isinstance(v, str) else json.dumps(v))) for v in allowed
            ]
        for union in ("anyOf", "oneOf"):
            if isinstance(schema.get(union), list):
                members = schema[union]
                return [p for member in members for p in self._raw_values(member, where, root)]
        declared = schema.get("type")
        types = declared if isinstance(declared, list) else [declared] if declared else []
        if not types and not {"properties", "items"} & set(schema):
            types = ["string"]  # untyped: the raw text stays a string
        written: list[tuple[str, Node]] = []
        for kind in types:
            if kind == "string":  # its keywords written as far as the dialect can
                written.append(("string", raw_string(schema, where)))
            elif kind == "boolean":  # JSON's spelling, or Python's (read case-insensitively)
                json_spelling = self._json(_typed_as(schema, kind), where)
                written.append(("boolean", alt(json_spelling, Lit("True"), Lit("False"))))
            else:
                written.append((_KIND[kind], self._json(_typed_as(schema, kind), where)))
        if not types:
            kind = "object" if "properties" in schema else "array"
            written.append((kind, self._json(schema, where)))
        return written


def _typed_as(schema: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """`schema` as the schema of its values of the type `kind` (not a string: without the
    string keywords, which constrain only strings)."""
    return {**{k: v for k, v in schema.items() if k not in STRING_KEYWORDS}, "type": kind}


def _opener(channel: Channel) -> str:
    """A channel's opener as the model writes it (its label included)."""
    return channel.written or channel.open + channel.label


def _attributes(layout: Layout, key: str, kind: str) -> str:
    """The attributes of an argument's opening tag: its key, and its type where the layout
    has a type attribute (the value's JSON type, or the `type_values` spelling)."""
    written = escape_attribute(key) if layout.decode_entities else key
    attributes = f' {layout.key_attribute}="{written}"'
    if layout.type_attribute is not None:
        if layout.type_values:
            spelled = {name: attribute for attribute, name in layout.type_values.items()}
            kind = spelled.get(kind) or spelled["json"]
        attributes += f' {layout.type_attribute}="{kind}"'
    return attributes


_KIND = {"integer": "number"} | {
    kind: kind for kind in ("number", "string", "boolean", "null", "object", "array")
}


def _ordered_parameters(
    parameters: Mapping[str, Any],
) -> list[tuple[str, Mapping[str, Any], bool]]:
    """A tool's parameters (key, schema, required), required ones first, each group in
    schema order."""
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())
    order = sorted(properties, key=lambda key: key not in required)
    return [(key, properties[key], key in required) for key in order]


_WS = Pattern(r"[ \t\n\r]*")
_JSON_STRING = Pattern(r'["]([^"\\\x00-\x1f]|[\\]["\\/bfnrt]|[\\][u][0-9a-fA-F]{4})*["]')
_COMMA = seq(_WS, Lit(","), _WS)
_PLAIN_OBJECT = frozenset(
    {"type", "properties", "required", "additionalProperties", "description", "title", "$schema"}
)
"""An object schema that `Members` expresses whole (extra members are never written)."""


def _fixed(members: list[tuple[str, Node, bool]]) -> list[Node]:
    """JSON members in the given order."""
    written: list[Node] = []
    for number, (key, value, _) in enumerate(members):
        written += [_COMMA] if number else []
        written += [Lit(json.dumps(key, ensure_ascii=False)), _WS, Lit(":"), _WS, value]
    return written


def _rooted(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """`schema`, taken out of the tool's schema `root`, with the `$defs` (`definitions`) of
    `root` where it holds a `$ref` (which then resolves in the schema itself)."""
    if not has_ref(schema):
        return schema
    return {**schema, **{key: root[key] for key in ("$defs", "definitions") if key in root}}


def has_ref(schema: Any) -> bool:
    """Whether `schema` holds a `$ref` anywhere."""
    if isinstance(schema, Mapping):
        return "$ref" in schema or any(has_ref(value) for value in schema.values())
    return isinstance(schema, list) and any(has_ref(item) for item in schema)


def _ordered(schema: Any) -> Any:
    """`schema` with every object's properties reordered required first (each group in
    schema order), as JSON grammars write properties in schema order."""
    if isinstance(schema, list):
        return [_ordered(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    result = {
        key: _ordered(value)
        if key not in ("properties", "enum", "const", "default", "examples")
        else value
        for key, value in schema.items()
    }
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        required = set(schema.get("required") or ())
        order = sorted(properties, key=lambda key: key not in required)
        result["properties"] = {key: _ordered(properties[key]) for key in order}
    return result


def _call_headers(template: str, turn: Messages) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A headed message's call `template` with each of the turn's content types: with the
    recipient after the channel's name (as the template writes it), and before the
    channel (as a chat template renders a call)."""
    channel, _, rest = template.partition(turn.to)
    named, _, tail = rest.partition("{name}")
    body = tail[tail.find(turn.message) :]
    if not rest or not tail or not body.startswith(turn.message):
        raise UsageError(
            f"a headed message's call template is `{turn.channel}NAME{turn.to}…{{name}}…"
            f"{turn.message}{{arguments}}…`, not {template!r}"
        )
    recipient = f"{turn.to}{named}{{name}}"
    kinds = ["".join(kind) for kind in turn.types] or [""]
    in_channel = tuple(f"{channel}{recipient}{kind}{body}" for kind in kinds)
    in_header = tuple(f"{recipient}{channel}{kind}{body}" for kind in kinds)
    return in_channel, in_header
