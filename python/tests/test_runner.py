"""hookhost's Python package: a wasm guard, Python callables as hooks, failures, concurrency,
cancellation, errors. Each test fires real hooks: the destructive-guard component, `bash -c`
commands, Python callables."""

from __future__ import annotations

import asyncio
import os
import pathlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional

import pytest

import hookhost

RM = {"event": "PreToolUse", "tool": "Bash", "input": {"command": "rm -rf /"}}
TESTS = {"event": "PreToolUse", "tool": "Bash", "input": {"command": "cargo test"}}


def test_a_wasm_guard_blocks_and_allows(project: pathlib.Path) -> None:
    with hookhost.Runner.load(project / "hooks.toml", cwd=project) as runner:
        blocked = runner.fire(RM)
        assert blocked.blocked and not blocked.allowed
        assert blocked.blocked_by == "destructive-guard"
        assert blocked.decision.message is not None
        assert blocked.decision.message.startswith("blocked by destructive-guard: ")
        assert "rm -r" in (blocked.decision.reason or "")
        assert [(r.name, r.kind) for r in blocked.reports] == [("destructive-guard", "wasm")]

        allowed = runner.fire(TESTS)
        assert allowed.decision.kind == "allow" and allowed.allowed and not allowed.blocked
        assert allowed.blocked_by is None


def test_a_callback_rewrites_the_input_and_the_guards_after_it_see_the_rewrite(
    tmp_path: pathlib.Path,
) -> None:
    runner = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)
    seen: List[Dict[str, Any]] = []

    @runner.hook("PreToolUse", matcher="Bash")
    def quiet_tests(event: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        command = event["input"]["command"]
        if command == "cargo test":
            return {"action": "allow", "updated_input": {"command": "cargo test --quiet"}}
        return None

    @runner.hook("PreToolUse", name="sees-the-rewrite")
    def after(event: Dict[str, Any]) -> None:
        seen.append(event)

    outcome = runner.fire(TESTS)
    assert outcome.updated_input == {"command": "cargo test --quiet"}
    assert outcome.decision.kind == "allow"
    assert seen[0]["input"] == {"command": "cargo test --quiet"}
    assert seen[0]["tool"] == "Bash" and seen[0]["phase"] == "guard"
    # The guards run again on the rewritten input (the rewriter too): it must still pass.
    assert [r.name for r in outcome.reports] == ["quiet_tests", "sees-the-rewrite", "quiet_tests"]
    assert outcome.reports[0].kind == "native"

    other_tool = runner.fire({"event": "PreToolUse", "tool": "Read", "input": {"path": "x"}})
    assert [r.name for r in other_tool.reports] == ["sees-the-rewrite"]


def test_context_from_a_command_hook_and_a_callback_in_declaration_order(
    project: pathlib.Path,
) -> None:
    runner = hookhost.Runner.load(project / "hooks.toml", cwd=project)
    runner.register(
        "UserPromptSubmit",
        lambda event: {"action": "allow", "context": f"prompt was {event['prompt']!r}"},
        name="echo-prompt",
    )
    outcome = runner.fire({"event": "UserPromptSubmit", "prompt": "fix the parser"})
    assert [(c.by, c.text) for c in outcome.context] == [
        ("house-rules", "house rules: run the tests"),
        ("echo-prompt", "prompt was 'fix the parser'"),
    ]
    assert outcome.context_text == "house rules: run the tests\n\nprompt was 'fix the parser'"


def test_a_callback_that_raises_fails_closed_naming_the_exception(tmp_path: pathlib.Path) -> None:
    runner = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)

    def broken(event: Dict[str, Any]) -> Dict[str, Any]:
        raise RuntimeError("the policy server is down")

    runner.register("PreToolUse", broken)
    outcome = runner.fire(TESTS)
    assert outcome.blocked and outcome.blocked_by == "broken"
    assert outcome.decision.failure is not None
    assert "RuntimeError: the policy server is down" in outcome.decision.failure.message
    assert outcome.decision.message is not None
    assert outcome.decision.message.startswith("hook failed: ")
    assert outcome.decision.message.endswith("(tool blocked by default)")

    # An answer that is not a hook's answer is a failure too; an observer's failure blocks nothing.
    runner2 = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)
    runner2.register("PreToolUse", lambda event: {"action": "explode"}, name="nonsense")
    assert runner2.fire(TESTS).blocked
    runner3 = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)
    runner3.register("PreToolUse", broken, phase="observe")
    observed = runner3.fire(TESTS)
    assert observed.allowed
    assert observed.reports[0].failure is not None


