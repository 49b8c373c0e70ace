"""The properties every format must have (DESIGN.md §4 and §7), as checks of one `Trial`.

A trial is one input (a `Case`) parsed twice: in one chunk and in a drawn chunking. Each
check returns `None` when the property holds (or does not apply to the case) and otherwise a
`Problem`: what was expected and what happened, ready for a report.
"""

from __future__ import annotations

import json
import pprint
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .. import ast, formats, parse
from ..events import (
    ContentDelta,
    Event,
    ProtocolError,
    ReasoningDelta,
    ToolCallArgumentsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from ..formats import Format
from .run import Outcome, merge_deltas
from .strategies import Case, contains_any


@dataclass
class Trial:
    """`case` parsed in one chunk (`whole`) and in `chunks` (`streamed`); for a truncation,
    `reference` is the untruncated text parsed in one chunk."""

    fmt: Format
    case: Case
    chunks: Sequence[str | bytes]
    whole: Outcome
    streamed: Outcome
    reference: Outcome | None = None

    @property
    def outcomes(self) -> tuple[Outcome, Outcome]:
        return self.whole, self.streamed


class Problem(NamedTuple):
    """What was expected and what happened; `in_one_chunk` when it happened with the input
    in one chunk (so the report shows that chunking)."""

    expected: str
    got: str
    in_one_chunk: bool = False


@dataclass(frozen=True)
class Property:
    name: str
    statement: str
    check: Callable[[Trial], Problem | None]


def show(value: Any, width: int = 96) -> str:
    return pprint.pformat(value, width=width, sort_dicts=False)


# -- checks ---------------------------------------------------------------------------------


def parses_back(trial: Trial) -> Problem | None:
    expected = trial.case.expected
    if expected is None:
        return None
    message = trial.whole.message
    if message.to_dict() == expected and not message.errors:
        return None
    errors = f"\nerrors: {show(list(message.errors))}" if message.errors else ""
    return Problem(f"{show(expected)}\n(no errors)", show(message.to_dict()) + errors, True)


def prefix_violation(batches: Sequence[Sequence[Event]], full: Sequence[Event]) -> int | None:
    """The index of the first batch after which the events so far stop being a prefix of
    `full`, or None."""
    target = merge_deltas(full)
    merged: list[Event] = []
    for number, batch in enumerate(batches):
        if not batch:
            continue
        settled = max(len(merged) - 1, 0)
        merged = merged[:settled] + merge_deltas([*merged[settled:], *batch])
        if len(merged) > len(target) or merged[settled:-1] != target[settled : len(merged) - 1]:
            return number
        last, other = merged[-1], target[len(merged) - 1]
        if last != other and not (
            isinstance(last, ContentDelta | ReasoningDelta | ToolCallArgumentsDelta)
            and type(last) is type(other)
            and getattr(last, "index", None) == getattr(other, "index", None)
            and other.text.startswith(last.text)
        ):
            return number
    return None


def _fed(chunks: Sequence[str | bytes], count: int) -> str:
    pieces = chunks[:count]
    if pieces and isinstance(pieces[0], bytes):
        return repr(b"".join(p for p in pieces if isinstance(p, bytes)))
    return repr("".join(p for p in pieces if isinstance(p, str)))


def emitted_means_final(trial: Trial) -> Problem | None:
    batches = trial.streamed.per_chunk[:-1]
    bad = prefix_violation(batches, trial.whole.events)
    if bad is not None:
        so_far = [e for batch in batches[: bad + 1] for e in batch]
        return Problem(
            f"the events emitted after feeding {_fed(trial.chunks, bad + 1)} to be a prefix of "
            f"the events of the whole input:\n{show(merge_deltas(trial.whole.events))}",
            show(merge_deltas(so_far)),
        )
    if trial.reference is not None:
        before = [e for batch in batches for e in batch]
        if prefix_violation([before], trial.reference.events) is not None:
            return Problem(
                "the events emitted for this prefix (before finish) to be a prefix of the "
                f"events of the untruncated turn:\n{show(merge_deltas(trial.reference.events))}",
                show(merge_deltas(before)),
            )
    return None


def chunking_invariance(trial: Trial) -> Problem | None:
    whole, streamed = trial.whole, trial.streamed
    a, b = whole.merged_events, streamed.merged_events
    if a != b:
        at = next(
            (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
        )
        return Problem(
            f"the events of the input in one chunk (merged), from event {at}:\n{show(a[at:])}",
            f"{show(b[at:])}",
        )
    if whole.message != streamed.message:
        return Problem(show(whole.message), show(streamed.message))
    a_tree, b_tree = _shape(whole.tree), _shape(streamed.tree)
    if a_tree != b_tree:
        return Problem(f"the semantic tree of the input in one chunk: {a_tree}", f"{b_tree}")
    return None


def _shape(node: ast.Node) -> tuple[Any, ...]:
    """A node as its tag, span, completeness, value and text, and its child nodes' shapes:
    what a chunking must not change. Content and reasoning text is the input itself, so its
    spans (merged where contiguous) are compared too; synthesised text may split anywhere."""
    children = tuple(_shape(child) for child in node.children if isinstance(child, ast.Node))
    spans = tuple(
        (child.start, child.end)
        for child in node.children
        if isinstance(child, ast.TextSpan) and node.tag in (ast.CONTENT, ast.REASONING)
    )
    value = repr(node.value)
    return (node.tag, node.start, node.end, node.complete, value, node.text, spans, children)


def one_shot_parse(trial: Trial) -> Problem | None:
    fmt, case = trial.fmt, trial.case
    if case.expected is None or case.truncates is not None:
        return None  # one extra session per valid turn is enough: the code path is shared
    if fmt.name not in formats.names() or formats.get(fmt.name) is not fmt:
        return None
    text = case.data if case.data is not None else case.text
    message = parse(text, fmt.name, case.tools, case.generation_prompt, seed=0)
    if message == trial.whole.message:
        return None
    return Problem(f"protocall.parse to give {show(trial.whole.message)}", show(message), True)


def per_outcome(
    check: Callable[[Trial, Outcome], Problem | None],
) -> Callable[[Trial], Problem | None]:
    """A check of each outcome of a trial, the input in one chunk first."""

    def check_both(trial: Trial) -> Problem | None:
        for outcome in trial.outcomes:
            problem = check(trial, outcome)
            if problem is not None:
                return problem._replace(in_one_chunk=outcome is trial.whole)
        return None

    check_both.__doc__ = check.__doc__
    return check_both


def _texts(events: Sequence[Event], kind: type[ContentDelta | ReasoningDelta]) -> str | None:
    return "".join(e.text for e in events if isinstance(e, kind)) or None


@per_outcome
def deltas_add_up(trial: Trial, outcome: Outcome) -> Problem | None:
    message, events = outcome.message, outcome.events
    for field, kind, value in (
        ("content", ContentDelta, message.content),
        ("reasoning_content", ReasoningDelta, message.reasoning_content),
    ):
        joined = _texts(events, kind)
        if joined != value:
            return Problem(f"{kind.__name__}s to add up to {field} {value!r}", repr(joined))
    for end in (e for e in events if isinstance(e, ToolCallEnd)):
        pieces = "".join(
            e.text for e in events if isinstance(e, ToolCallArgumentsDelta) and e.index == end.index
        )
        call = end.call
        if pieces != call.arguments_json:
            return Problem(
                f"the arguments deltas of call {end.index} to add up to {call.arguments_json!r}",
                repr(pieces),
            )
        try:
            decoded = json.loads(call.arguments_json)
        except ValueError as error:
            decoded = f"invalid JSON ({error})"
        if decoded != call.arguments:
            return Problem(
                f"arguments_json of call {end.index} to decode to {call.arguments!r}",
                repr(decoded),
            )
    return None


def _event_order(outcome: Outcome) -> str | None:
    started: dict[int, ToolCallStart] = {}
    ended: list[ToolCallEnd] = []
    for event in outcome.events:
        if isinstance(event, ToolCallStart):
            if event.index != len(started):
                return f"{event} (call indices must be 0, 1, 2, … in order)"
            started[event.index] = event
        elif isinstance(event, ToolCallArgumentsDelta | ToolCallEnd):
            done = any(end.index == event.index for end in ended)
            if event.index not in started or done:
                return f"{event} outside its call (started: {sorted(started)})"
            if isinstance(event, ToolCallEnd):
                start = started[event.index]
                if (event.call.name, event.call.id) != (start.name, start.id):
                    return f"{event} does not complete {start}"
                ended.append(event)
    if outcome.message.tool_calls != tuple(end.call for end in ended):
        return "message.tool_calls are not the calls of the ToolCallEnd events"
    if outcome.message.errors != tuple(e for e in outcome.events if isinstance(e, ProtocolError)):
        return "message.errors are not the ProtocolError events"
    return None


@per_outcome
def events_well_formed(trial: Trial, outcome: Outcome) -> Problem | None:
    problem = _event_order(outcome)
    if problem is None:
        return None
    return Problem(
        "ToolCallStart(i) first, then its arguments deltas, then one ToolCallEnd(i); "
        "the message lists exactly the completed calls and the errors",
        problem,
    )


def _starts(outcome: Outcome) -> list[str]:
    return [e.name for e in outcome.events if isinstance(e, ToolCallStart)]


def _calls(outcome: Outcome) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in outcome.message.tool_calls]


@per_outcome
def final_names(trial: Trial, outcome: Outcome) -> Problem | None:
    case = trial.case
    source = case.expected or (case.truncates.expected if case.truncates else None)
    if source is None:
        return None
    names = [call["name"] for call in source["tool_calls"]]
    starts = _starts(outcome)
    if starts == (names if case.expected else names[: len(starts)]):
        return None
    return Problem(f"ToolCallStart names to be the turn's call names {names}", repr(starts))


@per_outcome
def declared_names(trial: Trial, outcome: Outcome) -> Problem | None:
    tools = trial.case.tools
    unknown = [name for name in _starts(outcome) if tools is not None and name not in tools]
    if not unknown:
        return None
    return Problem(f"only declared tools {sorted(tools or ())} announced", repr(unknown))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


@per_outcome
def no_marker_leak(trial: Trial, outcome: Outcome) -> Problem | None:
    case = trial.case
    if case.expected is None and case.truncates is None:
        return None
    reserved, message = trial.fmt.reserved, outcome.message
    fields = {"content": message.content, "reasoning_content": message.reasoning_content}
    for call in message.tool_calls:
        fields[f"arguments of `{call.name}`"] = " ".join(_strings(call.arguments))
    for field, value in fields.items():
        if value and contains_any(value, reserved):
            found = [m for m in reserved if m in value]
            return Problem(f"no marker of {list(reserved)} in {field}", f"{found} in {value!r}")
    return None


def _call_ends(outcome: Outcome) -> list[int]:
    return completion_offsets(outcome.tree)


def completion_offsets(tree: ast.Node) -> list[int]:
    """Where each complete call of `tree` became complete: where its envelope closed (its
    `tool_calls` node's end, when it is in a call list: the list completes together), else
    its own end. A cut before that offset leaves the call incomplete."""
    envelopes = [(n.start, n.end) for n in tree.find_all(ast.TOOL_CALLS) if n.end is not None]
    ends = []
    for call in tree.find_all(ast.TOOL_CALL):
        if call.complete and call.end is not None:
            around = [end for start, end in envelopes if start <= call.start < end]
            ends.append(around[0] if around else call.end)
    return ends


@per_outcome
def truncated_calls(trial: Trial, outcome: Outcome) -> Problem | None:
    full, reference = trial.case.truncates, trial.reference
    if full is None or full.expected is None or reference is None:
        return None
    expected, ends = full.expected["tool_calls"], _call_ends(reference)
    if len(ends) != len(expected):
        return None  # the untruncated turn does not parse back: reported as such
    closed = sum(end <= len(trial.case.text) for end in ends)
    if _calls(outcome) == expected[:closed]:
        return None
    return Problem(
        f"exactly the {closed} call(s) whose envelope closed before the cut, completed "
        f"(untruncated calls end at offsets {ends}):\n{show(expected[:closed])}",
        show(_calls(outcome)),
    )


@per_outcome
def earliest_error(trial: Trial, outcome: Outcome) -> Problem | None:
    if trial.case.truncates is None:
        return None
    wrong = [e for e in outcome.message.errors if e.code != "truncated"]
    if not wrong:
        return None
    return Problem("a prefix of a valid turn to give only `truncated` errors", show(wrong))


@per_outcome
def undeclared_not_called(trial: Trial, outcome: Outcome) -> Problem | None:
    case = trial.case
    if case.undeclared is None or case.turn is None:
        return None
    name = case.undeclared
    calls = [{"name": c.name, "arguments": c.arguments} for c in case.turn.calls]
    position = next(i for i, call in enumerate(calls) if call["name"] == name)
    before, others = calls[:position], calls[:position] + calls[position + 1 :]
    message, starts, done = outcome.message, _starts(outcome), _calls(outcome)
    names = [call["name"] for call in others]
    if (
        done[:position] != before
        or not _subsequence(starts, names)
        or not _subsequence(done, others)
    ):
        return Problem(
            f"no call of `{name}`; the calls before it completed: {show(before)}; "
            f"other calls only from {show(others)}",
            f"announced {starts}, completed {show(done)}",
        )
    seen = (message.content or "") + (message.reasoning_content or "")
    if not message.errors and name not in seen:
        return Problem(f"the call of `{name}` reported as an error or kept as text", show(message))
    return None


def _subsequence(items: Sequence[Any], of: Sequence[Any]) -> bool:
    rest = iter(of)
    return all(any(item == other for other in rest) for item in items)


@per_outcome
def errors_carry_raw_text(trial: Trial, outcome: Outcome) -> Problem | None:
    text = trial.case.text
    for error in outcome.message.errors:
        there = text[error.offset : error.offset + len(error.raw)]
        if there != error.raw:
            return Problem(
                f"error raw text to be the input at offset {error.offset}",
                f"{error.raw!r}, input there: {there!r}",
            )
    return None


PROPERTIES: tuple[Property, ...] = (
    Property(
        "parses back", "a valid turn parses to the message it renders, without errors", parses_back
    ),
    Property(
        "emitted means final",
        "events emitted so far are a prefix of the events of the "
        "whole input (and of any extension: a truncation's are a prefix of the turn's)",
        emitted_means_final,
    ),
    Property(
        "chunking invariance",
        "merged events, message and semantic tree are the same for every chunking",
        chunking_invariance,
    ),
    Property(
        "one-shot parse", "protocall.parse gives the message of a streamed session", one_shot_parse
    ),
    Property(
        "deltas add up",
        "content/reasoning deltas concatenate to the final fields, "
        "arguments deltas to arguments_json, which decodes to arguments",
        deltas_add_up,
    ),
    Property(
        "events well-formed",
        "ToolCallStart(i), its arguments deltas, one ToolCallEnd(i); "
        "the message lists the completed calls and the errors",
        events_well_formed,
    ),
    Property(
        "final names",
        "ToolCallStart carries the call's final name (never a shorter "
        "declared name while a longer one arrives)",
        final_names,
    ),
    Property("declared names", "only declared tools are announced", declared_names),
    Property(
        "no marker leak",
        "no marker text in the content, reasoning or arguments of a valid "
        "turn or of its truncations",
        no_marker_leak,
    ),
    Property(
        "truncated call never completes",
        "after a cut, exactly the calls whose envelope closed before it are complete",
        truncated_calls,
    ),
    Property(
        "earliest error",
        "a proper prefix of a valid turn gives only `truncated` errors",
        earliest_error,
    ),
    Property(
        "undeclared tool not called",
        "a call to an undeclared tool is neither announced "
        "nor completed, is reported or kept as text, and earlier calls are kept",
        undeclared_not_called,
    ),
    Property(
        "errors carry raw text",
        "every ProtocolError's raw text is the input at its offset",
        errors_carry_raw_text,
    ),
)
"""The checks, in the order they are tried: a trial reports the first that fails."""


def first_problem(trial: Trial) -> tuple[Property, Problem] | None:
    for prop in PROPERTIES:
        problem = prop.check(trial)
        if problem is not None:
            return prop, problem
    return None
