"""Events a streaming session emits: small frozen values a runtime dispatches on by type.

Invariants (for every chunking of the same output): the `text` of `ContentDelta`s, and of
`ReasoningDelta`s, concatenate to the final `content` / `reasoning_content`; the
`ToolCallArgumentsDelta`s of a call concatenate to its final `arguments_json`; a
`ToolCallStart` carries the final name; a `ToolCallEnd` follows only a closed envelope with
parsed arguments. Nothing emitted is ever retracted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ContentDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """Call number `index` (0-based, in emission order) has begun; `name` is final."""

    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArgumentsDelta:
    """More of call `index`'s arguments JSON text."""

    index: int
    text: str


@dataclass(frozen=True)
class ToolCall:
    """A completed call. `arguments_json` is the exact concatenation of its argument deltas;
    `validation_errors` lists raw values that did not convert to their declared type (kept
    as strings), schema violations, when validation ran, and bytes in the call that were
    not UTF-8 (replaced by U+FFFD: the arguments are not what the model wrote). `id` is
    unique within the turn: `model_id` is the id the model wrote (None if it wrote none),
    which `id` is unless it is empty or an earlier call of the turn already had it."""

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_json: str
    validation_errors: tuple[str, ...] = ()
    model_id: str | None = None

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_json},
        }


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """Call `index` is complete: envelope closed, arguments parsed (and validated)."""

    index: int
    call: ToolCall


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """The model's output broke the format at stream offset `offset`.

    `code` is one of `truncated` (the stream ended inside a construct), `malformed` (a
    construct that cannot be parsed), `unknown_tool`, `invalid_arguments` (schema violation
    with rejection on), `unopened_reasoning` (a reasoning close where no block was open:
    the text before it is content, though the prompt probably pre-opened reasoning) or
    `invalid_output` (the turn as a whole could not be parsed); `raw` is the text
    concerned, so nothing is lost.
    """

    code: str
    message: str
    offset: int
    raw: str


Event = (
    ReasoningDelta
    | ContentDelta
    | ToolCallStart
    | ToolCallArgumentsDelta
    | ToolCallEnd
    | (ProtocolError)
)
