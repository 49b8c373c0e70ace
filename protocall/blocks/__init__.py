"""Building blocks that format definitions compose, one concern a module: tool names and
argument helpers (`names`), call envelopes and runs of calls (`calls`, `json_calls`,
`python_calls`), turn shapes (`prose` for a reasoning block then content and calls,
`channels`), the turn a renderer writes (`turns`) and renderers (`render`), the typing of
raw argument text by a tool's schema (`schema_typing`). They know no model family."""
