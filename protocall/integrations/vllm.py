"""protocall as vLLM's reasoning and tool parser, one pair per registered format.

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-call-parser protocall-qwen3-coder --reasoning-parser protocall-qwen3-coder

`pip install 'protocall[vllm]'` registers the `protocall-<format>` names through vLLM's
`vllm.general_plugins` entry point; without it, `--tool-parser-plugin` and
`--reasoning-parser-plugin` take `protocall.integrations.vllm` (the dotted name: vLLM
imports a file path under the file's own name, here `vllm`). Supported: vLLM 0.33 and 0.34
(the split `ReasoningParser` / `ToolParser` classes with `engine_based_streaming`, under
which vLLM passes each call only the new text). Older versions resend the whole text on
every call, which a resumable parser must not be fed: importing this module there raises
ImportError.

The two parsers vLLM builds for a request share one `Turn` (see `turn`): the tool parser
takes the reasoning parser built just before it on the same thread (vLLM builds the pair
together, reasoning first). Whichever vLLM calls feeds the session and reports every field,
so the reasoning parser never hands the stream over (`has_engine_confirmed_reasoning_end`
stays False) and no text is parsed twice. With no tool parser configured (no
`--enable-auto-tool-choice`), or a request without tools, no tool is declared and a call's
raw text stays in the content.

A call is sent whole, in one delta, once the session has completed it (arguments parsed
and validated): a call cut off by `max_tokens` or malformed never reaches the client as a
call. `PROTOCALL_VLLM_TENTATIVE_CALLS=1` streams calls as they are written instead. A
request that forces a call (`tool_choice` `required` or a named tool) or declares a
`strict` tool is given protocall's grammar for the format as its structured output
(`constrain`).

Special tokens (the defence against marker injection): the format's markers, or parts of
them, that the tokenizer holds as added tokens are recognised only where their token id
arrives in `delta_token_ids`; the same text spelled out of ordinary tokens (a document the
model copies) stays text (see `protocall.special_tokens`). Each delta is split at those ids
(the text of a delta with none is ordinary, the common case; see `spans`). The request is
set to keep special tokens in the text (`skip_special_tokens=False`, no spaces around
them); where the text lacks one the ids show anyway, its text is put back where the ids
place it, but for the stop token's, which vLLM leaves out of the output. A
non-streaming request is parsed from its text alone (vLLM passes no token ids there), with
every marker recognised.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.reasoning import ReasoningParser, ReasoningParserManager
from vllm.sampling_params import StructuredOutputsParams
from vllm.tool_parsers import ToolParser, ToolParserManager

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
from ..formats import Format
from ..message import ToolCall as Call
from .turn import PROMPT_TAIL_TOKENS, Turn, tool_dicts

if not hasattr(ToolParser, "engine_based_streaming"):
    raise ImportError(
        "protocall.integrations.vllm needs vLLM 0.33 or later (parsers with "
        "engine_based_streaming, passed only the new text of each delta)"
    )

PREFIX = "protocall-"
_log = logging.getLogger(__name__)
TENTATIVE_CALLS = "PROTOCALL_VLLM_TENTATIVE_CALLS"
"""The environment variable that, set to `1` in the server's environment, makes the
parsers stream each call as it is written (name, then argument fragments) instead of
whole once complete: for interfaces that show progress. A client then assembles calls
that may never complete (cut off by `max_tokens`, malformed, failing validation)."""
_pending = threading.local()  # the reasoning parser's turn, until its tool parser takes it


def constructor(model: Any) -> Callable[..., Any]:
    """`model.model_construct` for calls that give every field of `model` by name: the
    same instance (`__dict__`, fields set, empty extra or none, no private values) without
    its loop over the fields, which costs more than all of protocall's parsing of a delta.
    A model with a post-init hook, or a root model, gets `model_construct` itself."""
    if model.__pydantic_post_init__ or model.__pydantic_root_model__:
        return model.model_construct  # type: ignore[no-any-return]
    extra = model.model_config.get("extra") == "allow"
    new = model.__new__
    put = object.__setattr__

    def build(**values: Any) -> Any:
        instance = new(model)
        put(instance, "__dict__", values)
        put(instance, "__pydantic_fields_set__", set(values))
        put(instance, "__pydantic_extra__", {} if extra else None)
        put(instance, "__pydantic_private__", None)
        return instance

    return build


_message = constructor(DeltaMessage)
_call = constructor(DeltaToolCall)
_function = constructor(DeltaFunctionCall)


def _decode(tokenizer: Any, ids: Sequence[int]) -> str:
    """Token ids as text with special tokens kept (markers are often special tokens)."""
    try:
        return str(tokenizer.decode(list(ids), skip_special_tokens=False))
    except TypeError:
        return str(tokenizer.decode(list(ids)))


_specials_cache: dict[tuple[int, str], tuple[Any, dict[int, str]]] = {}


def special_ids(tokenizer: Any, fmt: Format) -> dict[int, str]:
    """The ids of the tokenizer's added tokens whose text is a marker of `fmt` or part of
    one, with their text (computed once per tokenizer and format)."""
    key = (id(tokenizer), fmt.name)
    cached = _specials_cache.get(key)
    if cached is not None and cached[0] is tokenizer:
        return cached[1]
    added = getattr(tokenizer, "get_added_vocab", None)
    vocab: Mapping[str, int] = added() if added is not None else {}
    markers = [*fmt.reserved, *(marker for pair in fmt.channels.values() for marker in pair)]
    found = {i: text for text, i in vocab.items() if text and any(text in m for m in markers)}
    _specials_cache[key] = (tokenizer, found)
    return found


Pieces = list[tuple[str, bool]]
"""Text in order, each piece ordinary (False) or a special token's text (True)."""


