"""The `muse` and `muse-glimmer` formats, from the shapes of vLLM's Muse Glimmer tests
(vllm-project/vllm `tests/parser/engine/test_muse_glimmer.py`: reasoning then an answer, an
answer alone, text without framing, a header with no recipient, reasoning in two messages,
`to=` in the reasoning's prose, a call after reasoning, calls one a message across
`<|eom|>`, reasoning cut off with an invoke quoted in it; a vLLM-project unit-test file
for the MuseGlimmer tool and reasoning parsers, found by its content (no repository path
known): JSON, array and boolean values, an invoke quoted in reasoning, a doubled name;
`tests/reasoning/test_muse_glimmer_reasoning_parser.py`: the output begins
` to=self<|message|>`) and the `muse_tool_parser.py` docstring (`to=commentary`, a header
with no recipient), our own strings, one-shot and streamed in every test."""

from __future__ import annotations

import peer_tools
from peer_tools import STRING, tool

import protocall
from protocall.formats.muse import GLIMMER, MUSE
from protocall.testing import example_tests, stream

PROMPT = "<|start|>assistant"
EOM, EOT = "<|eom|>", "<|eot|>"
TOOLS = [
    *peer_tools.TOOLS,
    tool("api.call", payload={"type": "object"}, flag={"type": "boolean"}, ids={"type": "array"}),
    tool("math.add", a={"type": "integer"}, b={"type": "integer"}),
    tool("read.read", path=STRING),
]


HEADER = PROMPT + " "


def to(recipient: str, body: str, end: str = EOM, header: str = HEADER) -> str:
    return f"{header}to={recipient}<|message|>{body}{end}"


def call(name: str, end: str = EOM, header: str = HEADER, **args: str) -> str:
    values = "".join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in args.items())
    body = f'<atem:function_calls>\n<atem:invoke name="{name}">\n{values}</atem:invoke>\n'
    return to(name, f"{body}</atem:function_calls>", end, header)


PARIS = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
SUM = {"name": "math.add", "arguments": {"a": 1, "b": 2}}
QUOTED = (
    '<atem:invoke name="read.read"><atem:parameter name="path">/x</atem:parameter></atem:invoke>'
)
BOTH = [
    (
        call("get_time.get_time", EOT, header="", zone="UTC"),
        PROMPT,
        {
            "reasoning_content": None,
            "content": None,
            "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}],
        },
    ),
    (
        to("self", "Checking the forecast.", header="")
        + call("get_weather", EOT, location="Paris", days="3"),
        PROMPT,
        {"reasoning_content": "Checking the forecast.", "content": None, "tool_calls": [PARIS]},
    ),
    (
        call("math.add", header="", a="1", b="2") + call("math.add", EOT, a="3", b="4"),
        PROMPT,
        {
            "reasoning_content": None,
            "content": None,
            "tool_calls": [SUM, {"name": "math.add", "arguments": {"a": 3, "b": 4}}],
        },
    ),
    (
        to("user", "Just a plain answer.", EOT, header=""),
        PROMPT,
        {"reasoning_content": None, "content": "Just a plain answer.", "tool_calls": []},
    ),
    (
        call("api.call", EOT, header="", payload='{"nested": [1, 2]}', flag="true", ids="[7]"),
        PROMPT,
        {
            "reasoning_content": None,
            "content": None,
            "tool_calls": [
                {
                    "name": "api.call",
                    "arguments": {"payload": {"nested": [1, 2]}, "flag": True, "ids": [7]},
                }
            ],
        },
    ),
    (
        to("self", "Let me read it.", header=" ") + call("read.read", path="/etc/hostname"),
        PROMPT,
        {
            "reasoning_content": "Let me read it.",
            "content": None,
            "tool_calls": [{"name": "read.read", "arguments": {"path": "/etc/hostname"}}],
        },
    ),
    (
        "A direct answer.",
        PROMPT,
        {"reasoning_content": None, "content": "A direct answer.", "tool_calls": []},
    ),
    (
        f" to=user<|message|>Only an answer.{EOT}",
        PROMPT,
        {"reasoning_content": None, "content": "Only an answer.", "tool_calls": []},
    ),
    (
        to("self", "First, ", header=" ") + to("self", "then.") + to("user", "Done.", EOT),
        PROMPT,
        {"reasoning_content": "First, then.", "content": "Done.", "tool_calls": []},
    ),
    (
        to("self", "set x to=5, mail it to=bo", header=" ") + to("user", "Sent.", EOT),
        PROMPT,
        {"reasoning_content": "set x to=5, mail it to=bo", "content": "Sent.", "tool_calls": []},
    ),
    (
        f"Weighing it.{EOM}" + call("get_time", EOT, zone="UTC"),
        PROMPT + " to=self<|message|>",
        {
            "reasoning_content": "Weighing it.",
            "content": None,
            "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}],
        },
    ),
]
MUSE_EXAMPLES = [
    *BOTH,
    (
        f"<|message|>Plan first.{EOM}"
        + to("commentary", "One moment.")
        + call("get_time", EOT, zone="北京"),
        PROMPT,
        {
            "reasoning_content": "Plan first.",
            "content": "One moment.",
            "tool_calls": [{"name": "get_time", "arguments": {"zone": "北京"}}],
        },
    ),
]
GLIMMER_EXAMPLES = [
    *BOTH,
    (f"<|message|>Hello there.{EOM}" + to("self", "Now a call.") +
     call("get_time", EOT, zone="北京"), PROMPT, {
        "reasoning_content": "Now a call.", "content": "Hello there.", "tool_calls": [
            {"name": "get_time", "arguments": {"zone": "北京"}}]}),
]  # fmt: skip

