"""The Claude Code CLI's side of the Claude Agent SDK's control protocol, for the tests.

The SDK talks to its CLI over a `Transport` (the SDK's documented extension point for remote
CLIs): JSON lines both ways. At connect the SDK sends an `initialize` control request that
carries the hooks of `ClaudeAgentOptions.hooks` as `{matcher, hookCallbackIds, timeout,
onFailure}` per event; when a hook fires, the CLI sends a `hook_callback` control request with
the callback's id, the hook input and the tool use id, and the SDK answers with the callback's
output (its `async_`/`continue_` renamed for the wire). This class is that CLI side and nothing
more, so that a test drives the real SDK's code from `ClaudeAgentOptions` to the wire, without a
model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
from claude_agent_sdk import Transport


class CliSide(Transport):
    """Answers `initialize`, then sends hook callbacks on request and returns the SDK's answers."""

    def __init__(self) -> None:
        self.hooks: dict[str, list[dict[str, Any]]] = {}
        self._send, self._receive = anyio.create_memory_object_stream[dict[str, Any]](100)
        self._answers: dict[str, Any] = {}
        self._answered: dict[str, anyio.Event] = {}
        self._next = 0
        self._ready = False

    async def connect(self) -> None:
        self._ready = True

    def is_ready(self) -> bool:
        return self._ready

    async def write(self, data: str) -> None:
        for line in data.splitlines():
            message = json.loads(line)
            if message.get("type") == "control_request":
                await self._control_request(message)
            elif message.get("type") == "control_response":
                response = message["response"]
                request_id = response["request_id"]
                self._answers[request_id] = response
                self._answered[request_id].set()

    async def _control_request(self, message: dict[str, Any]) -> None:
        request = message["request"]
        answer: dict[str, Any] = {}
        if request["subtype"] == "initialize":
            self.hooks = request.get("hooks") or {}
            # What a CLI that honours `onFailure` says (the SDK refuses `on_failure="block"`
            # without it).
            answer = {"hook_on_failure_supported": True, "hooks_applied": True, "commands": []}
        await self._send.send(
            {
                "type": "control_response",
                "response": {
                    "subtype": "success",
                    "request_id": message["request_id"],
                    "response": answer,
                },
            }
        )

    def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        return self._receive.__aiter__()

    async def close(self) -> None:
        self._ready = False
        self._send.close()

    async def end_input(self) -> None:
        pass

    async def fire(
        self, event: str, hook_input: dict[str, Any], tool_use_id: str | None = None
    ) -> dict[str, Any]:
        """Sends the `hook_callback` request the CLI sends for every callback registered for
        `event` whose matcher the CLI would apply (here: every one), in order, and returns the
        SDK's answer to the first: `{"subtype": "success", "response": OUTPUT}` or
        `{"subtype": "error", "error": MESSAGE}`."""
        matchers = self.hooks.get(event)
        assert matchers, f"the SDK registered no hooks for {event}: {self.hooks}"
        callback_id = matchers[0]["hookCallbackIds"][0]
        self._next += 1
        request_id = f"cli_{self._next}"
        self._answered[request_id] = anyio.Event()
        await self._send.send(
            {
                "type": "control_request",
                "request_id": request_id,
                "request": {
                    "subtype": "hook_callback",
                    "callback_id": callback_id,
                    "input": {"hook_event_name": event, **hook_input},
                    "tool_use_id": tool_use_id,
                },
            }
        )
        with anyio.fail_after(30):
            await self._answered[request_id].wait()
        return self._answers.pop(request_id)
