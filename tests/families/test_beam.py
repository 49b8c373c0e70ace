"""The `beam` format, one-shot and streamed (every chunking `verify` makes, and drawn ones)
in every test, our own strings in two shapes: that of the response template SGLang ships
for Beam (`SGLANG_SHAPE`: each message after `<|start|>assistant`, values framed by
newlines, a missing `</rfl:parameter>` before the next parameter) and that of a Beam-like
checkpoint in a public test of SGLang's model gateway (`GATEWAY_SHAPE`: values unframed,
an answer with no header before it); each closer, the call header with and without
` <|constrain|>xml` and `<|start|>assistant `, answers alone, values holding `<`, and
cut-off turns. tests/integrations/test_beam_sglang.py and test_beam_vllm.py read the same
examples with SGLang's and vLLM's own `beam` parsers."""

from __future__ import annotations

from typing import Any

from peer_tools import STRING, tool
from peer_tools import TOOLS as PEER_TOOLS

from protocall.blocks.turns import ToolUse, Turn
from protocall.formats import get
from protocall.testing import example_tests, stream, verify

FORMAT = get("beam")
PROMPT = "<|start|>assistant"
START, REASONING, ANSWER = (
    PROMPT + " ",
    "<|channel|>analysis<|message|>",
    "<|channel|>final<|message|>",
)
TOOLS = [
    *PEER_TOOLS,
    tool("weather.lookup", city=STRING, days={"type": "integer"}),
    tool("calendar.lookup", day=STRING),
    tool("calc", expr=STRING, exact={"type": "boolean"}),
]


def call(
    name: str,
    end: str = "<|call|>",
    header: str = START,
    xml: bool = True,
    framed: bool = False,
    **args: str,
) -> str:
    """A call message as the checkpoint writes it (`header` before ` to=`, the content type
    ` <|constrain|>xml` where `xml`, each value between newlines where `framed`)."""
    kind = " <|constrain|>xml" if xml else ""
    nl = "\n" if framed else ""
    values = "".join(
        f'<rfl:parameter name="{k}">{nl}{v}{nl}</rfl:parameter>' for k, v in args.items()
    )
    return f"{header}to={name}<|channel|>analysis{kind}<|message|>{values}{end}"


def message(
    *calls: dict[str, Any], content: str | None = None, reasoning: str | None = None
) -> dict[str, Any]:
    return {"content": content, "reasoning_content": reasoning, "tool_calls": list(calls)}


