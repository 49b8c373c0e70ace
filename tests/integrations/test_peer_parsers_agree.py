"""The families added from the peers' current parser lists read their example turns
(tests/families/test_<family>.py's `EXAMPLES`, our own strings) into the same calls as
the peers' own parsers do: vLLM's tool parsers and SGLang's function-call detectors, run
here as they ship. Only the calls are compared: a peer's tool parser alone leaves the
reasoning text in its content (its reasoning parser splits it off).

Not run against a peer: `plamo-3`, whose vLLM parser encodes its think tokens with a full
tokenizer (`encode(…, add_special_tokens=False)`, which `servers_shim.Tokenizer` does not
stand in for), and SGLang's `k2_horizon`, which keeps a think block never closed whole as
reasoning, calls and all (vLLM's reasoning parser ends it at the calls, as protocall
does)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import servers_shim

import protocall

FAMILY_TESTS = str(Path(__file__).resolve().parents[1] / "families")
if FAMILY_TESTS not in sys.path:
    sys.path.append(FAMILY_TESTS)  # the examples' modules and their shared tools

from peer_tools import TOOLS  # noqa: E402

VLLM = {"longcat": "longcat", "dots": "dots", "k2-horizon": "k2_horizon"}
VLLM |= {"poolside-v1": "poolside_v1", "hy-v4": "hy_v4", "minicpm5": "minicpm5"}
VLLM |= {"inkling": "inkling", "mimo": "mimo", "minimax-m3": "minimax_m3"}
VLLM |= {"muse": "muse", "muse-glimmer": "muse_glimmer"}
SGLANG = {"dots": "dots", "mimo": "mimo", "gigachat-3.5": "gigachat35"}
SGLANG |= {"iquest-q1": "iquest_q1", "poolside-v1": "poolside_v1", "hy-v4": "hunyuan"}
SGLANG |= {"minicpm5": "minicpm5", "inkling": "inkling", "minimax-m3": "minimax-m3"}
SGLANG |= {"muse": "muse", "muse-glimmer": "muse"}

SGLANG_READS_OTHERWISE = {
    "inkling": "<|content_invoke_tool_text|>",
    "minimax-m3": " ]<]minimax[>[</",
}
"""Examples holding this text are left out of SGLang's comparison: its Inkling detector
makes a raw-text tool block a call without a name (`{"text": …}`), which vLLM and
protocall read as content (the family's docstring says so); its MiniMax-M3 detector
strips the whitespace that ends a value, which vLLM and protocall keep as the template
writes it."""

VOCABULARY = {"hy-v4"}
"""The families whose peers read their markers off the tokenizer's vocabulary (Hy v4's
suffix, and its lack of `<tool_sep>`): their tokenizer holds the format's reserved
markers as special tokens; the others' holds none."""


MODULES = {"gigachat-3.5": "test_gigachat35", "hy-v4": "test_hy_v4"}
MODULES |= {"muse": "test_muse:MUSE_EXAMPLES", "muse-glimmer": "test_muse:GLIMMER_EXAMPLES"}
"""The test modules not named by the family name with `_` for `-` (`:NAME`: their list of
examples not named `EXAMPLES`)."""


def examples(family: str) -> list[tuple[str, str | None]]:
    """The family's example outputs and generation prompts."""
    listed = MODULES.get(family, "").partition(":")[2] or "EXAMPLES"
    return [(text, prompt) for text, prompt, _ in getattr(module_of(family), listed)]


def module_of(family: str) -> Any:
    """The family's test module."""
    name = MODULES.get(family) or "test_" + family.replace("-", "_")
    return importlib.import_module(name.partition(":")[0])


def tools_of(family: str) -> list[dict[str, Any]]:
    """The tools the family's examples call: its module's `TOOLS` (the peers' shared ones,
    or more: MiniMax-M3's nest)."""
    return list(module_of(family).TOOLS)


def tokenizer(family: str) -> servers_shim.Tokenizer:
    """A tokenizer for the family's peers (see `VOCABULARY`)."""
    reserved = protocall.formats.get(family).reserved if family in VOCABULARY else ()
    return servers_shim.Tokenizer(list(reserved))


def ours(
    text: str, family: str, prompt: str | None, tools: list[dict[str, Any]] = TOOLS
) -> list[tuple[str, Any]]:
    message = protocall.parse(text, family, tools, prompt)
    assert not message.errors, message.errors
    return [(call.name, call.arguments) for call in message.tool_calls]


@pytest.mark.parametrize("family", sorted(VLLM))
def test_vllm_s_tool_parser_reads_the_same_calls(family: str) -> None:
    servers_shim.require("vllm.tool_parsers")
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers import ToolParserManager

    tools = tools_of(family)
    request = ChatCompletionRequest(model="m", messages=[], tools=tools, tool_choice="auto")
    parser_class = ToolParserManager.get_tool_parser(VLLM[family])
    for text, prompt in examples(family):
        parser = parser_class(tokenizer(family), request.tools)
        found = parser.extract_tool_calls(text, request).tool_calls
        theirs = [(call.function.name, json.loads(call.function.arguments)) for call in found]
        assert theirs == ours(text, family, prompt, tools), text