test_muse_peer_shapes = example_tests(MUSE, MUSE_EXAMPLES, tools=TOOLS, max_examples=3)
test_glimmer_peer_shapes = example_tests(GLIMMER, GLIMMER_EXAMPLES, tools=TOOLS, max_examples=3)
"""Each example one-shot, in every chunking `verify` makes, and in drawn chunkings."""


def test_the_recipient_decides_what_a_message_is() -> None:
    """The same body is reasoning, content or (in ATEM) a call by its header's recipient."""
    text = to("self", "a", header="") + to("user", "b") + call("get_time", EOT, zone="UTC")
    for name in ("muse", "muse-glimmer"):
        message = protocall.parse(text, name, TOOLS, PROMPT)
        assert (message.reasoning_content, message.content) == ("a", "b")
        assert [c.name for c in message.tool_calls] == ["get_time"]


def test_a_header_without_recipient_is_reasoning_in_muse_and_content_in_glimmer() -> None:
    text = f" <|message|>text{EOT}"
    muse = protocall.parse(text, "muse", TOOLS, PROMPT)
    glimmer = protocall.parse(text, "muse-glimmer", TOOLS, PROMPT)
    assert (muse.reasoning_content, muse.content) == ("text", None)
    assert (glimmer.reasoning_content, glimmer.content) == (None, "text")


def test_a_cut_call_is_a_truncated_error_keeping_its_text() -> None:
    text = call("get_time", zone="UTC")[: -len("</atem:invoke>\n</atem:function_calls><|eom|>")]
    message = protocall.parse(text, "muse-glimmer", TOOLS, PROMPT)
    assert message.tool_calls == ()
    [error] = message.errors
    assert error.code == "truncated"


def test_an_invoke_quoted_in_reasoning_is_no_call() -> None:
    """Whole reasoning, and reasoning cut off, holding an ATEM invoke: reasoning text (the
    kit's examples cannot hold it: it is made of reserved markers)."""
    closed = to("self", f"I might call {QUOTED} but no.", header="") + to("user", "42.", EOT)
    cut = f" to=self<|message|>Maybe call {QUOTED} but wait"
    for text, reasoning, content in (
        (closed, f"I might call {QUOTED} but no.", "42."),
        (cut, f"Maybe call {QUOTED} but wait", None),
    ):
        for fmt in (MUSE, GLIMMER):
            for chunks in ([text], list(text)):
                message = stream(fmt, chunks, TOOLS, PROMPT).message
                assert (message.reasoning_content, message.content) == (reasoning, content)
                assert (message.tool_calls, message.errors) == ((), ())


def test_a_doubled_name_is_the_declared_tool_it_names() -> None:
    """The template offers `get_time` as the recipients `get_time.*`: the model's
    `get_time.get_time` is a call to `get_time` (as vLLM's tests read it), where that name
    itself is no declared tool; with none declared, it stays as written."""
    text = call("get_time.get_time", EOT, header="", zone="UTC")
    declared_itself = [*TOOLS, tool("get_time.get_time", zone=STRING)]
    for tools, name in ((TOOLS, "get_time"), (declared_itself, "get_time.get_time"),
                        (None, "get_time.get_time")):  # fmt: skip
        for fmt in (MUSE, GLIMMER):
            for chunks in ([text], list(text)):
                message = stream(fmt, chunks, tools, PROMPT).message
                assert [(c.name, c.arguments) for c in message.tool_calls] == [
                    (name, {"zone": "UTC"})
                ]
                assert message.errors == ()


def test_a_message_to_no_channel_without_a_call_is_an_error_keeping_its_text() -> None:
    """A recipient that names no channel heads a call: a body that is none (Spark's
    `to=developer` note, which vLLM drops) is a malformed region, its raw text whole."""
    note = to("developer", "note")
    text = to("self", "a", header="") + note + to("user", "b", EOT)
    for fmt in (MUSE, GLIMMER):
        for chunks in ([text], list(text)):
            message = stream(fmt, chunks, TOOLS, PROMPT).message
            assert (message.reasoning_content, message.tool_calls) == ("a", ())
            [error] = message.errors
            assert (error.code, error.raw) == ("malformed", note)