PARIS = {"name": "weather.lookup", "arguments": {"city": "Paris", "days": 2}}
TOMORROW = {"name": "calendar.lookup", "arguments": {"day": "tomorrow"}}
GATEWAY = (
    f"{REASONING}careful reasoning<|end|>"
    + call("weather.lookup", city="Paris", days="2")
    + call("calendar.lookup", "<|end|>", day="tomorrow")
    + f"{ANSWER}The result is ready.<|return|>"
)
NEXT = "<|end|>" + PROMPT  # SGLang's template: a message's close, and the next one's header
SGLANG_SHAPE = [
    (f"{REASONING}Weather first.{NEXT}" + call("weather.lookup", framed=True, city="Paris",
     days="2"), PROMPT, message(PARIS, reasoning="Weather first.")),
    (f"{REASONING}Two.{NEXT}" + call("weather.lookup", NEXT, header=" ", framed=True,
     city="Paris", days="2") + call("calendar.lookup", header=" ", framed=True, day="tomorrow"),
     PROMPT, message(PARIS, TOMORROW, reasoning="Two.")),
    (f"{REASONING}Then answer.{NEXT}" + call("calendar.lookup", NEXT, header=" ", framed=True,
     day="tomorrow") + f"{ANSWER}Done.<|return|>", PROMPT,
     message(TOMORROW, content="Done.", reasoning="Then answer.")),
    (f"{REASONING}Lines.{NEXT}" + call("calc", header=" ", framed=True, expr="a < b\nc > d"),
     PROMPT, message({"name": "calc", "arguments": {"expr": "a < b\nc > d"}},
                     reasoning="Lines.")),
    (f"{REASONING}Unclosed.{NEXT} to=weather.lookup<|channel|>analysis <|constrain|>xml"
     '<|message|><rfl:parameter name="city">\nParis\n<rfl:parameter name="days">\n2\n'
     "</rfl:parameter><|call|>", PROMPT, message(PARIS, reasoning="Unclosed.")),
    (f"{REASONING}Just think.{NEXT}{ANSWER}Sunny.<|return|>", PROMPT,
     message(content="Sunny.", reasoning="Just think.")),
]  # fmt: skip
GATEWAY_SHAPE = [
    (GATEWAY, PROMPT,
     message(PARIS, TOMORROW, content="The result is ready.", reasoning="careful reasoning")),
    (f"{REASONING}Two lookups.<|end|>" + call("weather.lookup", city="Paris", days="2")
     + call("calendar.lookup", day="tomorrow"), PROMPT,
     message(PARIS, TOMORROW, reasoning="Two lookups.")),
    (call("weather.lookup", header=" ", city="Paris", days="2"), PROMPT, message(PARIS)),
    (call("weather.lookup", "<|end|>", header=" ", xml=False, city="Paris", days="2"), PROMPT,
     message(PARIS)),
    (f"{REASONING}No header.<|end|>" + call("calendar.lookup", header="", day="tomorrow"),
     PROMPT, message(TOMORROW, reasoning="No header.")),
    (f"{REASONING}Plain kind.<|end|>" + call("calendar.lookup", xml=False, day="tomorrow"),
     PROMPT, message(TOMORROW, reasoning="Plain kind.")),
    (f"{ANSWER}Just an answer.<|return|>", PROMPT, message(content="Just an answer.")),
    (f"{ANSWER}Closed by end.<|end|>", PROMPT, message(content="Closed by end.")),
    (f"{REASONING}Think.<|end|>{ANSWER}Then answer.<|return|>", PROMPT,
     message(content="Then answer.", reasoning="Think.")),
    (call("calc", header=" ", expr="a < b && c <= d", exact="true"), PROMPT,
     message({"name": "calc", "arguments": {"expr": "a < b && c <= d", "exact": True}})),
    (call("get_time", header=" ", zone=" UTC "), PROMPT,
     message({"name": "get_time", "arguments": {"zone": " UTC "}})),
    (call("get_time", header=" "), PROMPT, message({"name": "get_time", "arguments": {}})),
    (f"{REASONING}Cut off in the reasoning", PROMPT, message(reasoning="Cut off in the reasoning")),
    (f"{REASONING}Done.<|end|>{ANSWER}Cut off in the answer", PROMPT,
     message(content="Cut off in the answer", reasoning="Done.")),
    (f"Weighing it.<|end|>{ANSWER}Pre-opened.<|return|>", PROMPT + REASONING,
     message(content="Pre-opened.", reasoning="Weighing it.")),
]  # fmt: skip
EXAMPLES = SGLANG_SHAPE + GATEWAY_SHAPE

test_shapes = example_tests(FORMAT, EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_a_cut_call_is_a_truncated_error_keeping_its_text() -> None:
    text = call("weather.lookup", header=" ", city="Paris", days="2")[: -len("<|call|>")]
    message = verify(FORMAT, text, PROMPT, tools=TOOLS)
    assert message.tool_calls == ()
    [error] = message.errors
    assert (error.code, error.raw) == ("truncated", text)


def test_a_call_to_an_undeclared_tool_is_an_error() -> None:
    text = call("weather.forecast", header=" ", city="Paris")
    message = stream(FORMAT, [text], TOOLS, PROMPT).message
    assert message.tool_calls == ()
    assert [error.code for error in message.errors] == ["unknown_tool"]


def test_a_name_is_announced_once_its_header_is_complete() -> None:
    """`weather.lookup` is final only once `<|message|>` has arrived (the name's end, with
    ` <|constrain|>xml` or without it)."""
    session = FORMAT.parser(TOOLS, PROMPT, seed=0)
    assert session.feed(" to=weather.lookup<|channel|>analysis <|constrain|>xml") == []
    [start] = session.feed("<|message|>")
    assert start.name == "weather.lookup"


def test_a_turn_is_written_as_messages_that_read_back() -> None:
    """Reasoning and the answer in their channels, each call `to=NAME` with the content
    type, its values between newlines and `<|call|>`, then `<|return|>`."""
    turn = Turn("Check.", ("One moment.", ToolUse("calendar.lookup", {"day": "today"})))
    written = FORMAT.render(turn, None)
    assert written == (
        f"{REASONING}Check.<|end|>{ANSWER}One moment.<|end|> to=calendar.lookup"
        '<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name="day">\ntoday\n'
        "</rfl:parameter><|call|><|return|>"
    )
    assert verify(FORMAT, written, PROMPT, tools=TOOLS).to_dict() == turn.expected()