@pytest.mark.parametrize("family", sorted(SGLANG))
def test_sglang_s_detector_reads_the_same_calls(family: str) -> None:
    servers_shim.sglang_packages()
    servers_shim.require("sglang.srt.function_call.function_call_parser")
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    declared = tools_of(family)
    tools = [Tool(**tool) for tool in declared]
    for text, prompt in examples(family):
        if SGLANG_READS_OTHERWISE.get(family, "\0") in text:
            continue
        parser = FunctionCallParser(tools, SGLANG[family], tokenizer(family))
        _, found = parser.parse_non_stream(text)
        theirs = [(call.name, json.loads(call.parameters)) for call in found]
        assert theirs == ours(text, family, prompt, declared), text


WEATHER = '{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}'
XML_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)
READ_BY = {
    "hermes": [
        f"Checking.\n<tool_call>\n{WEATHER}\n</tool_call>",
        f"<think>Weather?\n<tool_call>\n{WEATHER}\n</tool_call></think>",
    ],
    "glm-4.5": [
        "Let me check.<tool_call>get_weather\n<arg_key>location</arg_key><arg_value>Paris"
        "</arg_value>\n<arg_key>days</arg_key><arg_value>3</arg_value>\n</tool_call>"
    ],
    "qwen3-coder": [f"Sure.{XML_CALL}", f"{XML_CALL}\n{XML_CALL}"],
    "internlm2": [
        '<|action_start|> <|plugin|>\n{"name": "get_weather", "parameters": '
        '{"location": "Paris", "days": 3}}<|action_end|>'
    ],
}
"""Our own strings in the shapes of the peers' tests for the families below (InternLM2's
with the space between its tokens that SGLang's detector needs)."""

COVERED = [
    ("vllm", "granite4", "hermes"),
    ("sglang", "trinity", "hermes"),
    ("sglang", "spark25", "glm-4.5"),
    ("vllm", "step3p5", "qwen3-coder"),
    ("sglang", "step3p5", "qwen3-coder"),
    ("vllm", "step5", "qwen3-coder"),
    ("sglang", "nanbeige", "qwen3-coder"),
    ("sglang", "interns1", "internlm2"),
]
"""The peers' parser names that an existing family reads (README, "Supported formats"):
each peer's parser reads the family's strings into the calls the family does."""


@pytest.mark.parametrize(("peer", "parser", "family"), COVERED)
def test_a_peer_parser_an_existing_family_stands_for_reads_the_same_calls(
    peer: str, parser: str, family: str
) -> None:
    for text in READ_BY[family]:
        assert peer_calls(peer, parser, text) == ours(text, family, None), text


def peer_calls(
    peer: str, name: str, text: str, tools: list[dict[str, Any]] = TOOLS
) -> list[tuple[str, Any]]:
    """The calls the peer's parser `name` reads in `text` (vLLM's: for `tools`)."""
    if peer == "vllm":
        servers_shim.require("vllm.tool_parsers")
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.tool_parsers import ToolParserManager

        request = ChatCompletionRequest(model="m", messages=[], tools=tools, tool_choice="auto")
        tool_parser = ToolParserManager.get_tool_parser(name)(
            servers_shim.Tokenizer([]), request.tools
        )
        found = tool_parser.extract_tool_calls(text, request).tool_calls
        return [(call.function.name, json.loads(call.function.arguments)) for call in found]
    servers_shim.sglang_packages()
    servers_shim.require("sglang.srt.function_call.function_call_parser")
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    tools = [Tool(**tool) for tool in TOOLS]
    _, calls = FunctionCallParser(tools, name, servers_shim.Tokenizer([])).parse_non_stream(text)
    return [(call.name, json.loads(call.parameters)) for call in calls]


def test_where_minimax_m3_is_stricter_vllm_guesses() -> None:
    """docs/semantics.md, element-tree arguments: a repeated key and text beside elements
    are errors here; vLLM's parser collects the one into a list and keeps the other under
    `$text`."""
    m3 = module_of("minimax-m3")
    repeated = m3.el("extras", m3.el("tag", "a") + m3.el("tag", "b"))
    mixed = m3.el("destination", "near " + m3.el("city", "Porto"))
    for argument, theirs in [
        (repeated, {"extras": {"tag": ["a", "b"]}}),
        (mixed, {"destination": {"city": "Porto", "$text": "near "}}),
    ]:
        text = m3.block(m3.invoke("book_trip", argument))
        assert peer_calls("vllm", "minimax_m3", text, m3.TOOLS) == [("book_trip", theirs)]
        message = protocall.parse(text, "minimax-m3", m3.TOOLS)
        assert not message.tool_calls and [e.code for e in message.errors] == ["malformed"]
