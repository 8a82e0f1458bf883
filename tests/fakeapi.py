"""A fake Anthropic API on loopback: the real SDK talks to it, never to the network."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

KEY = "sk-test-never-a-real-key-0123456789"


class FakeMessages(BaseHTTPRequestHandler):
    """Answers /v1/messages the way the API does, with whatever the test queued."""

    answers: list = []
    seen: list = []

    def do_POST(self):  # noqa: N802
        payload = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        FakeMessages.seen.append({"payload": payload, "headers": dict(self.headers), "path": self.path})
        if self.path.startswith("/v1/messages/count_tokens"):
            # the app counts the prompt's tokens on its own schedule: answered, never taking a queued answer
            status, body = 200, {"input_tokens": sum(len(str(m.get("content", ""))) for m in payload.get("messages", [])) // 4}
        else:
            status, body = FakeMessages.answers.pop(0)
        if isinstance(body, str):
            body = {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": payload["model"],
                "content": [{"type": "text", "text": body}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 20},
            }
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if status == 429:
            self.send_header("retry-after", "0")
        if status == 429 or status >= 500:  # the SDK retries these once: at once, not after its half-second backoff
            self.send_header("retry-after-ms", "1")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass
