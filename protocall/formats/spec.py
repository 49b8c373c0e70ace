"""A format is data: a `Spec` states a family's markers once, `build(spec)` makes its `Format`.

A spec is a tree of frozen dataclasses, plain data that `to_data`/`to_json` print and
`from_data`/`from_json` read back (so code can build one at run time):

- `turn`: the turn's shape. `Think(open, close, …)`: a reasoning block, then content and
  calls in any order (`blocks.prose.assistant_turn`); `Channels(channels, tokens)`: channels
  over special tokens, text outside them content (`blocks.channels.channelled_turn`), those named
  in `starts` the ones a prompt can leave open, written `interleaved` (each content part
  in a channel of its own, each run of calls in a section, in the turn's order) or not;
  `Messages(hook, …)`: headed messages read by a named hook (below); `None`: content and
  calls only.
- `stops`: the end-of-turn markers (the first, or all joined for channels not
  `interleaved`, is written).
- `call`: one call as a template, `Call(template, arguments, name, spaced, between)`. The
  template is the call as the model writes it with placeholders: `{name}` (written as the
  `name` encoding says: `Plain`, its `prefix` optional when read, `Attribute`), `{id}`
  (an `IdName`, an id that carries the name; with another name, the call id, a token of
  `id_pattern`, written as the call's id or else its position), `{index}` (the call's
  position), `{arguments}` (an argument codec: `JsonObject`, `XmlArguments`,
  `PythonKeywords`, `BareObject`) or `{call}` (a codec that carries the name too:
  `NameAndArguments`). Everything before `{arguments}` (or `{call}`) is the call's head,
  what proves a call has begun (a name right before JSON or `BareObject` arguments is
  proven by their `{`); its first token is the call's opener, its last the closer.
  Whitespace in the template is any whitespace, or none, when read, and whitespace is
  allowed around the arguments; `spaced` allows it between every two pieces too.
  `optional` pieces of the template, right before JSON arguments, may be missing: the
  head then ends at the first and is proven by the first token of any or the arguments'
  `{`; a piece holding `{id}` is written only for a call with an id (Mistral's
  `[CALL_ID]{id}`, `[ARGS]`), and the call has no closer (a failed one resumes at the
  next opener or a stop).
  `between` is written between consecutive calls (whitespace there separates them);
  with `stray_closers` the template's markers after its opener, standing alone, are
  dropped. A `Plain` name right before `XmlArguments` ends at the text between them or,
  where there is none, at an argument opener or the layout's end (`blocks.calls.xml_calls`);
  the template's (or its section's) leading whitespace is a lead that belongs to the call.
  A template whose named tag stands in an outer one may be `unclosed` (the outer closer
  missing before a stop or the next call) and `bare` (the named tag alone is a call, for
  a declared tool whose arguments follow). A `loose` call (`templates.Template`) allows
  whitespace around every tag; `empty` is the text after its name that closes a call
  without arguments.
- `section`: the optional `Section(begins, ends)` the calls stand in, every accepted
  spelling (the first is written), with named tolerances: `bare` (a call outside a
  section counts), `noise` (text in a section that is no call belongs to the section),
  `empty` (a section with no call is dropped), `stray_ends` (an end standing alone is
  dropped), and `opens_at`: `"call"` (a begin counts only where a whole call head follows
  it) or `"marker"` (where a call opener or the end follows it; the section then ends at
  its first spelling of the end). With `each` it is written around each call, with
  `written_bare` not at all (the calls are written `bare`); `opener` is where content
  stops to try it, a prefix its begins share (`<｜DSML｜`).
  With `array`, the calls are one JSON array after the begin (`blocks.json_calls.json_call_list`),
  the template `{call}` alone: each element is the call codec's `element`
  (`NameAndArguments`, its members in any order, or `NameKey`), and the array is the
  calls' envelope (they complete together once it closes); its `framing` (`[`, `]` and
  any whitespace inside, `[\n    ` … `\n]` for Cohere) is written with the section's
  markers, which are reserved without it. With `element` (a call codec), that array is an
  alternative behind the same opener to the template's calls, which are then `bare` (and
  `written_bare`: Mistral's pre-v11 `[TOOL_CALLS] [{…}]` besides v11's calls).
- `dropped`: other markers dropped where they stand alone; `placeholder`: text dropped
  right before a call (Kimi K2's `(no content)`).
- `malformed_as_content`: the session's default for a rejected region (see `Format`);
  `fenced`: Markdown code in prose is text, calls quoted in it included (`Think` turns);
  `respelled`: (token, spelling) pairs, the same calls with the token so spelled accepted
  too; `call_stop`: the stop written after a turn with calls (default: the first).
- `prompt`, `default_start`: the generation prompt that opens nothing (a reasoning block
  or channel is pre-opened by it plus the opener, or `Think.opened_by`; `Think.off` is
  what it ends with when thinking is off) and the start state assumed without one.

From this the factory derives, never restated: the grammar (through the blocks of
`blocks`), the renderer (the same template written back), the reserved markers (the
turn's, the section's, the template's tags, the codec's, the stops, the dropped ones),
the channels, the prompts and the marker summary (`Format.markers["call"]`).

A turn no data describes is a named hook: `Messages(hook, …)` names a `TurnHook` (a
grammar and a renderer in code, registered with `register_turn`), as gpt-oss's headers.
So is what proves a call object standing bare in the content a call: a `{call}` template
in no array section names a `ProofHook` (`Call.proof`, registered with `register_proof`;
Llama 3's); such calls follow one another separated by `between`'s text (`;`).

How every family maps (every one is written as a spec):

- *Kimi K2: `Think`, `Call("<|tool_call_begin|>{id}<|tool_call_argument_begin|>…",
  name=IdName("functions."), spaced=True)`, a `Section` of two spellings with `bare`,
  `noise`, `empty` and `stray_ends`, `stray_closers`, the `placeholder` `(no content)`.
- *Kimi K3: `Channels` over `<|open|>`, `<|close|>`, `<|end_of_msg|>`; `Call` with
  `name=Attribute()` and `XmlArguments(KIMI_K3, block=JsonBlock(…))`; `opens_at="marker"`.
- *Hermes: `Call("<tool_call>\n{call}\n</tool_call>", NameAndArguments(("arguments",
  "parameters")))`. *Olmo 3: `Call("{name}({arguments})", PythonKeywords(), between="\n")`
  in a `Section`. *Pythonic (Llama 3.2), *Llama 4, *LFM2: the same codec with
  `literals="python"` and `between=", "`, which makes the calls a Python list `[…]`
  (`blocks.python_calls.python_call_list`; the brackets are written, not reserved): bare, in a `bare`
  section `written_bare` (Llama 4's `<|python_start|>`), or in a section (LFM2).
- *gpt-oss: `Messages("harmony", …)`, calls written from the template.
- *DeepSeek: `loose` calls in a `Section` of every spelling (`bare` for R1/V3 and V3.1);
  DSML is `XmlArguments(DSML)` with `empty='"/>'`, the `Section.opener` `<｜DSML｜` and
  the proxies' spellings of `｜DSML｜` `respelled`.
- *Qwen3-Coder: `<tool_call>` around `<function={name}>`, `unclosed` and `bare`. *Ling 3.0,
  *GLM-4.5 / 4.7: `<tool_call>{name}…{arguments}</tool_call>`, the name ended by an
  argument; GLM-4.5's `\n` lead, `Think.written` and `call_stop`. *MiniMax-M2 and
  *Seed-OSS: the name ended by `">` / `>`, a section with a `\n` lead (`each` for Seed).
- *Nemotron: `Call("{call}", NameAndArguments(…), between=", ")` in an `array` section;
  `Think.prompt`, Nano v2's prompt that pre-opens the block where Super-49B's opens none.
- *Apertus: `Call("{call}", NameKey(), between=", ")` in an `array` section.
- *Granite 3.x: the same in an `array` section of two spellings and no end (the array
  runs to its `]`; a failed one resumes at a stop or a begin), `Think.phrases` for 3.2's
  `Here is my thought process:` … `Here is my response:`.
- *Cohere: `Channels` (`starts`: only the thinking; `interleaved`) and an `array` section
  of `NameAndArguments(("parameters",), "tool_name", "tool_call_id")`, its `framing`
  `[\n    ` … `\n]` and `between` `,\n    ` (one object a line), ids counted from 0.
- *Mistral: `Call("[TOOL_CALLS]{name}[CALL_ID]{id}[ARGS]{arguments}", spaced=True,
  optional=("[CALL_ID]{id}", "[ARGS]"))` and the pre-v11 array, an `array` section of
  `element=NameAndArguments(id="id")` behind `[TOOL_CALLS]`; `Think` with `also`.
- *Gemma 4: `Channels` of one `Channel` with a `label` and its `written` opener
  (`<|channel>thought\n`), `interleaved`; `Call("<|tool_call>{name}{arguments}<tool_call|>",
  BareObject(), name=Plain(prefix="call:"), stray_closers=True)`: the `<|"|>` value codec,
  the `call:` prefix written but optional when read; `call_stop`.
- *Llama 3: `Call("{call}", NameAndArguments(("parameters", "arguments")), between="; ",
  proof="llama-3")`: bare objects proven by the hook its module registers, after an
  optional `<|python_tag|>` (a `bare`, `written_bare` section without an end).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    UsageError,
    alt,
    cut,
    literal,
    many,
    markers,
    optional,
    peek,
    recover,
    regex,
    seq,
    tag,
    unfinished,
    until,
)
from ..combinators import whitespace as ws
from ..combinators.xmlargs import Layout
from ..tools import Tools
from . import templates
from .base import Format
from .blocks.calls import (
    Calls,
    call_section,
    closer,
    in_runs,
    section_calls,
    tool_call,
    tool_calls,
    xml_calls,
)
from .blocks.channels import Channel
from .blocks.families import channel_format, turn_format
from .blocks.json_calls import json_call_list
from .blocks.names import arguments, declared, per_tool, tool_name
from .blocks.prose import Reasoning
from .blocks.python_calls import python_call_lines, python_call_list
from .blocks.render import render_turn
from .codecs import (
    Attribute,
    BareObject,
    Codec,
    IdName,
    JsonBlock,
    JsonObject,
    Name,
    NameAndArguments,
    NameKey,
    Plain,
    PythonKeywords,
    XmlArguments,
)
from .turns import ToolUse, Turn

_PLACEHOLDER = re.compile(r"(\{(?:name|id|index|arguments|call)\})")


@dataclass(frozen=True)
class Think:
    """A reasoning block `open` … `close` (or any pair of `also`) before content and calls;
    with `ends_at_call` a genuine call ends it, unless the model opened an `explicit` one
    (see `blocks.prose.Reasoning`). `opened_by` is what a generation prompt ends with to pre-open
    it (default: `open`; `""`: no prompt does), `off` what it ends with to open nothing
    (thinking off); `written` the block's (open, close) as the model lays it out, where
    that differs; `prompt` the generation prompt before `opened_by` where it is another
    than the spec's (Nemotron Nano v2 pre-opens it, Super-49B's prompt opens nothing);
    `phrases` (openings, closings) reasoning written as text phrases instead, at the
    turn's start only (Granite 3.2, see `blocks.prose.Reasoning`)."""

    open: str = "<think>"
    close: str = "</think>"
    ends_at_call: bool = True
    opened_by: str | None = None
    explicit: bool = False
    also: tuple[tuple[str, str], ...] = ()
    off: str = ""
    written: tuple[str, str] | None = None
    prompt: str | None = None
    phrases: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


