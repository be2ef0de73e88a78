"""Checked by `mypy --strict` (test_claude.py): the package's types as an agent uses them, beside
the Claude Agent SDK's own. Never run."""

from __future__ import annotations

from typing import Any, Dict, Optional

from claude_agent_sdk import ClaudeAgentOptions

import hookhost

runner = hookhost.Runner.layers(".", fail_closed=True)
options = ClaudeAgentOptions(hooks=hookhost.claude_agent_hooks(runner, timeout=30))

outcome: hookhost.Outcome = runner.fire(
    {"event": "PreToolUse", "tool": "Bash", "input": {"command": "ls"}}
)
reason: Optional[str] = outcome.decision.reason
by: Optional[str] = outcome.blocked_by
durations = [report.duration_us + 1 for report in outcome.reports]


@runner.hook("PreToolUse", matcher="Bash", timeout=0.5)
def no_sudo(event: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    if str(event["input"]["command"]).startswith("sudo"):
        return {"action": "block", "reason": "no sudo"}
    return None


async def later() -> bool:
    done = await runner.fire_async({"event": "Stop"})
    return done.allowed
