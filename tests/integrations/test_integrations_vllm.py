"""The vLLM adapter inside vLLM's own chat server (tests/integrations/vllm_serving.py:
`OpenAIServingChat`
over vLLM's `OutputProcessor` and a fake engine core), and its parts on their own: the
registration, the request hook, the Responses API's delta path, the special-token split.
Every family's samples in every chunking are in tests/integrations/test_vllm_server.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
import servers_shim
from clients import sdk_accumulated, seen
from hypothesis import given, settings
from hypothesis import strategies as st
from server_samples import (
    CALL,
    LING3_IN_REASONING,
    LING3_READ,
    TOOL_ENTRIES,
    TOOLS,
    TURNS,
    chunkings,
    cover,
    normal,
)
from servers_shim import Tokenizer

import protocall
from protocall.blocks.turns import Turn

servers_shim.require("vllm.parser.parser_manager")

import vllm_serving  # noqa: E402  (after the require: a skip where vLLM is absent)
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402

import protocall.integrations.vllm  # noqa: E402  (registers protocall-<format>)


def case(name: str, start: str | None, turn: Turn) -> tuple[Any, str, str]:
    fmt = protocall.formats.get(name)
    prompt = fmt.prompt_for(start)
    assert prompt is not None
    return fmt, "<|im_start|>user\nhi<|im_end|>\n" + prompt, fmt.render(turn, start)


CASES = {name: case(name, start, turn) for name, (start, turn) in TURNS.items()}
CASES["ling-3 call inside pre-opened reasoning"] = (
    protocall.formats.get("ling-3"),
    "<role>ASSISTANT</role>\n<think>",
    LING3_IN_REASONING,
)


def expected(fmt: Any, prompt: str, output: str, tools: Any = TOOLS) -> dict[str, Any]:
    session = fmt.parser(tools, prompt)
    session.feed(output)
    session.finish()
    return normal(session.message.to_openai())


def server(fmt: Any, tool: bool = True, reasoning: bool = True) -> tuple[Any, Tokenizer]:
    tokenizer = Tokenizer([*fmt.reserved, *(m for pair in fmt.channels.values() for m in pair)])
    name = "protocall-" + fmt.name
    parser_cls = ParserManager.get_parser(
        tool_parser_name=name if tool else None,
        reasoning_parser_name=name if reasoning else None,
        enable_auto_tools=tool,
        model_name="m",
        tokenizer=tokenizer,
    )
    return parser_cls, tokenizer


def request(tools: Any = TOOLS, stream: bool = True) -> ChatCompletionRequest:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, stream=stream
    )


def hf_tokenizer(fmt: Any) -> Any:
    """A real tokenizer holding the format's markers as added tokens."""
    markers = [*fmt.reserved, *(m for pair in fmt.channels.values() for m in pair)]
    return vllm_serving.tokenizer([m for m in markers if not m.isalnum()])


def stream(
    fmt: Any, prompt: str, output: str | list[int], sizes: list[int], **which: bool
) -> dict[str, Any]:
    """`output` (text, or its token ids) answered by vLLM's chat server, streamed in
    engine steps of `sizes` tokens (no stop token: the engine stops at `length`), and read
    by the official SDK's accumulator from the server's chunks."""
    tok = hf_tokenizer(fmt)
    engine = vllm_serving.Engine(tok, vllm_serving.encode(tok, prompt))
    engine.output = vllm_serving.encode(tok, output) if isinstance(output, str) else output
    engine.steps, engine.finish = sizes, "length"
    name = "protocall-" + fmt.name
    chat = vllm_serving.serving(
        engine,
        name if which.get("tool", True) else None,
        name if which.get("reasoning", True) else None,
    )
    tools = TOOLS if which.get("tool", True) else None  # vLLM refuses tools without a parser
    body = vllm_serving.run(chat, vllm_serving.request(tools, True))
    message = seen(sdk_accumulated(vllm_serving.sse_chunks(body)), "reasoning")["message"]
    message["reasoning_content"] = message.pop("reasoning")
    return normal(message)


