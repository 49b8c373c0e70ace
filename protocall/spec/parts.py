"""The data a spec is made of: the turn shapes, the call template, the section, the spec
itself, and the registries of the named hooks some families need."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..blocks import bare_calls
from ..blocks.channels import Channel
from ..combinators import (
    Parser,
    UsageError,
)
from ..tools import Tools
from .codecs import (
    Codec,
    IdName,
    JsonObject,
    Name,
    NameAndArguments,
    NameKey,
    Plain,
    XmlArguments,
)

PLACEHOLDER = re.compile(r"(\{(?:name|id|index|arguments|call)\})")


@dataclass(frozen=True)
class Think:
    """A reasoning block `open` … `close` (or any pair of `also`) before content and calls; with
    `ends_at_call` a genuine call ends it, unless the model opened an `explicit` one and closes
    it after the call (see `blocks.prose.Reasoning`). `opened_by` is what a generation prompt
    ends with to pre-open it (default: `open`; `""`: no prompt does), `off` what it ends with to
    open nothing (thinking off); `written` the block's (open, close) as the model lays it out,
    where that differs; `prompt` the generation prompt before `opened_by` where it is another
    than the spec's (Nemotron Nano v2 pre-opens it, Super-49B's prompt opens nothing); `phrases`
    (openings, closings) reasoning written as text phrases instead, at the turn's start only
    (Granite 3.2, see `blocks.prose.Reasoning`); `ends_at` markers that end a block that is
    not `explicit` whatever follows them (a section opener that is a special token: Kimi K2's
    `<|tool_calls_section_begin|>`), unless the block closes after them before the turn
    ends; the content then reads them."""

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
    ends_at: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.explicit and self.ends_at:
            raise UsageError(
                "`ends_at` ends a block that is not `explicit` (an explicit block the model "
                "opened ends at a call head only where it never closes after it)"
            )


@dataclass(frozen=True)
class Channels:
    """A turn of `channels` in which every marker begins with one of `tokens`. A generation
    prompt can leave those named in `starts` open (default: all). A turn is written as its
    channels in order, all its content in each content channel, then its calls in one
    section; with `interleaved`, as a `Think` turn is: its reasoning channel, then each
    content part in the first content channel (as it is where there is none) and each run
    of calls in a section, in the turn's order, then the first stop (or `call_stop`).
    A `header` (Inkling's `<|message_model|>`) heads every channel and call as written, a
    call's with its `label` after it (`{name}` there the call's name: Inkling's is the name,
    Muse's ` to={name}`); read, it may stand before any of them or be missing, and its label
    (the text after it up to the next token) is dropped with it. A channel whose opener
    begins with the header is named by the header's label (its recipient: Muse's
    `<|start|>assistant to=self<|message|>` is reasoning, `…to=user…` content), so the
    label decides what a message is: a channel's, or else a call's (see `Channel`)."""

    channels: tuple[Channel, ...]
    tokens: tuple[str, ...] = ()
    starts: tuple[str, ...] | None = None
    interleaved: bool = False
    header: str = ""
    label: str = "{name}"

    def __post_init__(self) -> None:
        if self.label.count("{name}") != 1:
            raise UsageError(f"a call header's label holds {{name}} once, not {self.label!r}")


@dataclass(frozen=True)
class Messages:
    """A turn of headed messages (OpenAI Harmony, gpt-oss). A message is written
    `{channel}NAME{message}BODY` and the close its entry of `bodies` names, `(NAME, node,
    close)`, its body `reasoning` or `content`: the reasoning channel, the preamble (content
    closed by `end`) and the answer (content whose close ends the turn). The first message
    stands right after the generation prompt, each later one after the spec's `prompt`
    again (`start` and the role); a prompt may also pre-open the reasoning channel or the
    answer's (the prompt plus its header). A message with a recipient is a call:
    `{to}{functions}TOOL` names a declared function, `{to}TOOL` a built-in tool (those in
    `code` take their body as their code, others JSON arguments); it stands after the
    channel's name (as the spec's call template writes it) or before `{channel}` (as a
    chat template renders a call), then a content type (`types`: its introducer and kind,
    the first written), `{message}` and the arguments, closed as the template closes. The
    reserved markers (`tokens`) are `start`, `channel`, `message`, `end`, the stops and
    the content types' tokens.

    Read more widely than written: a body runs to any of the tokens (an `end` after it is
    consumed); in a reasoning body, `{message}`, a content type's token and a `{channel}`
    that begins no header are its text; `start` may be missing before `{channel}`; the
    content type may be missing or of any kind; a channel part naming one of `dropped`
    (addressed `{to}` the role, or to no one) is dropped where another `{channel}` follows
    it, as is a stray `end`; any other malformed header is an error, whose region runs to
    the next `start`, `end` or stop. Text outside messages is content."""

    bodies: tuple[tuple[str, str, str], ...]
    start: str
    channel: str
    message: str
    end: str
    to: str
    functions: str = ""
    types: tuple[tuple[str, str], ...] = ()
    code: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        kinds = sorted((node, close == self.end) for _, node, close in self.bodies)
        if kinds != [("content", False), ("content", True), ("reasoning", True)]:
            raise UsageError(
                "a headed message turn's bodies are a reasoning channel and a preamble "
                f"closed by `end` ({self.end!r}), and an answer closed otherwise: {self.bodies}"
            )

    def named(self, node: str, closed: bool) -> str:
        """The channel whose body is `node`, closed by `end` or (`closed=False`) not."""
        wanted = (node, closed)
        return next(
            name for name, kind, close in self.bodies if (kind, close == self.end) == wanted
        )

    def opener(self, name: str) -> str:
        """The header of a message in channel `name` without a recipient."""
        return f"{self.channel}{name}{self.message}"

    def opened(self, start: str) -> str:
        """The channel that the start state `start` (`reasoning` or `content`) opens: the
        reasoning channel or the answer's."""
        return self.named(start, start == "reasoning")

    def close(self, name: str) -> str:
        """What closes a message in channel `name` as written."""
        return next(close for named, _, close in self.bodies if named == name)

    def tokens(self, stops: tuple[str, ...]) -> tuple[str, ...]:
        """The reserved markers, with the turn's `stops`."""
        kinds = (token.strip() for token, _ in self.types)
        marked = (self.start, self.channel, self.message, self.end, *stops, *kinds)
        return tuple(dict.fromkeys(token for token in marked if token))


