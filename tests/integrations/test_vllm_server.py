"""The vLLM adapter inside vLLM's own OpenAI server (tests/integrations/vllm_serving.py):
every family's
samples streamed in every way vLLM chunks a stream, read back by the official SDK from the
server's SSE bytes, and answered whole."""

from __future__ import annotations

import json
from typing import Any

import pytest
import servers_shim

servers_shim.require("vllm.entrypoints.openai.chat_completion.serving")

import httpx  # noqa: E402
import vllm_samples  # noqa: E402
import vllm_serving  # noqa: E402
from clients import URL, seen, transport  # noqa: E402
from openai import LengthFinishReasonError, OpenAI  # noqa: E402

import protocall.integrations.vllm  # noqa: E402, F401  (registers protocall-<format>)
from protocall import formats  # noqa: E402
from protocall.blocks.turns import Turn  # noqa: E402
from protocall.integrations.vllm import TENTATIVE_CALLS  # noqa: E402
from protocall.message import Message  # noqa: E402

CHUNKINGS = {
    "1 token per delta": {"steps": [1]},
    "2 tokens per delta": {"steps": [2]},
    "3 tokens per delta": {"steps": [3]},
    "5 tokens per delta": {"steps": [5]},
    "8 tokens per delta": {"steps": [8]},
    "--stream-interval 4": {"interval": 4},
    "speculative bursts": {"steps": [1, 4, 2, 7, 3, 1, 5]},
    "slow client": {"steps": [2], "lag": 3},
    # A request stop string (never written): vLLM holds back the text that could start it.
    "stop string": {"steps": [1, 3], "stop": ["NEVER-WRITTEN-STOP"]},
}


def sdk_read(body: bytes, tools: Any) -> dict[str, Any]:
    """What the official SDK's `chat.completions.stream()` ends up with over `body`."""
    http = httpx.Client(transport=transport(body, ()))
    client = OpenAI(api_key="test", base_url=URL, http_client=http, max_retries=0)
    with client.chat.completions.stream(model="m", messages=[], tools=tools) as stream:
        try:
            for _ in stream:
                pass
            choice = stream.get_final_completion().choices[0]
        except LengthFinishReasonError as error:
            choice = error.completion.choices[0]
    return numbered(seen(choice, "reasoning"))  # type: ignore[arg-type]


def numbered(seen: dict[str, Any]) -> dict[str, Any]:
    """`seen` with its calls' ids (random per session) numbered in order, once checked
    present and distinct, and an empty content None (vLLM's first chunk sends the role
    with `content: ""`, whatever follows)."""
    seen["message"]["content"] = seen["message"]["content"] or None
    calls = seen["message"].get("tool_calls") or []
    ids = [call["id"] for call in calls]
    assert all(ids) and len(set(ids)) == len(ids), ids
    for number, call in enumerate(calls):
        call["id"] = f"call_{number}"
    return seen


def expected(message: Message, finish: str) -> dict[str, Any]:
    """What the client must end up with: protocall's message, and the `finish_reason`
    vLLM resolves from the engine's (`length` stays; `stop` with calls is `tool_calls`)."""
    reason = "length" if finish == "length" else "tool_calls" if message.tool_calls else "stop"
    return numbered({"message": message.to_openai("reasoning"), "finish_reason": reason})


def server(sample: vllm_samples.Sample, **chunking: Any) -> tuple[Any, Any]:
    prompt = vllm_serving.encode(sample.tokenizer, sample.prompt)
    engine = vllm_serving.Engine(sample.tokenizer, prompt)
    engine.output = sample.ids
    engine.finish = sample.finish
    for key, value in chunking.items():
        setattr(engine, key, value)
    name = "protocall-" + sample.family
    return vllm_serving.serving(engine, name, name), engine


