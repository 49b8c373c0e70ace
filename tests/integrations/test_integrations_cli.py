"""The command lines docs/servers.md gives users, read by the servers themselves: each line
is taken from the document, parsed by vLLM 0.33's or SGLang 0.5.23's own argument parser
and validated, with the server's own plug-in loading, in a fresh process (so the names can
only have been registered by the mechanism the line relies on: the entry point, the
`--*-parser-plugin` module, or the import in front of the launcher); then the server's
registries are asked for the named parsers, which must be protocall's. Nothing is served:
each probe stops where the server would next read the model's configuration.

Run as a script (`python tests/integrations/test_integrations_cli.py KIND ARGV...`), this
file is that
probe: it prints the parser classes the server resolved on a `PROBE ` line. Under pytest it
runs the probe for each documented line, on CPU torch, Hugging Face offline, and no GPU.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import servers_shim

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "servers.md"
MARK = "PROBE "


def documented() -> list[list[str]]:
    """The server command lines of docs/servers.md's bash blocks (continuations joined,
    comments and `pip install` lines left out), as the shell splits them."""
    blocks = re.findall(r"^```bash\n(.*?)^```", DOC.read_text(), re.MULTILINE | re.DOTALL)
    lines = "\n".join(blocks).replace("\\\n", " ").splitlines()
    argvs = [shlex.split(line, comments=True) for line in lines]
    return [argv for argv in argvs if argv and argv[:2] != ["pip", "install"]]


def lines(*start: str) -> list[list[str]]:
    found = [argv for argv in documented() if argv[: len(start)] == list(start)]
    assert found, f"docs/servers.md shows no `{' '.join(start)}` line"
    return found


def need(package: str) -> None:
    """Skip where the server wheel or torch is absent, except under
    PROTOCALL_REQUIRE_SERVERS=1."""
    for wheel in (package, "torch"):
        if importlib.util.find_spec(wheel) is None:
            if os.environ.get("PROTOCALL_REQUIRE_SERVERS") == "1":
                pytest.fail(f"the {wheel} wheel is not installed")
            pytest.skip(f"the {wheel} wheel is not installed")


def probe(kind: str, argv: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """Run this file as the probe `kind` for `argv` in a fresh interpreter, this checkout's
    protocall first on the path, with `env` and, per server:

    - vLLM on its CPU platform: its wheel is the CUDA build, so without a GPU it detects
      none, and building its argument parser asks the platform for the default device's
      type. (Hugging Face
      offline would make vLLM resolve the model to a local snapshot.)
    - SGLang with Hugging Face offline: `sglang serve` asks the hub whether the model is a
      diffusion model, and offline takes its answer for a failed look-up, "no"."""
    server = {"vllm": {"VLLM_TARGET_DEVICE": "cpu"}}.get(kind, {"HF_HUB_OFFLINE": "1"})
    environ = {**os.environ, **server, **env}
    environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    return subprocess.run(
        [sys.executable, __file__, kind, *argv],
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def resolved(run: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    reports = [line for line in run.stdout.splitlines() if line.startswith(MARK)]
    assert run.returncode == 0 and len(reports) == 1, run.stdout + run.stderr
    result: dict[str, Any] = json.loads(reports[0][len(MARK) :])
    return result


def protocall_parsers(result: dict[str, Any], prefix: str, argv: list[str]) -> None:
    """The names the line gives resolve to protocall's classes for those formats."""
    tool, reasoning = value(argv, "--tool-call-parser"), value(argv, "--reasoning-parser")
    assert tool.startswith("protocall-") and reasoning.startswith("protocall-")
    assert result["tool"] == {
        "module": f"protocall.integrations.{prefix}",
        "format": tool.removeprefix("protocall-"),
    }
    assert result["reasoning"] == {
        "module": f"protocall.integrations.{prefix}",
        "format": reasoning.removeprefix("protocall-"),
    }


def value(argv: list[str], option: str) -> str:
    return argv[argv.index(option) + 1]


def without(argv: list[str], *options: str) -> list[str]:
    """`argv` without the given options and their values."""
    dropped = {i + shift for i, arg in enumerate(argv) if arg in options for shift in (0, 1)}
    return [arg for i, arg in enumerate(argv) if i not in dropped]


