"""Grammar and parser agreeing on the spellings real models write (issue #36): what the
grammar accepts, protocall reads with no error; what protocall reads as a clean turn, the
grammar accepts. llguidance is the oracle of the Lark grammar (its tokenizer holding every
special token of the format, as a real one does), the GBNF recognizer of the GBNF; each
text is read by protocall's parser of the same format and generation prompt."""

from __future__ import annotations

from typing import Any

import pytest
from gbnf_recognizer import Recognizer
from grammar_oracle import check, special_tokens

from protocall import formats
from protocall.grammar import walk

TOOLS = [{"name": "get_weather", "parameters": {"type": "object", "required": ["city"],
          "properties": {"city": {"type": "string"}, "on": {"type": "boolean"}}}}]  # fmt: skip
K3 = '<|open|>message role="assistant"<|sep|>'
K3_END = "<|close|>message<|sep|><|end_of_msg|>"
K3_CALL = (
    '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument '
    'key="city" type="string"<|sep|>P<|close|>argument<|sep|><|close|>call<|sep|>'
    "<|close|>tools<|sep|>"
)
QWEN = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n{}</function>\n</tool_call><|im_end|>"  # noqa: E501
KIMI = '<|tool_calls_section_begin|><|tool_call_begin|>{}:0<|tool_call_argument_begin|>{{"city": "P"}}<|tool_call_end|><|tool_calls_section_end|><|im_end|>'  # noqa: E501
IN_HEADER = ' to=functions.{}<|channel|>commentary {}<|message|>{{"city": "P"}}<|call|>'
THOUGHT = "<|channel|>analysis<|message|>hm<|end|><|start|>assistant"
LFM2_CALL = "<think>{}<|tool_call_start|>[get_weather(city='P')]<|tool_call_end|><|im_end|>"
SEED_CALL = (
    "<seed:think>{}\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>P</parameter>"
    "\n</function>\n</seed:tool_call><seed:eos>"
)
HARMONY = '<|channel|>commentary {}<|message|>{{"city": "Paris"}}<|call|>'


def read(name: str, text: str, prompt: str) -> tuple[bool, list[Any]]:
    """Whether protocall reads `text` with no error and no validation error, and its calls."""
    session = formats.get(name).parser(TOOLS, prompt)
    session.feed(text)
    session.finish()
    message = session.message
    calls = [(call.name, call.arguments) for call in message.tool_calls]
    clean = not message.errors and not any(c.validation_errors for c in message.tool_calls)
    return clean, calls


def verdicts(name: str, text: str, prompt: str, **options: Any) -> tuple[bool, bool]:
    """Whether the Lark grammar (llguidance) and the GBNF (the recognizer) accept `text`."""
    fmt = formats.get(name)
    lark = fmt.decoding_grammar(TOOLS, generation_prompt=prompt, **options)
    tokens = {m for m in fmt.reserved if walk.AUTO_SPECIAL.fullmatch(m)}  # a real tokenizer's
    by_lark = check(lark, text, tuple(sorted(tokens | set(special_tokens(lark))))).accepted
    gbnf = fmt.decoding_grammar(TOOLS, "gbnf", generation_prompt=prompt, **options)
    return by_lark, Recognizer(gbnf).accepts(text)


