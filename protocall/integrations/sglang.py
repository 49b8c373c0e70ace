"""protocall as SGLang's reasoning parser and function-call detector, one pair per format.

    sglang serve --model-path MODEL \\
        --reasoning-parser protocall-qwen3-coder --tool-call-parser protocall-qwen3-coder

`pip install 'protocall[sglang]'` registers the `protocall-<format>` names through SGLang's
`sglang.srt.plugins` entry point, which `sglang serve` loads before it reads its arguments.
Supported: SGLang 0.5.23 (`ReasoningParser.DetectorMap`,
`FunctionCallParser.ToolCallParserEnum`, `HookRegistry`).

SGLang runs its two parsers as a pipeline: the reasoning parser reads each delta first and
hands its normal text to the function-call parser, which gets the request's tools only
with each call. Here both share one `Turn`: the reasoning detector feeds the session and
returns reasoning and content; the tool calls it made final wait in the turn for the
function-call detector SGLang calls next, which passes the content on and returns them.
So no text is parsed twice, and a call inside a reasoning block the template pre-opened
is a call (Ling 3.0). The session needs the tools before the first delta, which SGLang
gives the reasoning parser's constructor only as `request`: an after-hook on
`ReasoningParser.__init__` (SGLang's plug-in hook registry) hands the request's tools to
the turn when a tool parser will run. The function-call detector SGLang builds next for
the same request, in the same task, takes that turn (a context variable). Without a
reasoning parser the function-call detector feeds its own turn, and the reasoning it
reads reaches the client as content (SGLang's detector result has no reasoning field).

A call reaches SGLang as one item once the session completes it, so a call cut off or
malformed never reaches the client (`TENTATIVE_CALLS` opts into streaming calls as
written). For `tool_choice="required"`, a named tool or `strict` tools the detector hands
SGLang the format's grammar for the request's tools (`structural_tag`).
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import os
from collections.abc import Iterable
from typing import Any

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult as ToolResult
from sglang.srt.function_call.core_types import ToolCallItem, _GetInfoFunc
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector, ReasoningParser
from sglang.srt.parser.reasoning_parser import StreamingParseResult as ReasoningResult
from sglang.srt.plugins.hook_registry import HookRegistry, HookType

from .. import formats
from ..combinators import UsageError
from ..events import (
    ContentDelta,
    Event,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from ..grammar.structural_tag import json_arguments
from .turn import Turn, tool_dicts

PREFIX = "protocall-"
logger = logging.getLogger(__name__)
TENTATIVE_CALLS = "PROTOCALL_SGLANG_TENTATIVE_CALLS"
"""The environment variable that, set to `1` in the server's environment, makes the
function-call detectors stream each call as it is written (name, then argument fragments)
instead of whole once complete: for interfaces that show progress. A client then
assembles calls that may never complete (cut off by `max_tokens`, malformed)."""


class _SharedTurn(Turn):
    """A turn whose tool-call items wait for the function-call detector.

    By default a call becomes one item (name and complete arguments) when the session
    completes it, numbered by its place among the calls sent, so a call cut off or
    malformed never reaches the client; with `tentative` (`TENTATIVE_CALLS`) its name
    becomes an item once final and each argument fragment another, and `incomplete`
    holds the calls started and not completed (SGLang then does not report
    `tool_calls` as the finish reason)."""

    def __init__(self, fmt: formats.Format) -> None:
        super().__init__(fmt)
        self.calls: list[ToolCallItem] = []
        self.tool_parser = False  # a function-call detector reads the calls
        self.tentative = os.environ.get(TENTATIVE_CALLS, "") == "1"
        self.sent = 0  # calls sent whole
        self.incomplete: set[int] = set()


# The reasoning detector's turn, until the function-call detector of its request takes it.
_pending: contextvars.ContextVar[_SharedTurn | None] = contextvars.ContextVar(
    "protocall_sglang_turn", default=None
)


def _split(turn: _SharedTurn, events: Iterable[Event]) -> tuple[str, str]:
    """The reasoning and content text of `events`; their calls join `turn.calls` as
    SGLang's items (see `_SharedTurn`)."""
    reasoning: list[str] = []
    content: list[str] = []
    tentative = turn.tentative
    for event in events:
        if isinstance(event, ContentDelta):
            content.append(event.text)
        elif isinstance(event, ReasoningDelta):
            reasoning.append(event.text)
        elif isinstance(event, ToolCallEnd):
            if tentative:
                turn.incomplete.discard(event.index)
                continue
            call = event.call
            item = ToolCallItem(
                tool_index=turn.sent, name=call.name, parameters=call.arguments_json
            )
            turn.calls.append(item)
            turn.sent += 1
        elif not tentative:
            continue
        elif isinstance(event, ToolCallStart):
            turn.incomplete.add(event.index)
            start = ToolCallItem(tool_index=event.index, name=event.name, parameters="")
            turn.calls.append(start)
        elif isinstance(event, ToolCallArgumentsDelta):
            part = ToolCallItem(tool_index=event.index, name=None, parameters=event.text)
            turn.calls.append(part)
    return "".join(reasoning), "".join(content)


