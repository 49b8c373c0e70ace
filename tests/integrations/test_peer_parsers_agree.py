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
VLLM |= {"inkling": "inkling", "mimo": "mimo"}
SGLANG = {"dots": "dots", "mimo": "mimo", "gigachat-3.5": "gigachat35"}
SGLANG |= {"iquest-q1": "iquest_q1", "poolside-v1": "poolside_v1", "hy-v4": "hunyuan"}
SGLANG |= {"minicpm5": "minicpm5", "inkling": "inkling"}

VOCABULARY = {"hy-v4"}
"""The families whose peers read their markers off the tokenizer's vocabulary (Hy v4's
suffix, and its lack of `<tool_sep>`): their tokenizer holds the format's reserved
markers as special tokens; the others' holds none."""


MODULES = {"gigachat-3.5": "test_gigachat35", "hy-v4": "test_hy_v4"}
"""The test modules not named by the family name with `_` for `-`."""


def examples(family: str) -> list[tuple[str, str | None]]:
    """The family's example outputs and generation prompts."""
    name = MODULES.get(family) or "test_" + family.replace("-", "_")
    module = importlib.import_module(name)
    return [(text, prompt) for text, prompt, _ in module.EXAMPLES]


def tokenizer(family: str) -> servers_shim.Tokenizer:
    """A tokenizer for the family's peers (see `VOCABULARY`)."""
    reserved = protocall.formats.get(family).reserved if family in VOCABULARY else ()
    return servers_shim.Tokenizer(list(reserved))


def ours(text: str, family: str, prompt: str | None) -> list[tuple[str, Any]]:
    message = protocall.parse(text, family, TOOLS, prompt)
    assert not message.errors, message.errors
    return [(call.name, call.arguments) for call in message.tool_calls]


@pytest.mark.parametrize("family", sorted(VLLM))
def test_vllm_s_tool_parser_reads_the_same_calls(family: str) -> None:
    servers_shim.require("vllm.tool_parsers")
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers import ToolParserManager

    request = ChatCompletionRequest(model="m", messages=[], tools=TOOLS, tool_choice="auto")
    parser_class = ToolParserManager.get_tool_parser(VLLM[family])
    for text, prompt in examples(family):
        parser = parser_class(tokenizer(family), request.tools)
        found = parser.extract_tool_calls(text, request).tool_calls
        theirs = [(call.function.name, json.loads(call.function.arguments)) for call in found]
        assert theirs == ours(text, family, prompt), text


@pytest.mark.parametrize("family", sorted(SGLANG))
def test_sglang_s_detector_reads_the_same_calls(family: str) -> None:
    servers_shim.sglang_packages()
    servers_shim.require("sglang.srt.function_call.function_call_parser")
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    tools = [Tool(**tool) for tool in TOOLS]
    for text, prompt in examples(family):
        parser = FunctionCallParser(tools, SGLANG[family], tokenizer(family))
        _, found = parser.parse_non_stream(text)
        theirs = [(call.name, json.loads(call.parameters)) for call in found]
        assert theirs == ours(text, family, prompt), text