def spans(
    text: str, ids: Sequence[int], specials: Mapping[int, str], tokenizer: Any
) -> tuple[Pieces, Pieces, int]:
    """`text` (one delta) split into ordinary text and the special tokens its `ids` hold:
    the pieces that arrived, the pieces still due, and how many characters of the first
    due piece did arrive.

    The ids' text (one decode of the delta) is split at the special tokens, found in it in
    order when the ordinary text between them holds none of them again (no copy spelled
    out of ordinary tokens to mistake for one), else placed by their ordinary ids' decoded
    length (`placed`). `text` is that text but for what vLLM's detokenizer moves: it leaves
    out the stop token's text, which ends the last delta, and with a request's stop
    strings it holds back the text that could start one, which comes with later deltas
    (some of it, ordinary, may start this delta's text). So what of the ids' text has not
    arrived is due (the caller settles it with the next deltas, see `_Turn.delta`). When
    `text` does not line up with the ids' text so (the server skipped special tokens, a
    character's bytes straddle deltas), each special token is placed in `text` itself."""
    # Bytes that end a character begun in the previous delta decode to U+FFFD here; the
    # character is in `text` whole, like held-back text (`_shift`).
    whole = _decode(tokenizer, ids).lstrip(_REPLACEMENT)
    markers = [specials[token] for token in ids if token in specials]
    pieces = _found(whole, markers) or placed(whole, ids, specials, tokenizer)[0]
    if whole.startswith(text):
        arrived, due, partly = _cut(pieces, len(text))
        due = _clean(due)
        if all(special for _, special in due) or text != _ordinary(pieces):
            return _clean(arrived), due, partly
    if text == _ordinary(pieces):
        return _clean(pieces), [], 0  # the server skipped the special tokens' text
    held = _shift(text, whole)
    if held is not None:
        arrived, due, partly = _cut(pieces, len(text) - held)
        return _clean([(text[:held], False), *arrived]), _clean(due), partly
    skipped = len(text) + _SLACK < len(whole) - (len(markers[-1]) if ids[-1] in specials else 0)
    arrived, owed = placed(text, ids, specials, tokenizer, skipped)
    return _clean(arrived), [(owed, True)] if owed else [], 0


def _before(text: str, marker: str) -> int:
    """Where `marker`, or a prefix of it that ends `text`, starts in `text` (`len(text)`
    when neither does)."""
    found = text.find(marker)
    if found >= 0:
        return found
    for start in range(max(0, len(text) - len(marker) + 1), len(text)):
        if marker.startswith(text[start:]):
            return start
    return len(text)


def _ordinary(pieces: Pieces) -> str:
    return "".join(piece for piece, special in pieces if not special)


def _shift(text: str, whole: str) -> int | None:
    """How many characters start `text` before the ids' text `whole` does (ordinary text
    earlier deltas held back), if within `_HELD`; None if `text` is no such shift."""
    for start in range(1, min(len(text), _HELD) + 1):
        if whole.startswith(text[start:]):
            return start
    return None


_REPLACEMENT = "\ufffd"
_HELD = 256
"""The most characters vLLM's detokenizer is taken to hold back (a stop string's length)."""


