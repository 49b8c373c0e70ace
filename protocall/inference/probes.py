"""Probe conversations: what a chat template writes for known turns.

Each probe is one assistant turn (`Probe.message`, in the OpenAI shape transformers takes:
`tool_calls` with `function.arguments` as an object) after one user message, with the
probe tools declared. `Renders` renders them with a `ChatTemplate` and cuts out the turn as
the model would write it: what follows the generation prompt the same conversation has
without the turn, up to and including its end-of-turn marker.

A template that refuses a probe (a `TemplateError`), or does not write its calls, is retried
with other call ids (some templates demand 9 alphanumeric characters, some a
`functions.NAME:IDX`), with the arguments as a JSON string as OpenAI clients send them
(templates that concatenate them, or print them as given, which writes an object as
Python's repr), and, for calls without content, with `content` null
(DeepSeek-R1-Distill's template writes calls only then); a probe no variant makes
renderable is left out (`Renders.refused` names why, the unwritten call first).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
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
                "properties": {
                    "location": {"type": "string", "description": "A city."},
                    "days": {"type": "integer", "description": "How many days."},
                },
                "required": ["location"],
            },
        ),
        (
            "get_time",
            "The time in a zone.",
            {
                "type": "object",
                "properties": {"zone": {"type": "string", "description": "A time zone."}},
                "required": ["zone"],
            },
        ),
        (
            "configure",
            "Set options.",
            {
                "type": "object",
                "properties": {"settings": {"type": "object", "description": "The options."}},
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

    def message(self, ids: str, content: str | None = "", string: bool = False) -> dict[str, Any]:
        """The assistant message, its call ids written in the style `ids` names, its
        content `content` where the probe has none, its arguments a JSON string if
        `string`."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or content}
        if self.reasoning is not None:  # under both names servers give it
            message["reasoning_content"] = message["reasoning"] = self.reasoning
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": _call_id(ids, name, index),
                    "type": "function",
                    "function": {
                        "name": name,
                        "arguments": json.dumps(arguments) if string else arguments,
                    },
                }
                for index, (name, arguments) in enumerate(self.calls)
            ]
        return message


def _call_id(style: str, name: str, index: int) -> str:
    if style == "functions":
        return f"functions.{name}:{index}"
    return f"call{index:05d}"  # nine alphanumerics


def call_ids(name: str, index: int) -> tuple[str, ...]:
    """The ids a probe's call to `name` at `index` may be given, in every style."""
    return tuple(_call_id(style, name, index) for style in ("functions", "alphanumeric"))


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

LITERAL_WEATHER: Call = ("get_weather", {"days": 3})
LITERAL_PROBES = (
    CONTENT_ONLY,
    Probe("one call", calls=(LITERAL_WEATHER,)),
    Probe("content and a call", CONTENT, calls=(LITERAL_WEATHER,)),
    Probe("two parallel calls", calls=(LITERAL_WEATHER, ("configure", {"settings": {"level": 2}}))),
    Probe("an object argument", calls=(CONFIGURE,)),
    Probe("reasoning", CONTENT, REASONING),
    Probe("reasoning and a call", reasoning=REASONING, calls=(LITERAL_WEATHER,)),
)
"""The probes with one argument per call and no string argument, for a template that
writes a string or a list of arguments its call syntax cannot hold (`get_weather(
location=Paris)` unquoted, `location="Paris"days=3` unseparated): what it writes right."""

MODES: tuple[tuple[str, Mapping[str, Any]], ...] = (
    ("default", {}),
    ("thinking", {"enable_thinking": True, "thinking": True}),
    ("no thinking", {"enable_thinking": False, "thinking": False}),
)
"""Generation-prompt modes: the documented switches (`enable_thinking`, and `thinking` as
DeepSeek V3.1+ and Kimi name it); a template's own (`ChatTemplate.switches`) are added."""

OWN_MODES = 8
"""At most this many modes of a template's own switches are rendered."""


def _own_modes(template: ChatTemplate) -> list[tuple[str, dict[str, Any]]]:
    """A mode per value of each switch the template compares with constants
    (`reasoning_effort='none'`, `thinking_budget=0`), at most `OWN_MODES`."""
    modes = [
        (f"{name}={value!r}", {name: value})
        for name, values in template.switches().items()
        for value in values
    ]
    return modes[:OWN_MODES]


@dataclass(frozen=True)
class Rendered:
    """A probe's turn: `prompt`, the generation prompt before it (the conversation's
    prompt as the history writes it), and `turn`, what the model writes; `alike`, where the
    template writes a number or an object argument exactly as it writes that value's text
    (functiongemma's `<escape>3<escape>`, Llama 4 pythonic's `days="3"`), the probe's calls
    with those values as strings: a reading of them as strings is as true to the render."""

    probe: Probe
    prompt: str
    turn: str
    alike: tuple[Call, ...] | None = None


