"""The generic tests of every registered format, from one table (issue #16).

Each test runs over `protocall.formats.names()`, so a new format is covered the moment it
is registered: its turns are written by the format's own renderer (from the spec) and
parsed back, one-shot and streamed. What differs between families is data in `FAMILIES`
(the module holding its FORMATS.md examples, extra kit runs, a marker its codec quotes,
where a cut-off call becomes an error), never code; a format without a row gets the
defaults. The per-family files keep the family's own examples and quirks.

The kit runs (`check_format`) take a few examples per run with a fixed seed.
`PROTOCALL_CHECK_EXAMPLES` sets the number (`HYPOTHESIS_PROFILE=long` makes it 200) and
`PROTOCALL_CHECK_SEED` the seed (`random` for a fresh one), so a long local search reads:

    PROTOCALL_CHECK_EXAMPLES=300 PROTOCALL_CHECK_SEED=random pytest tests/families/test_families.py

A failure prints the kit's report: one minimal counterexample per failing property.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocall
from protocall import ast, formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.combinators import Parser
from protocall.events import ToolCallEnd, ToolCallStart
from protocall.formats import Format
from protocall.message import Message
from protocall.testing import (
    PROPERTIES,
    Outcome,
    Trial,
    check_format,
    chunkings,
    completion_offsets,
    stream,
    verify,
)
from protocall.testing.mutations import truncated
from protocall.testing.strategies import Case
from protocall.tools import Tools, normalize_tools

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
EXAMPLES = int(os.environ.get("PROTOCALL_CHECK_EXAMPLES") or (200 if LONG else 8))
SEED_SETTING = os.environ.get("PROTOCALL_CHECK_SEED", "0")
SEED = None if SEED_SETTING == "random" else int(SEED_SETTING)

VALUES = (
    "{m}",
    "a{m}b",
    "x = '{m}'\n{m}\n",
    "{m}\n",
    "x = '{m}'\n{m}}}",
    "x = '{m}'\n{m}]}}",
    "x = '{m}'  # {p}",
)
"""How a marker `{m}` stands in a string argument: alone, inside a word, in quoted code
and a line of its own, before a newline, before JSON's closing brace and brackets, and cut
short (`{p}`, all but its last character) at the value's end."""


@dataclass(frozen=True)
class Family:
    """What the generic tests take from a format beyond its spec (defaults: what holds for
    most formats, so a new one needs no row).

    - `examples`: the test module whose `EXAMPLES` (text, prompt, expected), or `module:NAME`
      (a list, or lists by format name), and `TOOLS` are the family's FORMATS.md examples.
    - `runs`: `(max_examples, seed)` runs of the kit besides the default one.
    - `not_in_values`: reserved markers that cannot stand in a string argument (a codec's
      own quote); `tokens`: the tokens markers are made of, put there too and never in
      content or reasoning (Kimi K3's `<|open|>`); `escaped_values`: the codec escapes
      values, so that a whole written turn stands in one (not so for XML-style arguments,
      whose values are raw text).
    - `opener`: a call cut off after this marker is a `truncated` error (default: once its
      name is announced); `names_cut_call`: that error names the call (not so for a JSON or
      pythonic list, cut off as a whole); its raw text runs from the call's (or its
      section's) start, or from the `header` of the message it stands in (gpt-oss);
      `from_default_start`: cut the turn as written without a prompt too (Kimi K3);
      `content_within`: the content stands inside the calls' envelope (a `JsonTurn`), so a
      cut keeps what of it had streamed, not only the content before the envelope."""

    examples: str | None = None
    runs: tuple[tuple[int, int], ...] = ()
    not_in_values: tuple[str, ...] = ()
    tokens: tuple[str, ...] = ()
    escaped_values: bool = True
    opener: str | None = None
    names_cut_call: bool = True
    header: str | None = None
    from_default_start: bool = False
    content_within: bool = False


