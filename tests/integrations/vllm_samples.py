"""Recorded-style outputs of every family with a vLLM plug-in, as token ids of a tokenizer
holding the family's real added tokens, and the message protocall makes of each.

Each sample is what a model writes after its chat template's generation prompt: reasoning
then a call, parallel calls, marker text inside an argument (spelled out of ordinary
tokens, as a model copies it), text after a call, no call, cut by `max_tokens` inside a
call, a malformed call (an undeclared tool) and a call the stop token cuts short. The
expected message is a protocall session's, fed the same tokens: each special token as
special, every other run of ids as its text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import vllm_serving
from server_samples import TOOLS

import protocall
from protocall.blocks.turns import ToolUse, Turn
from protocall.integrations.vllm import special_ids
from protocall.message import Message

ADDED_TOKENS = {
    "qwen3-coder": ["<tool_call>", "</tool_call>", "<think>", "</think>", "<|im_end|>",
                    "<|im_start|>"],
    "kimi-k2": ["<think>", "</think>", "<|tool_calls_section_begin|>",
                "<|tool_calls_section_end|>", "<|tool_call_begin|>",
                "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<|im_end|>",
                "<|im_middle|>", "<|im_system|>", "<|im_user|>", "<|im_assistant|>"],
    "deepseek-v3.2": ["<think>", "</think>", "｜DSML｜", "<｜end▁of▁sentence｜>",
                      "<｜begin▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>"],
    "glm-4.7": ["<think>", "</think>", "<tool_call>", "</tool_call>", "<arg_key>",
                "</arg_key>", "<arg_value>", "</arg_value>", "<|observation|>", "<|user|>",
                "<|endoftext|>", "<|assistant|>"],
}  # fmt: skip
"""The added tokens of each family's real tokenizer that matter here (FORMATS.md): the
markers that are one id. Qwen3-Coder's `<function=` and `<parameter=` and DeepSeek's DSML
tags around `｜DSML｜` are ordinary text in those vocabularies, so they are here too."""

FAMILIES = sorted(ADDED_TOKENS)
OTHER = ["hermes", "minimax-m2", "ling-3", "gemma-4", "seed-oss", "lfm2", "olmo-3"]
"""Further registered formats, with every marker an added token (their real vocabularies'
split was not checked)."""

COPY = "SENTINEL"
"""Where a sample's marker text, spelled out of ordinary tokens, goes."""

CALL = ToolUse(
    "write_file", {"path": "/tmp/build.sh", "content": 'rm -rf "$OUT" <b> # café ✓\n', "lines": 3}
)
SECOND = ToolUse("write_file", {"path": "b.txt"})
COPIED = ToolUse("write_file", {"path": COPY})
UNDECLARED = ToolUse("delete_everything", {"path": "/"})

SAMPLE_TOOLS = [
    {
        "type": "function",
        "function": {
            **TOOLS[0]["function"],
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string"},
                    "lines": {"type": "integer"},
                },
                "required": ["path"],
            },
        },
    }
]


@dataclass
class Sample:
    family: str
    label: str
    prompt: str  # the prompt's text (its tail is the generation prompt)
    ids: list[int]  # the output's ids, the stop token last where `finish` is `stop`
    finish: str  # the engine's finish reason: `stop` or `length`
    tokenizer: Any

    @property
    def name(self) -> str:
        return f"{self.family}: {self.label}"


def special_tokens(family: str) -> list[str]:
    if family in ADDED_TOKENS:
        return [*ADDED_TOKENS[family], STOP]
    fmt = protocall.formats.get(family)
    markers = [*fmt.reserved, *(m for pair in fmt.channels.values() for m in pair)]
    return [*(m for m in markers if m.strip() and not m.isalnum()), STOP]


STOP = "<|stop|>"
"""The stop token of a format whose rendered turn ends in no added token."""


_tokenizers: dict[str, Any] = {}


def tokenizer(family: str) -> Any:
    if family not in _tokenizers:
        _tokenizers[family] = vllm_serving.tokenizer(special_tokens(family))
    return _tokenizers[family]


def samples(family: str) -> list[Sample]:
    fmt = protocall.formats.get(family)
    tok = tokenizer(family)
    start = "reasoning" if "reasoning" in fmt.prompts else None
    prompt = "Go.\n" + (fmt.prompt_for(start) or "")
    thinking = "Plan: write the file — ünïcödé ✓." if start else None
    copy = " ".join(special_tokens(family)[:4])
    turns = {
        "reasoning then a call": Turn(thinking, ("Writing it.", CALL)),
        "parallel calls": Turn(thinking, (CALL, SECOND)),
        "marker text inside an argument": Turn(thinking, (COPIED,)),
        "marker text in the content": Turn(thinking, (f"Look: {COPY}", SECOND)),
        "text after a call": Turn(thinking, ("Saving.", SECOND, "Done, saved.")),
        "no call": Turn(thinking, ("Nothing to do here — 日本語 ✓.",)),
        "malformed call": Turn(thinking, ("Trying.", UNDECLARED)),
    }
    out = []
    for label, turn in turns.items():
        text = fmt.render(turn, start)
        before, found, after = text.partition(COPY)
        ids = vllm_serving.encode(tok, before)
        if found:
            ids += vllm_serving.encode(tok, copy, ordinary=True) + vllm_serving.encode(tok, after)
        if ids[-1] not in tok.get_added_vocab().values():
            ids += vllm_serving.encode(tok, STOP)
        out.append(Sample(family, label, prompt, ids, "stop", tok))
    first = out[0]
    text = fmt.render(turns["reasoning then a call"], start)
    cut = len(vllm_serving.encode(tok, text[: text.index("rm -rf") + len("rm -rf")]))
    out.append(Sample(family, "cut by max_tokens", prompt, first.ids[:cut], "length", tok))
    ids = [*first.ids[:cut], first.ids[-1]]
    out.append(Sample(family, "a call the stop token cuts short", prompt, ids, "stop", tok))
    return out


def output_text(sample: Sample) -> str:
    """The text vLLM's detokenizer makes of the sample: its stop token's text left out."""
    ids = sample.ids[:-1] if sample.finish == "stop" else sample.ids
    return str(sample.tokenizer.decode(ids, skip_special_tokens=False))


def streamed_message(sample: Sample) -> Message:
    """protocall's message for the sample's tokens: each special token fed as special."""
    fmt = protocall.formats.get(sample.family)
    tok = sample.tokenizer
    specials = special_ids(tok, fmt)  # the added tokens that are markers or parts of them
    session = fmt.parser(
        SAMPLE_TOOLS, sample.prompt, special_tokens=list(dict.fromkeys(specials.values()))
    )
    ids = sample.ids[:-1] if sample.finish == "stop" else sample.ids
    run: list[int] = []
    for token in [*ids, None]:
        if token is not None and token not in specials:
            run.append(token)
            continue
        if run:
            session.feed(tok.decode(run, skip_special_tokens=False))
            run = []
        if token is not None:
            session.feed(specials[token], special=True)
    session.finish()
    return session.message


def whole_message(sample: Sample) -> Message:
    """protocall's message for the sample's text alone (every marker recognised)."""
    fmt = protocall.formats.get(sample.family)
    session = fmt.parser(SAMPLE_TOOLS, sample.prompt)
    session.feed(output_text(sample))
    session.finish()
    return session.message
