"""`hookhost.claude_agent_hooks` inside the real Claude Agent SDK (`claude-agent-sdk` from PyPI):
`ClaudeAgentOptions(hooks=...)` registers the callbacks with the CLI at connect, and each hook
call goes through the SDK's control protocol exactly as when its CLI calls it (`cli_side`
plays the CLI, no model needed)."""

from __future__ import annotations

import pathlib
import subprocess
import sys
from typing import Any, Awaitable, Callable, Dict

import anyio
import pytest
from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, HookMatcher

import hookhost

from cli_side import CliSide

HERE = pathlib.Path(__file__).resolve().parent


def with_sdk(
    runner: hookhost.Runner, scenario: Callable[[CliSide], Awaitable[None]]
) -> None:
    async def main() -> None:
        cli = CliSide()
        options = ClaudeAgentOptions(hooks=hookhost.claude_agent_hooks(runner))
        async with ClaudeSDKClient(options=options, transport=cli):
            await scenario(cli)

    anyio.run(main)


def bash(command: str) -> Dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


def test_the_sdk_registers_a_matcher_per_event_that_blocks_on_failure(project: pathlib.Path) -> None:
    hooks = hookhost.claude_agent_hooks(hookhost.Runner.load(project / "hooks.toml", cwd=project))
    assert all(isinstance(m, HookMatcher) for matchers in hooks.values() for m in matchers)
    assert {"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"} <= set(hooks)

    async def scenario(cli: CliSide) -> None:
        pre = cli.hooks["PreToolUse"][0]
        assert pre["matcher"] is None and len(pre["hookCallbackIds"]) == 1
        assert pre["onFailure"] == "block"
        assert "onFailure" not in cli.hooks["PostToolUse"][0]

    with_sdk(hookhost.Runner.load(project / "hooks.toml", cwd=project), scenario)


def test_a_wasm_guard_denies_through_the_sdk(project: pathlib.Path) -> None:
    runner = hookhost.Runner.load(project / "hooks.toml", cwd=project)

    async def scenario(cli: CliSide) -> None:
        answer = await cli.fire("PreToolUse", bash("rm -rf /"), "toolu_1")
        assert answer["subtype"] == "success"
        specific = answer["response"]["hookSpecificOutput"]
        assert specific["hookEventName"] == "PreToolUse"
        assert specific["permissionDecision"] == "deny"
        assert specific["permissionDecisionReason"].startswith("blocked by destructive-guard: ")

        allowed = await cli.fire("PreToolUse", bash("cargo test"), "toolu_2")
        assert allowed == {"subtype": "success", "request_id": allowed["request_id"], "response": {}}

    with_sdk(runner, scenario)


def test_a_callbacks_rewrite_and_context_reach_the_sdk(project: pathlib.Path) -> None:
    runner = hookhost.Runner.load(project / "hooks.toml", cwd=project)
    runner.register(
        "PreToolUse",
        lambda event: {"action": "approve", "updated_input": {"command": "cargo test --quiet"}},
        matcher="Bash",
        name="quiet",
    )

    async def scenario(cli: CliSide) -> None:
        answer = await cli.fire("PreToolUse", bash("cargo test"))
        assert answer["response"]["hookSpecificOutput"] == {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "cargo test --quiet"},
        }
        prompt = await cli.fire(
            "UserPromptSubmit", {"session_id": "s1", "cwd": "/", "prompt": "fix it"}
        )
        specific = prompt["response"]["hookSpecificOutput"]
        assert specific["additionalContext"] == "house rules: run the tests"

    with_sdk(runner, scenario)


def test_stop_asks_the_agent_to_go_on_as_continue_on_the_wire(tmp_path: pathlib.Path) -> None:
    runner = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)
    # On Stop, forgeflare's protocol reads only `continue` (seed 000); a hook that keeps the
    # agent going speaks Claude Code's.
    runner.register(
        "Stop",
        lambda event: {"decision": "block", "reason": "the tests still fail"},
        name="tests",
        protocol="claude",
    )
    runner.register(
        "SubagentStop",
        lambda event: {"action": "continue", "stop": "budget spent"},
        name="budget",
    )

    async def scenario(cli: CliSide) -> None:
        answer = await cli.fire("Stop", {"session_id": "s1", "cwd": "/", "stop_hook_active": False})
        assert answer["response"] == {
            "decision": "block",
            "reason": "the tests still fail",
        }
        stop = await cli.fire(
            "SubagentStop",
            {
                "session_id": "s1",
                "cwd": "/",
                "stop_hook_active": False,
                "agent_id": "a1",
                "agent_transcript_path": "/tmp/a.jsonl",
                "agent_type": "general-purpose",
            },
        )
        # The SDK renames the callback's `continue_` to the CLI's `continue`.
        assert stop["response"]["continue"] is False
        assert stop["response"]["stopReason"] == "budget: budget spent"

    with_sdk(runner, scenario)


def test_a_failing_guard_and_a_closed_runner_both_deny(tmp_path: pathlib.Path) -> None:
    runner = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)

    def broken(event: Dict[str, Any]) -> None:
        raise ValueError("no policy")

    runner.register("PreToolUse", broken)

    async def scenario(cli: CliSide) -> None:
        answer = await cli.fire("PreToolUse", bash("ls"))
        specific = answer["response"]["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny"
        assert "ValueError: no policy" in specific["permissionDecisionReason"]
        runner.close()
        closed = await cli.fire("PreToolUse", bash("ls"))
        # The callback raised: the SDK answers the CLI with an error, which a matcher with
        # `onFailure: "block"` turns into a block.
        assert closed["subtype"] == "error"
        assert "the runner is closed" in closed["error"]

    with_sdk(runner, scenario)


def test_the_helper_type_checks_against_the_sdks_types() -> None:
    try:
        import mypy.api
    except ImportError:
        pytest.fail("mypy is missing: pip install mypy (.ci/run installs it)")
    out, err, status = mypy.api.run(["--strict", str(HERE / "typed_usage.py")])
    assert status == 0, out + err
