"""The vLLM adapter inside vLLM's call contract, beside vLLM's own parser for the format.

For each format, the output of `bench_formats` (one `write_file` call whose `content` is
N characters of code, written the way the family's template writes it) is tokenized by a
character tokenizer whose special tokens are the format's markers, and driven through
vLLM 0.33's own per-request `Parser` (`ParserManager.get_parser`, `parse_delta`, the call
the chat stream processor makes) in 4-token deltas, once with `--tool-call-parser
protocall-<format>` and once with vLLM's parser for the same format, same deltas, same run.
Both with the tool parser and the reasoning parser each project registers for the family.
Reported per parser: total CPU time of all `parse_delta` calls, the median and the maximum
µs per delta after warm-up (the first 1 % of deltas), the ratio of the medians of the last
and the first 10 % (flat ≈ 1), and vLLM's total over protocall's. The `floor` row is
`parse_delta` around a reasoning parser that passes each delta through as content: vLLM's own
per-delta machinery, which no parser plugged into it can go below; its last column is
vLLM's total over the floor's, the most any parser could gain over vLLM's inside
`parse_delta` (a parser costing nothing).

Targets: ≥ 10× faster in total than vLLM's parser, last/first ≤ 1.3, no delta over 5 ms.

Needs the vllm wheel (requirements/servers.txt; torch is stood in by tests/servers_shim.py)
and, for vLLM's own parsers, `pip install ijson mistral-common`.
Run: python benchmarks/bench_servers.py [--size 100000] [--delta 4] [--formats qwen3-coder]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import bench_formats
import servers_shim

servers_shim.install()

from vllm.entrypoints.generate.base.protocol import DeltaMessage  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.reasoning import ReasoningParser, ReasoningParserManager  # noqa: E402

import protocall  # noqa: E402
import protocall.integrations.vllm  # noqa: E402
from protocall.formats.turns import ToolUse, Turn  # noqa: E402

VLLM_NAMES = {  # format: (vLLM's tool parser, vLLM's reasoning parser)
    "qwen3-coder": ("qwen3_coder", "qwen3"),
    "kimi-k2": ("kimi_k2", "kimi_k2"),
    "deepseek-v3.2": ("deepseek_v32", "deepseek_v3"),
    "glm-4.7": ("glm47", "glm45"),
}


class Floor(ReasoningParser):  # type: ignore[misc]
    """A reasoning parser that passes each delta through as content, the stream staying
    with it as with protocall's: what `parse_delta` costs with no parsing at all, the least
    any parser can cost inside vLLM's call contract."""

    engine_based_streaming = True

    def is_reasoning_end(self, input_ids: Any) -> bool:
        return False

    def extract_content_ids(self, input_ids: Any) -> Any:
        return input_ids

    def extract_reasoning(self, model_output: str, request: Any) -> Any:
        return None, model_output

    def extract_reasoning_streaming(self, *args: Any) -> Any:
        return DeltaMessage.model_construct(content=args[2], tool_calls=[])


ReasoningParserManager.register_module(name="floor", module=Floor)


def sample(fmt: protocall.formats.Format, code: str) -> tuple[str, str]:
    """The output writing `code` to a file, and its generation prompt: bench_formats' family
    where it has one, else the format's own renderer (reasoning, content, the call)."""
    family = bench_formats.FAMILIES.get(fmt.name)
    if family is not None:
        return family.render(code), family.prompt or fmt.prompt_for(None) or ""
    call = ToolUse("write_file", {"path": "/tmp/a.py", "content": code})
    start = "reasoning" if "reasoning" in fmt.prompts else None
    return fmt.render(Turn("Write it.", ("Saving.", call)), start), fmt.prompt_for(start) or ""


def deltas(fmt: protocall.formats.Format, output: str, size: int) -> tuple[Any, list, list]:
    markers = [*fmt.reserved, *(m for pair in fmt.channels.values() for m in pair)]
    tokenizer = servers_shim.Tokenizer([*markers, *fmt.prompts.values()])
    ids = tokenizer.encode(output)
    pieces = [
        (tokenizer.decode(ids[at : at + size]), ids[at : at + size])
        for at in range(0, len(ids), size)
    ]
    return tokenizer, pieces, ids


def run(
    tool: str, reasoning: str | None, tokenizer: Any, pieces: list, prompt: list[int]
) -> list[int]:
    """ns per `parse_delta` call, driving a fresh per-request parser over `pieces`."""
    parser_cls = ParserManager.get_parser(
        tool_parser_name=tool, reasoning_parser_name=reasoning, enable_auto_tools=True,
        model_name="m", tokenizer=tokenizer,
    )  # fmt: skip
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "x"}],
                                    tools=bench_formats.tools(2), stream=True)  # fmt: skip
    parser = parser_cls(tokenizer, request.tools, chat_template_kwargs={}, model_config=None)
    times = []
    last = len(pieces) - 1
    clock = time.process_time_ns
    gc.disable()
    try:
        for index, (text, ids) in enumerate(pieces):
            begin = clock()
            parser.parse_delta(text, ids, request, prompt, finished=index == last)
            times.append(clock() - begin)
    finally:
        gc.enable()
    return times


def summary(times: list[int]) -> dict[str, float]:
    tenth = max(len(times) // 10, 1)
    warm = times[max(len(times) // 100, 1) :]
    first = statistics.median(times[:tenth])
    return {
        "total": sum(times) / 1e9,
        "median": statistics.median(warm) / 1e3,
        "max": max(warm) / 1e3,
        "flat": statistics.median(times[-tenth:]) / first,
    }


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--size", type=int, default=100_000)
    cli.add_argument("--delta", type=int, default=4)
    cli.add_argument("--formats", default=",".join(VLLM_NAMES))
    args = cli.parse_args()
    print(f"N = {args.size:,} characters of code, {args.delta}-token deltas\n")
    print("| format | parser | deltas | total | median µs | max µs | last/first | vLLM/this |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.formats.split(","):
        fmt = protocall.formats.get(name)
        output, prompt_text = sample(fmt, bench_formats.code(args.size))
        tokenizer, pieces, _ = deltas(fmt, output, args.delta)
        prompt = tokenizer.encode("<|im_start|>user\nx" + prompt_text)
        parsers = (("protocall-" + name, "protocall-" + name), VLLM_NAMES[name])
        for tool, reasoning in parsers:  # warm-up: imports, validator caches, first calls
            run(tool, reasoning, tokenizer, pieces[:50], prompt)
        ours = summary(run(*parsers[0], tokenizer, pieces, prompt))
        theirs = summary(run(*parsers[1], tokenizer, pieces, prompt))
        floor = summary(run(None, "floor", tokenizer, pieces, prompt))
        labels = ("protocall", "vLLM " + VLLM_NAMES[name][0], "floor")
        for label, row in zip(labels, (ours, theirs, floor), strict=True):
            ratio = "" if row is theirs else f"{theirs['total'] / row['total']:.1f}×"
            figures = (f"{row['median']:.1f}", f"{row['max']:.0f}", f"{row['flat']:.2f}")
            cells = (name, label, f"{len(pieces):,}", f"{row['total']:.3f} s", *figures, ratio)
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