MINIMAX_M3_TAGS = tuple(m for m in formats.get("minimax-m3").reserved if m.startswith("]<]"))

FAMILIES = {
    "apertus": Family("test_apertus", ((15, 0),), opener="<|tools_prefix|>", names_cut_call=False),
    "beam": Family("test_beam", ((12, 0),), escaped_values=False),
    "cohere": Family("test_cohere", ((15, 0),), opener="<|START_ACTION|>", names_cut_call=False),
    "deepseek-v3": Family("test_deepseek:BY_NAME"),
    "deepseek-v3.1": Family("test_deepseek:BY_NAME"),
    "deepseek-v3.2": Family("test_deepseek:BY_NAME", escaped_values=False),
    "deepseek-v4": Family("test_deepseek:BY_NAME", escaped_values=False),
    "deepseek-v4.1": Family("test_deepseek:BY_NAME", escaped_values=False),
    "generic": Family("test_generic", ((15, 0),), names_cut_call=False, content_within=True),
    "gemma-4": Family(
        "test_gemma4", ((15, 0),), ('<|"|>',), opener="<|tool_call>", escaped_values=False
    ),
    "glm-4.5": Family(
        "test_glm:EXAMPLES_45", ((12, 0),), opener="<tool_call>", escaped_values=False
    ),
    "glm-4.7": Family(
        "test_glm:EXAMPLES_47", ((12, 0),), opener="<tool_call>", escaped_values=False
    ),
    "gpt-oss": Family("test_gpt_oss", ((15, 0),), opener="<|start|>", header="<|start|>"),
    "granite": Family("test_granite", ((10, 7),), names_cut_call=False),
    "granite-20b-fc": Family("test_granite_20b_fc"),
    "hy3": Family("test_hy3:HY3_EXAMPLES", ((12, 0),), escaped_values=False),
    "hy3-preview": Family("test_hy3:PREVIEW_EXAMPLES", escaped_values=False),
    "hy-v4": Family("test_hy_v4", ((12, 0),), escaped_values=False),
    "minicpm5": Family("test_minicpm5", ((12, 0),), opener="<function", escaped_values=False),
    "hunyuan-a13b": Family("test_hunyuan_a13b", opener="<tool_calls>", names_cut_call=False),
    "internlm2": Family("test_internlm2"),
    "jamba": Family("test_jamba", opener="<tool_calls>", names_cut_call=False),
    "phi-4-mini": Family("test_phi4_mini", opener="functools", names_cut_call=False),
    "ernie-4.5": Family("test_ernie45"),
    "minimax-m1": Family("test_minimax_m1"),
    "step-3": Family("test_step3", escaped_values=False),
    "functionary-v3.2": Family("test_functionary"),
    "gigachat-3": Family("test_gigachat3"),
    "apriel": Family("test_apriel", opener="<tool_calls>", names_cut_call=False),
    "dots": Family("test_dots", escaped_values=False),
    "k2-horizon": Family("test_k2_horizon", opener="<ifm|tool_call>", escaped_values=False),
    "plamo-3": Family("test_plamo3"),
    "mimo": Family("test_mimo", opener="<tool_call>", escaped_values=False),
    "poolside-v1": Family("test_poolside_v1", opener="<tool_call>", escaped_values=False),
    "gigachat-3.5": Family("test_gigachat35", escaped_values=False),
    "iquest-q1": Family("test_iquest_q1", opener="<iquest_tool_call>", escaped_values=False),
    "longcat": Family("test_longcat", opener="<longcat_tool_call>"),
    "muse": Family("test_muse:MUSE_EXAMPLES", ((12, 0),), escaped_values=False),
    "muse-glimmer": Family("test_muse:GLIMMER_EXAMPLES", ((12, 0),), escaped_values=False),
    "xlam": Family("test_xlam", opener="<tool_call>", names_cut_call=False),
    "functiongemma": Family(
        "test_functiongemma", not_in_values=("<escape>",), escaped_values=False
    ),
    "hermes": Family("test_hermes", opener="<tool_call>"),
    "kimi-k2": Family("test_kimi_k2", opener="<|tool_calls_section_begin|>"),
    "kimi-k3": Family(
        "test_kimi_k3",
        ((20, 0),),
        opener="<|open|>call",
        from_default_start=True,
        tokens=("<|open|>", "<|close|>", "<|sep|>"),
        escaped_values=False,
    ),
    "lfm2": Family("test_pythonic:LFM2_EXAMPLES", ((10, 7),), names_cut_call=False),
    "ling-3": Family("test_ling3", ((20, 0),), escaped_values=False),
    "llama-3": Family("test_llama3", ((10, 7),)),
    "llama-4": Family("test_pythonic:LLAMA_4_EXAMPLES", ((10, 7),), names_cut_call=False),
    "minimax-m2": Family("test_minimax", runs=((12, 0),), escaped_values=False),
    "minimax-m3": Family(
        "test_minimax_m3",
        ((12, 0),),
        not_in_values=MINIMAX_M3_TAGS,  # every tag begins with the prefix, no value holds it
        opener=MINIMAX_M3_TAGS[0],
        escaped_values=False,
    ),
    "mistral": Family("test_mistral", ((15, 0),), opener="[TOOL_CALLS]"),
    "nemotron": Family("test_nemotron", ((10, 7),), names_cut_call=False),
    "olmo-3": Family("test_olmo3", ((15, 0),)),
    "pythonic": Family("test_pythonic:PYTHONIC_EXAMPLES", ((10, 7),), names_cut_call=False),
    "qwen3-coder": Family(
        "test_qwen3_coder", ((20, 0),), opener="<tool_call>", escaped_values=False
    ),
    "seed-oss": Family("test_seed_oss", runs=((15, 0),), escaped_values=False),
    "solar-open": Family("test_solar_open"),
    "zaya": Family("test_zaya", ((12, 0),), opener="<zyphra_tool_call>", escaped_values=False),
}
NAMES = formats.names()