def test_every_documented_line_is_read_below() -> None:
    """Each line is of a form a test below reads (each of those reads every line of its
    form), so a line added to the document cannot go untested."""
    assert {" ".join(argv[:2]) for argv in documented()} == {
        "vllm serve",
        "sglang serve",
        "python -c",
    }


# vLLM: `vllm serve` with the entry point, and with the plug-in module named.


@pytest.mark.slow  # a fresh process importing the server
@pytest.mark.parametrize("argv", lines("vllm", "serve"), ids=lambda argv: argv[2])
def test_vllm_serve(argv: list[str]) -> None:
    """`vllm serve` parses and validates the line, imports its plug-ins (the entry point
    or `--*-parser-plugin`) and finds protocall's parsers under the names it gives. The
    line naming the plug-in module runs with the entry point disabled (`VLLM_PLUGINS`
    naming no plug-in), as for protocall installed without it."""
    need("vllm")
    plugin = "--tool-parser-plugin" in argv
    result = resolved(probe("vllm", argv, **({"VLLM_PLUGINS": ""} if plugin else {})))
    protocall_parsers(result, "vllm", argv)
    assert result["model"] == argv[2]
    assert result["auto_tool_choice"] is True


@pytest.mark.slow  # a fresh process importing the server
def test_vllm_rejects_the_names_without_a_plugin() -> None:
    """Without the entry point or the plug-in options, vLLM's own validation refuses the
    names (so the lines above pass through the mechanism they rely on)."""
    need("vllm")
    argv = lines("vllm", "serve")[-1]
    bare = without(argv, "--tool-parser-plugin", "--reasoning-parser-plugin")
    run = probe("vllm", bare, VLLM_PLUGINS="")
    assert run.returncode != 0 and MARK not in run.stdout
    assert f"invalid tool call parser: {value(argv, '--tool-call-parser')}" in run.stderr


# SGLang: `sglang serve` (and `python -m sglang.launch_server`) with the entry point, and the
# launcher behind `import protocall.integrations.sglang`.


@pytest.mark.slow  # a fresh process importing the server
@pytest.mark.parametrize("argv", lines("sglang", "serve"), ids=lambda argv: argv[3])
def test_sglang_serve(argv: list[str]) -> None:
    """`sglang serve` loads its general plug-ins (the entry point), then parses the line
    with the registries' names as the parsers' choices, and finds protocall's detectors."""
    need("sglang")
    result = resolved(probe("sglang", argv))
    protocall_parsers(result, "sglang", argv)
    assert result["model"] == value(argv, "--model-path")


@pytest.mark.slow  # a fresh process importing the server
def test_sglang_launch_server_module() -> None:
    """`python -m sglang.launch_server` with the same arguments: the docs say it loads the
    plug-ins like `sglang serve`."""
    need("sglang")
    argv = ["python", "-m", "sglang.launch_server", *lines("sglang", "serve")[0][2:]]
    protocall_parsers(resolved(probe("python", argv)), "sglang", argv)


@pytest.mark.slow  # a fresh process importing the server
@pytest.mark.parametrize("argv", lines("python", "-c"), ids=lambda argv: argv[4])
def test_sglang_import_in_front_of_the_launcher(argv: list[str]) -> None:
    """The `python -c 'import protocall.integrations.sglang, runpy; ...'` line, run with
    the entry point disabled (`SGLANG_PLUGINS` naming another plug-in): the import alone
    registers the names before the launcher reads its arguments."""
    need("sglang")
    result = resolved(probe("python", argv, SGLANG_PLUGINS="none"))
    protocall_parsers(result, "sglang", argv)
    assert result["model"] == value(argv, "--model-path")


@pytest.mark.slow  # a fresh process importing the server
def test_sglang_rejects_the_names_without_the_plugin() -> None:
    """Without the entry point and the import, SGLang's parser refuses the names."""
    need("sglang")
    argv = lines("sglang", "serve")[0]
    run = probe("sglang", argv, SGLANG_PLUGINS="none")
    assert run.returncode != 0 and MARK not in run.stdout
    assert f"invalid choice: '{value(argv, '--tool-call-parser')}'" in run.stderr


# The probes, in the fresh interpreter.


