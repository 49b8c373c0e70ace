"""SGLang 0.5.23's own chat endpoint as a test oracle: its `OpenAIServingChat` (request
conversion, the streaming generator, the non-streaming response builder, their parsers)
over a stand-in engine, read back by the official `openai` SDK from the bytes it sends.

What runs is SGLang's: `handle_request` and everything it calls in `serving_chat`,
`serving_base`, `protocol`, `function_call` and `parser`, with the real `ServerArgs`
defaults as its configuration. What stands in:

- two model runtime modules, which need CUDA torchvision (`servers_shim.sglang_serving`:
  placeholders);
- the engine (`Engine`, in the place of SGLang's `TokenizerManager`): it records the
  request it gets (`GenerateReqInput`, with the sampling parameters the endpoint computed)
  and yields the output dicts the tokenizer manager yields for a stream, each with the
  cumulative text decoded as SGLang's detokenizer decodes it: `skip_special_tokens` as
  the request says, the stop token's id counted but its text trimmed, the output cut at
  `max_new_tokens` with finish reason `length`;
- the tokenizer (`ChatTokenizer`): one id per character, the model's special tokens one
  id each, and a small Jinja chat template; the template manager holds what SGLang's
  template detection finds in such a template (an `enable_thinking` toggle, on or off by
  default, or nothing) — the real one imports the tokenizer manager's process machinery;
- the configuration is `ServerArgs` with its defaults put in the runtime context as
  they are, without its resolution pipeline (which reads the device and the model).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import httpx
import jinja2
import servers_shim
from clients import MESSAGES, URL, transport
from openai import LengthFinishReasonError, OpenAI

from protocall.compile.format import Format
from protocall.grammar.walk import spec_of

servers_shim.sglang_serving()
servers_shim.require("sglang.srt.entrypoints.openai.serving_chat")

import xgrammar  # noqa: E402
from sglang.srt import runtime_context  # noqa: E402
from sglang.srt.constrained.xgrammar_backend import XGrammarGrammarBackend  # noqa: E402
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest  # noqa: E402
from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402
from sglang.srt.parser.template_detection import ReasoningToggleConfig  # noqa: E402
from sglang.srt.server_args import ServerArgs  # noqa: E402
from sglang.srt.utils.json_response import model_json_response  # noqa: E402

import protocall.integrations.sglang as adapter  # noqa: E402  (registers protocall-<format>)

_BRACKETED = re.compile(r"<\|[^|]*\|>|<｜[^｜]*｜>")
TAG_TOKENS = frozenset(
    {
        "<think>",
        "</think>",
        "<tool_call>",
        "</tool_call>",
        "<arg_key>",
        "</arg_key>",
        "<arg_value>",
        "</arg_value>",
        "<minimax:tool_call>",
        "</minimax:tool_call>",
        "]~b]",
        "[e~[",
        "<seed:think>",
        "</seed:think>",
        "<seed:tool_call>",
        "</seed:tool_call>",
        "<seed:eos>",
        "[THINK]",
        "[/THINK]",
        "[TOOL_CALLS]",
        "[ARGS]",
        "</s>",
    }
)
"""Markers that are one special token in their model's vocabulary besides the bracketed
`<|…|>` and `<｜…｜>` ones (Qwen's and GLM's `<tool_call>`, the `<think>` pair, GLM's
argument tags, MiniMax's, Seed-OSS's and Mistral's control tokens). Everything else —
DSML's `<｜DSML｜invoke`, Qwen's `<function=` and `<parameter=` — is ordinary text, as in
the real vocabularies."""


def special_tokens(fmt: Format) -> list[str]:
    """The markers of `fmt` a real tokenizer of its model holds as single ids."""
    markers = [*fmt.reserved, *(marker for pair in fmt.channels.values() for marker in pair)]
    return [m for m in markers if m in TAG_TOKENS or _BRACKETED.fullmatch(m)]


TEMPLATE = (
    "{% for message in messages %}{{ message.role }}: {{ message.content }}\n{% endfor %}"
    "{% if add_generation_prompt %}{% if enable_thinking is defined and not enable_thinking %}"
    "{{ plain }}{% else %}{{ thinking }}{% endif %}{% endif %}"
)
"""The stand-in chat template: the messages, then the format's generation prompt (opening
reasoning unless `enable_thinking` is false, the toggle SGLang detects in templates)."""


class ChatTokenizer(servers_shim.Tokenizer):
    """A character tokenizer whose special tokens are the format's (see `special_tokens`),
    with the chat template and the calls SGLang's chat endpoint makes on a Hugging Face
    tokenizer."""

    def __init__(self, fmt: Format) -> None:
        super().__init__(special_tokens(fmt))
        self.chat_template = TEMPLATE
        self.prompts = {"thinking": fmt.prompt_for("reasoning"), "plain": fmt.prompt_for(None)}
        self.stops = [s for s in spec_of(fmt).stops if s in self.vocab]

    def init_xgrammar(self) -> tuple[Any, None]:
        """What SGLang's xgrammar backend asks a tokenizer of its own kind for: xgrammar's
        view of the vocabulary (the ids `encode` gives; the ordinary characters of Basic
        Latin and of the markers, other ids empty) with the format's stops as stop
        tokens, and no override of them."""
        chars = {chr(c) for c in range(9, 127)} | {c for s in self.specials for c in s}
        vocab = [""] * (len(self.specials) + max(map(ord, chars)) + 1)
        for text in (*self.specials, *chars):
            vocab[self.encode(text)[0]] = text
        stops = [self.vocab[s] for s in self.stops]
        return xgrammar.TokenizerInfo(vocab, stop_token_ids=stops), None

    def grammar_backend(self) -> Any:
        """SGLang's xgrammar grammar backend over this tokenizer."""
        size = len(self.init_xgrammar()[0].decoded_vocab)
        return XGrammarGrammarBackend(self, vocab_size=size)

    def encode(self, text: str, add_special_tokens: bool = False, **options: Any) -> list[int]:
        return super().encode(text)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False, **_: Any) -> str:
        return super().decode(list(ids), skip_special_tokens)

    def apply_chat_template(
        self,
        messages: list[dict[str, Any]],
        tokenize: bool = True,
        add_generation_prompt: bool = True,
        return_dict: bool = False,
        **kwargs: Any,
    ) -> Any:
        environment = jinja2.Environment()
        text = environment.from_string(self.chat_template).render(
            messages=messages, add_generation_prompt=add_generation_prompt, **self.prompts, **kwargs
        )
        return self.encode(text) if tokenize else text