@pytest.mark.parametrize("label", sorted(CASES))
def test_streamed_through_vllm_loop_equals_session(label: str) -> None:
    fmt, prompt, output = CASES[label]
    want = expected(fmt, prompt, output)
    assert want["tool_calls"], "the sample has a call"
    for sizes in chunkings(len(output), seed=len(label)):
        assert stream(fmt, prompt, output, sizes) == want


@pytest.mark.parametrize("label", sorted(CASES))
def test_non_streaming_parse_equals_session(label: str) -> None:
    fmt, prompt, output = CASES[label]
    parser_cls, tokenizer = server(fmt)
    req = request(stream=False)
    parser = parser_cls(tokenizer, req.tools, chat_template_kwargs={}, model_config=None)
    parser.set_prompt_token_ids(tokenizer.encode(prompt))
    reasoning, content, calls = parser.parse(output, req, enable_auto_tools=True)
    got = {
        "content": content or None,
        "reasoning_content": reasoning or None,
        "tool_calls": [(c.name, json.loads(c.arguments)) for c in calls or ()],
    }
    assert got == expected(fmt, prompt, output)


def test_ling3_call_inside_pre_opened_reasoning_is_a_call() -> None:
    fmt, prompt, output = CASES["ling-3 call inside pre-opened reasoning"]
    got = stream(fmt, prompt, output, [3] * len(output))
    assert (got["reasoning_content"], got["tool_calls"]) == LING3_READ


def test_reasoning_parser_alone_keeps_a_call_as_content() -> None:
    fmt, prompt, output = CASES["qwen3-coder"]
    got = stream(fmt, prompt, output, [4] * len(output), tool=False)
    assert got["tool_calls"] == []
    assert got["reasoning_content"] == "Plan it."
    assert "<function=write_file>" in got["content"]


def test_tool_parser_alone_parses_the_whole_stream() -> None:
    fmt, prompt, output = CASES["kimi-k2"]
    assert stream(fmt, prompt, output, [2] * len(output), reasoning=False) == expected(
        fmt, prompt, output
    )


def test_prompt_that_closed_reasoning_routes_to_the_tool_parser() -> None:
    fmt = protocall.formats.get("glm-4.7")
    prompt = "<|user|>hi" + fmt.prompt_for(None)  # `<|assistant|></think>`: closed
    output = fmt.render(Turn(None, ("Now.", CALL)), None)
    assert stream(fmt, prompt, output, [4] * len(output)) == expected(fmt, prompt, output)


def test_every_format_is_registered_under_its_protocall_name() -> None:
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    for name in protocall.formats.names():
        assert ToolParserManager.get_tool_parser("protocall-" + name).format_name == name
        reasoning = ReasoningParserManager.get_reasoning_parser("protocall-" + name)
        assert reasoning.engine_based_streaming


def test_request_keeps_special_tokens() -> None:
    parser_cls, tokenizer = server(protocall.formats.get("qwen3-coder"))
    req = request()
    req.skip_special_tokens = True
    parser_cls(tokenizer, req.tools).adjust_request(req)
    assert req.skip_special_tokens is False


def test_call_cut_off_by_the_end_of_stream_is_never_completed() -> None:
    """Streamed, nothing of the call reaches the client (vLLM's finish reason: `length`);
    parsed whole, there is no call, and its raw text is not content."""
    fmt, prompt, output = CASES["qwen3-coder"]
    cut = output[: output.index("</parameter>")]
    parser_cls, tokenizer = server(fmt)
    req = request(stream=False)
    parser = parser_cls(tokenizer, req.tools, chat_template_kwargs={}, model_config=None)
    parser.set_prompt_token_ids(tokenizer.encode(prompt))
    reasoning, content, calls = parser.parse(cut, req, enable_auto_tools=True)
    want = expected(fmt, prompt, cut)
    assert (reasoning, content, calls or []) == (want["reasoning_content"], want["content"], [])
    assert "<tool_call>" not in (content or "")
    for size in (1, 4, 1000):
        assert stream(fmt, prompt, cut, [size]) == want


