"""The SGLang adapter inside SGLang 0.5.23's own chat endpoint: `OpenAIServingChat` over a
stand-in engine (tests/integrations/sglang_loop.py says what runs for real and what stands in), its
answers read by the official `openai` SDK from the bytes SGLang sends, compared with
protocall's own `session.message` for the text the engine generated."""

from __future__ import annotations

import contextvars
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from server_samples import CALL, LING3_IN_REASONING, LING3_READ, TOOL_ENTRIES, TOOLS
from sglang_loop import (
    ChatCompletionRequest,
    ChatTokenizer,
    FunctionCallParser,
    Generation,
    ReasoningParser,
    Server,
    adapter,
    message_of,
    normal,
    sdk_replies,
    special_tokens,
    through_sglang,
)

import protocall
from protocall.blocks.turns import ToolUse, Turn
from protocall.compile.format import Format

pytestmark = pytest.mark.filterwarnings(
    "ignore:max_tokens is deprecated:DeprecationWarning",  # a field clients still send
    "ignore:max_rollback_tokens is deprecated:DeprecationWarning",  # SGLang's xgrammar call
)

PATH = CALL.arguments["path"]
OTHER = ToolUse("write_file", {"path": "b.txt", "lines": 1})
REQUEST = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}

MAIN = ("qwen3-coder", "kimi-k2", "deepseek-v3.2", "glm-4.7")
"""The families the issue recorded outputs of: every scenario at every delta size."""
OTHERS = ("hermes", "deepseek-v3.1", "minimax-m2", "ling-3", "glm-4.5", "seed-oss", "mistral")
"""Other families with a plug-in, at fewer delta sizes."""
SIZES = {"1": (1,), "2": (2,), "3": (3,), "5": (5,), "8": (8,), "bursts": (1, 7, 2, 8, 3, 1, 5)}
"""Tokens per delta: `--stream-interval`, speculative decoding's accepted bursts."""


def opened(fmt: Format) -> str | None:
    """The channel the chat template's generation prompt leaves open: reasoning where the
    format's template opens it."""
    return "reasoning" if fmt.prompt_for("reasoning") is not None else None


def marker_in_argument(fmt: Format) -> ToolUse:
    """A call whose argument holds the format's own markers as text."""
    return ToolUse("write_file", {"path": "".join(fmt.reserved[:4]), "lines": 2})


def turns(fmt: Format) -> dict[str, Turn]:
    reasoning = "Plan it." if opened(fmt) else None
    return {
        "reasoning then a call": Turn(reasoning, (CALL,)),
        "parallel calls": Turn(reasoning, ("Two.", CALL, OTHER)),
        "marker text inside an argument": Turn(reasoning, (marker_in_argument(fmt),)),
        "text after a call": Turn(reasoning, ("Sure.", CALL, "Done.")),
        "no call": Turn(reasoning, ("Just text.",)),
    }


def split_stop(fmt: Format, output: str) -> tuple[str, str | None]:
    """`output` without its last special token, and that token (the stop token)."""
    stop = next((s for s in special_tokens(fmt) if output.endswith(s)), None)
    return (output[: -len(stop)], stop) if stop else (output, None)


_SERVERS: dict[str, Server] = {}


def server_for(name: str) -> Server:
    """One server per family (as one is started per model), its template opening
    reasoning where the format's does."""
    if name not in _SERVERS:
        fmt = protocall.formats.get(name)
        _SERVERS[name] = Server(fmt, thinking=True if opened(fmt) else None)
    return _SERVERS[name]


def scenario(fmt: Format, label: str) -> tuple[str, str | None, int | None]:
    """The generated text, its stop token and the request's `max_tokens` of `label`."""
    start = opened(fmt)
    if label in turns(fmt):
        text, stop = split_stop(fmt, fmt.render(turns(fmt)[label], start))
        return text, stop, None
    text, stop = split_stop(fmt, fmt.render(turns(fmt)["reasoning then a call"], start))
    value = text.index("a <b>")
    if label == "cut by max_tokens":
        return text, stop, len(ChatTokenizer(fmt).encode(text[: value + 3]))
    if label == "unknown tool":
        return text.replace("write_file", "wipe_disk"), stop, None
    assert label == "broken arguments"
    return text[: value + 4] + text[text.rindex("3") + 1 :], stop, None