@dataclass
class Generation:
    """What the stand-in engine generates for the next request: `text`, then the stop
    token `stop` (its id counted, its text trimmed; `None`: no stop token, the output
    ends at `max_new_tokens` or as given), in deltas of `sizes` tokens (cycled)."""

    text: str
    stop: str | None
    sizes: Sequence[int] = (1,)


@dataclass
class Engine:
    """SGLang's `TokenizerManager` as the chat endpoint calls it (`generate_request`,
    `config_value`, `tokenizer`, `model_config`, …), generating `generation`."""

    fmt: Format
    reasoning_parser: str | None = None
    tool_call_parser: str | None = None
    generation: Generation | list[Generation] = field(default_factory=lambda: Generation("", None))
    requests: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tokenizer = ChatTokenizer(self.fmt)
        self.server_args = ServerArgs(
            model_path="stand-in",
            tool_call_parser=self.tool_call_parser,
            reasoning_parser=self.reasoning_parser,
        )
        runtime_context._CONTEXT.set_server_args(self.server_args)
        config = SimpleNamespace(model_type="stand-in", architectures=["StandIn"])
        self.model_config = SimpleNamespace(
            hf_config=config, is_multimodal=False, get_default_sampling_params=dict
        )
        self.request_logger = SimpleNamespace(log_requests=False, log_requests_level=0)
        self.served_model_name = self.model_path = "stand-in"

    def config_value(self, name: str) -> Any:
        return getattr(self.server_args, name)

    def create_abort_task(self, request: Any) -> None:
        return None

    def output_ids(self, generation: Generation, limit: int | None) -> tuple[list[int], Any]:
        """The ids `generation` makes (the stop token's last) and the finish reason."""
        ids = self.tokenizer.encode(generation.text)
        if generation.stop is not None:
            ids.append(self.tokenizer.vocab[generation.stop])
        if limit is not None and len(ids) > limit:
            return ids[:limit], {"type": "length", "length": limit}
        if generation.stop is None:
            return ids, {"type": "length", "length": len(ids)}
        return ids, {"type": "stop", "matched": ids[-1]}

    async def generate_request(self, request: Any, raw_request: Any = None) -> AsyncIterator[Any]:
        """The output dicts of one request, as the tokenizer manager yields them: streamed,
        one per delta of each choice (choices interleaved, each dict with its `index`);
        else one list of each choice's last."""
        self.requests.append(request)
        generations = self.generation if isinstance(self.generation, list) else [self.generation]
        choices = [self._choice(g, request, index) for index, g in enumerate(generations)]
        if not request.stream:
            yield [[*choice][-1] for choice in choices]
            return
        for step in itertools.zip_longest(*choices):
            for out in step:
                if out is not None:
                    yield out

    def _choice(self, generation: Generation, request: Any, index: int) -> Iterator[dict[str, Any]]:
        """The output dicts of one choice: each with the text so far, decoded delta by
        delta as SGLang's detokenizer decodes it (the matched stop token's text trimmed)."""
        params = request.sampling_params
        ids, finish = self.output_ids(generation, params.get("max_new_tokens"))
        skip = params.get("skip_special_tokens", True)
        ends = list(_cuts(len(ids), generation.sizes)) if request.stream else [len(ids)]
        text, start, produced = "", 0, []
        for end in ends:
            last = end == len(ids)
            reason = finish if last else None
            shown = end - 1 if last and finish.get("matched") is not None else end
            text += self.tokenizer.decode(ids[start:shown], skip_special_tokens=skip)
            meta = {
                "id": "chatcmpl-stand-in",
                "finish_reason": reason,
                "prompt_tokens": 3,
                "weight_version": self.config_value("weight_version"),
                "num_retractions": 0,
                "completion_tokens": end,
                "reasoning_tokens": 0,
                "cached_tokens": 0,
            }
            produced += ids[start:end]
            start = end
            # Intermediate chunks share the live list of ids, as SGLang's do.
            yield {"text": text, "output_ids": produced, "meta_info": meta, "index": index}