def _cut(pieces: Pieces, length: int) -> tuple[Pieces, Pieces, int]:
    """`pieces` cut after `length` characters: those before, those after, and how many
    characters of the first after arrived (a special token's text is never cut: it goes
    after whole, the characters of it that arrived counted)."""
    at = 0
    for index, (piece, special) in enumerate(pieces):
        end = at + len(piece)
        if end > length:
            if special or at == length:
                return pieces[:index], pieces[index:], length - at
            head, tail = piece[: length - at], piece[length - at :]
            return [*pieces[:index], (head, False)], [(tail, False), *pieces[index + 1 :]], 0
        at = end
    return pieces, [], 0


def _clean(pieces: Pieces) -> Pieces:
    return [piece for piece in pieces if piece[0]]


def _found(text: str, markers: Sequence[str]) -> list[tuple[str, bool]] | None:
    """`text` split at the first occurrences of `markers` in turn, or None when one is
    missing or the text between them holds one of them again (which is which would take
    the token ids' text)."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for marker in markers:
        start = text.find(marker, at)
        if start < 0:
            return None
        pieces += ((text[at:start], False), (marker, True))
        at = start + len(marker)
    pieces.append((text[at:], False))
    distinct = set(markers)
    for piece, special in pieces:
        if not special and any(marker in piece for marker in distinct):
            return None
    return pieces


def placed(
    text: str,
    ids: Sequence[int],
    specials: Mapping[int, str],
    tokenizer: Any,
    skipped: bool = False,
) -> tuple[list[tuple[str, bool]], str | None]:
    """`text` split at its special tokens by where their ids place them: each where the
    ordinary ids before it end (their text decoded), within a few characters (what an
    incremental detokenizer moves between deltas), so a copy of the same text spelled out
    of ordinary tokens, just before or after it, stays ordinary. With `skipped` (the
    server left special tokens out of the text: it is shorter than the ids' text with
    them), each is put in at its place. Otherwise one that ends `ids` without its text
    there is due, not put in (see `spans`)."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    run: list[int] = []  # ordinary ids since the last special token
    last = len(ids) - 1
    for index, token in enumerate(ids):
        marker = specials.get(token)
        if marker is None:
            run.append(token)
            continue
        start = end = min(at + (len(_decode(tokenizer, run)) if run else 0), len(text))
        found = None if skipped else _near(text, marker, start, at)
        if found is None and index == last and not skipped:
            pieces.append((text[at:], False))
            return pieces, marker
        if found is not None:
            start, end = found, found + len(marker)
        pieces += ((text[at:start], False), (marker, True))
        at, run = end, []
    pieces.append((text[at:], False))
    return pieces, None


_SLACK = 2
"""How many characters a delta's text may differ from its ids decoded alone."""


def _near(text: str, marker: str, hint: int, low: int) -> int | None:
    """Where `marker` starts in `text` within `_SLACK` of `hint` (the nearest), not before
    `low`."""
    for offset in (0, -1, 1, -2, 2)[: 2 * _SLACK + 1]:
        start = hint + offset
        if start >= low and text.startswith(marker, start):
            return start
    return None


def _keep_markers(request: Any) -> Any:
    """Markers must survive detokenization: keep special tokens, no spaces between them."""
    if hasattr(request, "skip_special_tokens"):
        request.skip_special_tokens = False
    if hasattr(request, "spaces_between_special_tokens"):
        request.spaces_between_special_tokens = False
    return request


def tentative_calls() -> bool:
    """Whether the server asked for calls streamed as written (`TENTATIVE_CALLS`)."""
    return os.environ.get(TENTATIVE_CALLS, "") == "1"


_LARK_TOKEN = re.compile(r"<[^<>\s]+>")
"""A special token's text as llguidance's Lark reads it for that token."""


def forced(request: Any, tools: Sequence[Mapping[str, Any]]) -> str | None:
    """The `tool_choice` of the grammar `request` asks for (see `constrain`): `required`,
    the forced tool's name, `auto` where a tool is `strict: true`; None for none."""
    choice = request.tool_choice
    if choice == "required":
        return "required"
    if choice == "auto" or choice is None:
        strict = any((tool.get("function") or tool).get("strict") for tool in tools)
        return "auto" if strict else None
    function = getattr(choice, "function", choice)  # chat: `.function.name`, responses: `.name`
    name = getattr(function, "name", None)
    return name if isinstance(name, str) else None