READ_CLEAN = [
    # gpt-oss: the recipient in the role header, as the chat template renders a call
    ("gpt-oss", IN_HEADER.format("get_weather", "json"), None, 1),
    ("gpt-oss", IN_HEADER.format("get_weather", "<|constrain|>json"), None, 1),
    ("gpt-oss", THOUGHT + IN_HEADER.format("get_weather", "json"), None, 1),
    ("gpt-oss", HARMONY.format("to=functions.get_weather <|constrain|>json"), None, 1),
    # Qwen3-Coder: booleans as Python writes them, which the parser reads as booleans
    ("qwen3-coder", QWEN.format("<parameter=on>\nTrue\n</parameter>\n"), None, 1),
    ("qwen3-coder", QWEN.format("<parameter=on>\nFalse\n</parameter>\n"), None, 1),
    ("qwen3-coder", QWEN.format("<parameter=on>\nfalse\n</parameter>\n"), None, 1),
    # Kimi K2: the call id without its `functions.` prefix
    ("kimi-k2", KIMI.format("get_weather"), None, 1),
    ("kimi-k2", KIMI.format("functions.get_weather"), None, 1),
    # Kimi K3 with thinking off: the prompt opens no channel, the calls need no response
    ("kimi-k3", K3_CALL + K3_END, K3, 1),
    ("kimi-k3", "<|open|>response<|sep|>hi<|close|>response<|sep|>" + K3_END, K3, 0),
    ("kimi-k3", "hi<|close|>response<|sep|>" + K3_END, K3 + "<|open|>response<|sep|>", 0),
    # Mistral: call markers inside a reasoning block the model opened are reasoning text
    ("mistral", "[THINK]maybe [TOOL_CALLS] later[/THINK]ok</s>", None, 0),
    ("mistral", '[THINK]no [TOOL_CALLS]get_weather[ARGS]{"city": "P"}[/THINK]ok</s>', None, 0),
    ("mistral", "[THINK]a [TOOL_CALLS later[/THINK]ok</s>", None, 0),
    # Llama 3: "arguments" is read as "parameters" is
    ("llama-3", '{"name": "get_weather", "arguments": {"city": "P"}}<|eot_id|>', None, 1),
    ("llama-3", '{"name": "get_weather", "parameters": {"city": "P"}}<|eot_id|>', None, 1),
]


@pytest.mark.parametrize(("name", "text", "prompt", "calls"), READ_CLEAN)
def test_what_protocall_reads_clean_the_grammar_accepts(
    name: str, text: str, prompt: str | None, calls: int
) -> None:
    prompt = formats.get(name).prompt_for(None) if prompt is None else prompt
    clean, read_calls = read(name, text, prompt)
    assert clean and len(read_calls) == calls, read_calls
    assert verdicts(name, text, prompt) == (True, True)


READ_BAD = [
    # Llama 3: a call with a wrong argument type is no content, under either key
    ("llama-3", '{"name": "get_weather", "arguments": {"city": 3}}<|eot_id|>', None),
    ("llama-3", '{"name": "get_weather", "parameters": {"city": 3}}<|eot_id|>', None),
    # Llama 3, Llama 4, pythonic: other spacings of a call's beginning are calls, not
    # content (compact JSON, members in another order, whitespace around the name)
    ("llama-3", '{"name":"get_weather","parameters":{"city":3}}<|eot_id|>', None),
    ("llama-3", 'see { "name" : "get_weather", "arguments": {"city": 3}}<|eot_id|>', None),
    ("llama-3", '{"parameters": {"city": 3}, "name": "get_weather"}<|eot_id|>', None),
    ("pythonic", "[get_weather (city=3)]<|eot_id|>", None),
    ("pythonic", "see [ get_weather\n(city=3)]<|eot_id|>", None),
    ("llama-4", "[get_weather (city=3)]<|eot|>", None),
    # Llama 4: a call to an undeclared tool inside `<|python_start|>`
    ("llama-4", "<|python_start|>[no_such_tool(a=1)]<|python_end|><|eot|>", None),
    ("llama-4", "<|python_start|>[no_such_tool(a=1)]<|eot|>", None),
    # gpt-oss and Kimi K2: an undeclared recipient, a prefix that is not `functions.`
    ("gpt-oss", IN_HEADER.format("nope", "json"), None),
    ("kimi-k2", KIMI.format("other.get_weather"), None),
]


@pytest.mark.parametrize(("name", "text", "prompt"), READ_BAD)
def test_what_protocall_reads_as_a_bad_turn_the_grammar_refuses(
    name: str, text: str, prompt: str | None
) -> None:
    prompt = formats.get(name).prompt_for(None) if prompt is None else prompt
    clean, calls = read(name, text, prompt)
    assert not clean, calls
    assert verdicts(name, text, prompt) == (False, False)


CALLS = [
    ("llama-3", '{"name": "get_weather", "parameters": {"city": "P"}}', "<|eot_id|>"),
    ("llama-3", '{"name": "get_weather", "arguments": {"city": "P"}}', "<|eot_id|>"),
    ("llama-4", "[get_weather(city='P')]", "<|eot|>"),
    ("pythonic", "[get_weather(city='P')]", "<|eot_id|>"),
]