def family(name: str) -> Family:
    return FAMILIES.get(name, Family())


def tool(name: str, **properties: object) -> dict[str, object]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


STRING = {"type": "string"}
QUOTE_PARAMETERS = {f"v{i}": STRING for i in range(len(VALUES))}
TOOLS = normalize_tools(
    [
        tool("get_weather", location=STRING, days={"type": "integer"}),
        tool("get_weather_forecast", location=STRING),
        tool("get_time", zone=STRING),
        tool("write_file", path=STRING, content=STRING),
        tool("quote", **QUOTE_PARAMETERS),
    ]
)


@functools.cache
def registered(name: str) -> Format:
    """Format `name`, its grammar built once per tool set and start state. Its sessions are
    still fresh (a grammar is immutable; a session's state is its own), but the thousands
    of short streams below do not rebuild it each time."""
    fmt = formats.get(name)
    built: dict[tuple[int, str | None], tuple[Tools | None, Parser[Any]]] = {}

    def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
        key = (id(tools), start)
        if key not in built:  # (the tools are kept with it, so the id stays theirs)
            built[key] = (tools, fmt.grammar(tools, start))
        return built[key][1]

    return replace(fmt, grammar=grammar)


def written(
    fmt: Format, *parts: str | ToolUse, reasoning: str | None = None, start: str | None = None
) -> str:
    """The turn as the format writes it from `start` (default: after its plain prompt,
    which opens nothing)."""
    return fmt.render(Turn(reasoning, parts), start)


def plain_prompt(fmt: Format) -> str | None:
    return fmt.prompt_for(None)


