"""The normalised result of a turn, and its OpenAI chat-completions shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .combinators import UsageError
from .events import ProtocolError, ToolCall

REASONING_FIELDS = ("reasoning_content", "reasoning")
"""The names OpenAI-compatible servers give the reasoning field: `reasoning_content` (the
default: DeepSeek's API, SGLang, llama.cpp, older vLLM) and `reasoning` (current vLLM,
OpenRouter)."""

__all__ = ["REASONING_FIELDS", "Message", "ToolCall", "checked_reasoning_field"]


def checked_reasoning_field(name: str) -> str:
    """`name`, when it is one of `REASONING_FIELDS` (else a `UsageError` saying so)."""
    if name not in REASONING_FIELDS:
        raise UsageError(
            f"reasoning field must be one of {', '.join(REASONING_FIELDS)}, not {name!r}"
        )
    return name


@dataclass(frozen=True)
class Message:
    """`content` and `reasoning_content` are stripped (empty becomes `None`); `tool_calls`
    holds completed calls only, in order; `errors` every protocol error of the turn."""

    content: str | None = None
    reasoning_content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    errors: tuple[ProtocolError, ...] = field(default=())

    def to_openai(self, reasoning_field: str = "reasoning_content") -> dict[str, Any]:
        """The assistant message, reasoning under `reasoning_field` (see `REASONING_FIELDS`)."""
        message: dict[str, Any] = {
            "role": "assistant",
            "content": self.content,
            checked_reasoning_field(reasoning_field): self.reasoning_content,
        }
        if self.tool_calls:
            message["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        return message

    def to_dict(self) -> dict[str, Any]:
        """The normalised shape of FORMATS.md (`tool_calls` as name + arguments)."""
        return {
            "reasoning_content": self.reasoning_content,
            "content": self.content,
            "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in self.tool_calls],
        }