def described(cls: type) -> dict[str, str]:
    """A protocall parser class as the tests compare it: its module and format."""
    return {"module": cls.__module__, "format": getattr(cls, "format_name", "")}


def report(**fields: Any) -> None:
    print(MARK + json.dumps(fields), flush=True)


def vllm_serve(argv: list[str]) -> None:
    """`vllm serve ARGS` (the `vllm` console script) up to the parser lookup: the steps of
    vLLM 0.33's `cli.main.main`, `ServeSubcommand` and the API server's startup that come
    before the model's configuration is read, in their order. `vllm.entrypoints.cli.main`
    and `.serve` import the whole HTTP server (uvicorn, the speech and SageMaker routes),
    so their few lines that build and dispatch the `serve` parser are repeated here."""
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.common.cli_args import (
        init_parser_plugin,
        make_arg_parser,
        validate_api_server_args,
        validate_parsed_serve_args,
    )
    from vllm.entrypoints.common.startup import cli_env_setup
    from vllm.parser.parser_manager import ParserManager
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    assert argv[0] == "vllm"
    cli_env_setup()
    parser = FlexibleArgumentParser(description="vLLM CLI")
    subparsers = parser.add_subparsers(required=False, dest="subparser")
    make_arg_parser(subparsers.add_parser("serve", usage="vllm serve [model_tag] [options]"))
    args = parser.parse_args(argv[1:])
    validate_parsed_serve_args(args)  # ServeSubcommand.validate
    args.model = args.model_tag  # ServeSubcommand.cmd
    init_parser_plugin(args)  # setup_server: the --*-parser-plugin imports
    # setup_server's check of the names: only the tool parser's, in vLLM 0.33's order (the
    # reasoning parser's reaches the structured outputs config it reads only next).
    validate_api_server_args(args)
    # create_engine_config's first step: --reasoning-parser into the structured outputs
    # config, which the chat endpoint and the engine read it from.
    AsyncEngineArgs.from_cli_args(args).create_structured_outputs_config()
    # The lookups the chat endpoint's ParserManager.get_parser makes.
    tool = ParserManager.get_tool_parser(
        args.tool_call_parser, args.enable_auto_tool_choice, args.model
    )
    reasoning = ParserManager.get_reasoning_parser(args.structured_outputs_config.reasoning_parser)
    assert tool is not None and reasoning is not None
    report(
        model=args.model,
        auto_tool_choice=args.enable_auto_tool_choice,
        tool=described(tool),
        reasoning=described(reasoning),
    )


def sglang_resolved(server_args: Any) -> None:
    """Report the detectors SGLang's registries hold under the parsed names."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    report(
        model=server_args.model_path,
        tool=described(FunctionCallParser.ToolCallParserEnum[server_args.tool_call_parser]),
        reasoning=described(ReasoningParser.DetectorMap[server_args.reasoning_parser]),
    )


def sglang_serve(argv: list[str]) -> None:
    """`sglang serve ARGS` (the `sglang` console script, `sglang.cli.main:main`) as it is,
    up to `prepare_server_args`; the server it would then run (`launch_server.run_server`,
    which resolves the model's configuration) reports the parsers instead."""
    import sglang.launch_server
    from sglang.cli.main import main

    assert argv[0] == "sglang"
    sglang.launch_server.run_server = sglang_resolved
    sys.argv = argv
    main()


def python(argv: list[str]) -> None:
    """`python -c CODE ARGS` or `python -m MODULE ARGS`, with SGLang's `prepare_server_args`
    reporting the parsers of the arguments it parsed and then ending the process (where the
    launcher would run the server)."""
    import runpy

    import sglang.srt.server_args as server_args

    prepare = server_args.prepare_server_args

    def parsed(args: list[str]) -> Any:
        sglang_resolved(prepare(args))
        raise SystemExit(0)

    server_args.prepare_server_args = parsed
    assert argv[0] == "python" and argv[1] in ("-c", "-m")
    if argv[1] == "-c":
        sys.argv = ["-c", *argv[3:]]
        exec(compile(argv[2], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = [argv[2], *argv[3:]]
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)


PROBES = {"vllm": vllm_serve, "sglang": sglang_serve, "python": python}

if __name__ == "__main__":
    servers_shim.sglang_packages()
    PROBES[sys.argv[1]](sys.argv[2:])
