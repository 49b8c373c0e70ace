"""An OpenAI-compatible chat server in front of a raw text-completion endpoint.

The model's own chat template renders each request's messages and tools into a prompt;
the upstream server (any `/v1/completions` endpoint: vLLM, SGLang, llama.cpp) continues it;
protocall parses the streamed text into reasoning, content and tool calls, and
`protocall.openai` writes the responses: streamed (`chat.completion.chunk` events, then
`[DONE]`) or whole (`chat.completion`), `n` choices, `usage` when the upstream gives it,
and HTTP 400 with an error object for a request protocall refuses (a bad tool schema, a
template that refuses the messages).

    pip install 'protocall[templates]'
    python examples/proxy.py --template ~/models/Qwen3.5-4B --upstream http://127.0.0.1:8000/v1

`--template` is a model folder, its `tokenizer_config.json` or a `.jinja` file;
`--format` names the format (a format or model name) where detecting it from the template
is not wanted. The HTTP is the standard library's (a threaded server, `urllib` for the
upstream): the glue is what this shows, and it fits any framework.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from protocall import UsageError, formats
from protocall.formats import Format
from protocall.formats.detect import load
from protocall.inference.rendering import ChatTemplate
from protocall.openai import (
    SSE_DONE,
    DeltaStream,
    bad_request,
    chunk,
    completion,
    error,
    finish_reason,
    sse,
    usage_chunk,
)
from protocall.session import Session

PASSED = ("max_tokens", "temperature", "top_p", "stop", "seed", "presence_penalty")
"""Sampling fields of a chat request that the upstream completion request takes as they are."""


class Upstream(Exception):
    """The upstream server failed: the client gets HTTP 502."""


class Proxy:
    """Turns a chat-completions request into a completion request and its streamed text
    into a chat-completions response."""

    def __init__(self, template: ChatTemplate, fmt: Format, upstream: str) -> None:
        self.template, self.format, self.upstream = template, fmt, upstream.rstrip("/")

    def prompt(self, request: Mapping[str, Any]) -> tuple[str, str]:
        """The rendered prompt and its generation prompt (the tail the template appends to
        the conversation, which says what it leaves open)."""
        messages, tools = request["messages"], request.get("tools")
        options = request.get("chat_template_kwargs") or {}
        whole = self.template.render(messages, tools, add_generation_prompt=True, **options)
        conversation = self.template.render(messages, tools, **options)
        tail = whole[len(conversation) :] if whole.startswith(conversation) else whole
        return whole, tail

    def respond(self, request: Mapping[str, Any]) -> tuple[int, Any]:
        """The status and the body: a JSON object, or for a streamed request an iterator
        of server-sent events. Refusals come before any upstream call."""
        n = request.get("n", 1)
        if type(n) is not int or n < 1:
            return 400, error(f"n must be a positive integer, not {n!r}", param="n")
        try:
            prompt, tail = self.prompt(request)
        except UsageError as problem:  # the template refused the messages
            return bad_request(problem, "messages")
        try:
            tools = request.get("tools") or None
            sessions = [self.format.parser(tools, tail) for _ in range(n)]
        except UsageError as problem:  # a bad tool schema
            return bad_request(problem, "tools")
        try:
            pieces = self.generate(prompt, request)
        except Upstream as problem:
            return 502, error(str(problem), type="upstream_error")
        reply = Reply(request.get("model", "protocall"), sessions, request)
        if request.get("stream"):
            return 200, reply.events(pieces)
        return 200, reply.whole(pieces)

    def generate(self, prompt: str, request: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
        """The upstream's streamed completion chunks (the request is sent now)."""
        body = {key: request[key] for key in PASSED if key in request}
        body |= {"prompt": prompt, "stream": True, "n": request.get("n", 1)}
        body |= {"stream_options": {"include_usage": True}, "skip_special_tokens": False}
        body["model"] = request.get("model")
        sent = urllib.request.Request(
            f"{self.upstream}/completions",
            json.dumps(body).encode(),
            {"Content-Type": "application/json"},
        )
        try:
            response = urllib.request.urlopen(sent, timeout=600)
        except (urllib.error.URLError, OSError) as problem:
            raise Upstream(f"the upstream completion request failed: {problem}") from None
        return _events(response)


