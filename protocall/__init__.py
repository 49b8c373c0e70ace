"""protocall: parse the streaming output of language models as a protocol.

session = protocall.formats.get("hermes").parser(tools=TOOLS)
for chunk in stream:
    for event in session.feed(chunk):
        ...
session.finish()
session.message
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from typing_extensions import Unpack

from . import formats, shortcuts  # noqa: F401  (installs the shortcuts)
from .combinators import ParseError, UsageError
from .events import (
    ContentDelta,
    Event,
    ProtocolError,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from .message import Message, ToolCall
from .session import Session, SessionOptions
from .tools import Tool, Tools

try:
    __version__ = version("protocall")
    """The installed distribution's version (pyproject.toml is the one place it is written)."""
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"


def parse(
    text: str | bytes,
    format: str,
    tools: Iterable[Mapping[str, Any] | Tool] | Tools | None = None,
    generation_prompt: str | None = None,
    **options: Unpack[SessionOptions],
) -> Message:
    """Parse a complete output in one shot; the same result as streaming it in any chunks.
    (It is fed in slices of `SLICE` characters, so that the items of a long output are
    folded as they come, not all kept until its end for the cyclic collector to walk.)"""
    session = formats.get(format).parser(tools, generation_prompt, **options)
    for start in range(0, len(text), SLICE):
        session.feed(text[start : start + SLICE])
    session.finish()
    return session.message


SLICE = 4096
"""The piece of its text `parse` feeds at a time."""


__all__ = [
    "ContentDelta",
    "Event",
    "Message",
    "ParseError",
    "ProtocolError",
    "ReasoningDelta",
    "Session",
    "SessionOptions",
    "Tool",
    "ToolCall",
    "ToolCallArgumentsDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "Tools",
    "UsageError",
    "formats",
    "parse",
]