@dataclass(frozen=True)
class JsonTurn:
    """A turn that is one JSON object (llama.cpp's generic format): the string under
    `content` is the visible answer, streamed as its decoded characters; the calls stand
    in an array under `calls`, or one alone under `single`, each written as the spec's
    `{call}` (a `NameAndArguments` object). The object is the calls' envelope: they
    complete once it closes (see `blocks.json_turn`). It is written `{"<content>": "…"}`
    for a turn without calls, `{"<calls>": […]}` for one without content."""

    content: str = "response"
    calls: str = "tool_calls"
    single: str = "tool_call"

    def __post_init__(self) -> None:
        keys = (self.content, self.calls, self.single)
        if len(set(keys)) != 3 or not all(keys):
            raise UsageError(f"a JSON turn's content, calls and single keys differ: {keys}")


H = TypeVar("H")


class Hooks(Generic[H]):
    """The hooks of one `kind` by name: each registered once, a missing one a `UsageError`
    naming those registered."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.named: dict[str, H] = {}

    def register(self, name: str, hook: H) -> None:
        if self.named.get(name, hook) is not hook:
            raise UsageError(f"a {self.kind} hook named {name!r} is already registered")
        self.named[name] = hook

    def __getitem__(self, name: str) -> H:
        hook = self.named.get(name)
        if hook is None:
            known = ", ".join(self.named) or "none"
            raise UsageError(f"no {self.kind} hook named {name!r} (registered: {known})")
        return hook


@dataclass(frozen=True)
class ProofHook:
    """What proves a call object standing bare in the content a call, in code: `proof(tools)`
    matches (without a cut) from a `{` that begins a call; `openers` are where such an
    object may begin (the content stops there to try it)."""

    openers: tuple[str, ...]
    proof: Callable[[Tools | None], Parser[Any]]


PROOF_HOOKS: Hooks[ProofHook] = Hooks("proof")


def register_proof(name: str, hook: ProofHook) -> None:
    """Make `hook` the proof that `Call(…, proof=name)` names."""
    PROOF_HOOKS.register(name, hook)


register_proof("declared-call", ProofHook(bare_calls.OBJECT_STARTS, bare_calls.proof))
"""The built-in proof: an object naming a declared tool, with its arguments (Llama 3's)."""


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
    unclosed_value: bool = False
    bare: bool = False
    loose: bool = False
    empty: str | None = None
    optional: tuple[str, ...] = ()
    id_pattern: str = r"[^\s\[{]+"
    proof: str = ""
    closer_proves: bool = False
    other_closers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        holes = PLACEHOLDER.findall(self.template)
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
        if self.optional and not self._optional_placed():
            raise UsageError(
                f"optional pieces {self.optional} right before JSON {{arguments}}, or "
                f"between {{name}} and XML {{arguments}}, in {self.template!r}"
            )
        if any(not closer.strip() for closer in self.other_closers):
            raise UsageError(f"a call's other closers are marker texts, not {self.other_closers}")

    def _optional_placed(self) -> bool:
        """Whether the `optional` pieces stand together right before JSON arguments, or
        between the name and XML arguments (pieces of the text that ends the name)."""
        pieces = "".join(self.optional)
        if isinstance(self.arguments, JsonObject):
            return pieces + "{arguments}" in self.template
        if not isinstance(self.arguments, XmlArguments) or "{name}" not in self.template:
            return False
        between = self.template.split("{name}", 1)[1].split("{arguments}", 1)[0]
        return pieces in between and "{" not in pieces


@dataclass(frozen=True)
class Section:
    """The markers around a run of calls, every accepted spelling (see the module
    docstring)."""

    begins: tuple[str, ...]
    ends: tuple[str, ...]
    bare: bool = False
    bare_ends_reasoning: bool = True
    noise: bool = False
    empty: bool = False
    stray_ends: bool = False
    opens_at: str = "call"
    each: bool = False
    opener: str = ""
    sealed: bool = False
    array: bool = False
    framing: tuple[str, str] = ("[", "]")
    written_bare: bool = False
    element: NameAndArguments | NameKey | None = None
    loose: bool = False
    single: bool = False
    method: str = ""
    code: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.code is not None and not all(self.code):
            raise UsageError(
                f"a section's `code` is (the tool, its argument) the code after a begin "
                f'calls, ("python", "code"), not {self.code!r}'
            )
        if self.loose:  # the tolerances it names (and `Call.stray_closers`, see `Envelope`)
            for tolerance in ("bare", "noise", "empty", "stray_ends"):
                object.__setattr__(self, tolerance, True)
        if self.opens_at not in ("call", "marker"):
            raise UsageError(f'a section opens at "call" or "marker", not {self.opens_at!r}')
        bare = self.bare and self.element is None  # an alternative's template calls are bare
        if self.array and (bare or self.noise or self.empty or self.each or self.opener):
            raise UsageError("a section holding a JSON array has no tolerance but `stray_ends`")
        if self.element is not None and not self.array:
            raise UsageError("a section's `element` is that of a JSON `array`")
        if self.single and not self.array:
            raise UsageError("a `single` call object stands for a JSON `array`: set `array`")
        if tuple(bracket.strip() for bracket in self.framing) != ("[", "]"):
            raise UsageError(f"an array's framing is `[`, `]` and whitespace, not {self.framing}")
        if self.written_bare and not self.bare:
            raise UsageError("a section whose calls are written bare has `bare` calls")
        if not (self.bare or self.bare_ends_reasoning):
            raise UsageError("`bare_ends_reasoning` is about `bare` calls: the section has none")
        if self.sealed and not self.opener.strip():
            raise UsageError("a `sealed` section names the `opener` its markers share")
        if self.method and re.fullmatch(r"(\.[^\W\d]\w*)+", self.method) is None:
            raise UsageError(
                f"a section's `method` is the attribute a tool's name is called by, "
                f"`.call`, not {self.method!r}"
            )


@dataclass(frozen=True)
class Tags:
    """Markers written as tags spelled with tokens (Kimi K3's XTML): a tag `<t …>` in a
    spec's texts stands for `open` t … `sep`, and `</t>` for `close` t `sep`. So a channel
    opened by a tag closes by it (its close, where empty, is `</t>`), every marker of a
    `Channels` turn begins with `open` or `close` or is a stop (the turn's tokens, with its
    own), and a tag's attribute values are entity-escaped (a `Plain` name quoted in a tag,
    `="{name}"`, is an `Attribute`). `spec.tags.spelled` writes it all out."""

    open: str
    close: str
    sep: str


@dataclass(frozen=True)
class Spec:
    """A model family's output format as data (see the module docstring)."""

    name: str
    summary: str
    call: Call
    stops: tuple[str, ...]
    turn: Think | Channels | Messages | JsonTurn | None = field(default_factory=Think)
    section: Section | None = None
    prompt: str = ""
    default_start: str | None = None
    dropped: tuple[str, ...] = ()
    placeholder: str | None = None
    malformed_as_content: bool = True
    fenced: bool = False
    call_stop: str | None = None
    respelled: tuple[tuple[str, str], ...] = ()
    tags: Tags | None = None
    token_suffix: str = ""
    primed: tuple[str, ...] = ()
    content_lead: tuple[str, ...] = ()
