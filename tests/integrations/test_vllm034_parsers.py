"""The parsers vLLM 0.34 added whose formats protocall reads, run as they ship, read the
same calls as protocall from the same outputs: `zaya` (and its alias
`zaya_xml`: the family `zaya`), `ripple` (Ricursive Ripple: `hermes`, its optional
`<think>` and newline-framed `<tool_call>` JSON) and `granite_toolcall_parser` (Granite
4.2, Nemotron 3's format: `qwen3-coder`). Only the calls are compared: a tool parser
alone may leave the reasoning text in its content (its reasoning parser splits it off).

CI runs this file under vLLM 0.34 (`.ci/run`, `PROTOCALL_VLLM_VERSION=0.34.0`); under an
older vLLM, which has none of these parsers, it skips."""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import servers_shim

import protocall

FAMILY_TESTS = str(Path(__file__).resolve().parents[1] / "families")
if FAMILY_TESTS not in sys.path:
    sys.path.append(FAMILY_TESTS)  # the examples' modules and their shared tools

import test_zaya  # noqa: E402
from peer_tools import TOOLS  # noqa: E402

WEATHER = '{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}'
XML_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)
ZAYA = [(text, prompt) for text, prompt, _ in test_zaya.EXAMPLES]
RIPPLE = [
    (f"Checking.\n<tool_call>\n{WEATHER}\n</tool_call>", None),
    (f"<think>\nWhich city?\n</think>\nParis, then.\n<tool_call>\n{WEATHER}\n</tool_call>", None),
    (
        f"<think>\nTwo calls.\n</think>\n<tool_call>\n{WEATHER}\n</tool_call>\n<tool_call>\n"
        '{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call>',
        None,
    ),
    ("<think>\nNo tool.\n</think>\nIt is sunny.", None),
]
GRANITE = [(f"Sure.\n{XML_CALL}", None), (f"{XML_CALL}\n{XML_CALL}", None)]
CASES = [
    ("zaya", "zaya", test_zaya.TOOLS, ZAYA),
    ("zaya_xml", "zaya", test_zaya.TOOLS, ZAYA),
    ("ripple", "hermes", TOOLS, RIPPLE),
    ("granite_toolcall_parser", "qwen3-coder", TOOLS, GRANITE),
]


def tool_parser(name: str) -> Any:
    """vLLM's tool parser class `name`: a skip under a vLLM older than 0.34, unless CI
    asked for 0.34."""
    servers_shim.require("vllm.tool_parsers")
    from vllm.tool_parsers import ToolParserManager

    version = importlib.metadata.version("vllm")
    asked = os.environ.get("PROTOCALL_VLLM_VERSION")
    if tuple(int(part) for part in version.split(".")[:2]) < (0, 34) and asked != "0.34.0":
        pytest.skip(f"vLLM {version} has no `{name}` parser (0.34 added it)")
    return ToolParserManager.get_tool_parser(name)


@pytest.mark.parametrize(("parser", "family", "tools", "outputs"), CASES, ids=[c[0] for c in CASES])
def test_vllm_034_s_parser_reads_what_the_family_reads(
    parser: str, family: str, tools: list[dict[str, Any]], outputs: list[tuple[str, str | None]]
) -> None:
    parser_class = tool_parser(parser)  # first: without vLLM 0.34 the test skips here
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    request = ChatCompletionRequest(model="m", messages=[], tools=tools, tool_choice="auto")
    for text, prompt in outputs:
        found = parser_class(servers_shim.Tokenizer([]), request.tools).extract_tool_calls(
            text, request
        )
        theirs = [
            (call.function.name, json.loads(call.function.arguments)) for call in found.tool_calls
        ]
        message = protocall.parse(text, family, tools, prompt)
        assert not message.errors, message.errors
        ours = [(call.name, call.arguments) for call in message.tool_calls]
        assert theirs == ours, text
