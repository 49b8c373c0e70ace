"""protocall's server plug-ins inside the servers' own serving loops: CPU per request.

vLLM (section `vllm`): each request is answered by vLLM's own `OpenAIServingChat`, streamed,
over the fake engine of tests/integrations/vllm_serving.py (vLLM's `OutputProcessor` and incremental
detokenizer over a byte-level Hugging Face tokenizer holding the family's added tokens,
`--delta` tokens per engine step), the server's SSE text collected. Three servers, same
outputs, same run: `--tool-call-parser protocall-<format> --reasoning-parser
protocall-<format>`; vLLM's own tool and reasoning parsers for the family; and a
do-nothing tool parser (`floor`: the loop with no parsing and no chunk but the last to
send). The `echo` row, a parser that sends each delta's text on as content, shows what
vLLM spends on the chunks of a parser that streams every delta. Reported: the CPU time
(`process_time`) per request, the best of `--repeats` runs
of `--requests` requests (one request for a 100 K turn), and each parser's share of the
loop (its time minus the floor's); `protocall/vLLM` is protocall's share over vLLM's
parser's.

Two kinds of turn: `typical` (about 300 characters of reasoning, 200 of content and one
small call) and `100K` (one `write_file` call whose content is 100 K characters of code,
as benchmarks/bench_formats.py writes it for the family, else as the format renders it).
Targets: protocall's share at most a third of vLLM's parser's on typical turns, a tenth at
100 K.

Each server section is a function of the turns; a section for another server adds its
function to `SECTIONS`.

Needs the vllm wheel (requirements/servers.txt; torch is stood in by
tests/integrations/servers_shim.py)
and, for vLLM's own parsers, `pip install ijson mistral-common`.
Run: PYTHONPATH=. python benchmarks/bench_servers.py [--formats qwen3-coder] [--delta 4]
     [--requests 20] [--repeats 3] [--size 100000] [--sections vllm]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(TESTS / "integrations"), str(TESTS)]  # the servers' harness

import bench_formats  # noqa: E402
import servers_shim  # noqa: E402

servers_shim.install()

import vllm_samples  # noqa: E402
import vllm_serving  # noqa: E402
from vllm.entrypoints.generate.base.protocol import (  # noqa: E402
    DeltaMessage,
    ExtractedToolCallInformation,
)
from vllm.tool_parsers import ToolParser, ToolParserManager  # noqa: E402

import protocall  # noqa: E402
import protocall.integrations.vllm  # noqa: E402  (registers protocall-<format>)
from protocall.blocks.turns import ToolUse, Turn  # noqa: E402

VLLM_NAMES = {  # format: (vLLM's tool parser, vLLM's reasoning parser)
    "qwen3-coder": ("qwen3_coder", "qwen3"),
    "kimi-k2": ("kimi_k2", "kimi_k2"),
    "deepseek-v3.2": ("deepseek_v32", "deepseek_v3"),
    "glm-4.7": ("glm47", "glm45"),
}

REASONING = (
    "The user wants the build script saved. I should check which directory it goes to, "
    "then write it with the right permissions in mind; the path they gave is absolute, so "
    "no lookup is needed. The content is short: a shebang, a set -e, and the two build "
    "commands. Nothing here needs another tool first, so one call does it.\n"
)
CONTENT = (
    "I'll save the build script to /tmp/build.sh now. It stops at the first failing "
    "command and then runs the two steps you listed, in order.\n"
)
SMALL_CALL = ToolUse("write_file", {"path": "/tmp/build.sh", "content": "set -e\nmake\n"})


class Floor(ToolParser):  # type: ignore[misc]
    """A tool parser that does nothing: no delta gives a chunk to send (the stream is its
    own, with no reasoning parser). The serving loop, the request's tools included, with
    no parsing and nothing streamed: what every parser's share is measured from."""

    engine_based_streaming = True

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)

    def extract_tool_calls_streaming(self, *args: Any) -> Any:
        return None


class Echo(Floor):
    """A tool parser that sends each delta's text on as content: the floor plus what vLLM
    spends on the chunks a parser sends, one per delta."""

    def extract_tool_calls_streaming(self, *args: Any) -> Any:
        return DeltaMessage.model_construct(content=args[2], tool_calls=[])


ToolParserManager.register_module(name="floor", module=Floor)
ToolParserManager.register_module(name="echo", module=Echo)


