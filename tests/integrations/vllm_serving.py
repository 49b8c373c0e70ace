"""vLLM's OpenAI server run for real over a fake engine, for the adapter tests and the
benchmark.

What runs is vLLM's own code: `OpenAIServingChat.create_chat_completion` (the request's
validation, `OnlineRenderer.render_chat`, the parsers' `adjust_request`, the sampling
parameters, the streaming generator with `ChatStreamProcessor` and `Parser.parse_delta`,
or `chat_completion_full_generator` and `Parser.parse`), and under it vLLM's
`OutputProcessor`, which turns the engine's token ids into `RequestOutput` objects with its
incremental detokenizer (the stop token's id without its text, `--stream-interval`
batching) and merges the outputs a slow client has not read yet (`RequestOutputCollector`).
The tokenizer is a real Hugging Face fast tokenizer: one token per byte, plus the model's
added tokens as single ids.

What is imitated, because it needs a model: the engine core (it yields the given token ids,
`steps` of them per engine step, and finishes with `stop` on the stop token or `length`),
and the chat template (the renderer's `render_chat_async` returns the given prompt, whatever
the messages). The model configuration is a namespace holding what the serving code reads.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import types
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
from transformers import TokenizersBackend
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat
from vllm.entrypoints.openai.responses.serving import OpenAIServingResponses
from vllm.renderers.online_renderer import OnlineRenderer
from vllm.sampling_params import SamplingParams
from vllm.v1.engine import EngineCoreOutput, EngineCoreRequest, FinishReason
from vllm.v1.engine.output_processor import (
    OutputProcessor,
    RequestOutputCollector,
)


def tokenizer(special_tokens: Iterable[str]) -> Any:
    """A Hugging Face fast tokenizer with one token per byte (byte-level, no merges) and
    `special_tokens` as added special tokens, each one id."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    backend = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    added = [AddedToken(s, special=True, normalized=False) for s in dict.fromkeys(special_tokens)]
    backend.add_special_tokens(added)
    return TokenizersBackend(tokenizer_object=backend)


def encode(tok: Any, text: str, ordinary: bool = False) -> list[int]:
    """`text`'s ids; with `ordinary`, spelled out of byte tokens only (a copied marker)."""
    if not ordinary:
        return list(tok.encode(text, add_special_tokens=False))
    return [tok.convert_tokens_to_ids(c) for c in _byte_level(text)]


def _byte_level(text: str) -> str:
    """`text` in the byte-level alphabet: one character per UTF-8 byte."""
    split = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    return "".join(piece for piece, _ in split.pre_tokenize_str(text))


class Engine:
    """The engine client `OpenAIServingChat` talks to: vLLM's `OutputProcessor` over an
    imitated engine core that generates `output` (token ids) `steps[i]` tokens at a time.

    `finish` is the engine's finish reason at the end: `stop` (the last id is the stop
    token, whose text vLLM's detokenizer drops) or `length`. `interval` is vLLM's
    `--stream-interval`; `lag` engine steps run before the server reads its queue, so a
    slow client gets them merged."""

    errored = False
    dead_error = RuntimeError("dead")

    def __init__(self, tok: Any, prompt: list[int], model_type: str = "m") -> None:
        self.tokenizer = tok
        self.prompt = prompt
        self.renderer = _Renderer(tok, prompt)
        self.input_processor = None
        self.vllm_config = None
        self.model_config = _model_config(model_type)
        self.output: list[int] = []
        self.steps: Sequence[int] = [1]
        self.finish = "stop"
        self.interval = 1
        self.lag = 1
        self.sampling: list[SamplingParams] = []  # what each request asked the engine for

    def check_admission(self, n: int) -> None:
        pass

    async def generate(
        self, engine_input: Any, params: SamplingParams, request_id: str, **kwargs: Any
    ) -> AsyncIterator[Any]:
        self.sampling.append(params)
        processor = OutputProcessor(self.tokenizer, log_stats=False, stream_interval=self.interval)
        request = EngineCoreRequest(
            request_id=request_id,
            prompt_token_ids=list(engine_input["prompt_token_ids"]),
            mm_features=None,
            sampling_params=params,
            pooling_params=None,
            arrival_time=0.0,
            lora_request=None,
            cache_salt=None,
            data_parallel_rank=None,
            external_req_id=request_id,
        )
        queue = RequestOutputCollector(params.output_kind, request_id)
        processor.add_request(request, None, queue=queue)
        cuts = _cuts(len(self.output), self.steps)
        reason = FinishReason.STOP if self.finish == "stop" else FinishReason.LENGTH
        for number, (start, end) in enumerate(itertools.pairwise(cuts), 1):
            last = end == len(self.output)
            step = EngineCoreOutput(
                request_id=request_id,
                new_token_ids=self.output[start:end],
                finish_reason=reason if last else None,
                stop_reason=self.output[-1] if last and self.finish == "stop" else None,
            )
            processor.process_outputs([step])
            # The server reads its queue every `lag` engine steps (a slow client).
            if (last or number % self.lag == 0) and queue.output is not None:
                yield await queue.get()


def _cuts(n: int, steps: Sequence[int]) -> list[int]:
    cuts, at, i = [0], 0, 0
    while at < n:
        at = min(n, at + max(1, steps[i % len(steps)]))
        cuts.append(at)
        i += 1
    return cuts