def constrain(request: Any, turn: Turn) -> Any:
    """`request` constrained to the format's own turns with its tools, when it forces a
    call (`tool_choice` `required` or a named tool) or declares a `strict` tool: the Lark
    grammar protocall exports for the format (`Format.decoding_export`, from the turn's
    generation prompt on, reasoning included), as the request's structured output, which
    vLLM compiles with llguidance. The grammar covers the reasoning block, so it applies
    from the first token (`_grammar_from_parser`, vLLM's flag for a parser's grammar).
    A schema keyword the grammar cannot write is left out (the warning names it). Where
    the format has no grammar export, it refuses the tools, or a special token of the
    format is not of the `<...>` shape by which the Lark names a token by its text
    (DeepSeek's `｜DSML｜`), the request goes unconstrained (logged): the session still
    parses and validates what the model writes.
    A request's own structured output is replaced, as vLLM's parsers replace it for a
    forced call."""
    tools = turn.tools
    mode = forced(request, tools) if tools else None
    if mode is None or not tools:
        return request
    unnamed = [token for token in turn.special_tokens if not _LARK_TOKEN.fullmatch(token)]
    if unnamed:
        _log.warning(
            "protocall-%s: request not constrained: llguidance's Lark names a special token "
            "by its text only in the <...> shape, not %s",
            turn.format.name,
            ", ".join(unnamed),
        )
        return request
    try:
        exported = turn.format.decoding_export(
            tools,
            "lark",
            tool_choice=mode,
            parallel=request.parallel_tool_calls is not False,
            generation_prompt=turn.generation_prompt(),
            special_tokens=turn.special_tokens,
        )
    except UsageError as error:
        _log.warning("protocall-%s: request not constrained: %s", turn.format.name, error)
        return request
    if exported.dropped:  # looser than the schemas there; the session still validates
        dropped = "; ".join(exported.dropped)
        _log.warning("protocall-%s: grammar without %s", turn.format.name, dropped)
    request.structured_outputs = StructuredOutputsParams(grammar=exported.text)
    for field in ("response_format", "text"):  # chat, responses: replaced by the grammar
        if hasattr(request, field):
            setattr(request, field, None)
    if hasattr(request, "_grammar_from_parser"):
        request._grammar_from_parser = True
    return request