@pytest.mark.parametrize("thinking", [True, False])
def test_template_kwargs_stand_in_for_an_unknown_prompt(thinking: bool) -> None:
    fmt = protocall.formats.get("qwen3-coder")
    parser_cls, tokenizer = server(fmt)
    req = request(stream=False)
    kwargs = {"enable_thinking": thinking}
    parser = parser_cls(tokenizer, req.tools, chat_template_kwargs=kwargs, model_config=None)
    reasoning, content, _ = parser.parse("Plan.</think>Hi.", req, enable_auto_tools=True)
    start = "reasoning" if thinking else None
    want = expected(fmt, fmt.prompt_for(start) or "", "Plan.</think>Hi.")
    assert (reasoning, content) == (want["reasoning_content"], want["content"])
    assert (reasoning == "Plan.") is thinking


def test_loadable_as_a_parser_plugin_by_its_module_name() -> None:
    from vllm.tool_parsers import ToolParserManager
    from vllm.utils.import_utils import import_plugin

    assert import_plugin("protocall.integrations.vllm") is protocall.integrations.vllm
    ToolParserManager.import_tool_parser("protocall.integrations.vllm")  # no error
    assert ToolParserManager.get_tool_parser("protocall-hermes").format_name == "hermes"


@settings(max_examples=25)
@given(label=st.sampled_from(sorted(CASES)), sizes=st.lists(st.integers(1, 9), min_size=1))
def test_any_chunking_through_vllm_loop_equals_session(label: str, sizes: list[int]) -> None:
    fmt, prompt, output = CASES[label]
    sizes = cover(sizes, len(output))
    assert stream(fmt, prompt, output, sizes) == expected(fmt, prompt, output)


@pytest.mark.parametrize("label", sorted(TURNS))
def test_a_marker_spelled_out_of_ordinary_tokens_stays_text(label: str) -> None:
    """The format's markers copied into the content as ordinary tokens open nothing and
    reach the client verbatim, the real call (special tokens) parsing as ever; one delta
    holding both the copy and the real markers (the whole output at once) included."""
    fmt = protocall.formats.get(label)
    start, turn = TURNS[label]
    prompt = "<|im_start|>user\nhi<|im_end|>\n" + (fmt.prompt_for(start) or "")
    honest = fmt.render(Turn(turn.reasoning, ("Look: SENTINEL", CALL)), start)
    tok = hf_tokenizer(fmt)
    copied = " ".join(tok.get_added_vocab())
    before, after = honest.split("SENTINEL")
    encode = vllm_serving.encode
    ids = [*encode(tok, before), *encode(tok, copied, ordinary=True), *encode(tok, after)]
    want = expected(fmt, prompt, honest)
    want["content"] = want["content"].replace("SENTINEL", copied)
    assert want["tool_calls"] == [("write_file", CALL.arguments)]
    for sizes in chunkings(len(ids), seed=len(label)):
        assert stream(fmt, prompt, ids, sizes) == want


def test_the_added_tokens_among_the_markers_are_the_special_tokens() -> None:
    from protocall.integrations.vllm import special_ids

    fmt = protocall.formats.get("kimi-k3")
    tokenizer = Tokenizer(["<|open|>", "<|sep|>", "<|close|>", "<|im_start|>"])
    found = special_ids(tokenizer, fmt)
    assert sorted(found.values()) == ["<|close|>", "<|open|>", "<|sep|>"]
    assert special_ids(tokenizer, fmt) is found  # once per tokenizer