def _taken(turn: _SharedTurn) -> list[ToolCallItem]:
    calls, turn.calls = turn.calls, []
    return calls


class ProtocallReasoningDetector(BaseReasoningFormatDetector):  # type: ignore[misc, unused-ignore]
    """SGLang's reasoning detector for the format `format_name`: it feeds the request's
    turn and returns its reasoning and content; tool calls wait for the function-call
    detector. `force_reasoning` (the template opened reasoning) picks the format's
    generation prompt for that case; unset, the format's default start applies. Where
    SGLang finds no reasoning toggle in the chat template it decides `force_reasoning` from
    `reasoning_default`: reasoning is opened only for a format whose default start is
    inside it. With
    `stream_reasoning=False` the reasoning is held back and sent in one piece once
    anything else arrives, or at the end of the stream."""

    format_name: str = ""

    def __init__(
        self,
        stream_reasoning: bool = True,
        force_reasoning: bool | None = None,
        tool_call_parser_active: bool = False,
        **kwargs: Any,
    ) -> None:
        fmt = formats.get(self.format_name)
        opener, closer = fmt.channels.get("reasoning", ("", ""))
        # What SGLang assumes when the chat template shows no reasoning toggle: reasoning
        # opened where the format's default start is inside it, else none.
        default = "always" if fmt.start_state(None) == "reasoning" else None
        super().__init__(
            opener,
            closer,
            force_reasoning=bool(force_reasoning),
            stream_reasoning=stream_reasoning,
            reasoning_default=default,
        )
        self._held: list[str] = []  # reasoning not yet sent (stream_reasoning=False)
        self.turn = _SharedTurn(fmt)
        self.turn.thinking = force_reasoning
        self.turn.tool_parser = tool_call_parser_active
        _pending.set(self.turn)

    def _result(self, events: list[Event], end: bool = False) -> ReasoningResult:
        reasoning, content = _split(self.turn, events)
        if not self.stream_reasoning:
            self._held.append(reasoning)
            reasoning = ""
            if end or content or self.turn.calls:
                reasoning, self._held = "".join(self._held), []
        return ReasoningResult(normal_text=content, reasoning_text=reasoning)

    def detect_and_parse(self, text: str) -> ReasoningResult:
        message = self.turn.whole(text)
        return ReasoningResult(message.content, message.reasoning_content)

    def parse_streaming_increment(self, new_text: str) -> ReasoningResult:
        return self._result(self.turn.feed(new_text))

    def finish(self) -> ReasoningResult:
        return self._result(self.turn.finish(), end=True)