def _events(response: Any) -> Iterator[dict[str, Any]]:
    with response:
        for line in response:
            if line.startswith(b"data: ") and line.strip() != b"data: [DONE]":
                yield json.loads(line[6:])


class Reply:
    """One response: a session and a `DeltaStream` per choice, fed the upstream's text."""

    def __init__(self, model: str, sessions: list[Session], request: Mapping[str, Any]) -> None:
        self.id, self.model, self.created = f"chatcmpl-{uuid.uuid4().hex}", model, int(time.time())
        self.sessions = sessions
        self.streams = [DeltaStream() for _ in sessions]
        self.length = [False] * len(sessions)
        self.usage: dict[str, Any] | None = None
        self.include_usage = bool((request.get("stream_options") or {}).get("include_usage"))

    def fed(self, pieces: Iterator[dict[str, Any]]) -> Iterator[tuple[int, list[Any]]]:
        """Each choice's events as its text arrives, then at its end."""
        for piece in pieces:
            self.usage = piece.get("usage") or self.usage
            for choice in piece.get("choices") or ():
                index = choice.get("index", 0)
                if choice.get("text"):
                    yield index, self.sessions[index].feed(choice["text"])
                self.length[index] |= choice.get("finish_reason") == "length"
        for index, session in enumerate(self.sessions):
            yield index, session.finish()

    def events(self, pieces: Iterator[dict[str, Any]]) -> Iterator[bytes]:
        """The streamed response: each choice's deltas, its finish reason, usage, `[DONE]`."""
        envelope: dict[str, Any] = {"id": self.id, "model": self.model, "created": self.created}
        for index, events in self.fed(pieces):
            for delta in self.streams[index].deltas(events):
                yield sse(chunk(delta, index=index, **envelope))
        for index, stream in enumerate(self.streams):
            reason = stream.finish_reason(length=self.length[index])
            yield sse(chunk({}, index=index, finish_reason=reason, **envelope))
        if self.include_usage and self.usage is not None:
            yield sse(usage_chunk(self.usage, **envelope))
        yield SSE_DONE

    def whole(self, pieces: Iterator[dict[str, Any]]) -> dict[str, Any]:
        """The `chat.completion` object once every choice has ended."""
        for _ in self.fed(pieces):
            pass
        messages = [session.message for session in self.sessions]
        reasons = [
            finish_reason(m, length=cut) for m, cut in zip(messages, self.length, strict=True)
        ]
        return completion(
            messages,
            id=self.id,
            model=self.model,
            created=self.created,
            finish_reasons=reasons,
            usage=self.usage,
        )


def handler(proxy: Proxy) -> type[BaseHTTPRequestHandler]:
    """The request handler serving `POST /v1/chat/completions` with `proxy`."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self.send_json(404, error(f"no route {self.path}", type="not_found_error"))
                return
            try:
                length = int(self.headers.get("Content-Length", 0))
                request = json.loads(self.rfile.read(length))
                if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
                    raise ValueError("expected a JSON object with a `messages` list")
            except ValueError as problem:
                self.send_json(400, error(f"invalid request body: {problem}"))
                return
            status, body = proxy.respond(request)
            if isinstance(body, dict):
                self.send_json(status, body)
                return
            self.send_response(status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.close_connection = True
            try:
                for event in body:
                    self.wfile.write(event)
                    self.wfile.flush()
            except (OSError, ValueError) as problem:  # the upstream or the client went away
                self.log_error("stream cut off: %s", problem)

        def send_json(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def serve(proxy: Proxy, host: str = "127.0.0.1", port: int = 8080) -> ThreadingHTTPServer:
    """A server for `proxy`, bound (port 0: any free port); run it with `serve_forever()`."""
    return ThreadingHTTPServer((host, port), handler(proxy))


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--template", required=True, help="model folder or chat template")
    options.add_argument("--upstream", required=True, help="base URL of a /v1/completions API")
    options.add_argument("--format", help="format or model name (default: from the template)")
    options.add_argument("--host", default="127.0.0.1")
    options.add_argument("--port", type=int, default=8080)
    args = options.parse_args()
    template = load(args.template)
    fmt = formats.get(args.format) if args.format else formats.for_model(args.template)
    server = serve(Proxy(template, fmt, args.upstream), args.host, args.port)
    print(f"format {fmt.name}; serving on http://{args.host}:{server.server_port}/v1")
    server.serve_forever()


if __name__ == "__main__":
    main()