NEXT = "Next probe question?"
"""The user message that follows a probe turn rendered as history (`Renders.followed`)."""


@dataclass
class Renders:
    """The probes a template renders, and its generation prompts per mode; `next_turn`,
    what follows the content probe's content when a user message follows it. With
    `followed`, each probe turn is rendered as history, a user message after it (its turn
    then runs up to that message's text): for templates that write the last assistant
    message otherwise, as a continuation of the generation prompt (Nemotron Nano v2)."""

    template: ChatTemplate
    turns: list[Rendered] = field(default_factory=list)
    prompts: dict[str, str] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    next_turn: str = ""
    followed: bool = False
    probes: tuple[Probe, ...] = PROBES

    @property
    def content_only(self) -> Probe:
        """The probe of a turn of content alone (the first)."""
        return self.probes[0]

    @property
    def one_call(self) -> Probe:
        """The probe of a turn of one call alone (the second)."""
        return self.probes[1]

    @classmethod
    def of(
        cls, template: ChatTemplate, probes: Sequence[Probe] = PROBES, followed: bool = False
    ) -> Renders:
        """`template`'s renders of `probes` (the content-only and one-call turns first)
        after one user message, with the probe tools (as history if `followed`); a
        `TemplateError` if it cannot render even the user message."""
        renders = cls(template, followed=followed, probes=tuple(probes))
        user = [{"role": "user", "content": USER}]
        bases = {}
        for mode, switches in MODES:
            bases[mode], renders.prompts[mode] = _prompt(template, user, switches)
        for mode, switches in _own_modes(template):
            try:
                prompt = _prompt(template, user, switches)[1]
            except TemplateError:
                continue  # a value the template refuses on its own
            if prompt not in renders.prompts.values():
                renders.prompts[mode] = prompt
        answered = [*user, CONTENT_ONLY.message(""), {"role": "user", "content": USER}]
        try:
            after = template.render(answered, TOOLS).rpartition(CONTENT)[2]
            renders.next_turn = after.partition(USER)[0]
        except TemplateError:
            pass
        for probe in probes:
            renders._add(probe, user, bases["default"])
        return renders

    def _add(self, probe: Probe, user: list[dict[str, Any]], base: str) -> None:
        prompt = self.template.render(user, TOOLS, add_generation_prompt=True)
        problems = []
        empty: tuple[str | None, ...] = ("", None) if probe.calls and not probe.content else ("",)
        variants = itertools.product((False, True), ("functions", "alphanumeric"), empty)
        for string, ids, content in variants:
            try:
                message = probe.message(ids, content, string)
                whole = self._conversation([*user, message])
            except TemplateError as error:
                problems.append(str(error))
                continue
            at = _split(whole, prompt)
            missing = [name for name, _ in probe.calls if name not in whole[at:]]
            if missing:
                problems.insert(0, f"the template does not write the call to {missing[0]}")
                continue
            printed = [str(arguments) for _, arguments in probe.calls if str(arguments) in whole]
            if printed and not string:  # Python's repr: the template prints them as given
                problems.append(f"the template prints the arguments as {printed[0]}")
                continue
            alike = self._alike(probe, user, whole, (ids, content, string))
            self.turns.append(Rendered(probe, whole[len(base) : at], whole[at:], alike))
            return
        unwritten = problems[0].startswith("the template does not write")
        self.refused[probe.name] = problems[0] if unwritten else problems[-1]

    def _alike(
        self,
        probe: Probe,
        user: list[dict[str, Any]],
        whole: str,
        variant: tuple[str, str | None, bool],
    ) -> tuple[Call, ...] | None:
        """`probe`'s calls with each argument that is no string replaced by its text (as
        Python or JSON writes it) where the template renders `whole` all the same (see
        `Rendered.alike`); None where it renders every such value apart from its text."""
        calls = list(probe.calls)
        for index, (name, arguments) in enumerate(probe.calls):
            for key, value in arguments.items():
                if isinstance(value, str):
                    continue
                for text in dict.fromkeys((str(value), json.dumps(value))):
                    trial = [*calls]
                    trial[index] = (name, {**calls[index][1], key: text})
                    message = replace(probe, calls=tuple(trial)).message(*variant)
                    try:
                        same = self._conversation([*user, message]) == whole
                    except TemplateError:
                        same = False
                    if same:
                        calls = trial
                        break
        return tuple(calls) if calls != list(probe.calls) else None

    def _conversation(self, messages: list[dict[str, Any]]) -> str:
        """`messages` rendered; where `followed`, with a user message after them, up to
        its text."""
        if not self.followed:
            return self.template.render(messages, TOOLS)
        whole = self.template.render([*messages, {"role": "user", "content": NEXT}], TOOLS)
        return whole[: whole.rfind(NEXT)] if NEXT in whole else whole

    def turn(self, probe: Probe) -> Rendered | None:
        """`probe`'s rendered turn, or None if the template refused it."""
        return next((r for r in self.turns if r.probe is probe), None)