class _Turn(Turn):
    """A request's turn as vLLM's parsers feed it: deltas with their token ids in, one
    `DeltaMessage` per delta out."""

    def __init__(self, fmt: Format, tokenizer: Any) -> None:
        super().__init__(fmt)
        self.tokenizer = tokenizer
        self.specials = special_ids(tokenizer, fmt)
        self.special_tokens = tuple(dict.fromkeys(self.specials.values()))
        self.held: list[Event] = []  # events that wait for the next delta (see `_in_order`)
        self.due: list[str] = []  # special tokens of earlier deltas whose text is due
        self.partly = 0  # how much of the first due piece arrived
        self.waited = 0  # ordinary text fed while a due special token's text is awaited
        self.tentative = tentative_calls()
        self.sent = 0  # calls sent whole

    def delta(self, text: str, ids: Sequence[int]) -> DeltaMessage | None:
        """The message of one delta: its text ordinary unless its ids hold special tokens.
        The special tokens earlier deltas left due (see `spans`) are settled first; while
        one is still due, the delta's text is all earlier text and its own special tokens
        are due after it."""
        specials = self.specials
        events: list[Event] = []
        if self.due:
            text = self._settle(text, events)
            if self.due:
                self.due += [specials[token] for token in ids if token in specials]
                return self.message(self._in_order(events))
        if not specials or specials.keys().isdisjoint(ids):
            fed = self.feed(text)
            if not (fed or events or self.held):  # most deltas of a call's arguments
                return None
            events += fed
        else:
            pieces, due, partly = spans(text, ids, specials, self.tokenizer)
            for piece, special in pieces:
                events += self.feed(piece, special)
            first = due[0][1] if due else False
            self.due = [piece for piece, special in due if special]
            self.partly = partly if first else 0
        return self.message(self._in_order(events))

    def _settle(self, text: str, events: list[Event]) -> str:
        """Feed what `text` brings of the special tokens due, in order, with the ordinary
        text before each (text a stop string's hold-back kept from earlier deltas, at most
        `_HELD` characters); what of `text` follows them. A due token whose text has not
        come within that was left out of the text (the server skipped it): it is fed."""
        due = self.due
        while due and text:
            marker = due[0]
            if self.partly:
                rest = marker[self.partly :]
                if rest.startswith(text):
                    self.partly += len(text)
                    return ""
                if not text.startswith(rest):  # what began like it was ordinary text
                    events += self.feed(marker[: self.partly])
                    self.waited += self.partly
                    self.partly = 0
                    continue
                text = text[len(rest) :]
            else:
                if self.waited + len(text) > _HELD:
                    for marker in due:
                        events += self.feed(marker, True)
                    due.clear()
                    break
                before = _before(text, marker)
                events += self.feed(text[:before])
                self.waited += before
                text = text[before:]
                if not text.startswith(marker):
                    self.partly = len(text)  # a beginning of it ends the text
                    return ""
                text = text[len(marker) :]
            events += self.feed(marker, True)
            del due[0]
            self.partly = self.waited = 0
        return text

    def last(self) -> DeltaMessage | None:
        """The message of the end of the stream: everything still held back. Text still
        due never comes: the stop token's, or what followed a stop string."""
        self.due, self.partly = [], 0
        events, self.held = self.held + self.finish(), []
        return self.message(events)

    def message(self, events: Iterable[Event]) -> DeltaMessage | None:
        """The `DeltaMessage` carrying `events` (None when they carry nothing to send).

        A call goes out whole, in one `DeltaToolCall` (id, name and its complete
        arguments), when the session completes it (`ToolCallEnd`: arguments parsed and
        validated), so a call cut off or malformed never reaches the client as a call; its
        `index` is its place among the calls sent. With `tentative` (`TENTATIVE_CALLS`), a
        call is sent as it streams instead: its name once final, then its argument
        fragments, which a client assembles even when the call never completes.

        Built as `model_construct` builds it, every field given (see `constructor`): the
        fields come from protocall's typed events, so pydantic's validation would check
        nothing."""
        reasoning: list[str] = []
        content: list[str] = []
        calls: list[Any] = []
        tentative = self.tentative
        for event in events:
            kind = type(event)
            if kind is ContentDelta or kind is ReasoningDelta:
                (content if kind is ContentDelta else reasoning).append(event.text)  # type: ignore[union-attr]
            elif kind is ToolCallEnd and not tentative:
                call: Call = event.call  # type: ignore[union-attr]
                function = _function(name=call.name, arguments=call.arguments_json)
                calls.append(_call(id=call.id, type="function", index=self.sent, function=function))
                self.sent += 1
            elif kind is ToolCallStart and tentative:
                start: ToolCallStart = event  # type: ignore[assignment]
                function = _function(name=start.name, arguments="")
                calls.append(
                    _call(id=start.id, type="function", index=start.index, function=function)
                )
            elif kind is ToolCallArgumentsDelta and tentative:
                part: ToolCallArgumentsDelta = event  # type: ignore[assignment]
                function = _function(name=None, arguments=part.text)
                fragment = _call(id=None, type=None, index=part.index, function=function)
                # Unset, so left out of the chunk: a client would take the None for a value.
                fragment.__pydantic_fields_set__ -= {"id", "type"}
                function.__pydantic_fields_set__ -= {"name"}
                calls.append(fragment)
        if not (reasoning or content or calls):
            return None
        message: DeltaMessage = _message(
            role=None,
            content="".join(content) or None,
            reasoning="".join(reasoning) or None,
            tool_calls=calls,
        )
        return message

    def _in_order(self, events: list[Event]) -> list[Event]:
        """The longest run of the held and new events that one `DeltaMessage` carries in
        the order they happened; the rest is held for the next delta. vLLM's Responses API
        splits a delta into its reasoning, then its content, then its tool calls, so text
        that follows a call's part in one delta would reach the client before it (and a
        call's arguments after that text would open a call without a name)."""
        events = self.held + events if self.held else events
        rank = 0
        for at, event in enumerate(events):
            after = _RANK.get(type(event), rank)
            if after < rank:
                self.held = events[at:]
                return events[:at]
            rank = after
        self.held = []
        return events


_RANK = {
    ReasoningDelta: 0,
    ContentDelta: 1,
    ToolCallStart: 2,
    ToolCallArgumentsDelta: 2,
    ToolCallEnd: 2,
}
"""Where `split_delta` (vLLM's Responses API) puts each kind of event in a delta."""


