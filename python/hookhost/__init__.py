"""hookhost for Python agents: a project's hooks (sandboxed wasm policies, `bash -c` commands,
Python callables) run in process, their answers merged under one contract.

    import hookhost

    runner = hookhost.Runner.load(".forgeflare/hooks.toml")   # a missing file: no hooks
    outcome = runner.fire({"event": "PreToolUse", "tool": "Bash",
                           "input": {"command": "rm -rf /"}})
    if outcome.blocked:
        print(outcome.decision.message)     # "blocked by destructive-guard: ..."

The Claude Agent SDK's hooks: `hookhost.claude_agent_hooks(runner)` (see `hookhost.claude`).
The documentation is docs/embedding.md in hookhost's repository.
"""

from ._native import CancelledError, ClosedError, ConfigError, EventError, HookhostError
from .claude import claude_agent_hooks
from .runner import (
    Decision,
    HookReport,
    Notice,
    Outcome,
    Runner,
)

__all__ = [
    "CancelledError",
    "ClosedError",
    "ConfigError",
    "Decision",
    "EventError",
    "HookReport",
    "HookhostError",
    "Notice",
    "Outcome",
    "Runner",
    "claude_agent_hooks",
]