@dataclass(frozen=True)
class Channels:
    """A turn of `channels` in which every marker begins with one of `tokens`. A generation
    prompt can leave those named in `starts` open (default: all). A turn is written as its
    channels in order, all its content in each content channel, then its calls in one
    section; with `interleaved`, as a `Think` turn is: its reasoning channel, then each
    content part in the first content channel (as it is where there is none) and each run
    of calls in a section, in the turn's order, then the first stop (or `call_stop`)."""

    channels: tuple[Channel, ...]
    tokens: tuple[str, ...]
    starts: tuple[str, ...] | None = None
    interleaved: bool = False


@dataclass(frozen=True)
class Messages:
    """A turn of messages whose headers a named hook reads (gpt-oss Harmony): `hook` names
    a `TurnHook` registered with `register_turn`; `channels` are the start states a
    generation prompt leaves open (the prompt plus the channel's opener); every marker
    begins with one of `tokens`, which are the reserved markers."""

    hook: str
    channels: tuple[Channel, ...]
    tokens: tuple[str, ...]


@dataclass(frozen=True)
class TurnHook:
    """A turn shape in code: `grammar(tools, start)` and `render(turn, start, call)`, where
    `call(use, index)` writes one call from the spec's template."""

    grammar: Callable[[Tools | None, str | None], Parser[Any]]
    render: Callable[[Turn, str | None, Callable[[ToolUse, int], str]], str]