@pytest.mark.parametrize(("name", "call", "stop"), CALLS)
def test_a_truncated_call_the_grammar_accepts_is_content_to_protocall(
    name: str, call: str, stop: str
) -> None:
    """Every proper prefix of a call, then the stop: where a grammar accepts it (as
    content), protocall reads content with no error, never a broken call."""
    prompt = formats.get(name).prompt_for(None)
    for end in range(1, len(call)):
        text = call[:end] + stop
        clean, calls = read(name, text, prompt)
        accepted = verdicts(name, text, prompt)
        assert not any(accepted) or (clean and not calls), (text, accepted, calls)


UNCLOSED = [
    ("mistral", '[THINK]hm[TOOL_CALLS]get_weather[ARGS]{"city": "P"}</s>', "hm", None),
    ("mistral", '[THINK]hm[TOOL_CALLS]get_weather[ARGS]{"city": "P"} ok</s>', "hm", "ok"),
    ("mistral", '[THINK]a [TOOL_CALLS b[TOOL_CALLS]get_weather[ARGS]{"city": "P"}',
     "a [TOOL_CALLS b", None),
    ("lfm2", LFM2_CALL.format("hm"), "hm", None),
    ("seed-oss", SEED_CALL.format("hm"), "hm", None),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "reasoning", "content"), UNCLOSED)
def test_a_call_in_an_explicit_reasoning_block_never_closed_is_a_call(
    name: str, text: str, reasoning: str, content: str | None
) -> None:
    """Read-only (docs/grammar.md): a reasoning block the model opened and never closed
    ends at its call, one-shot and streamed per character; the grammar, which writes the
    block closed, refuses the text."""
    fmt = formats.get(name)
    for chunks in ([text], list(text)):
        session = fmt.parser(TOOLS, fmt.prompt_for(None))
        for chunk in chunks:
            session.feed(chunk)
        session.finish()
        message = session.message
        assert not message.errors and message.reasoning_content == reasoning
        assert message.content == content
        assert [(c.name, c.arguments, c.validation_errors) for c in message.tool_calls] == [
            ("get_weather", {"city": "P"}, ())
        ]
    assert verdicts(name, text, fmt.prompt_for(None)) == (False, False)


OTHER_SPACINGS = [
    ("llama-3", 'x {"name":"get_weather","parameters":{"city":"P"}}<|eot_id|>'),
    ("llama-3", '{"arguments": {"city": "P"}, "name": "get_weather"}<|eot_id|>'),
    ("pythonic", "x [ get_weather(city='P')]<|eot_id|>"),
    ("llama-4", "[get_weather\t(city='P')]<|eot|>"),
]


@pytest.mark.parametrize(("name", "text"), OTHER_SPACINGS)
def test_a_call_spaced_otherwise_is_read_only_never_content(name: str, text: str) -> None:
    """Read-only (docs/grammar.md): protocall reads a clean call where the spacing or the
    member order differs from the template's; the grammar writes the template's, and its
    content never holds the other (in `auto` mode such text is neither content nor a call)."""
    prompt = formats.get(name).prompt_for(None)
    clean, calls = read(name, text, prompt)
    assert clean and len(calls) == 1, calls
    assert verdicts(name, text, prompt) == (False, False)


GPT_OSS_CALL_HEADERS = [
    "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>",
    "<|channel|>commentary to=functions.get_weather json<|message|>",
    " to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>",
    " to=functions.get_weather<|channel|>commentary json<|message|>",
]


@pytest.mark.parametrize("header", GPT_OSS_CALL_HEADERS)
def test_every_gpt_oss_call_header_is_read_and_written(header: str) -> None:
    """gpt-oss's call headers, the recipient after the channel or before it (as the chat
    template renders a call), each with either content type: read as the call and accepted
    by both grammars, which the spec's `Messages` writes them from."""
    text = header + '{"city": "P"}<|call|>'
    prompt = formats.get("gpt-oss").prompt_for(None)
    assert read("gpt-oss", text, prompt) == (True, [("get_weather", {"city": "P"})])
    assert verdicts("gpt-oss", text, prompt) == (True, True)