def streamed(sample: vllm_samples.Sample, stop: Any = None, **chunking: Any) -> dict[str, Any]:
    chat, _ = server(sample, **chunking)
    request = vllm_serving.request(vllm_samples.SAMPLE_TOOLS, True, stop=stop)
    body = vllm_serving.run(chat, request)
    return sdk_read(body, vllm_samples.SAMPLE_TOOLS)


def answered(sample: vllm_samples.Sample) -> dict[str, Any]:
    chat, _ = server(sample)
    response = vllm_serving.run(chat, vllm_serving.request(vllm_samples.SAMPLE_TOOLS, False))
    choice = response["choices"][0]
    got = choice["message"]
    message = {key: got[key] for key in ("role", "content", "reasoning")}
    if got.get("tool_calls"):
        message["tool_calls"] = got["tool_calls"]
    return numbered({"message": message, "finish_reason": choice["finish_reason"]})


ALL = [s for family in vllm_samples.FAMILIES for s in vllm_samples.samples(family)]
OTHERS = [s for family in vllm_samples.OTHER for s in vllm_samples.samples(family)]
STREAMS = [(s, c) for s in ALL for c in sorted(CHUNKINGS)] + [
    (s, c)
    for s in OTHERS
    for c in ("1 token per delta", "3 tokens per delta", "speculative bursts")
]
"""Every sample of the families with a checked vocabulary in every chunking; the other
formats' in three."""


@pytest.mark.parametrize(("sample", "chunking"), STREAMS, ids=lambda v: getattr(v, "name", v))
def test_streamed_through_vllm_equals_the_session(sample: Any, chunking: str) -> None:
    want = expected(vllm_samples.streamed_message(sample), sample.finish)
    assert streamed(sample, **CHUNKINGS[chunking]) == want


@pytest.mark.parametrize("sample", ALL + OTHERS, ids=lambda s: s.name)
def test_answered_whole_by_vllm_equals_the_session(sample: Any) -> None:
    want = expected(vllm_samples.whole_message(sample), sample.finish)
    assert answered(sample) == want


def sample(family: str, label: str) -> vllm_samples.Sample:
    return next(s for s in vllm_samples.samples(family) if s.label == label)


