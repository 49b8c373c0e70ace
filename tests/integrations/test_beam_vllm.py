"""The `beam` family against vLLM's own `beam` parser.

What is real: vLLM's parser code, run as it ships (`vllm/parser/beam.py`'s `BeamParser`
over `response_template.py` and `chat_parsing/`), built with a character tokenizer whose
special tokens are Beam's markers (`servers_shim.Tokenizer`) and given a generation prompt
ending `<|start|>assistant`; and the response template SGLang ships for Beam
(`sglang/srt/parser/beam.py`, `BEAM_RESPONSE_TEMPLATE`), which vLLM's parser reads the
family's `SGLANG_SHAPE` examples with.

What is imitated: the checkpoint's own `response_template` (tokenizer_config.json metadata,
not public) for the `GATEWAY_SHAPE` examples, written here in the shape a public test of
SGLang's model gateway gives a Beam-like checkpoint's: the start anchor
`<|start|>assistant`; `thinking` opened by `<|channel|>analysis<|message|>`, closed by
`<|end|>`; `content` opened by `<|channel|>final<|message|>`, closed by `<|return|>` or
`<|end|>`; `tool_calls` opened by `(<|start|>assistant )?to=NAME<|channel|>analysis(
<|constrain|>xml)?<|message|>`, closed by `<|call|>` or `<|end|>`, its body `<rfl:parameter
name="K">V</rfl:parameter>` elements (values not stripped: `STRIPPED` is the other setting),
repeated, each call `{"type": "function", "function": {"name", "arguments"}}`. vLLM's
serving accepts only `role` among a template's defaults, so the gateway test's defaults
(`""`, `""`, `[]`) are left out: they change nothing parsed.

Every example of tests/families/test_beam.py reads the same reasoning, content and calls in
both (each shape with its template; protocall one-shot and streamed, vLLM one-shot), except
those listed in `DIFFERENT`, where each reads as asserted (docs/semantics.md says why)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import servers_shim

FAMILY_TESTS = str(Path(__file__).resolve().parents[1] / "families")
if FAMILY_TESTS not in sys.path:
    sys.path.append(FAMILY_TESTS)  # the examples' module and the shared tools

import test_beam  # noqa: E402
from test_beam import (  # noqa: E402
    ANSWER,
    GATEWAY_SHAPE,
    PROMPT,
    REASONING,
    SGLANG_SHAPE,
    TOOLS,
    call,
)

from protocall.testing import stream, verify  # noqa: E402

TEMPLATE: dict[str, Any] = {
    "start_anchor": "<|start|>assistant",
    "defaults": {"role": "assistant"},
    "fields": {
        "thinking": {"open_pattern": r"<\|channel\|>analysis<\|message\|>", "close": "<|end|>"},
        "content": {
            "open_pattern": r"<\|channel\|>final<\|message\|>",
            "close": ["<|return|>", "<|end|>"],
        },
        "tool_calls": {
            "open_pattern": (
                r"(?:<\|start\|>assistant )?to=(?P<name>.+?)"
                r"<\|channel\|>analysis(?: <\|constrain\|>xml)?<\|message\|>"
            ),
            "close": ["<|call|>", "<|end|>"],
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": (
                    r'<rfl:parameter name="(?P<key>[^"]+)">(?P<value>.*?)</rfl:parameter>'
                ),
                "value_parser": {"name": "text", "args": {"strip": False}},
            },
            "repeats": True,
            "transform": {
                "type": "function",
                "function": {"name": "{name}", "arguments": "{content}"},
            },
        },
    },
}
STRIPPED = copy.deepcopy(TEMPLATE)
STRIPPED["fields"]["tool_calls"]["content_args"]["value_parser"]["args"]["strip"] = True
TOKENS = ["<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>", "<|call|>"]
TOKENS.append("<|constrain|>")
HISTORY = "<|start|>user<|message|>What is the weather?<|end|>"


def vllm_reads(text: str, prompt: str, template: dict[str, Any] = TEMPLATE) -> dict[str, Any]:
    """What vLLM's `BeamParser` reads in `text` after `prompt`, as protocall's message."""
    servers_shim.require("vllm.parser.beam")
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.beam import BeamParser

    tokenizer = servers_shim.Tokenizer(TOKENS)
    request = ChatCompletionRequest(
        model="beam", messages=[{"role": "user", "content": "x"}], tools=TOOLS
    )
    parser = BeamParser(
        tokenizer, request.tools, response_template=template, enable_auto_tools=True
    )
    parser.set_prompt_token_ids(tokenizer.encode(HISTORY + prompt))
    reasoning, content, calls = parser.parse(text, request, enable_auto_tools=True)
    return {
        "reasoning_content": reasoning or None,
        "content": (content or "").strip() or None,
        "tool_calls": [{"name": c.name, "arguments": json.loads(c.arguments)} for c in calls or ()],
    }


CUT_CALL = call("weather.lookup", city="Paris", days="2")[: -len("2</rfl:parameter><|call|>")]
QUOTED = "to=get_time<|channel|>analysis<|message|>"
NOTHING = {"content": None, "reasoning_content": None}
TIME = {"name": "get_time", "arguments": {"zone": "UTC"}}
DIFFERENT = [
    (
        CUT_CALL,
        PROMPT,
        NOTHING | {"tool_calls": []},
        ["truncated"],
        NOTHING | {"tool_calls": [{"name": "weather.lookup", "arguments": {"city": "Paris"}}]},
    ),
    (
        call("calc", header=" ", expr="<|end|> is text"),
        PROMPT,
        NOTHING | {"tool_calls": [{"name": "calc", "arguments": {"expr": "<|end|> is text"}}]},
        [],
        NOTHING | {"tool_calls": [{"name": "calc", "arguments": {}}]},
    ),
    (
        f"{REASONING}I could write {QUOTED} here<|end|>{ANSWER}Done.<|return|>",
        PROMPT,
        {
            "reasoning_content": "I could write",
            "content": f"{QUOTED} hereDone.",
            "tool_calls": [],
        },
        ["malformed"],
        {
            "reasoning_content": f"I could write {QUOTED} here",
            "content": "Done.",
            "tool_calls": [],
        },
    ),
    (
        "Text outside every message." + call("get_time", zone="UTC") + "<|return|>after",
        PROMPT,
        {"content": "Text outside every message.after", "reasoning_content": None}
        | {"tool_calls": [TIME]},
        [],
        NOTHING | {"tool_calls": [TIME]},
    ),
]
"""(text, prompt, protocall's message, its errors' codes, vLLM's message), where the two
read otherwise (docs/semantics.md, Beam, says why): a call cut off by the end of the output
is a `truncated` error in protocall, never a call (vLLM completes it with the parameters
that closed); a value holding `<|end|>` is the value's text in protocall (vLLM's call ends
there, its parameter lost); a whole call header in reasoning ends the reasoning in
protocall, as a genuine call head ends reasoning in every family, here a malformed call
(vLLM's reasoning ends only at `<|end|>`); text outside every message, after the end of
the turn too, is content in protocall (vLLM drops it)."""


def sglang_template() -> dict[str, Any]:
    """The response template SGLang ships for Beam."""
    servers_shim.sglang_packages()
    servers_shim.require("sglang.srt.parser.beam")
    from sglang.srt.parser.beam import BEAM_RESPONSE_TEMPLATE

    return copy.deepcopy(BEAM_RESPONSE_TEMPLATE)


@pytest.mark.parametrize(("text", "prompt", "expected"), SGLANG_SHAPE)
def test_vllm_reads_each_example_of_sglang_s_template_as_protocall_does(
    text: str, prompt: str, expected: dict[str, Any]
) -> None:
    assert vllm_reads(text, prompt, sglang_template()) == expected
    verify(test_beam.FORMAT, text, prompt, tools=TOOLS, expected=expected)


@pytest.mark.parametrize(("text", "prompt", "expected"), GATEWAY_SHAPE)
def test_vllm_reads_each_example_of_the_gateway_shape_as_protocall_does(
    text: str, prompt: str, expected: dict[str, Any]
) -> None:
    assert vllm_reads(text, prompt) == expected
    verify(test_beam.FORMAT, text, prompt, tools=TOOLS, expected=expected)


@pytest.mark.parametrize(("text", "prompt", "ours", "errors", "theirs"), DIFFERENT)
def test_where_vllm_reads_otherwise(
    text: str, prompt: str, ours: dict[str, Any], errors: list[str], theirs: dict[str, Any]
) -> None:
    assert vllm_reads(text, prompt) == theirs
    for chunks in ([text], list(text)):
        message = stream(test_beam.FORMAT, chunks, TOOLS, prompt).message
        assert message.to_dict() == ours
        assert [error.code for error in message.errors] == errors


def test_stripped_values_are_the_template_s_other_setting() -> None:
    """With the gateway test's other setting (`strip: true`) vLLM strips each value; the
    family keeps a value's spaces as the checkpoint wrote them (only the framing newlines
    of SGLang's template are not value text)."""
    text = call("get_time", header=" ", zone=" UTC ")
    assert vllm_reads(text, PROMPT, STRIPPED)["tool_calls"] == [
        {"name": "get_time", "arguments": {"zone": "UTC"}}
    ]
    assert vllm_reads(text, PROMPT)["tool_calls"] == [
        {"name": "get_time", "arguments": {"zone": " UTC "}}
    ]


def test_the_gateway_shape_after_a_prompt_that_opened_the_reasoning() -> None:
    text = f"Weighing it.<|end|>{ANSWER}Pre-opened.<|return|>"
    prompt = PROMPT + REASONING
    assert vllm_reads(text, prompt)["reasoning_content"] == "Weighing it."