def _cuts(total: int, sizes: Sequence[int]) -> Iterable[int]:
    """The cumulative ends of deltas of `sizes` tokens (cycled) over `total` tokens."""
    end, turn = 0, 0
    while end < total:
        end = min(total, end + sizes[turn % len(sizes)])
        turn += 1
        yield end


@dataclass
class Reply:
    """What a client got: the message (`Message.to_openai()` shape), the finish reason,
    and, streamed, the tool-call deltas as sent (to see a call arrive in pieces)."""

    message: dict[str, Any]
    finish_reason: str | None
    call_deltas: list[dict[str, Any]] = field(default_factory=list)


class Server:
    """An `OpenAIServingChat` over an `Engine` for the format `fmt`: `thinking` is what
    SGLang's template detection found, an `enable_thinking` toggle on (a pre-opened
    `<think>` unless a request turns it off) or off by default, or nothing (`None`: a
    template without a toggle); `reasoning` and `tool` are the server's
    `--reasoning-parser` and `--tool-call-parser` (`True`: protocall's for `fmt`, `False`:
    none)."""

    def __init__(
        self,
        fmt: Format,
        thinking: bool | None = True,
        reasoning: bool | str = True,
        tool: bool | str = True,
    ) -> None:
        own = adapter.PREFIX + fmt.name
        names = [own if choice is True else choice or None for choice in (reasoning, tool)]
        self.engine = Engine(fmt, *names)
        toggle = None if thinking is None else ReasoningToggleConfig("enable_thinking", thinking)
        templates = SimpleNamespace(
            chat_template_name=None,
            python_chat_template=None,
            jinja_template_content_format="openai",
            jinja_template_may_reorder_tool_results=False,
            force_reasoning=False,
            reasoning_config=toggle,
        )
        self.chat = OpenAIServingChat(self.engine, templates)  # type: ignore[arg-type]

    def respond(self, request: dict[str, Any], generation: Generation | list[Generation]) -> bytes:
        """The HTTP body SGLang answers `request` with (an SSE stream when it asks), the
        engine generating `generation` (one per choice)."""
        self.engine.generation = generation
        parsed = ChatCompletionRequest(**{"model": "stand-in", "messages": MESSAGES, **request})
        return asyncio.run(self._body(parsed))

    async def _body(self, request: ChatCompletionRequest) -> bytes:
        response = model_json_response(await self.chat.handle_request(request, None))
        if hasattr(response, "body_iterator"):
            return b"".join([piece.encode() async for piece in response.body_iterator])
        return bytes(response.body)