def verified(fmt: Format, text: str, generation_prompt: str | None = None) -> Message:
    """`verify` (every property, one chunk against several) after `generation_prompt`
    (default: the plain one), and the one-shot `protocall.parse` gives the same message."""
    generation_prompt = generation_prompt or plain_prompt(fmt)
    message = verify(fmt, text, generation_prompt, tools=TOOLS)
    assert protocall.parse(text, fmt.name, TOOLS, generation_prompt, seed=0) == message
    return message


def starts(fmt: Format, text: str) -> list[str]:
    """The names the session announces, fed `text` one character at a time."""
    events = stream(fmt, list(text), TOOLS, plain_prompt(fmt)).events
    return [e.name for e in events if isinstance(e, ToolCallStart)]


# -- the kit -----------------------------------------------------------------------------------


def kit_runs() -> Iterator[Any]:
    """The default run, and the row's: a seeded run draws the same first examples whatever
    its `max_examples` (the inputs of 8 at seed 0 are among those of 12, 15 or 20), so a
    row's run with the same seed and as many examples or more stands for the default."""
    for name in NAMES:
        runs = family(name).runs
        covered = any(seed == SEED and examples >= EXAMPLES for examples, seed in runs)
        for examples, seed in runs if covered else ((EXAMPLES, SEED), *runs):
            yield pytest.param(name, examples, seed, id=f"{name}-{examples}-seed{seed}")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "examples", "seed"), list(kit_runs()))
def test_format_has_every_property_of_the_kit(name: str, examples: int, seed: int | None) -> None:
    report = check_format(name, max_examples=examples, seed=seed)
    assert report.ok, str(report)


# -- FORMATS.md examples -----------------------------------------------------------------------


def example_cases() -> Iterator[Any]:
    for name in NAMES:
        where = family(name).examples
        if where is not None:
            module, _, attribute = where.partition(":")
            data = importlib.import_module(module)
            examples = getattr(data, attribute or "EXAMPLES")
            if isinstance(examples, dict):  # by format name
                examples = examples[name]
            for i, (text, generation_prompt, expected, *_) in enumerate(examples):
                case = (name, text, generation_prompt, expected, data.TOOLS)
                yield pytest.param(*case, id=f"{name}-{i}")


@pytest.mark.parametrize(("name", "text", "prompt", "expected", "tools"), list(example_cases()))
@settings(max_examples=1, deadline=None)
@given(data=st.data())
def test_formats_md_examples(
    name: str,
    text: str,
    prompt: str | None,
    expected: dict[str, Any],
    tools: Any,
    data: st.DataObject,
) -> None:
    """Each example one-shot, streamed (`verify`) and in 10 random chunkings that cut at and
    inside markers, parses back to the expected message."""
    fmt = registered(name)
    drawn = data.draw(st.lists(chunkings(text, fmt.reserved), min_size=10, max_size=10))
    verify(fmt, text, prompt, tools=tools, expected=expected, chunkings=drawn)


# -- markers inside values (the vLLM failures of PEERS.md) -------------------------------------


def markers_in_values() -> Iterator[Any]:
    for name in NAMES:
        fmt, row = registered(name), family(name)
        markers = [m for m in fmt.reserved if m not in row.not_in_values]
        for marker in dict.fromkeys([*markers, *row.tokens]):
            yield pytest.param(name, marker, id=f"{name}-{marker!r}")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "marker"), list(markers_in_values()))
def test_every_marker_inside_a_string_argument(name: str, marker: str) -> None:
    fmt = registered(name)
    values = {f"v{i}": value.format(m=marker, p=marker[:-1]) for i, value in enumerate(VALUES)}
    text = written(fmt, ToolUse("quote", values))
    (result,) = verified(fmt, text).tool_calls
    assert result.arguments == values


CLOSERS = ("}]", '"}]', '"}}', "}; {", ")]", "'),", "[get_time(zone='x')]")
"""What ends a JSON object or array, or a Python call or list, and a pythonic call list."""


