"""A real HTTP server speaking the OpenAI chat-completions protocol, with scripted replies and faults.

Tests queue replies (text, finish reason, logprobs) and faults (HTTP status, delay, malformed body),
or set ``responder`` to answer from the request (for runs whose order is not fixed, such as xdist);
``reject_formats`` lists the ``response_format`` types the server refuses with 400, as servers
without structured output do. Every request is recorded, so a test can count calls and inspect what
was sent.
Loopback only; the server stops with the fixture.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _logprobs(tokens: Any) -> Any:
    """OpenAI's ``logprobs.content`` from ``[(token, {alternative: logprob, ...}), ...]``."""
    if not tokens:
        return None
    content = []
    for token, alternatives in tokens:
        top = [{"token": t, "logprob": lp, "bytes": None} for t, lp in alternatives.items()]
        content.append({"token": token, "logprob": alternatives.get(token, 0.0), "bytes": None, "top_logprobs": top})
    return {"content": content}


class ScriptedJudgeServer:
    def __init__(self, *, keep_alive: bool = False) -> None:
        self.script: deque[dict[str, Any]] = deque()
        self.default: dict[str, Any] = {"text": '{"verdict": "yes"}'}
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.responder: Any = None
        self.reject_formats: set[str] = set()
        #: The status of a refused format: 400 as most servers, 500 as llama.cpp's server does for json_schema.
        self.reject_status = 400
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            # HTTP/1.1 keeps each client connection open between requests, as hosted and local
            # judge servers do; the default (1.0) closes it, so a stopped server refuses the next.
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
            disable_nagle_algorithm = (
                True  # headers and body go out as two writes: no 40 ms wait for an ACK between them
            )

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _stream(self, body: dict[str, Any], text: str) -> None:
                words = text.split(" ")
                chunks = [
                    {
                        "id": "chatcmpl-stream",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": body.get("model", "scripted"),
                        "choices": [
                            {"index": 0, "delta": {"content": (" " if i else "") + word}, "finish_reason": None}
                        ],
                    }
                    for i, word in enumerate(words)
                ]
                payload = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
                data = payload.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                    if server.script:
                        step = server.script.popleft()
                    elif server.responder is not None:
                        step = server.responder(body)
                    else:
                        step = server.default
                kind = (body.get("response_format") or {}).get("type")
                if kind in server.reject_formats:
                    step = {
                        "status": server.reject_status,
                        "message": f"response_format type {kind} is not supported by this server",
                    }
                if step.get("delay"):
                    time.sleep(step["delay"])
                status = step.get("status", 200)
                if status != 200:
                    payload = json.dumps(
                        {"error": {"message": step.get("message", f"scripted {status}"), "type": "scripted"}}
                    ).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("retry-after-ms", "10")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if body.get("stream") and "text" in step and "body" not in step:  # server-sent events, a word a chunk
                    self._stream(body, step["text"])
                    return
                if "body" in step:  # any raw reply: empty choices, truncated or deeply nested JSON
                    payload = step["body"].encode()
                elif step.get("malformed"):
                    payload = b"{this is not json"
                else:
                    payload = json.dumps(
                        {
                            "id": f"chatcmpl-{len(server.requests)}",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body.get("model", "scripted"),
                            "choices": [
                                {
                                    "index": 0,
                                    "finish_reason": step.get("finish_reason", "stop"),
                                    "message": {"role": "assistant", "content": step["text"]},
                                    "logprobs": _logprobs(step.get("logprobs")) if body.get("logprobs") else None,
                                }
                            ],
                            "usage": {
                                "prompt_tokens": step.get("prompt_tokens", 10),
                                "completion_tokens": step.get("completion_tokens", 5),
                                "total_tokens": step.get("prompt_tokens", 10) + step.get("completion_tokens", 5),
                            },
                        }
                    ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ScriptedJudgeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