_TURN_HOOKS: dict[str, TurnHook] = {}


def register_turn(name: str, hook: TurnHook) -> None:
    """Make `hook` the turn shape that `Messages(name, …)` names."""
    if _TURN_HOOKS.get(name, hook) is not hook:
        raise UsageError(f"a turn hook named {name!r} is already registered")
    _TURN_HOOKS[name] = hook


@dataclass(frozen=True)
class ProofHook:
    """What proves a call object standing bare in the content a call, in code: `proof(tools)`
    matches (without a cut) from a `{` that begins a call; `openers` are where such an
    object may begin (the content stops there to try it)."""

    openers: tuple[str, ...]
    proof: Callable[[Tools | None], Parser[Any]]


_PROOF_HOOKS: dict[str, ProofHook] = {}


def register_proof(name: str, hook: ProofHook) -> None:
    """Make `hook` the proof that `Call(…, proof=name)` names."""
    if _PROOF_HOOKS.get(name, hook) is not hook:
        raise UsageError(f"a proof hook named {name!r} is already registered")
    _PROOF_HOOKS[name] = hook


@dataclass(frozen=True)
class Call:
    """One call as a template (see the module docstring)."""

    template: str
    arguments: Codec = field(default_factory=JsonObject)
    name: Name = field(default_factory=Plain)
    spaced: bool = False
    between: str = ""
    stray_closers: bool = False
    unclosed: bool = False
    bare: bool = False
    loose: bool = False
    empty: str | None = None
    optional: tuple[str, ...] = ()
    id_pattern: str = r"[^\s\[{]+"
    proof: str = ""

    def __post_init__(self) -> None:
        holes = _PLACEHOLDER.findall(self.template)
        named = "{id}" if isinstance(self.name, IdName) else "{name}"
        together = isinstance(self.arguments, (NameAndArguments, NameKey))
        wanted = ["{call}"] if together else sorted(("{arguments}", named))
        free = ("{index}",) if named == "{id}" or together else ("{index}", "{id}")
        if sorted(hole for hole in holes if hole not in free) != wanted:
            kinds = f"{type(self.name).__name__} names and {type(self.arguments).__name__}"
            raise UsageError(
                f"a call template with {' and '.join(wanted)} once each for {kinds}, "
                f"not {self.template!r}"
            )
        if self.optional and (
            "".join(self.optional) + "{arguments}" not in self.template
            or not isinstance(self.arguments, JsonObject)
        ):
            raise UsageError(
                f"optional pieces {self.optional} right before JSON {{arguments}}, "
                f"in {self.template!r}"
            )


@dataclass(frozen=True)
class Section:
    """The markers around a run of calls, every accepted spelling (see the module
    docstring)."""

    begins: tuple[str, ...]
    ends: tuple[str, ...]
    bare: bool = False
    noise: bool = False
    empty: bool = False
    stray_ends: bool = False
    opens_at: str = "call"
    each: bool = False
    opener: str = ""
    array: bool = False
    framing: tuple[str, str] = ("[", "]")
    written_bare: bool = False
    element: NameAndArguments | NameKey | None = None

    def __post_init__(self) -> None:
        if self.opens_at not in ("call", "marker"):
            raise UsageError(f'a section opens at "call" or "marker", not {self.opens_at!r}')
        bare = self.bare and self.element is None  # an alternative's template calls are bare
        if self.array and (bare or self.noise or self.empty or self.each or self.opener):
            raise UsageError("a section holding a JSON array has no tolerance but `stray_ends`")
        if self.element is not None and not self.array:
            raise UsageError("a section's `element` is that of a JSON `array`")
        if tuple(bracket.strip() for bracket in self.framing) != ("[", "]"):
            raise UsageError(f"an array's framing is `[`, `]` and whitespace, not {self.framing}")
        if self.written_bare and not self.bare:
            raise UsageError("a section whose calls are written bare has `bare` calls")


