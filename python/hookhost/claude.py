"""The Claude Agent SDK's hooks, run by hookhost: one line in an agent built on the SDK.

    from claude_agent_sdk import ClaudeAgentOptions
    import hookhost

    runner = hookhost.Runner.layers()          # the project's hooks.toml, as `agent-hook` finds it
    options = ClaudeAgentOptions(hooks=hookhost.claude_agent_hooks(runner))

The SDK calls a hook callback with the JSON Claude Code gives a hook command and reads back the
JSON such a command prints; hookhost answers exactly as `hookhost agent-hook --format claude`
does (`permissionDecision`, `updatedInput`, `additionalContext`, `continue`, `systemMessage`),
without a process per call.
"""

from __future__ import annotations

import asyncio
import json
import logging
import typing
from typing import Any, Dict, List, Optional, Sequence

from .runner import _completer

if typing.TYPE_CHECKING:
    from claude_agent_sdk import HookContext, HookMatcher
    from claude_agent_sdk.types import HookInput, HookJSONOutput

    from . import Runner

log = logging.getLogger("hookhost")

# Events on which a callback that fails must block the action: hookhost's own failures there
# (a guard that failed closed) are already answered as a deny; this covers a failure of the
# callback itself.
_GATES = ("PreToolUse", "PermissionRequest", "UserPromptSubmit")


def claude_agent_hooks(
    runner: "Runner",
    events: Optional[Sequence[str]] = None,
    timeout: Optional[float] = None,
) -> "Dict[Any, List[HookMatcher]]":
    """The `hooks` option of `ClaudeAgentOptions`: one `HookMatcher` per event, matching every
    tool (hooks.toml's matchers decide which hooks run), whose callback fires the event through
    `runner` and answers with the merged outcome.

    `events` defaults to every event this version of the SDK can hook (`HookEvent`); `timeout`
    is the matcher's, in seconds (the SDK's default when None: 60). On PreToolUse,
    PermissionRequest and UserPromptSubmit, a callback that fails blocks (`on_failure="block"`,
    where the SDK has it). What Claude Code would have read on a hook's stderr goes to the
    `hookhost` logger as a warning.
    """
    try:
        import claude_agent_sdk
        from claude_agent_sdk import HookMatcher
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "hookhost.claude_agent_hooks needs the Claude Agent SDK: pip install claude-agent-sdk"
        ) from error
    if events is None:
        events = _names(claude_agent_sdk.types.HookEvent)
    fields = {field.name for field in __import__("dataclasses").fields(HookMatcher)}
    hooks: Dict[Any, List[HookMatcher]] = {}
    for event in events:
        extra: Dict[str, Any] = {}
        if timeout is not None:
            extra["timeout"] = timeout
        if event in _GATES and "on_failure" in fields:
            extra["on_failure"] = "block"
        hooks[event] = [HookMatcher(matcher=None, hooks=[_callback(runner)], **extra)]
    return hooks


def _names(literal: Any) -> List[str]:
    """The strings of a `Literal` type, or of a union of them (the SDK's `HookEvent`)."""
    names: List[str] = []
    for arg in typing.get_args(literal):
        names.extend([arg] if isinstance(arg, str) else _names(arg))
    return names


def _callback(runner: "Runner") -> Any:
    async def hookhost_callback(
        input: "HookInput", tool_use_id: Optional[str], context: "HookContext"
    ) -> "HookJSONOutput":
        text, diagnostics = await _answer(runner, json.dumps(input))
        if diagnostics:
            log.warning("%s", diagnostics)
        output: Dict[str, Any] = json.loads(text)
        # The Python SDK spells `continue` as `continue_` (a keyword) and renames it on the
        # wire.
        if "continue" in output:
            output["continue_"] = output.pop("continue")
        return typing.cast("HookJSONOutput", output)

    return hookhost_callback


async def _answer(runner: "Runner", text: str) -> "tuple[str, str]":
    loop = asyncio.get_running_loop()
    future: "asyncio.Future[Any]" = loop.create_future()
    runner._native.claude_then(text, _completer(loop, future))
    return typing.cast("tuple[str, str]", await future)