@pytest.mark.parametrize("name", [name for name in NAMES if family(name).escaped_values])
def test_a_whole_call_inside_a_string_argument_is_its_text(name: str) -> None:
    """The format's own writing of a turn with calls, and every marker, in one value."""
    fmt = registered(name)
    quoted = written(fmt, "Hi ", ToolUse("get_time", {"zone": "UTC"}), ToolUse("get_weather"))
    value = "\n".join([quoted, *fmt.reserved, quoted, *CLOSERS])
    text = written(fmt, ToolUse("write_file", {"path": "a", "content": value}))
    (result,) = verified(fmt, text).tool_calls
    assert result.arguments == {"path": "a", "content": value}


# -- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_shorter_name_never_announced_while_the_longer_arrives(name: str) -> None:
    fmt = registered(name)
    oslo = {"location": "Oslo"}
    pairs = [
        (ToolUse("get_weather_forecast", oslo), ToolUse("get_weather")),
        (ToolUse("get_weather", oslo), ToolUse("get_weather_forecast")),
    ]
    for calls in pairs:
        text = written(fmt, *calls)
        assert starts(fmt, text) == [call.name for call in calls]
        message = verified(fmt, text)
        assert [c.name for c in message.tool_calls] == [call.name for call in calls]


# -- truncation --------------------------------------------------------------------------------


def starts_to_cut() -> Iterator[Any]:
    """Each format after its plain prompt, and, where its row says so, without a prompt
    from its default start (a reasoning block open from the start)."""
    for name in NAMES:
        fmt = registered(name)
        yield pytest.param(name, plain_prompt(fmt), None, id=name)
        if family(name).from_default_start and fmt.default_start is not None:
            yield pytest.param(name, None, fmt.default_start, id=f"{name}-{fmt.default_start}")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "generation_prompt", "start"), list(starts_to_cut()))
def test_truncation_at_every_position(
    name: str, generation_prompt: str | None, start: str | None
) -> None:
    """Every prefix of a turn with reasoning (where the format has it), content and two
    calls keeps the kit's properties, chunked 1 to 4 characters at a time; exactly the calls
    complete before the cut are calls, a call cut off is one `truncated` error (naming it,
    its raw text the call's, the content before it kept), and no other error arises."""
    fmt = registered(name)
    calls = (
        ToolUse("get_time", {"zone": "UTC"}),
        ToolUse("write_file", {"path": "/a", "content": 'x <y> <|x|> "z"\n'}),
    )
    reasoning = "R" if "reasoning" in fmt.channels else None
    text = written(fmt, "Hi ", calls[0], "\nthen ", calls[1], reasoning=reasoning, start=start)
    reference = stream(fmt, [text], TOOLS, generation_prompt)
    expected = verify(fmt, text, generation_prompt, tools=TOOLS).to_dict()
    full = Case(text, TOOLS, generation_prompt, start, expected=expected)
    row = family(name)
    spans = list(zip(calls, *call_spans(fmt, text, reference, generation_prompt), strict=True))
    before = {b: stream(fmt, [text[:b]], TOOLS, generation_prompt).message for _, b, *_ in spans}
    for cut in range(len(text)):
        case = truncated(full, cut)
        whole = stream(fmt, [case.text], TOOLS, generation_prompt)
        size = 1 + cut % 4
        chunks = [case.text[i : i + size] for i in range(0, cut, size)]
        streamed = stream(fmt, chunks, TOOLS, generation_prompt)
        trial = Trial(fmt, case, chunks, whole, streamed, reference)
        for prop in PROPERTIES:
            assert prop.check(trial) is None, (cut, prop.name, prop.check(trial))
        message = whole.message
        closed = sum(end <= cut for *_, end in spans)
        assert [c.name for c in message.tool_calls] == [c.name for c in calls][:closed], cut
        assert all(e.code == "truncated" for e in message.errors), (cut, message.errors)
        assert not any(
            isinstance(e, ToolCallEnd) and e.index == len(message.tool_calls) for e in whole.events
        ), cut
        for text_field in (message.content, message.reasoning_content):
            assert not any(m in (text_field or "") for m in (*fmt.reserved, *row.tokens)), cut
        for call, begin, head, named, end in spans:
            if begin <= cut < end and message.errors and not row.content_within:  # kept
                assert message.content == before[begin].content, (cut, message.content)
            if head <= cut < end:  # cut inside a call: one truncated error, its text the raw
                (error,) = message.errors
                assert error.code == "truncated", (cut, error)
                if cut >= named or row.header is None:  # else: cut inside the header
                    assert "tool call" in error.message, (cut, error)
                if row.names_cut_call and cut >= named:
                    assert f"tool call `{call.name}`" in error.message, (cut, error.message)
                assert error.raw == text[begin:cut], (cut, error)


