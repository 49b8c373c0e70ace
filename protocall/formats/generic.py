"""llama.cpp's generic format (`COMMON_CHAT_FORMAT_GENERIC`): the whole output is one JSON
object, for a model whose template has no tool-call format llama.cpp knows.

{"tool_calls": [{"name": N, "arguments": {…}, "id": "…"}, …]}
{"tool_call": {"name": N, "arguments": {…}}}
{"response": "TEXT"}

- llama.cpp (`common/chat.cpp`) constrains the output with a JSON schema: with tools, the
  object holds `tool_calls` (parallel calls, each with an `id` of at least 4 characters),
  or `tool_call` (one call, parallel calls off), or `response`, the answer (a string, or
  the value the request's `response_format` schema asks for); its system message asks
  for JSON. The call objects' members come in any order; `parameters` is not read.
- `response`'s string streams as the content, decoded (`\\n` is a newline); another value
  there is content as its JSON text (llama.cpp indents it instead). The object is the
  calls' envelope: they complete when it closes, a broken or cut-off object is one error
  keeping its raw text, no call. Its raw text is not passed through as content (it is
  the JSON object, not an answer); what `response` streamed before a break stays.
- Here an object may hold content and calls together (llama.cpp's schema allows one of
  them); other members are skipped (llama.cpp's fallback template writes `"content": ""`
  after the calls). An output that does not begin with one of the three keys (a model
  that ignored the schema) is content, as llama.cpp reads an output it cannot parse.
- No stop: the end-of-turn token is the template's own, which the server strips.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, JsonTurn, Spec
from ..spec.codecs import NameAndArguments

SPEC = Spec(
    name="generic",
    summary="llama.cpp's generic format: one JSON object, tool_calls / tool_call / response",
    turn=JsonTurn(content="response", calls="tool_calls", single="tool_call"),
    call=Call("{call}", NameAndArguments(id="id")),
    stops=(),
    malformed_as_content=False,
)
FORMAT = build(SPEC)
