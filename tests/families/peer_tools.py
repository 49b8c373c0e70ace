"""Tools shared by the tests of the families added from the peers' parsers (vLLM's
tests/tool_parsers, SGLang's test_function_call_parser.py): the weather and search tools
their unit tests declare, written here for ours."""

from __future__ import annotations

STRING = {"type": "string"}


def tool(name: str, **properties: object) -> dict[str, object]:
    parameters = {"type": "object", "properties": properties}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


TOOLS = [
    tool("get_current_weather", city=STRING, state=STRING, unit=STRING),
    tool("get_weather", location=STRING, days={"type": "integer"}),
    tool("web_search", query=STRING, topn={"type": "integer"}),
    tool("get_time", zone=STRING),
]
