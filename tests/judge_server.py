"""A real HTTP server speaking the OpenAI chat-completions protocol, with scripted replies and faults.

Tests queue replies (text, finish reason) and faults (HTTP status, delay, malformed body);
every request is recorded, so a test can count calls and inspect what was sent.
Loopback only; the server stops with the fixture.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ScriptedJudgeServer:
    def __init__(self) -> None:
        self.script: deque[dict[str, Any]] = deque()
        self.default: dict[str, Any] = {"text": '{"verdict": "yes"}'}
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                step = server.script.popleft() if server.script else server.default
                if step.get("delay"):
                    time.sleep(step["delay"])
                status = step.get("status", 200)
                if status != 200:
                    payload = json.dumps({"error": {"message": f"scripted {status}", "type": "scripted"}}).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("retry-after-ms", "10")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if step.get("malformed"):
                    payload = b"{this is not json"
                else:
                    payload = json.dumps({
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "scripted"),
                        "choices": [{"index": 0, "finish_reason": step.get("finish_reason", "stop"),
                                     "message": {"role": "assistant", "content": step["text"]}}],
                        "usage": {"prompt_tokens": step.get("prompt_tokens", 10), "completion_tokens": step.get("completion_tokens", 5),
                                  "total_tokens": step.get("prompt_tokens", 10) + step.get("completion_tokens", 5)},
                    }).encode()
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
