"""A release assistant: an agent loop that acts only on completed, validated tool calls.

It has a read tool (`read_changelog`, run at once) and a side-effecting one
(`publish_release`, run only after an approval step). The model is simulated by canned
outputs streamed in small deltas (no network), and it misbehaves the way real ones do: one
call is cut off by the token limit, one has arguments that violate the schema. Neither ever
reaches a tool: the loop tells the model what went wrong and lets it try again.

    python examples/release_agent.py --approve yes    # or: no, ask (the default on a tty)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import protocall
from protocall import ContentDelta, ProtocolError, ToolCall, ToolCallEnd

FORMAT = "hermes"
VERSION = {"type": "string", "pattern": r"^\d+\.\d+\.\d+$"}
TOOLS = [
    {"type": "function", "function": {
        "name": "read_changelog", "description": "Read the unreleased changelog section.",
        "parameters": {"type": "object", "properties": {"version": VERSION},
                       "required": ["version"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "publish_release", "description": "Tag and publish a release (irreversible).",
        "parameters": {"type": "object", "required": ["version", "notes"],
                       "properties": {"version": VERSION, "notes": {"type": "string"}},
                       "additionalProperties": False}}},
]  # fmt: skip
SIDE_EFFECTS = {"publish_release"}  # these need an approval step
CHANGELOG = {"0.2.0": "streaming CLI; record/replay transcripts; Ling 3.0 format"}
published: list[dict[str, Any]] = []


def read_changelog(version: str) -> str:
    return CHANGELOG.get(version, f"no changelog section for {version}")


def publish_release(version: str, notes: str) -> str:
    published.append({"version": version, "notes": notes})
    return f"published {version}"


IMPLEMENTATIONS: dict[str, Callable[..., str]] = {
    "read_changelog": read_changelog,
    "publish_release": publish_release,
}


def call(name: str, arguments: dict[str, Any]) -> str:
    payload = json.dumps({"name": name, "arguments": arguments})
    return f"<tool_call>\n{payload}\n</tool_call>"


NOTES = "Highlights: streaming CLI, transcripts, Ling 3.0."
SCRIPT = [
    "<think>Read the changelog before anything else.</think>Reading the changelog."
    + call("read_changelog", {"version": "0.2.0"}) + "<|im_end|>",
    # cut off by max_tokens in the middle of the arguments:
    "Publishing now." + call("publish_release", {"version": "0.2.0", "notes": NOTES})[:60],
    # complete, but the version does not match the schema's pattern:
    "Sorry, again." + call("publish_release", {"version": "v0.2", "notes": NOTES}) + "<|im_end|>",
    "Fixed the version." + call("publish_release", {"version": "0.2.0", "notes": NOTES})
    + "<|im_end|>",
]  # fmt: skip


def model(messages: list[dict[str, Any]]) -> Iterator[str]:
    """The simulated model: the next canned output for this conversation, in small deltas."""
    turn = sum(message["role"] == "assistant" for message in messages)
    if turn < len(SCRIPT):
        output = SCRIPT[turn]
    elif str(messages[-1].get("content", "")).startswith("denied"):
        output = "Understood: I did not publish the release.<|im_end|>"
    else:
        output = "Released 0.2.0 with its changelog.<|im_end|>"
    return (output[i : i + 5] for i in range(0, len(output), 5))


def run_tool(tool_call: ToolCall, approve: Callable[[ToolCall], bool]) -> str:
    """Execute one completed call under the policy; the text is the tool result."""
    if tool_call.validation_errors:
        return "rejected, nothing ran: " + "; ".join(tool_call.validation_errors)
    if tool_call.name in SIDE_EFFECTS and not approve(tool_call):
        return "denied by the operator, nothing ran"
    return IMPLEMENTATIONS[tool_call.name](**tool_call.arguments)


def turn(deltas: Iterator[str]) -> tuple[dict[str, Any], list[ToolCall], list[ProtocolError]]:
    """Stream one model turn: show content live; collect completed calls and errors."""
    session = protocall.formats.get(FORMAT).parser(TOOLS, validate=True)
    calls, errors = [], []

    def handle(events: list[protocall.Event]) -> None:
        for event in events:
            if isinstance(event, ContentDelta):
                print(event.text, end="", flush=True)
            elif isinstance(event, ToolCallEnd):  # the only event that may lead to action
                calls.append(event.call)
            elif isinstance(event, ProtocolError):
                errors.append(event)

    print("assistant: ", end="")
    for delta in deltas:
        handle(session.feed(delta))
    handle(session.finish())
    print()
    return session.message.to_openai(), calls, errors


def agent(task: str, approve: Callable[[ToolCall], bool], max_turns: int = 8) -> None:
    """Run the loop until the model answers without calling a tool."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        message, calls, errors = turn(model(messages))
        messages.append(message)
        for tool_call in calls:
            result = run_tool(tool_call, approve)
            print(f"  tool {tool_call.name}({tool_call.arguments_json}) -> {result}")
            messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": result})
        for error in errors:
            print(f"  protocol error ({error.code}), nothing ran: {error.message}")
            note = f"Your tool call could not be used ({error.code}); nothing ran. Send it again."
            messages.append({"role": "user", "content": note})
        if not calls and not errors:
            return
    raise RuntimeError("the model did not finish within the turn limit")


def approver(mode: str) -> Callable[[ToolCall], bool]:
    def approve(tool_call: ToolCall) -> bool:
        if mode != "ask":
            decision = mode == "yes"
        else:
            answer = input(f"  approve {tool_call.name}({tool_call.arguments_json})? [y/N] ")
            decision = answer.strip().lower() in ("y", "yes")
        print(f"  approval for {tool_call.name}: {'granted' if decision else 'denied'}")
        return decision

    return approve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = "ask" if sys.stdin.isatty() else "no"
    parser.add_argument("--approve", choices=("yes", "no", "ask"), default=default)
    args = parser.parse_args()
    agent("Publish release 0.2.0 with its changelog.", approver(args.approve))
    print(f"published: {published}")


if __name__ == "__main__":
    main()
