"""The `beam` family against SGLang's own Beam parsers, with the response template SGLang
ships for Beam (`sglang/srt/parser/beam.py`, `BEAM_RESPONSE_TEMPLATE`): its reasoning
parser (`ReasoningParser("beam")`) splits the reasoning off, then its function-call parser
(`FunctionCallParser(tools, "beam")`, the `BeamDetector`) reads the calls in the rest, as
SGLang's chat serving does for a complete output. Real: SGLang's code and template; the
tokenizer is a character tokenizer (`servers_shim.Tokenizer`; Beam's detectors read text).

Every example of tests/families/test_beam.py's `SGLANG_SHAPE` reads the same reasoning,
content and calls in both (protocall one-shot and streamed), and so does a call cut off."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import servers_shim

FAMILY_TESTS = str(Path(__file__).resolve().parents[1] / "families")
if FAMILY_TESTS not in sys.path:
    sys.path.append(FAMILY_TESTS)  # the examples' module and the shared tools

from test_beam import FORMAT, PROMPT, REASONING, SGLANG_SHAPE, TOOLS, call  # noqa: E402

from protocall.testing import stream, verify  # noqa: E402


def sglang_reads(text: str) -> dict[str, Any]:
    """What SGLang's Beam parsers read in the complete output `text`, as protocall's
    message."""
    servers_shim.sglang_packages()
    servers_shim.require("sglang.srt.function_call.function_call_parser")
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    reasoning, rest = ReasoningParser("beam", stream_reasoning=False).parse_non_stream(text)
    tools = [Tool(**tool) for tool in TOOLS]
    parser = FunctionCallParser(tools, "beam", servers_shim.Tokenizer([]))
    content, calls = parser.parse_non_stream(rest or "")
    return {
        "reasoning_content": reasoning or None,
        "content": content or None,
        "tool_calls": [{"name": c.name, "arguments": json.loads(c.parameters)} for c in calls],
    }


@pytest.mark.parametrize(("text", "prompt", "expected"), SGLANG_SHAPE)
def test_sglang_reads_each_example_as_protocall_does(
    text: str, prompt: str, expected: dict[str, Any]
) -> None:
    assert sglang_reads(text) == expected
    verify(FORMAT, text, prompt, tools=TOOLS, expected=expected)


NEXT = "<|end|>" + PROMPT


def test_a_call_cut_off_is_no_call_in_either() -> None:
    """Cut by the end of the output inside a value: SGLang's detector sends no call, nor
    does protocall, which also reports a `truncated` error keeping the call's text."""
    text = f"{REASONING}Cut.{NEXT}" + call("weather.lookup", framed=True, city="Paris", days="2")
    text = text[: -len("2\n</rfl:parameter><|call|>")]
    expected = {"reasoning_content": "Cut.", "content": None, "tool_calls": []}
    assert sglang_reads(text) == expected
    for chunks in ([text], list(text)):
        message = stream(FORMAT, chunks, TOOLS, PROMPT).message
        assert message.to_dict() == expected
        assert [error.code for error in message.errors] == ["truncated"]