def test_a_callback_that_overruns_its_timeout_is_a_timed_out_guard(tmp_path: pathlib.Path) -> None:
    runner = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)
    told: List[bool] = []

    def slow(event: Dict[str, Any], cancel: Any) -> None:
        deadline = time.monotonic() + 5
        while not cancel.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)
        told.append(cancel.cancelled)

    runner.register("PreToolUse", slow, timeout=0.1)
    start = time.monotonic()
    outcome = runner.fire(TESTS)
    took = time.monotonic() - start
    assert outcome.blocked
    assert outcome.decision.failure is not None
    assert outcome.decision.failure.kind == "timed_out"
    assert "timed out after 100ms" in outcome.decision.failure.message
    assert took < 1.0, f"the 100 ms timeout fired after {took:.2f} s"
    for _ in range(100):
        if told:
            break
        time.sleep(0.01)
    assert told == [True], "the callback's flag did not say it was abandoned"


def test_many_threads_fire_at_once(project: pathlib.Path) -> None:
    runner = hookhost.Runner.load(project / "hooks.toml", cwd=project)
    runner.register(
        "PreToolUse",
        lambda event: {"action": "block", "reason": "no sudo"}
        if event["input"]["command"].startswith("sudo")
        else None,
        name="no-sudo",
    )
    commands = ["rm -rf /", "cargo test", "sudo ls", "ls"] * 40

    def fire(command: str) -> Optional[str]:
        return runner.fire({"event": "PreToolUse", "tool": "Bash", "input": {"command": command}}).blocked_by

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(fire, commands))
    assert results == ["destructive-guard", None, "no-sudo", None] * 40


def test_async_fires_run_together_without_holding_the_event_loop(tmp_path: pathlib.Path) -> None:
    runner = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)
    runner.register("PreToolUse", lambda event: time.sleep(0.3), name="slow")

    async def main() -> None:
        ticks = 0
        stop = False

        async def tick() -> None:
            nonlocal ticks
            while not stop:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        outcomes = await asyncio.gather(*(runner.fire_async(TESTS) for _ in range(8)))
        stop = True
        await ticker
        assert all(o.allowed for o in outcomes)
        # While the hooks slept, the loop kept running the ticker.
        assert ticks >= 10, f"the event loop ran {ticks} ticks while hooks ran"

        blocked = await asyncio.gather(*(runner.fire_async(RM) for _ in range(50)))
        assert all(o.allowed for o in blocked)  # this runner has no destructive-guard

    asyncio.run(main())


def test_fires_from_asyncio_and_threads_at_once(project: pathlib.Path) -> None:
    runner = hookhost.Runner.load(project / "hooks.toml", cwd=project)

    async def main() -> List[Optional[str]]:
        outcomes = await asyncio.gather(*(runner.fire_async(e) for e in [RM, TESTS] * 100))
        return [o.blocked_by for o in outcomes]

    threads = [threading.Thread(target=lambda: runner.fire(RM)) for _ in range(4)]
    for thread in threads:
        thread.start()
    assert asyncio.run(main()) == ["destructive-guard", None] * 100
    for thread in threads:
        thread.join()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_for(path: pathlib.Path) -> int:
    for _ in range(500):
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.01)
    raise AssertionError(f"{path} was never written")


def _sleeper(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "hooks.toml").write_text(
        '[[hooks]]\nname = "sleeper"\nevent = "PreToolUse"\n'
        'command = "echo $$ > sleeper.pid; exec sleep 30"\ntimeout_ms = 60000\n'
    )
    return tmp_path / "sleeper.pid"