class _Renderer:
    """The chat template's stand-in: every conversation renders to `prompt`."""

    def __init__(self, tok: Any, prompt: list[int]) -> None:
        self.tokenizer = tok
        self.prompt = prompt

    def get_tokenizer(self) -> Any:
        return self.tokenizer

    async def render_chat_async(self, conversations: Any, chat_params: Any, *args: Any,
                                **kwargs: Any) -> Any:  # fmt: skip
        conversation = list(conversations[0])
        engine_input = {"type": "token", "prompt_token_ids": list(self.prompt)}
        return [conversation], [engine_input]


def _model_config(model_type: str) -> Any:
    return types.SimpleNamespace(
        model="m",
        served_model_name="m",
        hf_config=types.SimpleNamespace(model_type=model_type),
        max_model_len=1 << 20,
        generation_config="vllm",
        multimodal_config=None,
        enable_prompt_embeds=False,
        get_diff_sampling_param=lambda: {},
        allowed_local_media_path="",
        allowed_media_domains=None,
        skip_tokenizer_init=False,
        is_encoder_decoder=False,
        logits_processors=None,
    )


class _Models:
    """`OpenAIServingModels` for one base model named `m`."""

    def __init__(self) -> None:
        self.lora_requests: dict[str, Any] = {}
        self.base_model_paths: list[Any] = []

    def model_name(self, lora: Any = None) -> str:
        return "m"

    def is_base_model(self, name: str) -> bool:
        return name == "m"


def serving(engine: Engine, tool_parser: str | None, reasoning_parser: str | None) -> Any:
    """vLLM's `OpenAIServingChat` over `engine`, as `vllm serve --enable-auto-tool-choice
    --tool-call-parser TOOL --reasoning-parser REASONING` builds it."""
    auto = tool_parser is not None
    chat = OpenAIServingChat(
        engine,  # type: ignore[arg-type]
        _Models(),  # type: ignore[arg-type]
        "assistant",
        online_renderer=_online_renderer(engine, tool_parser, reasoning_parser),
        request_logger=None,
        chat_template=None,
        chat_template_content_format="string",
        reasoning_parser=reasoning_parser or "",
        enable_auto_tools=auto,
        tool_parser=tool_parser,
    )
    chat._is_model_supported = lambda name: True  # type: ignore[method-assign]
    return chat


def responses_serving(engine: Engine, tool_parser: str, reasoning_parser: str) -> Any:
    """vLLM's `OpenAIServingResponses` over `engine`, with the same parsers."""
    responses = OpenAIServingResponses(
        engine,  # type: ignore[arg-type]
        _Models(),  # type: ignore[arg-type]
        _online_renderer(engine, tool_parser, reasoning_parser),
        request_logger=None,
        chat_template=None,
        chat_template_content_format="string",
        reasoning_parser=reasoning_parser,
        enable_auto_tools=True,
        tool_parser=tool_parser,
    )
    responses._is_model_supported = lambda name: True  # type: ignore[method-assign]
    return responses


def _online_renderer(engine: Engine, tool_parser: str | None, reasoning_parser: str | None) -> Any:
    return OnlineRenderer(
        engine.model_config,  # type: ignore[arg-type]
        engine.renderer,  # type: ignore[arg-type]
        request_logger=None,
        chat_template=None,
        chat_template_content_format="string",
        enable_auto_tools=tool_parser is not None,
        tool_parser=tool_parser,
        reasoning_parser=reasoning_parser,
    )


def request(tools: Any, stream: bool, **extra: Any) -> ChatCompletionRequest:
    body = {"model": "m", "messages": [{"role": "user", "content": "Go."}], "stream": stream}
    if tools:
        body["tools"] = tools
    return ChatCompletionRequest(**body, **extra)


def run(chat: Any, req: ChatCompletionRequest) -> Any:
    """The server's answer to `req`: the SSE body (bytes) when streamed, else the
    response as a dict."""

    async def answer() -> Any:
        result = await chat.create_chat_completion(req)
        if hasattr(result, "__aiter__"):
            return "".join([piece async for piece in result]).encode()
        return json.loads(result.model_dump_json())

    return asyncio.run(answer())


def run_responses(responses: Any, tools: Any) -> bytes:
    """The SSE body of a streamed Responses API request with `tools` (chat-style entries),
    serialised by vLLM's own router function."""
    from vllm.entrypoints.openai.responses.api_router import _convert_stream_to_sse_events
    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

    flat = [{"type": "function", **tool["function"]} for tool in tools]
    req = ResponsesRequest(model="m", input="Go.", tools=flat, stream=True)

    async def answer() -> bytes:
        events = await responses.create_responses(req)
        return "".join([e async for e in _convert_stream_to_sse_events(events)]).encode()

    return asyncio.run(answer())


def sse_chunks(body: bytes) -> list[dict[str, Any]]:
    """The JSON chunks of an SSE body, `[DONE]` excluded."""
    out = []
    for event in body.decode().split("\n\n"):
        if event.startswith("data: ") and event != "data: [DONE]":
            out.append(json.loads(event[len("data: ") :]))
    return out