class ProtocallReasoningParser(ReasoningParser):  # type: ignore[misc, unused-ignore]
    """vLLM's reasoning parser for the format `format_name`: it feeds the request's
    turn and returns every field (reasoning, content and tool calls) per delta."""

    format_name: str = ""
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self.turn = _Turn(formats.get(self.format_name), tokenizer)
        template = kwargs.get("chat_template_kwargs") or {}
        thinking = template.get("enable_thinking", template.get("thinking"))
        self.turn.thinking = None if thinking is None else bool(thinking)
        _pending.turn = (tokenizer, self.turn)

    # -- where reasoning ends, for vLLM's routing and its structured-output gate ---------

    def _closed(self, ids: Sequence[int]) -> bool:
        """Whether `ids` end with no reasoning block left open (judged on their tail)."""
        markers = self.turn.format.channels.get("reasoning")
        if markers is None:
            return True
        text = _decode(self.model_tokenizer, ids[-PROMPT_TAIL_TOKENS:])
        return text.rfind(markers[1]) > text.rfind(markers[0])

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        return self._closed(input_ids)

    def is_reasoning_end_streaming(
        self, input_ids: Sequence[int], delta_ids: Iterable[int]
    ) -> bool:
        return self._closed(input_ids)

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        """The ids after the last reasoning close, when that marker is one token."""
        markers = self.turn.format.channels.get("reasoning")
        close = self.vocab.get(markers[1]) if markers else None
        if close is None or close not in input_ids:
            return input_ids
        return input_ids[len(input_ids) - input_ids[::-1].index(close) :]

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        self.turn.prompt = _decode(self.model_tokenizer, prompt_token_ids[-PROMPT_TAIL_TOKENS:])

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return False  # this parser reports every field: the stream stays with it

    # -- parsing -------------------------------------------------------------------------

    def adjust_request(self, request: Any) -> Any:
        return _keep_markers(request)

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        message = self.turn.whole(model_output)
        return message.reasoning_content, message.content

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        return self.turn.delta(delta_text, delta_token_ids)

    def finish_streaming(self) -> DeltaMessage | None:
        return self.turn.last()


class ProtocallToolParser(ToolParser):  # type: ignore[misc, unused-ignore]
    """vLLM's tool parser for the format `format_name`, sharing the turn of the reasoning
    parser built with it (its own turn when there is none)."""

    format_name: str = ""
    engine_based_streaming = True
    supports_required_and_named = False  # the model writes its own format, not JSON

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None, **kwargs: Any) -> None:
        super().__init__(tokenizer, tools)
        pending = getattr(_pending, "turn", None)
        _pending.turn = None
        fmt: Format = formats.get(self.format_name)
        if pending is not None and pending[0] is tokenizer and pending[1].format is fmt:
            self.turn: _Turn = pending[1]
        else:
            self.turn = _Turn(fmt, tokenizer)
        self.turn.tools = tool_dicts(self.tools)

    def adjust_request(self, request: Any) -> Any:
        return constrain(super().adjust_request(_keep_markers(request)), self.turn)

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        message = self.turn.whole(model_output)
        calls = [
            ToolCall(
                id=call.id, function=FunctionCall(name=call.name, arguments=call.arguments_json)
            )
            for call in message.tool_calls
        ]
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=message.content
        )

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> DeltaMessage | None:
        return self.turn.delta(delta_text, delta_token_ids)

    def finish_streaming(self) -> DeltaMessage | None:
        return self.turn.last()


def parser_classes(name: str) -> tuple[type[ProtocallReasoningParser], type[ProtocallToolParser]]:
    """The reasoning and tool parser classes for the registered format `name`."""
    formats.get(name)  # an unknown name lists the known ones
    title = "".join(part.capitalize() for part in name.replace(".", "-").split("-"))
    reasoning = type(f"{title}ReasoningParser", (ProtocallReasoningParser,), {"format_name": name})
    tool = type(f"{title}ToolParser", (ProtocallToolParser,), {"format_name": name})
    return reasoning, tool


def register() -> None:
    """Register `protocall-<format>` for every registered format with vLLM's managers
    (the `vllm.general_plugins` entry point; idempotent)."""
    for name in formats.names():
        reasoning, tool = parser_classes(name)
        ReasoningParserManager.register_module(name=PREFIX + name, module=reasoning)
        ToolParserManager.register_module(name=PREFIX + name, module=tool)


register()  # `--tool-parser-plugin` / `--reasoning-parser-plugin` import this module