def sdk_replies(body: bytes, request: dict[str, Any]) -> list[Reply]:
    """What the official SDK makes of SGLang's answer `body` to `request`, per choice:
    streamed, the final choices of `client.chat.completions.stream()` (up to a `length`
    finish, which it raises for, giving its snapshot), else those of
    `client.chat.completions.create()`."""
    http = httpx.Client(transport=transport(body, ()))
    client = OpenAI(api_key="test", base_url=URL, http_client=http, max_retries=0)
    fields = {k: v for k, v in request.items() if k in ("tools", "tool_choice", "n")}
    deltas: dict[int, list[dict[str, Any]]] = {}
    if not request.get("stream"):
        choices: Any = client.chat.completions.create(model="m", messages=MESSAGES, **fields)
        choices = choices.choices
    else:
        with client.chat.completions.stream(model="m", messages=MESSAGES, **fields) as stream:
            try:
                for event in stream:
                    for choice in event.chunk.choices if event.type == "chunk" else ():
                        calls = deltas.setdefault(choice.index, [])
                        calls += [
                            c.model_dump(exclude_none=True) for c in choice.delta.tool_calls or ()
                        ]
                choices = stream.get_final_completion().choices
            except LengthFinishReasonError as error:
                choices = error.completion.choices
    return [_reply(choice, deltas.get(choice.index, [])) for choice in choices]


def _reply(choice: Any, call_deltas: list[dict[str, Any]]) -> Reply:
    message = choice.message
    shape: dict[str, Any] = {"content": message.content, **(message.model_extra or {})}
    shape["tool_calls"] = [
        {"name": c.function.name, "arguments": c.function.arguments}
        for c in message.tool_calls or ()
    ]
    return Reply(shape, choice.finish_reason, call_deltas)


def through_sglang(server: Server, generation: Generation, stream: bool, **request: Any) -> Reply:
    """`generation` served by SGLang for a request with `request`'s fields, as the SDK
    reads it."""
    fields = {"stream": stream, **request}
    return sdk_replies(server.respond(fields, generation), fields)[0]


def message_of(fmt: Format, tools: Any, prompt: str | None, text: str) -> dict[str, Any]:
    """protocall's own message for `text` (a session after the generation prompt
    `prompt`), in the shape `sdk_replies` gives."""
    session = fmt.parser(tools or [], prompt)
    session.feed(text)
    session.finish()
    message = session.message.to_openai()
    return {
        "content": message.get("content"),
        "reasoning_content": message.get("reasoning_content"),
        "tool_calls": [
            {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
            for c in message.get("tool_calls") or ()
        ],
    }


def normal(message: dict[str, Any]) -> dict[str, Any]:
    """A message as compared: empty texts None, arguments parsed."""
    return {
        "content": message.get("content") or None,
        "reasoning_content": message.get("reasoning_content") or None,
        "tool_calls": [(c["name"], json.loads(c["arguments"])) for c in message["tool_calls"]],
    }


__all__ = ["ChatCompletionRequest", "FunctionCallParser", "ReasoningParser", "adapter"]