@pytest.mark.parametrize("family", vllm_samples.FAMILIES)
def test_tentative_calls_stream_as_written_when_asked(
    family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the opt-in, a call streams as written: a complete one rebuilds the same
    message, and one cut off reaches the client partial (`finish_reason` `length`)."""
    monkeypatch.setenv(TENTATIVE_CALLS, "1")
    whole = sample(family, "reasoning then a call")
    want = expected(vllm_samples.streamed_message(whole), whole.finish)
    assert streamed(whole, steps=[3]) == want
    got = streamed(sample(family, "cut by max_tokens"), steps=[3])
    assert got["finish_reason"] == "length"
    (call,) = got["message"]["tool_calls"]
    assert call["function"]["name"] == "write_file"
    assert "/tmp/build.sh" in call["function"]["arguments"]


def responses_read(body: bytes) -> dict[str, Any]:
    """What the official SDK's `responses.stream()` ends up with over `body`: the output
    items' reasoning, message text and calls, and the response's status."""
    http = httpx.Client(transport=transport(body, ()))
    client = OpenAI(api_key="test", base_url=URL, http_client=http, max_retries=0)
    tools = [{"type": "function", **tool["function"]} for tool in vllm_samples.SAMPLE_TOOLS]
    response: Any = None
    with client.responses.stream(model="m", input="Go.", tools=tools) as stream:  # type: ignore[arg-type]
        for event in stream:  # the last `response.completed` or `response.incomplete`
            response = getattr(event, "response", None) or response
    texts = {"reasoning": "", "message": ""}
    calls = []
    for item in response.output:
        if item.type == "function_call":
            calls.append((item.name, json.loads(item.arguments)))
        elif item.type in texts:
            texts[item.type] += "".join(part.text for part in item.content or ())  # type: ignore[union-attr]
    return {"reasoning": texts["reasoning"] or None, "content": texts["message"] or None,
            "tool_calls": calls, "status": response.status}  # fmt: skip


def items(message: Message, finish: str) -> dict[str, Any]:
    calls = [(call.name, call.arguments) for call in message.tool_calls]
    status = "incomplete" if finish == "length" else "completed"
    return {"reasoning": message.reasoning_content, "content": message.content,
            "tool_calls": calls, "status": status}  # fmt: skip


@pytest.mark.parametrize(
    "chunking", ["1 token per delta", "3 tokens per delta", "speculative bursts"]
)
@pytest.mark.parametrize("sample", ALL, ids=lambda s: s.name)
def test_streamed_through_vllm_responses_api_equals_the_session(sample: Any, chunking: str) -> None:
    _, engine = server(sample, **CHUNKINGS[chunking])
    name = "protocall-" + sample.family
    responses = vllm_serving.responses_serving(engine, name, name)
    body = vllm_serving.run_responses(responses, vllm_samples.SAMPLE_TOOLS)
    assert responses_read(body) == items(vllm_samples.streamed_message(sample), sample.finish)


def test_the_vllm_under_test_is_the_one_asked_for() -> None:
    """CI runs these tests under two vLLM releases; `PROTOCALL_VLLM_VERSION` names the one
    each run must import."""
    import importlib.metadata
    import os

    import vllm

    wanted = os.environ.get("PROTOCALL_VLLM_VERSION")
    found = importlib.metadata.version("vllm")
    assert wanted in (None, found), (wanted, found, vllm.__file__)


def grammar_of(sample: vllm_samples.Sample, tools: Any, **choice: Any) -> tuple[Any, bytes]:
    """The structured output vLLM's request path hands the engine for `sample`'s request
    with `tools` and `choice` (`tool_choice`), and the streamed answer."""
    chat, engine = server(sample, steps=[3])
    body = vllm_serving.run(chat, vllm_serving.request(tools, True, **choice))
    return engine.sampling[0].structured_outputs, body


def accepts(sample: vllm_samples.Sample, structured: Any) -> bool:
    """Whether vLLM's auto backend choice (xgrammar, which refuses Lark, then llguidance)
    takes `structured`, and llguidance's matcher over the sample's tokenizer accepts the
    sample's whole output, its stop token included."""
    import llguidance
    import llguidance.hf
    from vllm.exceptions import VLLMValidationError
    from vllm.sampling_params import SamplingParams
    from vllm.v1.structured_output.backend_guidance import validate_guidance_grammar
    from vllm.v1.structured_output.backend_xgrammar import validate_xgrammar_grammar

    params = SamplingParams(structured_outputs=structured)
    with pytest.raises(VLLMValidationError, match="Invalid grammar"):
        validate_xgrammar_grammar(params)
    tokenizer = llguidance.hf.from_tokenizer(sample.tokenizer)
    validate_guidance_grammar(params, tokenizer=tokenizer)
    lark = llguidance.LLMatcher.grammar_from_lark(structured.grammar)
    matcher = llguidance.LLMatcher(tokenizer, lark)
    return bool(matcher.consume_tokens(sample.ids)) and matcher.is_accepting()


FORCING = {
    "required": {"tool_choice": "required"},
    "named": {"tool_choice": {"type": "function", "function": {"name": "write_file"}}},
    "strict": {},
}


CONSTRAINED = [family for family in vllm_samples.FAMILIES if family != "deepseek-v3.2"]
"""DeepSeek V3.2's `｜DSML｜` token has no name in llguidance's Lark (see `constrain`)."""


@pytest.mark.parametrize("forcing", sorted(FORCING))
@pytest.mark.parametrize("family", CONSTRAINED)
def test_a_forced_or_strict_call_is_constrained_to_the_format(family: str, forcing: str) -> None:
    """`required`, a named tool and `strict` tools hand the engine protocall's grammar for
    the format and the tools: the model's own format with a call is accepted, a turn
    without one is not where a call is forced, and the answer is the session's."""
    tools = vllm_samples.SAMPLE_TOOLS
    if forcing == "strict":
        tools = [{**tools[0], "function": {**tools[0]["function"], "strict": True}}]
    whole = sample(family, "reasoning then a call")
    structured, body = grammar_of(whole, tools, **FORCING[forcing])
    assert structured is not None and structured.grammar
    assert accepts(whole, structured)
    assert accepts(sample(family, "parallel calls"), structured)
    assert accepts(sample(family, "no call"), structured) is (forcing == "strict")
    assert not accepts(sample(family, "malformed call"), structured)
    reason = "stop" if forcing == "named" else "tool_calls"  # OpenAI's rule, vLLM's too
    want = expected(vllm_samples.streamed_message(whole), whole.finish)
    assert sdk_read(body, tools) == {**want, "finish_reason": reason}


def test_a_forced_call_after_a_primed_prompt_is_constrained_from_inside_the_marker() -> None:
    """Functionary v3.2's template ends its prompt with the first header's `>>>`: the
    grammar begins after it, so the model's `write_file\\n{…}` is accepted, as is text
    after the `all\\n` header with a call after it, and a turn of text alone is not."""
    fmt = formats.get("functionary-v3.2")
    tok = vllm_serving.tokenizer(
        ["<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>", vllm_samples.STOP]
    )
    prompt = "Go.\n" + (fmt.prompt_for(None) or "") + ">>>"

    def after_prompt(*parts: Any) -> vllm_samples.Sample:
        text = fmt.render(Turn(None, parts), None)
        written = text[3:] if text.startswith(">>>") else "all\n" + text
        ids = vllm_serving.encode(tok, written)
        return vllm_samples.Sample("functionary-v3.2", "", prompt, ids, "stop", tok)

    call = after_prompt(vllm_samples.CALL)
    structured, body = grammar_of(call, vllm_samples.SAMPLE_TOOLS, tool_choice="required")
    assert structured is not None and structured.grammar
    assert accepts(call, structured)
    assert accepts(after_prompt("Writing it.", vllm_samples.CALL), structured)
    assert not accepts(after_prompt("Nothing to do."), structured)
    message = sdk_read(body, vllm_samples.SAMPLE_TOOLS)["message"]
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["write_file"]


def test_auto_without_strict_tools_is_not_constrained() -> None:
    structured, _ = grammar_of(sample("qwen3-coder", "no call"), vllm_samples.SAMPLE_TOOLS)
    assert structured is None


def test_a_special_token_the_lark_cannot_name_leaves_the_request_unconstrained() -> None:
    whole = sample("deepseek-v3.2", "reasoning then a call")
    structured, body = grammar_of(whole, vllm_samples.SAMPLE_TOOLS, tool_choice="required")
    assert structured is None
    want = expected(vllm_samples.streamed_message(whole), whole.finish)
    assert sdk_read(body, vllm_samples.SAMPLE_TOOLS) == want


def test_a_keyword_the_grammar_cannot_write_is_dropped_and_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A string `pattern` outside the linear-time subset the grammar writes (a look-ahead)
    cannot hold Qwen3-Coder's raw-text values: the grammar is looser there (the warning
    names what it dropped), and the request is answered as ever."""
    path = {"type": "string", "pattern": "^(?=/)"}
    schema = {"type": "object", "properties": {"path": path}}
    tools = [{"type": "function", "function": {"name": "write_file", "parameters": schema}}]
    whole = sample("qwen3-coder", "parallel calls")
    with caplog.at_level("WARNING", logger="protocall.integrations.vllm"):
        structured, body = grammar_of(whole, tools, tool_choice="required")
    assert structured is not None and structured.grammar
    assert any("pattern" in record.getMessage() for record in caplog.records)
    assert [c["function"]["name"] for c in sdk_read(body, tools)["message"]["tool_calls"]] == [
        "write_file",
        "write_file",
    ]