def test_closing_the_runner_stops_a_fire_in_flight(tmp_path: pathlib.Path) -> None:
    pid_file = _sleeper(tmp_path)
    runner = hookhost.Runner.load(tmp_path / "hooks.toml", cwd=tmp_path)
    errors: List[BaseException] = []

    def fire() -> None:
        try:
            runner.fire(TESTS)
        except BaseException as error:  # noqa: BLE001 - the test inspects it
            errors.append(error)

    thread = threading.Thread(target=fire)
    thread.start()
    pid = _wait_for(pid_file)
    assert _alive(pid)
    runner.close()
    thread.join(10)
    assert not thread.is_alive(), "the fire did not stop when the runner closed"
    assert len(errors) == 1 and isinstance(errors[0], hookhost.ClosedError)
    assert "there is no decision" in str(errors[0])
    for _ in range(500):
        if not _alive(pid):
            break
        time.sleep(0.01)
    assert not _alive(pid), "the hook's process outlived the closed runner"
    with pytest.raises(hookhost.ClosedError, match="the runner is closed"):
        runner.fire(TESTS)
    assert runner.closed


def test_cancelling_an_async_fire_stops_its_hooks(tmp_path: pathlib.Path) -> None:
    pid_file = _sleeper(tmp_path)
    runner = hookhost.Runner.load(tmp_path / "hooks.toml", cwd=tmp_path)

    async def main() -> int:
        task = asyncio.ensure_future(runner.fire_async(TESTS))
        while not (pid_file.exists() and pid_file.read_text().strip()):
            await asyncio.sleep(0.01)
        pid = int(pid_file.read_text())
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pid

    pid = asyncio.run(main())
    for _ in range(500):
        if not _alive(pid):
            break
        time.sleep(0.01)
    assert not _alive(pid), "the cancelled fire's hook is still running"
    assert runner.fire({"event": "Stop"}).allowed  # the runner itself goes on


def test_a_configuration_that_does_not_load_raises_or_fails_closed(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "hooks.toml"
    bad.write_text('[[hooks]]\nevent = "PreToolUse"\ncommand = "true"\ntimeout_ms = "soon"\n')
    with pytest.raises(hookhost.ConfigError) as error:
        hookhost.Runner.load(bad, cwd=tmp_path)
    assert f"{bad}:4:" in str(error.value)
    assert "timeout_ms" in str(error.value)

    runner = hookhost.Runner.load(bad, cwd=tmp_path, fail_closed=True)
    assert runner.load_error is not None and "timeout_ms" in runner.load_error
    outcome = runner.fire(TESTS)
    assert outcome.blocked
    assert outcome.decision.message is not None
    assert outcome.decision.message.startswith("hook failed: ")


def test_an_event_hookhost_cannot_read_is_an_error_naming_the_key(tmp_path: pathlib.Path) -> None:
    runner = hookhost.Runner.load(tmp_path / "none.toml", cwd=tmp_path)
    with pytest.raises(hookhost.EventError, match="`event`"):
        runner.fire({"tool": "Bash", "input": {"command": "ls"}})
    with pytest.raises(hookhost.EventError, match="`tool_iterations`"):
        runner.fire({"event": "PreToolUse", "tool": "Bash", "tool_iterations": "three"})
    with pytest.raises(hookhost.EventError, match="did you mean"):
        runner.fire({"event": "PreToolUSE", "tool": "Bash"})
    with pytest.raises(hookhost.ConfigError, match="not a valid regular expression"):
        runner.register("PreToolUse", lambda event: None, matcher="(")
    assert issubclass(hookhost.EventError, hookhost.HookhostError)


def test_layers_find_the_project_file(project: pathlib.Path) -> None:
    runner = hookhost.Runner.layers(project)
    assert runner.fire(RM).blocked_by == "destructive-guard"
    nothing = hookhost.Runner.layers(project, discover=False)
    assert nothing.fire(RM).allowed
