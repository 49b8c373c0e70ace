"""The command line on a long output: `protocall parse --events` (and the one-shot message)
on an N-megabyte turn, in a child process, printing its wall time, CPU time, peak memory
(the child's maximum resident set) and the size of what it printed.

The turn is Hermes prose with a tool call every 64 KB or so (`write_turn`), written to a
temporary file a block at a time; the command reads it in its default chunks, as it would
a pipe from a model. Peak memory is what `wait4` reports for the child (Linux: kilobytes
of RSS). The child starts as a copy of this process, whose peak counts in the child's, so
this process never holds the turn whole.

Run: python benchmarks/bench_cli.py [--megabytes 50] [--modes events,openai,message]
     [--chunk-size N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PARAGRAPH = (
    "The quick brown fox considers the weather in Paris, then writes a longer sentence "
    "about it, with numbers like 42 and 3.14 and a few <b>tags</b> that are not markers.\n"
)
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
TOOLS = '[{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {}}}}]'


def write_turn(path: Path, size: int) -> None:
    """Write `size` bytes of prose with a call every 64 KB to `path`, ending the turn."""
    block = (PARAGRAPH * (65536 // len(PARAGRAPH)) + CALL).encode()
    with path.open("wb") as out:
        for _ in range(size // len(block)):
            out.write(block)
        out.write(block[: size % len(block)] + b"<|im_end|>")


def run(
    path: Path, tools: Path, mode: str, chunk_size: int | None
) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak RSS in MB and bytes printed for one mode."""
    command = [sys.executable, "-m", "protocall", "parse", "-f", "hermes", "--allow-errors"]
    command += ["--tools", str(tools), str(path)]
    if mode != "message":
        command.append(f"--{mode}")
    if chunk_size is not None:
        command += ["--chunk-size", str(chunk_size)]
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=out)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        assert os.waitstatus_to_exitcode(status) == 0, f"{mode}: exit status {status}"
        printed = out.tell()
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss // 1024, printed


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--megabytes", type=int, default=50)
    options.add_argument("--modes", default="events,openai,message")
    options.add_argument("--chunk-size", type=int, default=None, help="default: the CLI's")
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path, tools = Path(folder) / "turn.txt", Path(folder) / "tools.json"
        write_turn(path, args.megabytes * 1_000_000)
        tools.write_text(TOOLS)
        print(f"input: {path.stat().st_size / 1e6:.1f} MB of Hermes prose and calls")
        print(f"{'mode':<10}{'wall s':>9}{'cpu s':>9}{'peak MB':>9}{'printed MB':>12}")
        for mode in args.modes.split(","):
            wall, cpu, peak, printed = run(path, tools, mode, args.chunk_size)
            print(f"{mode:<10}{wall:>9.1f}{cpu:>9.1f}{peak:>9}{printed / 1e6:>12.1f}")


if __name__ == "__main__":
    main()
