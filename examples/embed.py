"""Embedding protocall: feed deltas, show text as it streams, run only complete calls.

Ling 3.0's template pre-opens `<think>` and the model calls the tool before `</think>`:
the call still comes out as a call, and it runs only once the protocol says it is complete.
"""

import protocall
from protocall import ContentDelta, ReasoningDelta, ToolCallEnd

TOOLS = [{"name": "get_weather", "parameters": {"type": "object", "required": ["location"],
          "properties": {"location": {"type": "string"}}}}]  # fmt: skip
deltas = ["I should call the weather", " tool.\n<tool_call>get_", "weather\n<arg_key>location",
          "</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call><|role_end|>"]  # fmt: skip


def allowed(call):  # your policy: a declared tool, valid arguments, permitted here
    return call.name == "get_weather" and not call.validation_errors


def handle(events):
    for event in events:
        if isinstance(event, ReasoningDelta | ContentDelta):
            print(event.text, end="", flush=True)  # a UI may show these as they stream
        elif isinstance(event, ToolCallEnd) and allowed(event.call):
            print(f"\nrun {event.call.name}({event.call.arguments})")  # complete calls only


session = protocall.formats.get("ling-3").parser(TOOLS, "<role>ASSISTANT</role>\n<think>")
for delta in deltas:  # the model's output, as the server receives it
    handle(session.feed(delta))
handle(session.finish())
