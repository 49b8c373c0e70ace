"""The SGLang adapter driven the way SGLang 0.5.23's chat endpoint drives it: its real
`ReasoningParser` and `FunctionCallParser` (built with the arguments `serving_chat` gives
them) and its protocol types, from the sglang wheel imported through tests/servers_shim.py
(without torch, and without running `sglang/__init__`), compared with a plain session.

`serving_chat` itself imports the model runtime, so `stream` and `whole` repeat its order
of calls: per delta `_process_reasoning_stream` (the reasoning parser first, its end
flushed on the last delta) and then `_process_tool_call_stream` on the normal text (the
function-call parser built on first use, flushed on the last delta); whole, the reasoning
parser's `parse_non_stream`, then `has_tool_call` and `parse_non_stream` of the tool
parser on the text it left."""

from __future__ import annotations

import json
from typing import Any

import pytest
import servers_shim
from clients import sdk_accumulated, seen
from hypothesis import given, settings
from hypothesis import strategies as st
from server_samples import LING3_IN_REASONING, LING3_READ, TOOLS, TURNS, chunkings, cover, normal

import protocall
from protocall.formats.turns import Turn

servers_shim.sglang_packages()
servers_shim.require("sglang.srt.function_call.function_call_parser")

from sglang.srt.entrypoints.openai.protocol import (  # noqa: E402
    ChatCompletionRequest,
    ChatCompletionResponseStreamChoice,
    ChatCompletionStreamResponse,
    DeltaMessage,
    FunctionResponse,
    ToolCall,
)
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402

import protocall.integrations.sglang as adapter  # noqa: E402  (registers protocall-<format>)


def case(name: str, start: str | None, turn: Turn) -> tuple[Any, bool, str]:
    return (
        protocall.formats.get(name),
        start is not None,
        protocall.formats.get(name).render(turn, start),
    )


CASES = {name: case(name, start, turn) for name, (start, turn) in TURNS.items()}
CASES["ling-3 call inside pre-opened reasoning"] = (
    protocall.formats.get("ling-3"),
    True,  # the template opened `<think>`
    LING3_IN_REASONING,
)


def expected(fmt: Any, thinking: bool, output: str, tools: Any = TOOLS) -> dict[str, Any]:
    """A plain session's message, its generation prompt the format's for `thinking`."""
    session = fmt.parser(tools, fmt.prompt_for("reasoning" if thinking else None))
    session.feed(output)
    session.finish()
    return normal(session.message.to_openai())


def request(tools: Any = TOOLS, stream: bool = True, **fields: Any) -> ChatCompletionRequest:
    return ChatCompletionRequest(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
        stream=stream,
        **fields,
    )


def sse(delta: DeltaMessage) -> dict[str, Any]:
    """The chunk SGLang serialises for `delta`, read back as the client reads it."""
    choice = ChatCompletionResponseStreamChoice(index=0, delta=delta, finish_reason=None)
    response = ChatCompletionStreamResponse(id="chat", created=0, model="m", choices=[choice])
    return dict(json.loads(response.model_dump_json()))


def stream(fmt: Any, thinking: bool, output: str, sizes: list[int], **options: Any) -> dict:
    """`output` in chunks of `sizes` characters through SGLang's per-delta calls, as the
    client ends up with it (`options`: those of `deltas`)."""
    return accumulated(deltas(fmt, thinking, output, sizes, **options))


def accumulated(deltas: list[DeltaMessage]) -> dict[str, Any]:
    """What the official SDK's accumulator builds from SGLang's chunks for `deltas`."""
    first = DeltaMessage(role="assistant", content="")
    return normal(seen(sdk_accumulated([sse(d) for d in (first, *deltas)]))["message"])


def deltas(
    fmt: Any,
    thinking: bool,
    output: str,
    sizes: list[int],
    tool: bool = True,
    reasoning: bool = True,
    tools: Any = TOOLS,
    **fields: Any,
) -> list[DeltaMessage]:
    """The deltas SGLang's chat endpoint sends for `output` in chunks of `sizes`, with a
    function-call parser (`tool`) and a reasoning parser (`reasoning`) or not; `fields`
    are request fields."""
    name = adapter.PREFIX + fmt.name
    req = request(tools, **fields)
    active = tool and bool(req.tools)
    chunks: list[DeltaMessage] = []
    reasoner = parser = None
    at = 0
    for size in sizes:
        if at >= len(output):
            break
        delta, at = output[at : at + size], at + size
        last = at >= len(output)
        if reasoning:
            if reasoner is None:
                reasoner = ReasoningParser(
                    name, req.stream_reasoning, thinking, req, tool_call_parser_active=active
                )
            reasoning_text, delta = reasoner.parse_stream_chunk(delta)
            if last:
                end_reasoning, end_normal = reasoner.parse_stream_end()
                reasoning_text = (reasoning_text or "") + (end_reasoning or "")
                delta = (delta or "") + (end_normal or "")
            if reasoning_text:
                chunks.append(DeltaMessage(reasoning_content=reasoning_text))
        if active:
            if parser is None:
                parser = FunctionCallParser(tools=req.tools, tool_call_parser=name, tokenizer=None)
            normal_text, calls = parser.parse_stream_chunk(delta)
            if last:
                end_text, end_calls = parser.parse_stream_end()
                normal_text, calls = (normal_text or "") + end_text, [*calls, *end_calls]
            if normal_text:
                chunks.append(DeltaMessage(content=normal_text))
            for item in calls:
                call_id = f"call_{item.tool_index}" if item.name else None
                function = FunctionResponse(name=item.name, arguments=item.parameters)
                call = ToolCall(id=call_id, index=item.tool_index, function=function)
                chunks.append(DeltaMessage(tool_calls=[call]))
        elif delta:
            chunks.append(DeltaMessage(content=delta))
    return chunks


