"""What a turn says, independent of any format: the input of a format's renderer.

The testing kit generates `Turn`s, renders them with the format's own `render` and checks
that parsing gives back `turn.expected()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolUse:
    """A call as the model means it: a name and typed arguments (and its id, where the
    format carries one)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Turn:
    """Reasoning (None: no reasoning block), then content text and calls, in order."""

    reasoning: str | None = None
    parts: tuple[str | ToolUse, ...] = ()

    @property
    def calls(self) -> list[ToolUse]:
        return [part for part in self.parts if isinstance(part, ToolUse)]

    def groups(self) -> Iterator[str | list[ToolUse]]:
        """Content parts, and runs of consecutive calls (one tool section each)."""
        run: list[ToolUse] = []
        for part in self.parts:
            if isinstance(part, ToolUse):
                run.append(part)
                continue
            if run:
                yield run
                run = []
            yield part
        if run:
            yield run

    def expected(self) -> dict[str, Any]:
        """The normalised message parsing must give (FORMATS.md §0)."""
        content = "".join(part for part in self.parts if isinstance(part, str)).strip()
        return {
            "reasoning_content": (self.reasoning or "").strip() or None,
            "content": content or None,
            "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in self.calls],
        }