def turns(name: str, size: int) -> dict[str, tuple[str, str]]:
    """The outputs measured, by kind: (output text, generation prompt)."""
    fmt = protocall.formats.get(name)
    start = "reasoning" if "reasoning" in fmt.prompts else None
    prompt = fmt.prompt_for(start) or ""
    typical = fmt.render(Turn(REASONING if start else None, (CONTENT, SMALL_CALL)), start)
    family = bench_formats.FAMILIES.get(name)
    code = bench_formats.code(size)
    if family is not None:
        big, big_prompt = family.render(code), family.prompt or prompt
    else:
        call = ToolUse("write_file", {"path": "/tmp/a.py", "content": code})
        big, big_prompt = fmt.render(Turn("Write it." if start else None, (call,)), start), prompt
    return {"typical": (typical, prompt), f"{size // 1000}K": (big, big_prompt)}


def vllm_section(name: str, outputs: dict[str, tuple[str, str]], args: Any) -> list[list[str]]:
    tok = vllm_samples.tokenizer(name)
    tool, reasoning = VLLM_NAMES[name]
    servers = {
        "protocall": ("protocall-" + name, "protocall-" + name),
        f"vLLM {tool}": (tool, reasoning),
        "echo": ("echo", None),
        "floor": ("floor", None),
    }
    rows = []
    for kind, (text, prompt) in outputs.items():
        ids = vllm_serving.encode(tok, text)
        requests = 1 if len(text) > 10_000 else args.requests
        times = {label: per_request(tok, prompt, ids, pair, requests, args) for label, pair
                 in servers.items()}  # fmt: skip
        floor = times["floor"]
        ours, theirs = times["protocall"] - floor, times[f"vLLM {tool}"] - floor
        for label, cpu in times.items():
            share = "" if label == "floor" else f"{(cpu - floor) * 1e3:.2f} ms"
            ratio = f"{ours / theirs:.2f}" if label == "protocall" and theirs > 0 else ""
            rows.append([name, kind, label, f"{len(ids):,}", f"{cpu * 1e3:.2f} ms", share, ratio])
    return rows


def per_request(
    tok: Any, prompt: str, ids: list[int], parsers: tuple[str, str | None], count: int, args: Any
) -> float:
    """CPU seconds per streamed request: the best of `args.repeats` runs of `count`, or one
    run of one request (a 100 K turn), after a request for the first `WARM_UP` ids."""
    engine = vllm_serving.Engine(tok, vllm_serving.encode(tok, "Go.\n" + prompt))
    engine.output, engine.steps, engine.finish = ids, [args.delta], "length"
    chat = vllm_serving.serving(engine, *parsers)
    request = vllm_serving.request(vllm_samples.SAMPLE_TOOLS, True)
    engine.output = ids[:WARM_UP]
    vllm_serving.run(chat, request.model_copy(deep=True))  # imports, caches, first calls
    engine.output = ids
    best = float("inf")
    for _ in range(args.repeats if count > 1 else 1):
        gc.collect()
        begin = time.process_time()
        for _ in range(count):
            vllm_serving.run(chat, request.model_copy(deep=True))
        best = min(best, (time.process_time() - begin) / count)
    return best


WARM_UP = 400
"""How many of a turn's ids a first, unmeasured request streams."""

SECTIONS: dict[str, Callable[[str, dict[str, tuple[str, str]], Any], list[list[str]]]] = {
    "vllm": vllm_section,
}


def main() -> None:
    cli = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    cli.add_argument("--formats", default=",".join(VLLM_NAMES))
    cli.add_argument("--sections", default=",".join(SECTIONS))
    cli.add_argument("--delta", type=int, default=4, help="tokens (bytes) per engine step")
    cli.add_argument("--requests", type=int, default=20, help="typical requests per run")
    cli.add_argument("--repeats", type=int, default=3)
    cli.add_argument("--size", type=int, default=100_000)
    args = cli.parse_args()
    print(f"{args.delta}-token engine steps; CPU per streamed request, best of {args.repeats}\n")
    print("| format | turn | server | tokens | CPU/request | parser's share | protocall/vLLM |")
    print("|---|---|---|---|---|---|---|")
    for section in args.sections.split(","):
        for name in args.formats.split(","):
            for row in SECTIONS[section](name, turns(name, args.size), args):
                print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