LABELS = [
    "reasoning then a call",
    "parallel calls",
    "marker text inside an argument",
    "text after a call",
    "no call",
    "cut by max_tokens",
    "unknown tool",
    "broken arguments",
]


def expected(fmt: Format, text: str, max_tokens: int | None) -> tuple[dict[str, Any], str]:
    """protocall's message for what the engine generates, and the finish reason: `length`
    where the token limit cut the output, else `tool_calls` where calls were made, else
    `stop` (the engine's word: a model that ends its turn inside a call stopped, though
    protocall's own `finish_reason`, which cannot know, reads any cut-off as `length`)."""
    if max_tokens is not None:
        tokenizer = ChatTokenizer(fmt)
        text = tokenizer.decode(tokenizer.encode(text)[:max_tokens])
    message = normal(message_of(fmt, TOOLS, fmt.prompt_for(opened(fmt)), text))
    if max_tokens is not None:
        return message, "length"
    return message, "tool_calls" if message["tool_calls"] else "stop"


def served(
    name: str, label: str, sizes: tuple[int, ...], stream: bool
) -> tuple[Any, dict[str, Any], str]:
    fmt = protocall.formats.get(name)
    text, stop, max_tokens = scenario(fmt, label)
    fields: dict[str, Any] = {"tools": TOOLS}
    if max_tokens is not None:
        fields["max_tokens"] = max_tokens
    reply = through_sglang(server_for(name), Generation(text, stop, sizes), stream, **fields)
    want, finish = expected(fmt, text, max_tokens)
    return reply, want, finish


def assert_calls_whole(reply: Any) -> None:
    """Each call reached the client in one delta: id, name and complete arguments."""
    for delta in reply.call_deltas:
        assert delta.get("id") and delta["function"].get("name"), delta
        json.loads(delta["function"]["arguments"])
    assert len(reply.call_deltas) == len(reply.message["tool_calls"])


STREAMED = [(name, size) for name in MAIN for size in SIZES] + [
    (name, size) for name in OTHERS for size in ("1", "3", "8", "bursts")
]


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize(("name", "size"), STREAMED)
def test_streamed_equals_session(name: str, label: str, size: str) -> None:
    reply, want, finish = served(name, label, SIZES[size], stream=True)
    assert normal(reply.message) == want
    assert reply.finish_reason == finish
    assert_calls_whole(reply)


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("name", MAIN + OTHERS)
def test_non_streaming_response_equals_session(name: str, label: str) -> None:
    reply, want, finish = served(name, label, (1,), stream=False)
    assert normal(reply.message) == want
    assert reply.finish_reason == finish


def test_a_cut_call_never_reaches_the_client() -> None:
    """The case the issue found: the name and part of the arguments sent, then the limit."""
    fmt = protocall.formats.get("qwen3-coder")
    text, stop, max_tokens = scenario(fmt, "cut by max_tokens")
    server = Server(fmt)
    for sizes in ((1,), (4,)):
        reply = through_sglang(
            server, Generation(text, stop, sizes), True, tools=TOOLS, max_tokens=max_tokens
        )
        assert reply.call_deltas == [] and reply.message["tool_calls"] == []
        assert reply.finish_reason == "length"


