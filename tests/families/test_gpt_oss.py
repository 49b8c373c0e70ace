"""The `gpt-oss` format (Harmony, FORMATS.md §6.5), one-shot and streamed in every test."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import ast, formats
from protocall.events import ToolCallStart
from protocall.formats.gpt_oss import FORMAT
from protocall.message import Message
from protocall.testing import (
    PROPERTIES,
    Case,
    Trial,
    split_at,
    stream,
    verify,
)
from protocall.tools import normalize_tools

START, CHANNEL, MESSAGE, END = "<|start|>", "<|channel|>", "<|message|>", "<|end|>"
RETURN, CALL, CONSTRAIN = "<|return|>", "<|call|>", "<|constrain|>"
PROMPT = "<|start|>assistant"
NEXT = PROMPT  # the header of every message after the first


def tool(name: str, **properties: object) -> dict[str, object]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


STRING = {"type": "string"}
TOOLS = [
    tool("get_weather", location=STRING, days={"type": "integer"}, hourly={"type": "boolean"}),
    tool("get_weather_forecast", location=STRING),
    tool("get_time", zone=STRING),
    tool("write_file", path=STRING, content=STRING),
    tool("set_config", options={"type": "object"}),
    tool("browser.search", query=STRING),
]


def message(channel: str, text: str, end: str = END) -> str:
    return f"{CHANNEL}{channel}{MESSAGE}{text}{end}"


def call(name: str, arguments: dict[str, object], *, role: bool = False) -> str:
    """A call with the recipient in the channel header (or, with `role`, in the role header,
    whose `<|start|>assistant` the caller writes)."""
    payload = json.dumps(arguments, ensure_ascii=False)
    if role:
        return f" to=functions.{name}{CHANNEL}commentary json{MESSAGE}{payload}{CALL}"
    return f"{CHANNEL}commentary to=functions.{name} {CONSTRAIN}json{MESSAGE}{payload}{CALL}"


def verified(
    text: str,
    prompt: str | None = PROMPT,
    *,
    tools: list[dict[str, object]] | None = TOOLS,
    expected: dict[str, object] | None = None,
) -> Message:
    """Every property of the testing kit, one chunk against several, each call whole too."""
    return verify(FORMAT, text, prompt, tools=tools, expected=expected)


def names(result: Message) -> list[str]:
    return [c.name for c in result.tool_calls]


# -- FORMATS.md §6.16 example --------------------------------------------------------------------

EXAMPLES = [
    ('<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary '
     'to=functions.get_weather <|constrain|>json<|message|>{"location":"Paris"}<|call|>', PROMPT,
     {"reasoning_content": "Need weather.", "content": None,
      "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}]}),
    (message("analysis", "Easy.") + NEXT + message("final", "Hello!", RETURN), PROMPT,
     {"reasoning_content": "Easy.", "content": "Hello!", "tool_calls": []}),
    (message("analysis", "Look it up.") + NEXT + message("commentary", "Checking the time.")
     + NEXT + call("get_time", {"zone": "UTC"}, role=True), PROMPT,
     {"reasoning_content": "Look it up.", "content": "Checking the time.",
      "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}]}),
]  # fmt: skip


def test_registered() -> None:
    assert formats.get("gpt-oss") is FORMAT


# -- headers -------------------------------------------------------------------------------------


def test_recipient_in_the_role_header_of_the_first_message() -> None:
    result = verified(call("get_time", {"zone": "UTC"}, role=True))
    assert names(result) == ["get_time"] and result.content is None


@pytest.mark.parametrize(
    "header",
    [
        " to=functions.get_time<|channel|>commentary<|constrain|>json<|message|>",
        " to=functions.get_time<|channel|>commentary <|constrain|>json<|message|>",
        "<|channel|>commentary to=functions.get_time<|message|>",
        "<|channel|>commentary to=functions.get_time json<|message|>",
        "<|channel|>commentary to=functions.get_time<|constrain|>json<|message|>",
        "<|channel|>analysis to=functions.get_time <|constrain|>json<|message|>",
    ],
)
def test_header_spellings_of_a_call(header: str) -> None:
    (result,) = verified(f'{header}\n{{"zone": "UTC"}}{CALL}').tool_calls
    assert (result.name, result.arguments) == ("get_time", {"zone": "UTC"})


def test_a_recipient_other_than_functions_is_its_name() -> None:
    text = f'{CHANNEL}commentary to=browser.search json{MESSAGE}{{"query": "q"}}{CALL}'
    assert names(verified(text)) == ["browser.search"]


def test_commentary_without_recipient_is_a_preamble() -> None:
    text = message("commentary", "Let me check.") + NEXT + call("get_time", {})
    result = verified(text)
    assert result.content == "Let me check." and names(result) == ["get_time"]


def test_stray_commentary_prefix_is_dropped() -> None:
    for stray in (f"{CHANNEL}commentary", f"{CHANNEL}commentary to=assistant"):
        text = stray + message("analysis", "Hmm.") + NEXT + stray + message("final", "Hi.", RETURN)
        result = verified(text)
        assert (result.reasoning_content, result.content, result.errors) == ("Hmm.", "Hi.", ())


def test_missing_start_before_a_channel_is_tolerated() -> None:
    result = verified(message("analysis", "A.") + message("final", "B.", RETURN))
    assert (result.reasoning_content, result.content) == ("A.", "B.")


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("<|channel|>bogus<|message|>hi<|end|>", "<|channel|>bogus<|message|>hi<|end|>"),
        ("<|start|>user<|message|>hi<|end|>", "<|start|>user<|message|>hi<|end|>"),
        ("<|channel|>final hi<|end|>", "<|channel|>final hi<|end|>"),
        ("<|message|>no header<|end|>", "<|message|>no header<|end|>"),
        ("<|constrain|>json<|message|>x", "<|constrain|>json<|message|>x"),
    ],
)
def test_malformed_or_stray_headers_are_protocol_errors(text: str, raw: str) -> None:
    result = verified(text + NEXT + message("final", "ok", RETURN))
    (error,) = result.errors
    assert (error.code, error.raw) == ("malformed", raw)
    assert result.content == "ok"  # header tokens stay in the error, never content
    turn = [text + NEXT + message("final", "ok", RETURN)]
    shown = stream(FORMAT, turn, None, PROMPT, passthrough_malformed=True).message
    assert shown.content == raw + "ok"  # passed through, as the model wrote it, on request


def test_a_stray_end_is_dropped() -> None:
    result = verified(message("final", "a") + END + " b" + RETURN)
    assert (result.content, result.errors) == ("a b", ())


# -- reasoning -----------------------------------------------------------------------------------


def test_generation_prompts_give_the_start_state() -> None:
    assert FORMAT.start_state(PROMPT) is None and FORMAT.start_state(None) is None
    assert FORMAT.start_state(PROMPT + CHANNEL + "analysis" + MESSAGE) == "reasoning"
    assert FORMAT.start_state(PROMPT + CHANNEL + "final" + MESSAGE) == "content"
    assert FORMAT.start_state(PROMPT + message("analysis", "x") + PROMPT) is None


def test_pre_opened_channels() -> None:
    text = "Thinking." + END + NEXT + message("final", "Done.", RETURN)
    result = verified(text, PROMPT + CHANNEL + "analysis" + MESSAGE)
    assert (result.reasoning_content, result.content) == ("Thinking.", "Done.")
    result = verified("Answer." + RETURN, PROMPT + CHANNEL + "final" + MESSAGE)
    assert (result.reasoning_content, result.content) == (None, "Answer.")


@pytest.mark.parametrize(
    "terminator",
    [END, NEXT + CHANNEL + "final" + MESSAGE, CHANNEL + "final" + MESSAGE, RETURN, CALL, ""],
)
def test_reasoning_terminators(terminator: str) -> None:
    result = verified(CHANNEL + "analysis" + MESSAGE + "Hmm. " + terminator + "x")
    assert result.reasoning_content == "Hmm." + ("" if terminator else " x")
    assert result.content == ("x" if terminator else None)


def test_a_call_after_unterminated_reasoning() -> None:
    text = CHANNEL + "analysis" + MESSAGE + "Need it." + NEXT + call("get_time", {"zone": "UTC"})
    result = verified(text)
    assert (result.reasoning_content, names(result)) == ("Need it.", ["get_time"])


# -- calls ---------------------------------------------------------------------------------------


def test_calls_after_the_turn_ended_still_parse() -> None:
    text = call("get_time", {}) + NEXT + call("get_weather", {"location": "Oslo"})
    assert names(verified(text)) == ["get_time", "get_weather"]


def test_typed_values_keep_their_json_types() -> None:
    arguments = {"days": 3, "ratio": -1.5e3, "hourly": True, "unit": None, "list": [1, "two"],
                 "options": {"a": {"b": False}}, "zone": "42",
                 "n": 12345678901234567890}  # fmt: skip
    (result,) = verified(call("set_config", arguments), tools=None).tool_calls
    assert result.arguments == arguments and json.loads(result.arguments_json) == arguments


def test_a_recipient_in_the_role_header_never_announces_the_shorter_name() -> None:
    text = call("get_weather_forecast", {"location": "Oslo"}, role=True)
    starts = [e.name for e in stream(FORMAT, list(text), TOOLS, PROMPT).events
              if isinstance(e, ToolCallStart)]  # fmt: skip
    assert starts == ["get_weather_forecast"]
    verified(text)


def test_undeclared_tool_is_reported_never_called() -> None:
    text = call("get_time", {}) + NEXT + call("launch", {"n": 3})
    result = verified(text)
    assert names(result) == ["get_time"]
    (error,) = result.errors
    assert error.code == "unknown_tool" and "launch" in error.message


def test_malformed_arguments_are_an_error() -> None:
    text = f"{CHANNEL}commentary to=functions.get_time json{MESSAGE}{{zone: UTC}}{CALL}"
    result = verified(text)
    (error,) = result.errors
    assert result.tool_calls == () and error.code == "malformed" and "get_time" in error.message


# -- truncation ----------------------------------------------------------------------------------


def test_truncation_at_every_position_with_the_recipient_in_the_role_header() -> None:
    """(The recipient in the channel header, as the renderer writes it: tests/test_families.)"""
    the_call = call("write_file", {"content": '<y> "z"'}, role=True)
    text = message("analysis", "R") + NEXT + message("commentary", "Hi") + NEXT + the_call
    full = Case(text, normalize_tools(TOOLS), PROMPT, None, expected=verified(text).to_dict())
    reference = stream(FORMAT, [text], TOOLS, PROMPT)
    (node,) = reference.tree.find_all(ast.TOOL_CALL)
    opened = text.rindex(NEXT)
    for cut in range(len(text)):
        prefix = text[:cut]
        case = Case(prefix, full.tools, PROMPT, None, truncates=full)
        whole = stream(FORMAT, [prefix], TOOLS, PROMPT)
        chunks = split_at(prefix, range(1 + cut % 4, cut, 1 + cut % 4))
        trial = Trial(FORMAT, case, chunks, whole, stream(FORMAT, chunks, TOOLS, PROMPT), reference)
        for prop in PROPERTIES:
            assert prop.check(trial) is None, (cut, prop.name, prop.check(trial))
        result = whole.message
        assert names(result) == (["write_file"] if node.end is not None and node.end <= cut else [])
        if opened + len(START) <= cut < (node.end or 0):
            (error,) = result.errors
            assert error.code == "truncated" and error.raw == text[opened:cut]
        assert all(e.code == "truncated" for e in result.errors)


# -- built-in tools (python, browser.*, container.exec) ------------------------------------------

BUILT_INS = [
    tool("python", code=STRING),
    tool("browser.search", query=STRING),
    tool("browser.open", id={"type": "integer"}),
    tool("browser.find", pattern=STRING),
    tool("container.exec", cmd={"type": "array"}),
]


@pytest.mark.parametrize(
    ("recipient", "body", "arguments"),
    [
        ("python", "import math\nprint(math.pi)", {"code": "import math\nprint(math.pi)"}),
        ("python", ' {"a": 1}\n', {"code": ' {"a": 1}\n'}),
        ("browser.search", '{"query": "Paris weather"}', {"query": "Paris weather"}),
        ("browser.open", '{"id": 3}', {"id": 3}),
        ("browser.find", '{"pattern": "rain"}', {"pattern": "rain"}),
        ("container.exec", '{"cmd": ["bash", "-lc", "ls"]}', {"cmd": ["bash", "-lc", "ls"]}),
    ],
)
@pytest.mark.parametrize("role", [False, True])
def test_a_built_in_recipient_is_a_call_to_it(
    recipient: str, body: str, arguments: dict[str, object], role: bool
) -> None:
    header = (f" to={recipient}{CHANNEL}analysis code{MESSAGE}" if role
              else f"{CHANNEL}analysis to={recipient} code{MESSAGE}")  # fmt: skip
    text = message("analysis", "Look it up.") + NEXT + header + body + CALL
    result = verified(text, tools=BUILT_INS)
    assert (result.reasoning_content, result.content, result.errors) == ("Look it up.", None, ())
    (done,) = result.tool_calls
    assert (done.name, done.arguments) == (recipient, arguments)
    assert json.loads(done.arguments_json) == arguments
    assert verified(text, tools=None).tool_calls[0].arguments == arguments


def test_a_functions_recipient_named_python_takes_json() -> None:
    text = f'{CHANNEL}commentary to=functions.python json{MESSAGE}{{"code": "1"}}{CALL}'
    (done,) = verified(text, tools=BUILT_INS).tool_calls
    assert (done.name, done.arguments) == ("python", {"code": "1"})


def test_an_undeclared_built_in_is_an_unknown_tool_never_content() -> None:
    text = f"{CHANNEL}analysis to=python code{MESSAGE}print(1){CALL}"
    result = verified(text, tools=TOOLS)
    (error,) = result.errors
    assert result.tool_calls == () and error.code == "unknown_tool" and "python" in error.message
    assert error.raw == " to=python code<|message|>print(1)"  # the call, from its recipient
    assert (result.content, result.reasoning_content) == (None, None)  # header tokens kept out
    shown = stream(FORMAT, [text], TOOLS, PROMPT, passthrough_malformed=True).message
    assert shown.content == "to=python code<|message|>print(1)"  # only when asked for


def test_code_for_python_ends_only_at_a_call() -> None:
    text = (
        f"{CHANNEL}analysis to=python code{MESSAGE}print(1){END}"
        + NEXT
        + message("final", "ok", RETURN)
    )
    result = verified(text, tools=BUILT_INS)
    (error,) = result.errors
    assert result.tool_calls == () and error.code == "malformed" and "<|call|>" in error.message


def test_code_cut_off_is_a_truncated_call() -> None:
    text = f"{CHANNEL}analysis to=python code{MESSAGE}print("
    result = verified(text, tools=BUILT_INS)
    (error,) = result.errors
    assert result.tool_calls == () and error.code == "truncated" and error.raw == text


@pytest.mark.parametrize(
    "quoted",
    [
        f"write {MESSAGE} after the header",
        f"then {CONSTRAIN}json",
        f"a {CHANNEL} alone, {CHANNEL}bogus or {CHANNEL}commentar",
        "recipients look like to=python or to=functions.get_time",
    ],
)
def test_marker_text_quoted_in_analysis_stays_reasoning(quoted: str) -> None:
    text = message("analysis", quoted) + NEXT + message("final", "Done.", RETURN)
    result = verified(text)
    assert (result.reasoning_content, result.content, result.errors) == (quoted, "Done.", ())
    result = verified(quoted + END + NEXT + message("final", "Done.", RETURN),
                      PROMPT + CHANNEL + "analysis" + MESSAGE)  # fmt: skip
    assert (result.reasoning_content, result.content, result.errors) == (quoted, "Done.", ())


@given(st.text(st.sampled_from("ab <|>\n\"{}'\\é"), max_size=30).filter(lambda t: "<|" not in t))
@settings(max_examples=30, deadline=None)
def test_any_code_is_the_python_call_s_code(code: str) -> None:
    text = f"{CHANNEL}analysis to=python code{MESSAGE}{code}{CALL}"
    (done,) = verified(text, tools=BUILT_INS).tool_calls
    assert (done.name, done.arguments) == ("python", {"code": code})