class ProtocallFunctionCallDetector(BaseFormatDetector):  # type: ignore[misc, unused-ignore]
    """SGLang's function-call detector for the format `format_name`. Sharing the turn of
    the request's reasoning detector, it passes the content it is given on and returns
    the calls that turn made final; alone, it feeds its own turn with the request's
    tools. A call goes out whole once complete (see `_SharedTurn`). The model writes its
    own format: for `tool_choice="required"`, a named tool or `strict` tools SGLang
    constrains it with the format's grammar (`get_structural_tag`) and parses it as for
    `auto`."""

    format_name: str = ""

    def __init__(self) -> None:
        super().__init__()
        fmt = formats.get(self.format_name)
        pending = _pending.get()
        _pending.set(None)
        self.shared = pending is not None and pending.format is fmt and pending.tool_parser
        self.turn = pending if self.shared and pending is not None else _SharedTurn(fmt)

    def _own(self, tools: Any) -> None:
        if self.turn.session is None:
            self.turn.tools = tool_dicts(tools)

    def _result(self, text: str, events: list[Event]) -> ToolResult:
        if self.shared:
            return ToolResult(normal_text=text, calls=_taken(self.turn))
        reasoning, content = _split(self.turn, events)
        return ToolResult(normal_text=reasoning + content, calls=_taken(self.turn))

    @property
    def incomplete_tool_call_indices(self) -> set[int]:
        """The calls sent in part and not completed (only with `TENTATIVE_CALLS`): SGLang
        keeps the finish reason `stop` for them instead of reporting `tool_calls`."""
        return self.turn.incomplete

    def has_tool_call(self, text: str) -> bool:
        """Whether the complete output `text` holds a call, as the session reads it.
        SGLang asks before `detect_and_parse`, without the tools: a detector alone that
        has not parsed yet answers True, and the session decides there, with them."""
        if not self.shared and self.turn.session is None:
            return True
        return bool(self.turn.whole(text).tool_calls)

    def detect_and_parse(self, text: str, tools: Any) -> ToolResult:
        self._own(tools)
        message = self.turn.whole(text)
        calls = [
            ToolCallItem(tool_index=i, name=call.name, parameters=call.arguments_json)
            for i, call in enumerate(message.tool_calls)
        ]
        if self.shared:  # `text` is the content the reasoning detector gave
            return ToolResult(normal_text=text, calls=calls)
        reasoning = message.reasoning_content or ""
        return ToolResult(normal_text=reasoning + (message.content or ""), calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> ToolResult:
        if self.shared:
            return self._result(new_text, [])
        self._own(tools)
        return self._result(new_text, self.turn.feed(new_text))

    def finish(self, tools: Any) -> ToolResult:
        if self.shared:
            return self._result("", [])
        self._own(tools)
        return self._result("", self.turn.finish())

    def get_structural_tag(
        self,
        tools: Any = None,
        tool_choice: Any = "auto",
        thinking_mode: bool = False,
        parallel_tool_calls: bool = True,
    ) -> Any:
        """The format's own turn for the request's tools as an xgrammar structural tag,
        which SGLang puts in the sampling parameters (see `structural_tag`). SGLang asks
        for it when it builds a request with `tool_choice="required"`, a named tool, or
        `strict` tools; `thinking_mode` is set when no reasoning parser owns the reasoning
        (the grammar then starts inside it)."""
        fmt = formats.get(self.format_name)
        return structural_tag(fmt, tools, tool_choice, thinking_mode, parallel_tool_calls)

    def supports_structural_tag(self) -> bool:
        """False: no legacy begin/end tags (SGLang's JSON-schema fallback for them); the
        format's grammar comes from `get_structural_tag`."""
        return False

    def parses_required_natively(self) -> bool:
        return True

    def structure_info(self) -> _GetInfoFunc:
        raise NotImplementedError(
            f"{PREFIX}{self.format_name} offers no legacy structural tag: its grammar is "
            "the model's own format (get_structural_tag)"
        )


def structural_tag(
    fmt: formats.Format, tools: Any, tool_choice: Any, reasoning: bool, parallel: bool
) -> Any:
    """`fmt`'s turn calling `tools` as an xgrammar `StructuralTag`: protocall's structural
    tag where the format's arguments are one JSON value (it constrains the calls, text
    outside them is free), else its GBNF grammar of the whole turn inside a `grammar`
    format, without the turn's stop (xgrammar admits the model's stop token wherever the
    grammar may end, and never as the stop's text). `tool_choice` is SGLang's (`auto`,
    `required`, or a `ToolChoice` naming a tool); after reasoning (`reasoning` false) the
    turn starts where the format's generation prompt without reasoning leaves it. `None`,
    with a warning, where the format has no grammar for these tools (the model then
    writes unconstrained) or xgrammar is absent."""
    try:
        from xgrammar import StructuralTag
    except ImportError:  # no grammar backend to hand it to
        return None
    function = getattr(tool_choice, "function", None)
    options: dict[str, Any] = {
        "tool_choice": function.name if function is not None else tool_choice,
        "parallel": parallel is not False,
        "reasoning": reasoning,
        "generation_prompt": fmt.prompt_for("reasoning" if reasoning else None),
        "stop": False,  # the stop token ends the turn: xgrammar admits it only where it may end
    }
    declared = tool_dicts(tools) or []
    try:
        if json_arguments(fmt):  # else the whole turn's GBNF, stricter than tags of it
            tag = fmt.decoding_grammar(declared, "structural-tag", **options)
            return StructuralTag.model_validate_json(tag)
    except UsageError:
        pass
    try:
        exported = fmt.decoding_export(declared, "gbnf", **options)
    except UsageError as error:
        logger.warning("%s%s: no grammar for this request (%s)", PREFIX, fmt.name, error)
        return None
    if exported.dropped:  # looser than the schemas there; the session still validates
        dropped = "; ".join(exported.dropped)
        logger.warning("%s%s: grammar without %s", PREFIX, fmt.name, dropped)
    grammar = {"type": "grammar", "grammar": exported.text}
    return StructuralTag.model_validate({"format": grammar})


def _tools_hook(result: Any, parser: Any, *args: Any, **kwargs: Any) -> None:
    """After `ReasoningParser.__init__`: a protocall detector's turn gets the request's
    tools when a function-call parser will read its output."""
    detector = getattr(parser, "detector", None)
    if isinstance(detector, ProtocallReasoningDetector) and detector.turn.tool_parser:
        bound = _INIT_SIGNATURE.bind(parser, *args, **kwargs)
        detector.turn.tools = tool_dicts(_request_tools(bound.arguments.get("request")))


def _request_tools(request: Any) -> list[Any]:
    """The tools a request declares, as SGLang hands them to its function-call parser:
    the request's own, then those its root, system and developer messages carry."""
    tools = list(getattr(request, "tools", None) or ())
    for message in getattr(request, "messages", None) or ():
        if getattr(message, "role", None) in ("root", "system", "developer"):
            tools.extend(getattr(message, "tools", None) or ())
    return tools


_INIT_SIGNATURE = inspect.signature(ReasoningParser.__init__)


def detector_classes(
    name: str,
) -> tuple[type[ProtocallReasoningDetector], type[ProtocallFunctionCallDetector]]:
    """The reasoning and function-call detector classes for the registered format `name`."""
    formats.get(name)  # an unknown name lists the known ones
    title = "".join(part.capitalize() for part in name.replace(".", "-").split("-"))
    # The module named explicitly: SGLang's detector base is an ABC, and a class ABCMeta
    # builds would otherwise take its module from the frame that called `type`, abc's.
    fields = {"format_name": name, "__module__": __name__}
    reasoning = type(f"{title}ReasoningDetector", (ProtocallReasoningDetector,), fields)
    tool = type(f"{title}Detector", (ProtocallFunctionCallDetector,), fields)
    return reasoning, tool


_hooked: list[Any] = []
_HOOK_TARGET = "sglang.srt.parser.reasoning_parser.ReasoningParser.__init__"


def register() -> None:
    """Register `protocall-<format>` for every registered format in SGLang's reasoning
    and function-call registries, and the tools hook (the `sglang.srt.plugins` entry
    point; idempotent)."""
    for name in formats.names():
        reasoning, tool = detector_classes(name)
        ReasoningParser.DetectorMap[PREFIX + name] = reasoning
        FunctionCallParser.ToolCallParserEnum[PREFIX + name] = tool
    if _tools_hook not in _hooked:
        _hooked.append(_tools_hook)
        HookRegistry.register(_HOOK_TARGET, _tools_hook, HookType.AFTER)
        HookRegistry.apply_hooks()


register()
