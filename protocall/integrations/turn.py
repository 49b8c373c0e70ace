"""One request's turn, shared by a server's reasoning parser and tool parser.

A server builds a reasoning parser and a tool parser per request and calls one or the other
for each delta, depending on where it believes the stream is. Both adapters hold the same
`Turn`: whichever the server calls feeds the one session, and the events it returns carry
every field (reasoning, content, tool calls), so the two cannot disagree about the stream:
a call made inside a reasoning block the template pre-opened is a call (Ling 3.0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..events import Event
from ..formats import Format
from ..message import Message
from ..session import Session

PROMPT_TAIL_TOKENS = 64
"""How many prompt tokens are decoded to find the generation prompt: the tail the chat
template appended (`<|im_start|>assistant\\n<think>\\n` and the like) is far shorter."""


class Turn:
    """The session of one request, created on first use from what the server told us.

    `tools` are OpenAI tool entries; `None` (no tool parser, or a request without tools)
    declares no tool at all, so a call the model writes anyway is an `unknown_tool` error
    whose raw text stays in the content, the way a server without a tool parser shows it.
    `prompt` is the generation prompt (the decoded prompt tail), when the server gave it;
    `thinking` (the chat template's `enable_thinking`) stands in for it when it did not.
    `special_tokens` are the texts of the format's markers (or their parts) that are
    special tokens of the model's tokenizer: a streamed session recognises them only where
    `feed(..., special=True)` gave them (see `protocall.special_tokens`); a complete output
    (`whole`), which arrives as text alone, is read with every marker recognised.
    """

    def __init__(self, fmt: Format) -> None:
        self.format = fmt
        self.tools: list[Mapping[str, Any]] | None = None
        self.prompt: str | None = None
        self.thinking: bool | None = None
        self.special_tokens: tuple[str, ...] = ()
        self.session: Session | None = None
        self._fed = False
        self._whole: Message | None = None

    def _session(self, streamed: bool = True) -> Session:
        if self.session is None:
            special = self.special_tokens if streamed else ()
            prompt = self.generation_prompt()
            self.session = self.format.parser(self.tools or [], prompt, special_tokens=special)
        return self.session

    def generation_prompt(self) -> str | None:
        """The prompt tail, else the template's tail for `thinking`, else `None` (the
        format's default start)."""
        if self.prompt is not None or self.thinking is None:
            return self.prompt
        reasoning = "reasoning" if self.thinking else None
        return self.format.prompt_for(reasoning)

    def feed(self, text: str, special: bool = False) -> list[Event]:
        """The events `text` (the next delta, or with `special` the text of special tokens
        in it) makes final."""
        if not text:
            return []
        self._fed = True
        return (self.session or self._session()).feed(text, special)

    def finish(self) -> list[Event]:
        """End of stream: the events still held back; nothing the second time."""
        session = self._session()
        return [] if session.finished else session.finish()

    def whole(self, output: str) -> Message:
        """The message of a complete output (non-streaming), parsed once per turn: the
        reasoning and the tool parser both read it."""
        if self._whole is None:
            self.session, self._fed = None, False  # a session streamed before is set aside
            session = self._session(streamed=False)
            session.feed(output)
            session.finish()
            self._whole = session.message
        return self._whole


def tool_dicts(tools: Iterable[Any] | None) -> list[Mapping[str, Any]] | None:
    """Server tool objects (pydantic models or dicts) as OpenAI tool entries."""
    if not tools:
        return None
    entries = []
    for tool in tools:
        entry = fields(tool) if hasattr(tool, "model_dump") else tool
        if (type(entry) is dict or isinstance(entry, Mapping)) and (
            entry.get("function") or entry.get("name")
        ):
            entries.append(entry)
    return entries or None


def fields(model: Any) -> dict[str, Any]:
    """A pydantic model's fields that are not None nor excluded from dumps, each nested
    model likewise: what
    `model_dump(exclude_none=True)` gives a tool entry (its schema, a plain dict, as it
    is), read from the model's attributes instead (a server's request holds its tools as
    models: dumping ten of them costs more than parsing a typical turn)."""
    values = model.__dict__
    dumped = {}
    for name in _dumped(type(model)):
        value = values.get(name)
        if value is not None:
            dumped[name] = fields(value) if hasattr(value, "model_dump") else value
    return dumped


_DUMPED: dict[type, tuple[str, ...]] = {}
"""The fields each pydantic model class dumps (reading `model_fields` costs a microsecond;
a server's request models are a handful of classes)."""


def _dumped(cls: type) -> tuple[str, ...]:
    names = _DUMPED.get(cls)
    if names is None:
        model_fields = cls.model_fields  # type: ignore[attr-defined]
        names = _DUMPED[cls] = tuple(n for n, f in model_fields.items() if not f.exclude)
    return names