def test_a_delta_holding_a_copy_and_the_special_token_places_each() -> None:
    from protocall.integrations.vllm import spans

    tokenizer = Tokenizer(["<tool_call>"])
    special = tokenizer.encode("<tool_call>")
    copy = tokenizer.ordinary("<tool_call>")
    specials = {special[0]: "<tool_call>"}
    text = "<tool_call><tool_call>"
    assert spans(text, copy + special, specials, tokenizer) == (
        [
            ("<tool_call>", False),
            ("<tool_call>", True),
        ],
        [],
        0,
    )
    assert spans(text, special + copy, specials, tokenizer) == (
        [
            ("<tool_call>", True),
            ("<tool_call>", False),
        ],
        [],
        0,
    )
    assert spans(
        "ab",
        [*tokenizer.ordinary("a"), *special, *tokenizer.ordinary("b")],
        specials,
        tokenizer,
    ) == ([("a", False), ("<tool_call>", True), ("b", False)], [], 0)
    # The stop token's id ends the last delta without its text: due, not put in.
    assert spans("a", [*tokenizer.ordinary("a"), *special], specials, tokenizer) == (
        [("a", False)],
        [("<tool_call>", True)],
        0,
    )
    # Text held back (a stop string could start there): what arrived, then what is due.
    assert spans("<tool_", special + tokenizer.ordinary("b"), specials, tokenizer) == (
        [],
        [("<tool_call>", True), ("b", False)],
        len("<tool_"),
    )


@pytest.mark.parametrize(
    "values",
    [
        {"role": None, "content": "hi", "reasoning": None, "tool_calls": []},
        {"id": "call_1", "type": "function", "index": 0, "function": None},
        {"name": "write_file", "arguments": ""},
    ],
)
def test_the_fast_constructor_builds_what_model_construct_builds(values: dict) -> None:
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
    )

    from protocall.integrations.vllm import constructor

    models = (DeltaMessage, DeltaToolCall, DeltaFunctionCall)
    model = next(m for m in models if set(m.model_fields) == set(values))
    fast, slow = constructor(model)(**values), model.model_construct(**values)
    assert type(fast) is model and fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert (fast.__pydantic_extra__, fast.__pydantic_private__) == (
        slow.__pydantic_extra__,
        slow.__pydantic_private__,
    )
    assert fast.model_dump_json() == slow.model_dump_json()


@settings(max_examples=60)
@given(
    parts=st.lists(
        st.tuples(st.sampled_from(["<tool_call>", "</tool_call>", "<", "a"]), st.booleans()),
        max_size=12,
    ),
    skipped=st.booleans(),
)
def test_a_delta_splits_into_exactly_its_tokens(
    parts: list[tuple[str, bool]], skipped: bool
) -> None:
    """Whatever mix of special tokens and spelled-out copies a delta holds, each special
    token is placed where its id is, also when the text lacks it (skipped); those that end
    the delta without their text are due."""
    from protocall.integrations.vllm import spans

    tokenizer = Tokenizer(["<tool_call>", "</tool_call>"])
    parts = [(text, special and text in tokenizer.specials) for text, special in parts]
    ids = [
        i
        for text, special in parts
        for i in (tokenizer.encode(text) if special else tokenizer.ordinary(text))
    ]
    specials = {tokenizer.vocab[s]: s for s in tokenizer.specials}
    want: list[tuple[str, bool]] = []
    for text, special in parts:
        if want and not special and not want[-1][1]:
            want[-1] = (want[-1][0] + text, False)
        else:
            want.append((text, special))
    text = tokenizer.decode(ids, skip_special_tokens=skipped)
    arrived, due, partly = spans(text, ids, specials, tokenizer)
    assert partly == 0
    assert not due if not skipped else all(special for _, special in due)
    assert arrived + due == want


@pytest.mark.parametrize("entry", TOOL_ENTRIES, ids=lambda entry: entry["function"]["name"])
def test_a_request_tool_is_read_as_its_dump(entry: dict[str, Any]) -> None:
    from protocall.integrations.turn import fields, tool_dicts

    request = vllm_serving.request([entry], True)
    (tool,) = request.tools
    assert fields(tool) == tool.model_dump(exclude_none=True)
    assert tool_dicts(request.tools) == [tool.model_dump(exclude_none=True)]