@dataclass(frozen=True)
class Spec:
    """A model family's output format as data (see the module docstring)."""

    name: str
    summary: str
    call: Call
    stops: tuple[str, ...]
    turn: Think | Channels | Messages | None = field(default_factory=Think)
    section: Section | None = None
    prompt: str = ""
    default_start: str | None = None
    dropped: tuple[str, ...] = ()
    placeholder: str | None = None
    malformed_as_content: bool = True
    fenced: bool = False
    call_stop: str | None = None
    respelled: tuple[tuple[str, str], ...] = ()


def build(spec: Spec) -> Format:
    """The `Format` that `spec` describes; its `spec` is `spec`."""
    envelope = _Envelope(spec)
    reserved = (*envelope.section_markers, *envelope.markers, *envelope.dropped)
    reserved += (spec.placeholder,) if spec.placeholder else ()
    section = envelope.written_section
    turn = spec.turn
    if isinstance(turn, Messages):
        fmt = _messages(spec, turn, envelope)
    elif isinstance(turn, Channels):
        channels = {c.name: c for c in turn.channels}
        fmt = channel_format(
            spec.name,
            envelope.calls,
            channels=channels,
            stops=spec.stops,
            tokens=turn.tokens,
            prompt=spec.prompt,
            summary=spec.summary,
            call_marker=envelope.shown,
            render_call=envelope.render,
            section=section or ("", ""),
            dropped=envelope.dropped,
            reserved=reserved,
            default_start=spec.default_start,
            starts=turn.starts,
            render=_interleaved(spec, turn, envelope) if turn.interleaved else None,
        )
    else:
        reasoning = None
        if turn is not None:
            reasoning = Reasoning(
                turn.open, turn.close, turn.ends_at_call, turn.explicit, turn.also, turn.phrases
            )
        prompts: dict[str | None, str] = {None: spec.prompt}
        written = None
        if turn is not None:
            prompts = {None: spec.prompt + turn.off}
            if turn.opened_by != "":
                prompt = spec.prompt if turn.prompt is None else turn.prompt
                prompts["reasoning"] = prompt + (turn.opened_by or turn.open)
            written = Reasoning(*turn.written) if turn.written else None
        fmt = turn_format(
            spec.name,
            envelope.calls,
            stops=spec.stops,
            render_call=envelope.render,
            prompts=prompts,
            summary=spec.summary,
            call_marker=envelope.shown,
            reserved=(*(sum(turn.phrases, ()) if turn else ()), *reserved),
            reasoning=reasoning,
            default_start=spec.default_start,
            between_calls=spec.call.between,
            section=section,
            fenced=spec.fenced,
            written=written,
            call_stop=spec.call_stop,
            dropped=envelope.dropped,
        )
    reserved = tuple(m for m in fmt.reserved if m not in envelope.brackets)  # `[`, `]`: JSON
    shown = dict(fmt.markers)
    if isinstance(turn, Think) and turn.phrases[0]:
        shown["reasoning"] += f" or {turn.phrases[0][0]} …"
    return replace(
        fmt,
        spec=spec,
        malformed_as_content=spec.malformed_as_content,
        reserved=reserved,
        markers=shown,
    )


def _messages(spec: Spec, turn: Messages, envelope: _Envelope) -> Format:
    """The `Format` of a turn whose grammar and renderer are the hook `turn.hook`."""
    hook = _TURN_HOOKS.get(turn.hook)
    if hook is None:
        known = ", ".join(_TURN_HOOKS) or "none"
        raise UsageError(f"no turn hook named {turn.hook!r} (registered: {known})")

    def render(parsed: Turn, start: str | None) -> str:
        return hook.render(parsed, start, envelope.render)

    shown = {c.name: f"{c.open}…{c.close}" for c in turn.channels if c.name == "reasoning"}
    return Format(
        spec.name,
        hook.grammar,
        render,
        reserved=tuple(dict.fromkeys((*turn.tokens, *spec.stops))),
        channels={c.name: (c.open, c.close) for c in turn.channels},
        default_start=spec.default_start,
        prompts={None: spec.prompt} | {c.name: spec.prompt + c.open for c in turn.channels},
        summary=spec.summary,
        markers=shown | {"call": envelope.shown},
    )


def _interleaved(
    spec: Spec, turn: Channels, envelope: _Envelope
) -> Callable[[Turn, str | None], str]:
    """The renderer of an `interleaved` channel turn: the reasoning channel (its opener
    omitted when pre-opened), each content part in the first content channel and each run
    of calls in the section, calls numbered from 0, then the first stop (`call_stop`
    after a turn with calls, where given)."""
    thinking = next((c for c in turn.channels if c.name == "reasoning"), None)
    response = next((c for c in turn.channels if c.name != "reasoning"), None)
    block = Reasoning(thinking.written or thinking.open, thinking.close) if thinking else None

    def render(parsed: Turn, start: str | None) -> str:
        parts = tuple(
            f"{response.open}{part}{response.close}" if response and isinstance(part, str) else part
            for part in parsed.parts
        )
        index = itertools.count()
        stop = spec.call_stop if spec.call_stop is not None and parsed.calls else spec.stops[0]
        return render_turn(
            replace(parsed, parts=parts),
            start,
            reasoning=block,
            call=lambda use: envelope.render(use, next(index)),
            between_calls=spec.call.between,
            section=envelope.written_section,
            stop=stop,
        )

    return render


def _text(text: str) -> list[Parser[Any]]:
    """`text` of a template: its tokens, any whitespace (or none) where it has whitespace."""
    return [
        ws if piece.isspace() else literal(piece) for piece in re.split(r"(\s+)", text) if piece
    ]


def _spaced(parts: list[Parser[Any]], spaced: bool) -> list[Parser[Any]]:
    """`parts`, with optional whitespace between every two when `spaced`."""
    if not spaced:
        return parts
    return [part for piece in parts for part in (ws, piece)][1:]


