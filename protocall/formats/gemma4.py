"""Gemma 4 (FORMATS.md §6.15, SECONDARY): `<|tool_call>` calls with `<|"|>`-quoted strings.

<|channel>thought\\nR<channel|>content<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|><|tool_response>

FORMATS.md gives only the markers; the rest is from peers: vLLM `gemma4_tool_parser.py` and
`gemma4_reasoning_parser.py`, llama.cpp `common/parsers/gemma4.cpp`, and the chat template's
`format_argument` as vendored by llama-cpp-python forks. Agreed by these: the markers, the
call and value syntax, the `thought` label, the stops. From one source only: the empty
thinking block of the thinking-off prompt (a later template), quoted keys and `None` (vLLM),
JSON-quoted strings (a Rust port), `<eos>` as a stop, whitespace between tokens (llama.cpp).
INFERRED here: the optional `call:` prefix, thinking blocks after content.

- Calls: `<|tool_call>call:NAME{…}<tool_call|>`, several in a row. The arguments are an
  object with bare keys, which may contain spaces (`{my key:1}`; whitespace around a key is
  not part of it), or `<|"|>`-quoted keys, `,` between members and elements, optional
  whitespace. A string is `<|"|>` raw text `<|"|>` — no escapes, so a
  string cannot contain `<|"|>`; numbers, `true`, `false`, `null` and JSON-quoted strings
  are JSON; `None` (older templates render null so) is null; objects and arrays nest. The
  arguments stream as JSON text (`{"key": "text", "n": 3}`): a key once its `:` has arrived,
  string text as it arrives (holding back a tail that may begin `<|"|>`), other scalars
  once complete. A repeated key is an error.
- The `call:` prefix is optional; the name is final once `{` follows; a name may hold `-`
  and `.` (`web-search`, `fs.read_file`). `<tool_call|>` may be missing before a stop
  (`<turn|>` closes the call, as vLLM reads it) or the next call. A call that fails after
  its name is skipped to `<tool_call|>` (consumed) or the next marker; one the stream
  ended inside is a truncated error.
- A bare `call:NAME{…}` (no `<|tool_call>`) of a declared tool is a call where content
  starts: at the turn's start or right after the thought channel (whitespace before it
  allowed), `<tool_call|>` after it optional. Elsewhere in prose, or for an undeclared
  tool, it is text (vLLM's fallback also takes one after any newline).
- Thinking `<|channel>thought\\n…<channel|>` is reasoning (the `thought` label is not, and
  it may be missing: `<|channel>` alone opens thinking too), may appear anywhere, and ends
  at a genuine call, `<|channel>` or a stop. The prompt `<|turn>model\\n` opens nothing
  (the model opens thinking itself when it is enabled); the thinking-off prompt closes an
  empty block; a prompt ending `<|channel>thought\\n` pre-opens it. A stray `<channel|>`,
  `<tool_call|>` or `<|turn>model\\n` is dropped.
- `<turn|>`, `<|tool_response>` (where generation stops after calls) and `<eos>` end the
  turn; they are never content. Text outside thinking and calls is content.
- Written as the template writes it: `<|channel>thought\n`, `call:`, the values by
  `format_argument` (`codecs.BareObject`), `<|tool_response>` after calls.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Channel, Channels, Spec
from ..spec.codecs import BareObject, Plain

SPEC = Spec(
    name="gemma-4",
    summary='Gemma 4: <|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>',
    turn=Channels(
        channels=(
            Channel(
                "reasoning",
                "<|channel>",
                "<channel|>",
                label="thought",
                written="<|channel>thought\n",
            ),
        ),
        tokens=("<|", "<channel|>", "<tool_call|>", "<turn|>", "<|tool_response>", "<eos>"),
        interleaved=True,
    ),
    call=Call(
        "<|tool_call>{name}{arguments}<tool_call|>",
        BareObject(),
        name=Plain(prefix="call:"),
        stray_closers=True,
        unclosed=True,
        bare=True,
    ),
    stops=("<turn|>", "<|tool_response>", "<eos>"),
    dropped=("<|turn>model\n",),
    call_stop="<|tool_response>",
    prompt="<|turn>model\n",
)
FORMAT = build(SPEC)
render_value = BareObject().render
"""A value as the chat template's `format_argument` writes it."""
