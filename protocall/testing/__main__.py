"""`python -m protocall.testing FORMAT [FORMAT ...] [--examples N] [--seed S] [--runs ...]`
(or `--all`, `--list`): check registered formats with the kit and print the reports; the
exit status is 1 when a property failed, 2 on a usage error (such as an unknown format)."""

from __future__ import annotations

import argparse
import sys
import time

from .. import formats
from ..combinators import UsageError
from .check import RUNS, check_format


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m protocall.testing",
        description="Check formats against the properties of the protocall testing kit.",
    )
    parser.add_argument("formats", nargs="*", metavar="FORMAT", help="registered format names")
    parser.add_argument("--all", action="store_true", help="check every registered format")
    parser.add_argument("--list", action="store_true", help="list the registered formats")
    parser.add_argument("--examples", type=int, default=100, help="examples per run (100)")
    parser.add_argument("--seed", type=int, default=None, help="seed, for a reproducible run")
    parser.add_argument(
        "--runs", nargs="+", choices=RUNS, default=RUNS, help="which runs (default: all)"
    )
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(formats.names()))
        return 0
    names = formats.names() if args.all else args.formats
    if not names:
        parser.error("name a FORMAT (or --all, --list)")
    try:
        chosen = [formats.get(name) for name in names]
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    failed = False
    for fmt in chosen:
        began = time.perf_counter()
        report = check_format(fmt, max_examples=args.examples, seed=args.seed, runs=args.runs)
        print(report)
        print(f"({time.perf_counter() - began:.1f} s)\n", flush=True)
        failed = failed or not report.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