def whole(fmt: Any, thinking: bool, output: str, reasoning: bool = True) -> dict[str, Any]:
    """`output` through SGLang's non-streaming calls."""
    name = adapter.PREFIX + fmt.name
    req = request(TOOLS, stream=False)
    reasoning_text, text = None, output
    if reasoning:
        reasoner = ReasoningParser(
            name, False, thinking, request=req, tokenizer=None, tool_call_parser_active=True
        )
        reasoning_text, text = reasoner.parse_non_stream(output)
    parser = FunctionCallParser(req.tools, name, tokenizer=None, tool_choice=req.tool_choice)
    calls: list[Any] = []
    if parser.has_tool_call(text):
        text, calls = parser.parse_non_stream(text)
    return {
        "content": text or None,
        "reasoning_content": reasoning_text or None,
        "tool_calls": [(c.name, json.loads(c.parameters)) for c in calls],
    }


@pytest.mark.parametrize("label", sorted(CASES))
@pytest.mark.parametrize("chunking", [0, 1, 2], ids=["one-shot", "per-character", "random"])
def test_streamed_through_sglang_calls_equals_session(label: str, chunking: int) -> None:
    fmt, thinking, output = CASES[label]
    want = expected(fmt, thinking, output)
    assert want["tool_calls"], "the sample has a call"
    assert stream(fmt, thinking, output, chunkings(len(output), 7)[chunking]) == want


@pytest.mark.parametrize("label", sorted(CASES))
def test_non_streaming_parse_equals_session(label: str) -> None:
    fmt, thinking, output = CASES[label]
    assert whole(fmt, thinking, output) == expected(fmt, thinking, output)


@pytest.mark.parametrize("size", [1, 3, 200])
def test_ling3_call_inside_pre_opened_reasoning_is_a_call(size: int) -> None:
    """Streamed (in deltas of `size` characters) and whole."""
    fmt, thinking, output = CASES["ling-3 call inside pre-opened reasoning"]
    for got in (stream(fmt, thinking, output, [size] * len(output)), whole(fmt, thinking, output)):
        assert (got["reasoning_content"], got["tool_calls"]) == LING3_READ


def test_schema_types_raw_values_from_the_first_delta() -> None:
    """The request's tools reach the session before the reasoning parser reads anything."""
    fmt, thinking, output = CASES["qwen3-coder"]
    got = stream(fmt, thinking, output, [len(output)])
    assert got["tool_calls"] == [("write_file", {"path": 'a <b> "c".py', "lines": 3})]


def test_tools_a_system_message_declares_are_declared() -> None:
    """SGLang's function-call parser gets the request's tools and those of its system
    messages; the session declares the same."""
    system = {"role": "system", "content": "Tools.", "tools": TOOLS}
    req = ChatCompletionRequest(model="m", messages=[system, {"role": "user", "content": "hi"}])
    parser = ReasoningParser("protocall-qwen3-coder", True, True, req, tool_call_parser_active=True)
    assert [t["function"]["name"] for t in parser.detector.turn.tools] == ["write_file"]


def test_request_without_tools_keeps_a_call_as_content() -> None:
    fmt, thinking, output = CASES["qwen3-coder"]
    got = stream(fmt, thinking, output, [4] * len(output), tools=None)
    assert got == expected(fmt, thinking, output, tools=[])  # no tool declared
    assert got["tool_calls"] == [] and "<function=write_file>" in got["content"]


@pytest.mark.parametrize("label", ["qwen3-coder", "glm-4.7"])
def test_unstreamed_reasoning_arrives_in_one_piece(label: str) -> None:
    fmt, thinking, output = CASES[label]
    sent = deltas(fmt, thinking, output, [2] * len(output), stream_reasoning=False)
    pieces = [d.reasoning_content for d in sent if d.reasoning_content]
    assert pieces == [expected(fmt, thinking, output)["reasoning_content"]]
    assert accumulated(sent) == expected(fmt, thinking, output)