class _Envelope:
    """A spec's calls: the parser (`calls(tools)`), the renderer and the derived markers."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        call = spec.call
        required = call.template.replace("".join(call.optional), "")  # what every call has
        self.pieces = [p for p in _PLACEHOLDER.split(required) if p]
        tokens = _PLACEHOLDER.sub(" ", call.template).split() or [""]
        self.opener, self.closer = tokens[0], tokens[-1]  # the call's first and last tags
        section = spec.section
        self.array = section is not None and section.array
        alternative = section is not None and section.element is not None  # to the template
        if ((self.array and not alternative) or bool(call.proof)) != (
            call.template == "{call}"
        ) or (isinstance(call.arguments, NameKey) and not self.array):
            raise UsageError(
                f"a call template of `{{call}}` alone exactly in a section holding a JSON "
                f"array (NameKey only there) or with a `proof`, not {call.template!r}"
            )
        if call.proof and call.proof not in _PROOF_HOOKS:
            known = ", ".join(_PROOF_HOOKS) or "none"
            raise UsageError(f"no proof hook named {call.proof!r} (registered: {known})")
        self.end = section.ends[0] if section and section.ends else ""
        listed = isinstance(call.arguments, PythonKeywords) and call.between != "\n"
        brackets = section.framing if section and self.array else ("[", "]") if listed else ("", "")
        written = (section.begins[0], self.end) if section else ("", "") if listed else None
        if section and section.written_bare:  # the calls as the template writes them
            written = ("", "") if listed else None
        written = (written[0] + brackets[0], brackets[1] + written[1]) if written else None
        self.brackets = tuple(m.strip() for m in (written or ()) if self.array or listed)
        self.written_section = None if section and section.each else written
        self.section_markers = (
            tuple(m.strip() for m in (*section.begins, *section.ends)) if section else ()
        )
        tags = tuple(token for token in tokens if not set(token) & set('"=('))  # not attributes
        tags = () if isinstance(call.arguments, PythonKeywords) else tags  # `name(…)`: none
        self.markers = (*tags, *call.arguments.markers)
        layout = self._xml_layout()
        if layout is not None:
            self._check_xml(layout)
            self.markers = self._xml_markers()
        if call.loose:
            self.markers = self._templates()[0].markers
        stray_ends = section.ends if section and section.stray_ends else ()
        stray_closers = tags[1:] if call.stray_closers else ()
        self.dropped = (*stray_ends, *stray_closers, *spec.dropped)
        shown = _PLACEHOLDER.sub(self._shown, self._template(None))
        if section is not None and self.array and not alternative:
            shown = f"{section.begins[0]}{shown.join(b.strip() for b in brackets)}{self.end}"
        elif isinstance(call.arguments, PythonKeywords):
            begin, end = (section.begins[0], section.ends[0]) if section else ("", "")
            shown = f"{begin}{brackets[0]}{shown}{call.between}…{brackets[1]}{end}"
        elif section is not None and not alternative:
            shown = section.begins[0].strip() + shown.strip()
        self.shown = shown.strip().replace("\n", "\\n")

    def _shown(self, match: re.Match[str]) -> str:
        call = self.spec.call
        key = match[1]
        if key == "{id}" and not isinstance(call.name, IdName):
            return "ID"
        if key in ("{name}", "{id}"):
            return call.name.shown
        return "IDX" if key == "{index}" else call.arguments.shown

    def render(self, use: ToolUse, index: int) -> str:
        """`use` written from the template, `index` its position in the turn."""
        call = self.spec.call
        codec, name = call.arguments, call.name

        def part(match: re.Match[str]) -> str:  # `Call` checked which placeholders it has
            if match[1] == "{index}":
                return str(index)
            if match[1] == "{id}" and not isinstance(name, IdName):
                return use.id or str(index)
            if isinstance(codec, (NameAndArguments, NameKey)):
                return codec.render(use.name, use.arguments, use.id or str(index))
            if match[1] == "{arguments}":
                return codec.render(use.arguments)
            if isinstance(name, IdName):
                return name.render(use.name, use.id, index)
            return name.render(use.name)

        written = _PLACEHOLDER.sub(part, self._template(use.id))
        section = self.spec.section
        return (
            f"{section.begins[0]}{written}{section.ends[0]}"
            if section and section.each
            else written
        )

    def _template(self, call_id: str | None) -> str:
        """The template as written for a call with `call_id`: an optional piece holding
        `{id}` is left out for a call without one."""
        template = self.spec.call.template
        for piece in self.spec.call.optional:
            if "{id}" in piece and not call_id:
                template = template.replace(piece, "", 1)
        return template

    def calls(self, tools: Tools | None) -> Calls:
        """The parser of the spec's calls for the declared `tools` (any name when None)."""
        spec, section = self.spec, self.spec.section
        codec = spec.call.arguments
        if isinstance(codec, PythonKeywords):
            return self._python(tools)
        if section is not None and self.array:
            element = section.element or codec
            assert isinstance(element, (NameAndArguments, NameKey))
            end = section.ends[0] if section.ends else None
            resync = (*section.ends, *spec.stops, *(() if end else section.begins))  # or a begin
            calls = json_call_list(section.begins, element.element(), resync, end)
            if section.element is None:
                return calls
            called = self._with_optional(tools, codec)
            heads, bodies = alt(calls.head, called.head), alt(calls.call, called.call)
            return in_runs(Calls(calls.openers, heads, bodies))
        if spec.call.loose:
            return templates.any_of(self._templates(), tools, stops=spec.stops)
        layout = self._xml_layout()
        if layout is not None:
            return self._xml(tools, layout)
        lead = None
        if spec.placeholder is not None:
            begins = section.begins if section else ()
            follows = peek(markers(*begins, self.opener))
            lead = optional(seq(literal(spec.placeholder), ws, follows))
        assert not isinstance(codec, NameKey)  # `_Envelope` checked: a JSON array's only
        if spec.call.optional:
            return in_runs(self._with_optional(tools, codec))
        if spec.call.proof:
            assert isinstance(codec, NameAndArguments)  # `{call}` alone: a call codec
            return self._proven(tools, codec)
        head, body = self._head(lead), self._body(tools, codec)
        if self._split()[0][-1] == "{name}" and isinstance(codec, (JsonObject, BareObject)):
            head = head.skip(peek(ws.then(literal("{"))))  # a name right before `{` ends there
        resync = (self.closer, self.opener, *(section.ends if section else ()), *spec.stops)
        if section is None:
            calls = in_runs(tool_calls((self.opener,), head, body, resync))
        elif section.opens_at == "marker":
            begin = markers(*section.begins)
            begin = begin.skip(peek(ws.then(markers(self.opener, *section.ends))))
            call = unfinished(tool_call(head, body, resync))
            calls = Calls(section.begins, begin, call_section(begin, call, section.ends[0]))
        else:
            calls = self._section(section, lead, head, body, resync)
        return calls

    def _with_optional(self, tools: Tools | None, codec: Codec) -> Calls:
        """Calls in no section whose template has `optional` pieces and no closer (Mistral
        v11): the head is proven once the first token of an optional piece or the
        arguments' `{` follows the name; a failed call is skipped to the next opener or a
        stop, which it leaves in place."""
        assert isinstance(codec, JsonObject)  # `Call` checked: optional pieces need JSON
        follows = markers(*self._firsts(), "{")  # `{`: the arguments' opening
        head = self._head(None).skip(peek(ws.then(follows)))
        body = self._body(tools, codec)
        skip = until(self.opener, *self.spec.stops, emit=False)
        one = recover(tag(ast.TOOL_CALL, head.bind(lambda name: cut.then(body(name)))), skip)
        return Calls((self.opener,), unfinished(head), unfinished(one))

    def _proven(self, tools: Tools | None, codec: NameAndArguments) -> Calls:
        """Call objects standing bare in the content, each proven a call by the hook
        `Call.proof` (or, for the first, by a section begin before it, after which it is
        one whatever it holds), separated by the text of `between` (any whitespace
        around it); a failed one is skipped to a stop."""
        hook = _PROOF_HOOKS[self.spec.call.proof]  # `_Envelope` checked it is registered
        proof, skip = hook.proof(tools), until(*self.spec.stops, emit=False)

        def one(head: Parser[Any], lead: Parser[Any]) -> Parser[Any]:
            return recover(tag(ast.TOOL_CALL, seq(peek(head), lead, cut, codec.element())), skip)

        bare = one(proof, ws)
        first, heads = bare, peek(proof)
        begins = self.spec.section.begins if self.spec.section else ()
        if begins:
            tagged = seq(markers(*begins), ws, literal("{"))
            first = alt(unfinished(one(tagged, markers(*begins).then(ws))), bare)
            heads = alt(unfinished(tagged), heads)
        separator = self.spec.call.between.strip()
        more = many(unfinished(seq(ws, literal(separator), ws, bare)))
        return Calls((*begins, *hook.openers), heads, seq(first, more))

    def _optional(self) -> list[Parser[Any]]:
        """Each `optional` piece, read where its first token stands, its `{id}` the call
        id; committed to once what has arrived of that token begins no later piece (nor
        the arguments' `{`), so a piece cut off there is a truncated call."""
        firsts = self._firsts()
        pieces = []
        for number, piece in enumerate(self.spec.call.optional):
            first, later = firsts[number], (*firsts[number + 1 :], "{")
            ends = range(1, len(first))
            own = (first[:end] for end in ends if not any(o.startswith(first[:end]) for o in later))
            parts: list[Parser[Any]] = [peek(literal(next(own, first))), cut]
            for part in _PLACEHOLDER.split(piece):
                parts += [self._id()] if part == "{id}" else _text(part)
            pieces.append(optional(seq(ws, *parts)))
        return pieces

    def _firsts(self) -> list[str]:
        """The first token of each `optional` piece."""
        return [_PLACEHOLDER.split(piece)[0].split()[0] for piece in self.spec.call.optional]

    def _id(self) -> Parser[str]:
        """A call id that carries no name: a token of `Call.id_pattern`."""
        return tag(ast.TOOL_ID, regex(self.spec.call.id_pattern).desc("a call id"))

    def _xml_layout(self) -> Layout | None:
        """The layout of a call whose `Plain` name stands right before `XmlArguments`
        (what is between them, if anything, ends the name; see `blocks.calls.xml_calls`)."""
        call = self.spec.call
        if call.loose or not isinstance(call.name, Plain):
            return None
        return call.arguments.layout if isinstance(call.arguments, XmlArguments) else None

    def _templates(self) -> tuple[templates.Template, ...]:
        """A `loose` call read as a `templates.Template` (whitespace, or none, around each
        tag too), and the same with each `respelled` (token, spelling) swapped in."""
        spec, call, section = self.spec, self.spec.call, self.spec.section
        if section is None:
            raise UsageError(f"a loose call in a section, not {call.template!r} alone")
        codec = call.arguments
        layout = codec.layout if isinstance(codec, XmlArguments) else None
        written = (section.begins[0], section.ends[0])
        lead = written[0][: len(written[0]) - len(written[0].lstrip())]
        openers = (lead + section.opener, section.opener) if section.opener else ()
        template = templates.Template(
            call.template,
            written,
            call.between,
            tuple(begin.strip() for begin in section.begins),
            tuple(end.strip() for end in section.ends),
            tuple(opener for opener in openers if opener),
            section.bare,
            layout,
            call.empty,
        )
        return (template, *(template.respelled(token, other) for token, other in spec.respelled))

    def _xml_parts(self) -> tuple[str, str, str]:
        """The template's text before the name, between the name and the arguments, after."""
        before, rest = self.spec.call.template.split("{name}")
        between, after = rest.split("{arguments}")
        return before, between, after

    def _xml_markers(self) -> tuple[str, ...]:
        before, _, after = self._xml_parts()
        layout = self._xml_layout()
        assert layout is not None
        tagged = tuple(m for m in (layout.key_close, layout.value_open) if m.startswith("<"))
        heads = re.split(r"\s+(?=<)", before.strip())  # `<invoke name="` is one
        return (*heads, *after.split(), layout.opener, *tagged, layout.value_close)

    def _wrapping(self) -> bool:
        """Whether the template's named tag stands in an outer tag."""
        return len(re.split(r"\s+(?=<)", self._xml_parts()[0].strip())) == 2

    def _check_xml(self, layout: Layout) -> None:
        """A `UsageError` for what an XML call's template or section cannot have."""
        spec, section = self.spec, self.spec.section
        after = self._xml_parts()[2]
        if self._wrapping() and section is not None:
            raise UsageError(f"a call of two tags in no section, not {spec.call.template!r}")
        if not self._wrapping() and (spec.call.unclosed or spec.call.bare):
            raise UsageError(
                f"`unclosed` and `bare` need an outer tag around the named tag, "
                f"not {spec.call.template!r}"
            )
        if section and (
            section.bare
            or section.noise
            or section.empty
            or section.opener
            or section.opens_at != "call"
        ):
            raise UsageError("a section of XML calls has no tolerance but `stray_ends`")
        closers = [layout.end, *after.split()[1:2]] if self._wrapping() else [layout.end]
        if after.split() != closers or (section and len(section.begins + section.ends) > 2):
            raise UsageError(
                f"an XML call template ending with {layout.end!r} (one section spelling), "
                f"not {spec.call.template!r}"
            )

    def _xml(self, tools: Tools | None, layout: Layout) -> Calls:
        """Calls of an XML layout (`blocks.calls.xml_calls`): the template's leading whitespace,
        or its section's, is the lead that belongs to the call (or section). A template
        whose named tag stands in an outer one is `_wrapped`."""
        spec, section = self.spec, self.spec.section
        before, between, _ = self._xml_parts()
        if self._wrapping():
            return self._wrapped(tools, layout)
        led = section.begins[0] if section else before
        lead = led[: len(led) - len(led.lstrip())]
        markers = (section.begins[0].strip(), section.ends[0].strip()) if section else None
        return xml_calls(
            tools,
            layout,
            before.strip(),
            between.strip(),
            stops=spec.stops,
            section=markers,
            lead=lead,
        )

    def _section(
        self,
        section: Section,
        lead: Parser[Any] | None,
        head: Parser[Any],
        body: Callable[[Any], Parser[Any]],
        resync: tuple[str, ...],
    ) -> Calls:
        """Calls in a section that counts where a whole call head follows its begin."""
        begins, ends = section.begins, section.ends
        openers = (*begins, *((self.opener,) if section.bare else ()))
        openers += (self.spec.placeholder,) if self.spec.placeholder else ()
        begin = markers(*begins)
        gap: Parser[Any] = ws
        if section.noise:  # runs to a call or the end; another begin or a stop ends the search
            noise = until(self.opener, *ends, *begins, *self.spec.stops, emit=False)
            gap = alt(noise.skip(peek(markers(self.opener, *ends))), ws)
        calls = section_calls(
            openers,
            begin if lead is None else seq(lead, begin),
            head,
            body,
            resync,
            closer(*ends),
            bare=section.bare,
            gap=gap,
        )
        if not section.empty:
            return calls
        empty = seq(begin, gap, markers(*ends))
        return Calls(calls.openers, calls.head, alt(calls.call, empty))

    def _wrapped(self, tools: Tools | None, layout: Layout) -> Calls:
        """Calls whose named tag stands in an outer tag (`<tool_call>` around
        `<function=N>`), resumed after a failure at the outer closer. With `unclosed`, a
        missing outer closer is tolerated before a stop or the next call; with `bare`, the
        named tag alone is a call too, for a declared tool whose arguments (or the layout's
        end) follow, resumed at the layout's end."""
        spec, call = self.spec, self.spec.call
        codec = call.arguments
        assert isinstance(codec, XmlArguments)
        before, between, after = self._xml_parts()
        outer, inner = re.split(r"\s+(?=<)", before.strip())
        closer = after.split()[-1]
        values = per_tool(tools, lambda schema: arguments(codec.parser(schema)))

        def named(name: Parser[str] | None = None) -> Parser[str]:
            tag = seq(literal(inner), tool_name(name), literal(between.strip()))
            return tag.map(lambda parts: parts[1])

        def body(close: Parser[Any]) -> Callable[[str], Parser[Any]]:
            return lambda name: seq(values(name), literal(layout.end), close)

        closed: Parser[Any] = literal(closer)
        if call.unclosed:
            closed = alt(closed, peek(markers(*spec.stops, outer)))
        closed = ws.then(closed)
        head = literal(outer).then(ws).then(named())
        resync = (closer, outer, *spec.stops)
        wrapped = tool_calls((outer,), head, body(closed), resync)
        if not call.bare:
            return in_runs(wrapped)
        follows = peek(ws.then(markers(layout.opener, layout.end)))
        resync = (layout.end, outer, *spec.stops)
        bare_head = named(declared(tools)).skip(follows)
        bare = tool_calls((inner,), bare_head, body(optional(closed)), resync)
        heads, calls = alt(wrapped.head, bare.head), alt(wrapped.call, bare.call)
        return in_runs(Calls((outer, inner), heads, calls))

    def _head(self, lead: Parser[Any] | None) -> Parser[Any]:
        """The template up to the arguments; its value is the name (or the id)."""
        call = self.spec.call
        parts: list[Parser[Any]] = []
        value: Parser[Any] | None = None
        pieces = self._split()[0]
        for number, piece in enumerate(pieces):
            if piece == "{call}" and isinstance(call.arguments, NameAndArguments):
                value = call.arguments.head()
                parts.append(value)
            elif piece == "{id}" and not isinstance(call.name, IdName):
                parts.append(self._id())
            elif piece in ("{name}", "{id}"):
                value = call.name.parser()
                parts.append(value)
                if isinstance(call.name, Attribute):
                    parts.append(self._rest_of_tag("".join(pieces[number + 1 :])))
                    break
            else:
                parts += _text(piece)
        parts = [*([] if lead is None else [lead]), *_spaced(parts, call.spaced)]
        at = parts.index(value) if value is not None else -1
        if at < 0:
            raise UsageError(
                f"a call template with {{name}}, {{id}} or {{call}}: {call.template!r}"
            )
        return seq(*parts).map(lambda matched: matched[at])

    @staticmethod
    def _rest_of_tag(rest: str) -> Parser[Any]:
        """After an attribute name's closing quote: free attributes up to the tag's end."""
        closing = rest.rpartition('"')[2]
        attributes = regex(f"[^{re.escape(closing[0])}]*")
        return seq(literal('"'), attributes, literal(closing))

    def _split(self) -> tuple[list[str], list[str]]:
        """The template's pieces up to the arguments (`{call}` included), and after them."""
        at = next(i for i, p in enumerate(self.pieces) if p in ("{arguments}", "{call}"))
        upto = at + 1 if self.pieces[at] == "{call}" else at
        return self.pieces[:upto], self.pieces[at + 1 :]

    def _body(
        self, tools: Tools | None, codec: JsonObject | XmlArguments | BareObject | NameAndArguments
    ) -> Callable[[Any], Parser[Any]]:
        """`value of the head -> the rest of the call`, through its closer."""
        call = self.spec.call
        name = call.name
        after = [part for piece in self._split()[1] for part in _text(piece)]
        if isinstance(codec, NameAndArguments):
            rest = seq(*_spaced([codec.body(), *after], call.spaced))
            return lambda _: rest
        values = per_tool(tools, lambda schema: arguments(codec.parser(schema)))

        pieces = self._optional()

        def body(head: str) -> Parser[Any]:
            start = [name.name_of(tools, head)] if isinstance(name, IdName) else []
            arguments = values(name.name(head) if isinstance(name, IdName) else head)
            if call.spaced:
                spaced = _spaced([*start, arguments, *after], True)
                return seq(*pieces, ws, *spaced) if pieces else seq(*spaced)
            return seq(*start, *pieces, ws, arguments, ws, *after)

        return body

    def _python(self, tools: Tools | None) -> Calls:
        spec, section = self.spec, self.spec.section
        if section is not None and spec.call.between == "\n":
            return python_call_lines(spec.stops, (section.begins[0], section.ends[0]))
        written = (section.begins[0], section.ends[0]) if section else None
        return python_call_list(
            tools, spec.stops, section=written, bare=section is None or section.bare
        )


