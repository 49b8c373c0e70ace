"""Probe conversations: what a chat template writes for known turns.

Each probe is one assistant turn (`Probe.message`, in the OpenAI shape transformers takes:
`tool_calls` with `function.arguments` as an object) after one user message, with the
probe tools declared. `Renders` renders them with a `ChatTemplate` and cuts out the turn as
the model would write it: what follows the generation prompt the same conversation has
without the turn, up to and including its end-of-turn marker.

A template that refuses a probe (a `TemplateError`) is retried with other call ids (some
templates demand 9 alphanumeric characters, some a `functions.NAME:IDX`); a probe no id
makes renderable is left out (`Renders.refused` names it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rendering import ChatTemplate, TemplateError

USER = "Probe question?"
CONTENT = "Probe answer."
REASONING = "Probe reasoning."

TOOLS: tuple[dict[str, Any], ...] = tuple(
    {"type": "function", "function": {"name": name, "description": text, "parameters": schema}}
    for name, text, schema in (
        (
            "get_weather",
            "The weather in a city.",
            {
                "type": "object",
                "properties": {"location": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["location"],
            },
        ),
        (
            "get_time",
            "The time in a zone.",
            {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]},
        ),
        (
            "configure",
            "Set options.",
            {
                "type": "object",
                "properties": {"settings": {"type": "object"}},
                "required": ["settings"],
            },
        ),
    )
)

Call = tuple[str, dict[str, Any]]
"""A call as (name, arguments)."""


@dataclass(frozen=True)
class Probe:
    """One assistant turn to render: its `content`, `reasoning` and `calls`."""

    name: str
    content: str = ""
    reasoning: str | None = None
    calls: tuple[Call, ...] = ()

    def message(self, ids: str) -> dict[str, Any]:
        """The assistant message, its call ids written in the style `ids` names."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.reasoning is not None:
            message["reasoning_content"] = self.reasoning
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": _call_id(ids, name, index),
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
                for index, (name, arguments) in enumerate(self.calls)
            ]
        return message


def _call_id(style: str, name: str, index: int) -> str:
    if style == "functions":
        return f"functions.{name}:{index}"
    return f"call{index:05d}"  # nine alphanumerics


WEATHER: Call = ("get_weather", {"location": "Paris", "days": 3})
TIME: Call = ("get_time", {"zone": "UTC"})
CONFIGURE: Call = ("configure", {"settings": {"mode": "fast", "level": 2}})

CONTENT_ONLY = Probe("content", CONTENT)
ONE_CALL = Probe("one call", calls=(WEATHER,))
PROBES = (
    CONTENT_ONLY,
    ONE_CALL,
    Probe("content and a call", CONTENT, calls=(WEATHER,)),
    Probe("two parallel calls", calls=(WEATHER, TIME)),
    Probe("an object argument", calls=(CONFIGURE,)),
    Probe("reasoning", CONTENT, REASONING),
    Probe("reasoning and a call", reasoning=REASONING, calls=(TIME,)),
)
"""The probes, the content-only and one-call turns first."""

MODES: tuple[tuple[str, Mapping[str, Any]], ...] = (
    ("default", {}),
    ("thinking", {"enable_thinking": True, "thinking": True}),
    ("no thinking", {"enable_thinking": False, "thinking": False}),
)
"""Generation-prompt modes: the template's documented switches (`enable_thinking`, and
`thinking` as DeepSeek V3.1+ and Kimi name it)."""


@dataclass(frozen=True)
class Rendered:
    """A probe's turn: `prompt`, the generation prompt before it (the conversation's
    prompt as the history writes it), and `turn`, what the model writes."""

    probe: Probe
    prompt: str
    turn: str


@dataclass
class Renders:
    """The probes a template renders, and its generation prompts per mode; `next_turn`,
    what follows the content probe's content when a user message follows it."""

    template: ChatTemplate
    turns: list[Rendered] = field(default_factory=list)
    prompts: dict[str, str] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    next_turn: str = ""

    @classmethod
    def of(cls, template: ChatTemplate, probes: Sequence[Probe] = PROBES) -> Renders:
        """`template`'s renders of `probes` after one user message, with the probe tools;
        a `TemplateError` if it cannot render even the user message."""
        renders = cls(template)
        user = [{"role": "user", "content": USER}]
        base = template.render(user, TOOLS)
        for mode, switches in MODES:
            prompt = template.render(user, TOOLS, add_generation_prompt=True, **switches)
            before = template.render(user, TOOLS, **switches)
            renders.prompts[mode] = prompt[_common(prompt, before) :]
        answered = [*user, CONTENT_ONLY.message(""), {"role": "user", "content": USER}]
        try:
            after = template.render(answered, TOOLS).rpartition(CONTENT)[2]
            renders.next_turn = after.partition(USER)[0]
        except TemplateError:
            pass
        for probe in probes:
            renders._add(probe, user, base)
        return renders

    def _add(self, probe: Probe, user: list[dict[str, Any]], base: str) -> None:
        prompt = self.template.render(user, TOOLS, add_generation_prompt=True)
        problems = []
        for ids in ("functions", "alphanumeric"):
            try:
                whole = self.template.render([*user, probe.message(ids)], TOOLS)
            except TemplateError as error:
                problems.append(str(error))
                continue
            at = _split(whole, prompt)
            missing = [name for name, _ in probe.calls if name not in whole[at:]]
            if missing:
                problems.append(f"the template does not write the call to {missing[0]}")
                break
            self.turns.append(Rendered(probe, whole[len(base) : at], whole[at:]))
            return
        self.refused[probe.name] = problems[-1]

    def turn(self, probe: Probe) -> Rendered | None:
        """`probe`'s rendered turn, or None if the template refused it."""
        return next((r for r in self.turns if r.probe is probe), None)


def common_prefix(*texts: str) -> str:
    """The longest common prefix of `texts` (character by character)."""
    return os.path.commonprefix(list(texts))  # noqa: RUF071 (texts, not paths)


def _common(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b`."""
    return len(common_prefix(a, b))


_OPEN_TOKEN = re.compile(r"(?:<[^<>]*|\[[^\[\]]*)\Z")


def _split(whole: str, prompt: str) -> int:
    """Where the turn begins in `whole`: after the generation prompt `prompt` if `whole`
    starts with it, else after their common prefix, backed off to the start of a marker the
    prefix ends inside (`<|assistant|><` of `<think>` and `</think>`)."""
    if whole.startswith(prompt):
        return len(prompt)
    at = _common(whole, prompt)
    inside = _OPEN_TOKEN.search(whole, max(0, at - 64), at)
    return inside.start() if inside else at