TAG = re.compile(r"<[^<>\s]{1,80}>|\[[^\[\]\s]{1,40}\]")
"""A marker: a tag (`<|end|>`) or a bracketed token (`[/INST]`)."""


def _prompt(
    template: ChatTemplate, user: list[dict[str, Any]], switches: Mapping[str, Any]
) -> tuple[str, str]:
    """(`user` rendered without a generation prompt, the generation prompt) in a mode:
    what the render with a generation prompt adds, from the start of the marker where the
    two renders differ (Motif 2 writes `<|endoftext|>` where the prompt is `<|assistant|>`).
    A template that writes its prompt whether asked or not (Command R7B, Apriel 1.6)
    writes it after the user's end of turn: the prompt is then what follows the first tag
    after the user message that an answered conversation writes there too."""
    prompt = template.render(user, TOOLS, add_generation_prompt=True, **switches)
    before = template.render(user, TOOLS, **switches)
    if prompt != before or USER not in prompt:
        start = _marker_start(prompt, _common(prompt, before))
        return prompt[:start], prompt[start:]
    answered = template.render([*user, CONTENT_ONLY.message("")], TOOLS, **switches)
    after_user = prompt[prompt.rindex(USER) + len(USER) :]
    answer = answered[answered.find(USER) + len(USER) :]
    for tag in TAG.finditer(after_user):
        always = after_user[tag.end() :]
        if answer.startswith(after_user[: tag.end()]) and always.strip():
            return prompt.removesuffix(always), always
    return before, ""


def common_prefix(*texts: str) -> str:
    """The longest common prefix of `texts` (character by character)."""
    return os.path.commonprefix(list(texts))  # noqa: RUF071 (texts, not paths)


def _common(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b`."""
    return len(common_prefix(a, b))


_OPEN_TOKEN = re.compile(r"(?:<[^<>]*|\[[^\[\]]*)\Z")


def _split(whole: str, prompt: str) -> int:
    """Where the turn begins in `whole`: after the generation prompt `prompt` if `whole`
    starts with it; after it and the whitespace that follows if `whole` writes it with
    other whitespace (a template's Jinja indentation leaking into the history, as in
    DeepSeek V3.1 variants); else after their common prefix, backed off to the start of a
    marker the prefix ends inside (`<|assistant|><` of `<think>` and `</think>`), and past
    the rest of the prompt (or its first markers, where the prompt opens more, such as
    `<think>`) where the history writes it after markers the prompt lacks (Motif 2's
    history writes `<|startofturn|><|assistant|>`, its prompt `<|assistant|>`).
    Where the history writes the user message otherwise (Mistral templates put the system
    prompt in the last user message only), the prompt is matched from the user message's
    end."""
    if whole.startswith(prompt):
        return len(prompt)
    loose = _loose_end(whole, prompt)
    if loose is not None:
        return loose
    user_end = whole.rfind(USER) + len(USER)
    if USER in whole and USER in prompt and whole[:user_end] != prompt[:user_end]:
        after_user = _loose_end(whole[user_end:], prompt[prompt.rindex(USER) + len(USER) :])
        if after_user is not None:
            return user_end + after_user
    at = _marker_start(whole, _common(whole, prompt))
    rest, skipped = prompt[at:], at
    while rest.strip() and (marker := TAG.match(whole, skipped)) is not None:
        skipped = marker.end()  # a marker the prompt lacks: the prompt may follow it
        after = _loose_end(whole[skipped:], rest)
        if after is None:  # or its first markers, where the prompt opens more
            after = _shared_markers(whole[skipped:], rest) or None
        if after is not None:
            return skipped + after
    return at


def _marker_start(text: str, at: int) -> int:
    """`at`, or the start of the marker `text[:at]` ends inside."""
    inside = _OPEN_TOKEN.search(text, max(0, at - 64), at)
    return inside.start() if inside else at


def _shared_markers(text: str, prompt: str) -> int:
    """The length of the longest run of whole markers both `text` and `prompt` begin with."""
    at = 0
    while (marker := TAG.match(prompt, at)) is not None and text.startswith(marker.group(), at):
        at = marker.end()
    return at


def _loose_end(whole: str, prompt: str) -> int | None:
    """The end of `prompt` in `whole` where `whole` starts with it but for whitespace, and
    the whitespace after it; None where their other characters differ."""
    at = 0
    for char in prompt:
        if char.isspace():
            continue
        while at < len(whole) and whole[at].isspace():
            at += 1
        if at == len(whole) or whole[at] != char:
            return None
        at += 1
    while at < len(whole) and whole[at].isspace():
        at += 1
    return at