_PARTS = (Think, Channel, Channels, Messages, Call, Section, Plain, Attribute, IdName, JsonObject)
_CODECS = (JsonBlock, XmlArguments, PythonKeywords, BareObject, NameAndArguments, NameKey, Layout)
_KINDS: dict[str, type] = {kind.__name__: kind for kind in (Spec, *_PARTS, *_CODECS)}


def to_data(value: Any) -> Any:
    """`value` (a spec or any part of it) as JSON-ready data: each dataclass a dict of its
    fields with its kind under `"type"`, tuples as lists."""
    if is_dataclass(value) and not isinstance(value, type):
        data = {f.name: to_data(getattr(value, f.name)) for f in fields(value)}
        return {"type": type(value).__name__, **data}
    if isinstance(value, (tuple, list)):
        return [to_data(item) for item in value]
    if isinstance(value, Mapping):
        return {key: to_data(item) for key, item in value.items()}
    return value


def from_data(data: Any) -> Any:
    """The inverse of `to_data`: a dict with a `"type"` is that kind, lists are tuples. An
    unknown kind or field is a `UsageError` naming it."""
    if isinstance(data, list):
        return tuple(from_data(item) for item in data)
    if not isinstance(data, dict):
        return data
    values = {key: from_data(item) for key, item in data.items() if key != "type"}
    if "type" not in data:
        return values
    kind = _KINDS.get(data["type"])
    if kind is None:
        raise UsageError(f"a spec part of kind {', '.join(_KINDS)}, not {data['type']!r}")
    unknown = set(values) - {f.name for f in fields(kind)}
    if unknown:
        raise UsageError(f"{kind.__name__} has no field {', '.join(sorted(unknown))}")
    return kind(**values)


def to_json(spec: Spec) -> str:
    """`spec` as indented JSON (see `to_data`)."""
    return json.dumps(to_data(spec), indent=2, ensure_ascii=False)


def from_json(text: str) -> Spec:
    """The spec that `to_json` wrote."""
    spec = from_data(json.loads(text))
    if not isinstance(spec, Spec):
        raise UsageError(f"a JSON object of type Spec, not {type(spec).__name__}")
    return spec