def call_spans(
    fmt: Format, text: str, reference: Outcome, generation_prompt: str | None
) -> tuple[list[int], list[int], list[int], list[int]]:
    """Per call of `text`: where its raw text begins (its section's or message header's
    start, where it has one), where a cut leaves it a `truncated` error (its `opener`'s
    end, else its announcement), where its name is announced, and where it completes."""
    row = family(fmt.name)
    envelopes = [(n.start, n.end) for n in reference.tree.find_all(ast.TOOL_CALLS)]
    begins = [
        next((s for s, e in envelopes if s <= n.start < (e or len(text))), n.start)
        for n in reference.tree.find_all(ast.TOOL_CALL)
    ]
    if row.header is not None:
        begins = [text.rindex(row.header, 0, begin + 1) for begin in begins]
    session, announced = fmt.parser(TOOLS, generation_prompt), []
    for offset, char in enumerate(text, 1):
        announced += [offset for e in session.feed(char) if isinstance(e, ToolCallStart)]
    session.finish()
    heads = announced
    if row.opener is not None:
        heads = [text.index(row.opener, begin) + len(row.opener) for begin in begins]
    return begins, heads, announced, completion_offsets(reference.tree)


# -- a pre-opened reasoning block (issue #15) --------------------------------------------------

PRE_OPENING = [
    name
    for name in NAMES
    if "reasoning" in formats.get(name).channels
    and formats.get(name).prompt_for("reasoning") is not None
]


@pytest.mark.parametrize("name", PRE_OPENING)
def test_a_redundant_opener_after_a_pre_opened_prompt_is_not_reasoning(name: str) -> None:
    """The model writes the opener the prompt already wrote (issue #15): it is dropped."""
    fmt = registered(name)
    opener = fmt.channels["reasoning"][0]
    text = opener + fmt.render(Turn("Hmm.", ("Answer.",)), "reasoning")
    expected = {"reasoning_content": "Hmm.", "content": "Answer.", "tool_calls": []}
    verify(fmt, text, fmt.prompt_for("reasoning"), expected=expected)


ZONE_TOOL = {"name": "get_time", "parameters": {"properties": {"zone": {"type": "string"}}}}


@pytest.mark.parametrize("name", PRE_OPENING)
def test_a_close_after_a_call_ended_pre_opened_reasoning_is_no_content(name: str) -> None:
    """A genuine call ended the pre-opened block; the model closes it afterwards anyway:
    that close is a stray marker, dropped, never content (issue #15)."""
    fmt = registered(name)
    generation_prompt, close = fmt.prompt_for("reasoning"), fmt.channels["reasoning"][1]
    call = fmt.render(Turn(None, (ToolUse("get_time", {"zone": "UTC"}),)), None)
    stop = next((s for s in fmt.spec.stops if call.endswith(s)), "") if fmt.spec else ""
    text = "Hmm.\n" + call.removesuffix(stop) + close + "Done." + stop
    calls = [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    expected = {"reasoning_content": "Hmm.", "content": "Done.", "tool_calls": calls}
    verify(fmt, text, generation_prompt, tools=[ZONE_TOOL], expected=expected)