def test_tentative_calls_stream_as_written_when_the_server_opts_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`PROTOCALL_SGLANG_TENTATIVE_CALLS=1`: the name first, then argument fragments; a
    call then cut off reaches the client in part (for progress displays only)."""
    monkeypatch.setenv(adapter.TENTATIVE_CALLS, "1")
    fmt = protocall.formats.get("qwen3-coder")
    server = Server(fmt)
    text, stop, max_tokens = scenario(fmt, "reasoning then a call")
    whole = through_sglang(server, Generation(text, stop, (2,)), True, tools=TOOLS)
    assert (normal(whole.message), whole.finish_reason) == expected(fmt, text, None)
    first, *rest = whole.call_deltas
    assert first["function"] == {"name": "write_file", "arguments": ""} and len(rest) > 2
    text, stop, max_tokens = scenario(fmt, "cut by max_tokens")
    generation = Generation(text, stop, (2,))
    cut = through_sglang(server, generation, True, tools=TOOLS, max_tokens=max_tokens)
    assert [c["name"] for c in cut.message["tool_calls"]] == ["write_file"]
    assert cut.message["tool_calls"][0]["arguments"].startswith('{"path": "a')
    assert cut.finish_reason == "length"
    fmt = protocall.formats.get("kimi-k2")
    text, stop, _ = scenario(fmt, "broken arguments")
    broken = through_sglang(server_for("kimi-k2"), Generation(text, stop, (2,)), True, tools=TOOLS)
    assert broken.call_deltas and broken.finish_reason == "stop"  # not `tool_calls`


READ = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}
CHOICES: dict[str, Any] = {
    "required": "required",
    "named": {"type": "function", "function": {"name": "write_file"}},
    "strict auto": "auto",
}
"""The requests for which SGLang asks the tool parser for a grammar."""


def constrained(server: Server, choice: str, text: str, stop: str | None, **fields: Any) -> Any:
    """SGLang serves `text` for a request of `choice` (two tools, strict for `strict
    auto`; other request `fields`); the grammar it passed to the engine, compiled by its
    xgrammar backend."""
    tools = [*TOOLS, READ]
    if choice == "strict auto":
        tools = [{**t, "function": {**t["function"], "strict": True}} for t in tools]
    generation = Generation(text, stop, (3,))
    fields |= {"tools": tools, "tool_choice": CHOICES[choice]}
    reply = through_sglang(server, generation, True, **fields)
    assert normal(reply.message)["tool_calls"], "the request is served"
    params = server.engine.requests[-1].sampling_params
    backend = server.engine.tokenizer.grammar_backend()
    return lambda: backend.dispatch_structural_tag(params["structural_tag"])


def answer(fmt: Format, *parts: str | ToolUse) -> str:
    """What the model writes after its reasoning: `parts`, without the stop token."""
    return split_stop(fmt, fmt.render(Turn(None, parts), None))[0]


def admits(grammar: Any, tokenizer: Any, text: str, stop: str | None) -> bool:
    """Whether `grammar` admits the tokens of `text`, then the stop token, to its end."""
    ids = tokenizer.encode(text) + ([tokenizer.vocab[stop]] if stop else [])
    try:
        for token in ids:
            grammar.accept_token(token)
    except ValueError:  # SGLang's grammar object refuses the token
        return False
    return bool(grammar.is_terminated())


GRAMMAR_FAMILIES = (*MAIN, "hermes", "minimax-m2", "deepseek-v3.1", "ling-3")


@pytest.mark.parametrize("choice", sorted(CHOICES))
@pytest.mark.parametrize("name", GRAMMAR_FAMILIES)
def test_the_format_grammar_reaches_the_engine(name: str, choice: str) -> None:
    """`tool_choice` required, a named tool and `strict` tools: SGLang's sampling
    parameters carry protocall's grammar of the format for the request's tools, which its
    xgrammar backend compiles; after the reasoning (the reasoning parser's part) it admits
    the model's own call and refuses what the request excludes."""
    fmt = protocall.formats.get(name)
    server = server_for(name)
    text, stop = split_stop(fmt, fmt.render(Turn("Plan.", ("Writing.", CALL)), opened(fmt)))
    grammar = constrained(server, choice, text, stop)
    tokenizer = server.engine.tokenizer
    assert admits(grammar(), tokenizer, answer(fmt, CALL), stop)
    assert admits(grammar(), tokenizer, answer(fmt, CALL, OTHER), stop)
    no_call = admits(grammar(), tokenizer, answer(fmt, "Just text."), stop)
    assert no_call == (choice == "strict auto")
    other_tool = ToolUse("read_file", {"path": "x"})
    assert admits(grammar(), tokenizer, answer(fmt, other_tool), stop) == (choice != "named")
    wrong_type = ToolUse("write_file", {"path": "x", "lines": "three"})
    assert not admits(grammar(), tokenizer, answer(fmt, wrong_type), stop)


@pytest.mark.parametrize("name", ["qwen3-coder", "kimi-k2"])
def test_parallel_tool_calls_false_admits_one_call(name: str) -> None:
    fmt = protocall.formats.get(name)
    server = server_for(name)
    text, stop = split_stop(fmt, fmt.render(Turn("Plan.", (CALL,)), opened(fmt)))
    grammar = constrained(server, "required", text, stop, parallel_tool_calls=False)
    assert admits(grammar(), server.engine.tokenizer, answer(fmt, CALL), stop)
    assert not admits(grammar(), server.engine.tokenizer, answer(fmt, CALL, OTHER), stop)


def test_a_grammar_asked_with_thinking_mode_starts_inside_the_reasoning() -> None:
    """SGLang sets `thinking_mode` when no reasoning parser owns the reasoning: the grammar
    then starts inside the reasoning the template opened."""
    fmt = protocall.formats.get("qwen3-coder")
    server = server_for("qwen3-coder")
    parser = FunctionCallParser(ChatCompletionRequest(**REQUEST).tools, "protocall-qwen3-coder")
    tag = parser.detector.get_structural_tag(TOOLS, "required", thinking_mode=True)
    grammar = server.engine.tokenizer.grammar_backend().dispatch_structural_tag(
        tag.model_dump_json()
    )
    text, stop = split_stop(fmt, fmt.render(Turn("Plan.", ("Writing.", CALL)), "reasoning"))
    assert admits(grammar, server.engine.tokenizer, text, stop)


def test_a_keyword_the_grammar_cannot_write_is_dropped_and_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A `pattern` outside the linear-time subset (a look-ahead) has no grammar, so SGLang
    gets a looser constraint (a warning names what was dropped) and the model's own format
    is parsed."""
    fmt = protocall.formats.get("qwen3-coder")
    server = server_for("qwen3-coder")
    tools = json.loads(json.dumps(TOOLS))
    tools[0]["function"]["parameters"]["properties"]["path"]["pattern"] = "^(?=[a-z])"
    text, stop, _ = scenario(fmt, "reasoning then a call")
    generation = Generation(text, stop, (3,))
    with caplog.at_level("WARNING"):
        reply = through_sglang(server, generation, True, tools=tools, tool_choice="required")
    assert "structural_tag" in server.engine.requests[-1].sampling_params
    assert any("pattern" in record.getMessage() for record in caplog.records)
    assert normal(reply.message) == expected(fmt, text, None)[0]


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("size", [1, 3, 200])
def test_ling3_call_inside_pre_opened_reasoning_is_a_call(size: int, stream: bool) -> None:
    fmt = protocall.formats.get("ling-3")
    text, stop = split_stop(fmt, LING3_IN_REASONING)
    generation = Generation(text, stop, (size,))
    got = normal(through_sglang(server_for("ling-3"), generation, stream, tools=TOOLS).message)
    assert (got["reasoning_content"], got["tool_calls"]) == LING3_READ


def test_tools_a_system_message_declares_are_declared() -> None:
    """SGLang's function-call parser gets the request's tools and those of its system
    messages; the session declares the same (an undeclared name would stay content)."""
    fmt = protocall.formats.get("qwen3-coder")
    text, stop, _ = scenario(fmt, "reasoning then a call")
    system = {"role": "system", "content": "Tools.", "tools": TOOLS}
    messages = [system, {"role": "user", "content": "hi"}]
    for stream in (True, False):
        reply = through_sglang(Server(fmt), Generation(text, stop, (2,)), stream, messages=messages)
        assert normal(reply.message)["tool_calls"] == [("write_file", {"path": PATH, "lines": 3})]


@pytest.mark.parametrize("stream", [True, False])
def test_request_without_tools_keeps_a_call_as_content(stream: bool) -> None:
    """No tool parser runs; the reasoning parser's session declares no tool, so the call's
    text stays in the content, special tokens and all (the request keeps them)."""
    fmt = protocall.formats.get("qwen3-coder")
    text, stop, _ = scenario(fmt, "reasoning then a call")
    generation = Generation(text, stop, (4,))
    reply = through_sglang(Server(fmt), generation, stream, skip_special_tokens=False)
    prompt = fmt.prompt_for("reasoning")
    assert normal(reply.message) == normal(message_of(fmt, [], prompt, text))
    assert "<function=write_file>" in reply.message["content"]


@pytest.mark.parametrize("name", ["qwen3-coder", "glm-4.7"])
def test_unstreamed_reasoning_arrives_in_one_piece(name: str) -> None:
    fmt = protocall.formats.get(name)
    text, stop, _ = scenario(fmt, "text after a call")
    server = Server(fmt)
    body = server.respond(
        {"tools": TOOLS, "stream": True, "stream_reasoning": False}, Generation(text, stop, (2,))
    )
    pieces = [
        json.loads(line[6:])["choices"][0]["delta"].get("reasoning_content")
        for line in body.decode().split("\n\n")
        if line.startswith("data: {") and json.loads(line[6:])["choices"]
    ]
    assert [p for p in pieces if p] == ["Plan it."]


@pytest.mark.parametrize("stream", [True, False])
def test_reasoning_parser_alone_keeps_a_call_as_content(stream: bool) -> None:
    fmt = protocall.formats.get("qwen3-coder")
    text, stop, _ = scenario(fmt, "reasoning then a call")
    server = Server(fmt, tool=False)
    reply = through_sglang(server, Generation(text, stop, (4,)), stream, tools=TOOLS)
    got = normal(reply.message)
    assert got == normal(message_of(fmt, [], fmt.prompt_for("reasoning"), text))
    assert got["reasoning_content"] == "Plan it." and "<function=write_file>" in got["content"]


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("name", ["deepseek-v3.2", "glm-4.7"])
def test_tool_parser_alone_reports_reasoning_as_content(name: str, stream: bool) -> None:
    """Without a reasoning parser SGLang's detector result has no reasoning field: the
    reasoning (without its markers) reaches the client as content."""
    fmt = protocall.formats.get(name)
    text, stop, _ = scenario(fmt, "text after a call")
    server = Server(fmt, reasoning=False)
    got = normal(through_sglang(server, Generation(text, stop, (2,)), stream, tools=TOOLS).message)
    want = normal(message_of(fmt, TOOLS, fmt.prompt_for("reasoning"), text))
    assert got["tool_calls"] == want["tool_calls"]
    assert got["content"] == want["reasoning_content"] + want["content"]


@pytest.mark.parametrize("stream", [True, False])
def test_each_choice_of_a_request_has_its_own_session(stream: bool) -> None:
    """`n=3`: SGLang builds a reasoning and a function-call parser per choice as the
    choice's first output arrives, choices interleaved; each pair shares its own turn."""
    fmt = protocall.formats.get("glm-4.7")
    labels = ["reasoning then a call", "no call", "text after a call"]
    texts = [scenario(fmt, label)[:2] for label in labels]
    generations = [Generation(text, stop, (3,)) for text, stop in texts]
    fields = {"tools": TOOLS, "stream": stream, "n": 3}
    replies = sdk_replies(server_for("glm-4.7").respond(fields, generations), fields)
    assert [normal(reply.message) for reply in replies] == [
        expected(fmt, text, None)[0] for text, _ in texts
    ]


def test_concurrent_requests_keep_their_own_turns() -> None:
    """Two requests interleaved in one thread, each in its own context (as SGLang's
    requests run in their own asyncio tasks), do not swap sessions."""
    name = adapter.PREFIX + "kimi-k2"
    first, second = contextvars.copy_context(), contextvars.copy_context()
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
    req = ChatCompletionRequest(**request)
    made = {
        label: context.run(ReasoningParser, name, True, True, req, tool_call_parser_active=True)
        for label, context in (("a", first), ("b", second))
    }
    parsers = {
        label: context.run(FunctionCallParser, req.tools, name)
        for label, context in (("a", first), ("b", second))
    }
    for label in "ab":
        assert parsers[label].detector.turn is made[label].detector.turn


def test_every_format_is_registered_under_its_protocall_name() -> None:
    for name in protocall.formats.names():
        assert FunctionCallParser.ToolCallParserEnum["protocall-" + name].format_name == name
        assert ReasoningParser.DetectorMap["protocall-" + name].format_name == name


def test_declared_as_an_sglang_general_plugin() -> None:

    project = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    section = project.split('[project.entry-points."sglang.srt.plugins"]\n', 1)[1]
    assert section.startswith('protocall = "protocall.integrations.sglang:register"\n')
    adapter.register()  # idempotent: the hook is registered once
    assert len(adapter._hooked) == 1


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("name", ["kimi-k2", "hermes", "qwen3-coder"])
def test_a_template_without_a_reasoning_toggle_leaves_the_format_default_start(
    name: str, stream: bool
) -> None:
    """SGLang's template detection finds no reasoning toggle (an instruct model's
    template): SGLang then asks the reasoning detector's `reasoning_default`, and the
    session starts where the format's does, so a turn without reasoning is content."""
    fmt = protocall.formats.get(name)
    text, stop = split_stop(fmt, fmt.render(Turn(None, ("Sure.", CALL)), None))
    reply = through_sglang(Server(fmt, thinking=None), Generation(text, stop), stream, tools=TOOLS)
    assert normal(reply.message) == normal(message_of(fmt, TOOLS, None, text))
    assert normal(reply.message)["content"] == "Sure."


def test_template_detector_the_server_builds_at_start_has_the_format_markers() -> None:
    """SGLang builds one reasoning detector at start (no request) for the template's
    think markers; it shares nothing with the requests' turns."""
    server = Server(protocall.formats.get("qwen3-coder"))
    detector = server.chat._reasoning_detector
    assert (detector.think_start_token, detector.think_end_token) == ("<think>", "</think>")


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(MAIN),
    label=st.sampled_from(LABELS),
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6).map(tuple),
    stream_reasoning=st.booleans(),
)
def test_any_delta_sizes_equal_session(
    name: str, label: str, sizes: tuple[int, ...], stream_reasoning: bool
) -> None:
    """Whatever the deltas, and whether reasoning streams or arrives in one piece."""
    fmt = protocall.formats.get(name)
    text, stop, max_tokens = scenario(fmt, label)
    fields: dict[str, Any] = {"tools": TOOLS, "stream_reasoning": stream_reasoning}
    if max_tokens is not None:
        fields["max_tokens"] = max_tokens
    server = server_for(name)
    reply = through_sglang(server, Generation(text, stop, sizes), True, **fields)
    want, finish = expected(fmt, text, max_tokens)
    assert (normal(reply.message), reply.finish_reason) == (want, finish)


@pytest.mark.parametrize("entry", TOOL_ENTRIES, ids=lambda entry: entry["function"]["name"])
def test_a_request_tool_is_read_as_its_dump(entry: dict[str, Any]) -> None:
    from protocall.integrations.turn import fields, tool_dicts

    request = ChatCompletionRequest(model="m", messages=REQUEST["messages"], tools=[entry])
    (tool,) = request.tools
    assert fields(tool) == tool.model_dump(exclude_none=True)
    assert tool_dicts(request.tools) == [tool.model_dump(exclude_none=True)]