def test_reasoning_parser_alone_keeps_a_call_as_content() -> None:
    fmt, thinking, output = CASES["qwen3-coder"]
    got = stream(fmt, thinking, output, [4] * len(output), tool=False)
    assert got == expected(fmt, thinking, output, tools=[])  # no tool declared
    assert got["reasoning_content"] == "Plan it." and "<function=write_file>" in got["content"]


def test_tool_parser_alone_reports_reasoning_as_content() -> None:
    fmt, thinking, output = CASES["deepseek-v3.2"]
    want = expected(fmt, thinking, output)
    got = stream(fmt, thinking, output, [2] * len(output), reasoning=False)
    assert got["tool_calls"] == want["tool_calls"]
    assert got["content"] == want["reasoning_content"] + want["content"]


def test_tool_parser_alone_non_streaming_reports_reasoning_as_content() -> None:
    fmt, thinking, output = CASES["glm-4.7"]
    want = expected(fmt, thinking, output)
    got = whole(fmt, thinking, output, reasoning=False)
    assert got["tool_calls"] == want["tool_calls"]
    assert got["content"] == want["reasoning_content"] + want["content"]


def test_call_cut_off_by_the_end_of_stream_is_never_completed() -> None:
    fmt, thinking, output = CASES["qwen3-coder"]
    cut = output[: output.index("</parameter>")]
    got = whole(fmt, thinking, cut)
    assert got == expected(fmt, thinking, cut)
    assert got["tool_calls"] == [] and "<tool_call>" not in (got["content"] or "")
    with pytest.raises(json.JSONDecodeError):
        stream(fmt, thinking, cut, [4] * len(cut))  # the arguments never close


def test_concurrent_requests_keep_their_own_turns() -> None:
    """Two requests interleaved in one thread, each in its own context (as SGLang's
    requests run in their own asyncio tasks), do not swap sessions."""
    import contextvars

    fmt, thinking, _ = CASES["kimi-k2"]
    name = adapter.PREFIX + fmt.name
    first, second = contextvars.copy_context(), contextvars.copy_context()
    made = {}
    for label, context in (("a", first), ("b", second)):
        made[label] = context.run(
            ReasoningParser, name, True, thinking, request(), tool_call_parser_active=True
        )
    tools = request().tools
    parsers = {
        label: context.run(FunctionCallParser, tools, name)
        for label, context in (("a", first), ("b", second))
    }
    for label in "ab":
        assert parsers[label].detector.turn is made[label].detector.turn


def test_every_format_is_registered_under_its_protocall_name() -> None:
    for name in protocall.formats.names():
        assert FunctionCallParser.ToolCallParserEnum["protocall-" + name].format_name == name
        assert ReasoningParser.DetectorMap["protocall-" + name].format_name == name


def test_declared_as_an_sglang_general_plugin() -> None:
    from pathlib import Path

    project = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    section = project.split('[project.entry-points."sglang.srt.plugins"]\n', 1)[1]
    assert section.startswith('protocall = "protocall.integrations.sglang:register"\n')
    adapter.register()  # idempotent: the hook is registered once
    assert len(adapter._hooked) == 1


@pytest.mark.parametrize("choice", ["auto", "required"])
@pytest.mark.parametrize("strict", [False, True])
def test_no_constraint_the_model_writes_its_own_format(choice: str, strict: bool) -> None:
    """SGLang asks the parser for a generation constraint when it builds the request:
    there is none (no structural tag, no JSON schema), and `required` reads the model's
    own format."""
    tools = [{**TOOLS[0], "function": {**TOOLS[0]["function"], "strict": strict}}]
    parser = FunctionCallParser(request(tools).tools, "protocall-qwen3-coder", tool_choice=choice)
    assert parser.get_structure_constraint(choice) is None
    assert parser.owns_tool_format()


def test_template_detector_the_server_builds_at_start_has_the_format_markers() -> None:
    """SGLang builds one reasoning detector at start (no request) for the template's
    think markers; it shares nothing with the requests' turns."""
    detector = ReasoningParser("protocall-qwen3-coder", stream_reasoning=True).detector
    assert (detector.think_start_token, detector.think_end_token) == ("<think>", "</think>")
    alone = FunctionCallParser(request().tools, "protocall-qwen3-coder").detector
    assert alone.turn is not detector.turn and not alone.shared


@settings(max_examples=40)
@given(
    label=st.sampled_from(sorted(CASES)),
    sizes=st.lists(st.integers(1, 9), min_size=1),
    stream_reasoning=st.booleans(),
)
def test_any_chunking_through_sglang_calls_equals_session(
    label: str, sizes: list[int], stream_reasoning: bool
) -> None:
    """Whatever the deltas, and whether reasoning streams or arrives in one piece."""
    fmt, thinking, output = CASES[label]
    sizes = cover(sizes, len(output))
    got = stream(fmt, thinking, output, sizes, stream_reasoning=stream_reasoning)
    assert got == expected(fmt, thinking, output)
