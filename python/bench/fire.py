"""What a fire costs through the Python package (release build: `maturin develop --release`).

    python python/bench/fire.py

Each case: 15 rounds of N fires, one after another from one thread; prints the median time per
fire over the rounds. The cases are the Rust benchmark's (`cargo bench --bench hooks`): no hooks
configured, one in-process hook (here a Python callable), destructive-guard as a wasm hook; the
difference from the Rust figures is what the boundary adds (the event's JSON in, the
outcome's out, the GIL released and taken back; for the callable, the call into Python).
"""

from __future__ import annotations

import asyncio
import pathlib
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Dict, Optional

import hookhost

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from conftest import guard_wasm  # noqa: E402

EVENT = {"event": "PreToolUse", "tool": "Bash", "input": {"command": "cargo test"}}
ROUNDS = 15


def per_call(fire: Callable[[], Any], n: int) -> float:
    for _ in range(n // 10):
        fire()
    rounds = []
    for _ in range(ROUNDS):
        start = time.perf_counter_ns()
        for _ in range(n):
            fire()
        rounds.append((time.perf_counter_ns() - start) / n)
    return statistics.median(rounds)


def per_call_async(runner: hookhost.Runner, n: int) -> float:
    async def main() -> float:
        rounds = []
        for _ in range(ROUNDS):
            start = time.perf_counter_ns()
            for _ in range(n):
                await runner.fire_async(EVENT)
            rounds.append((time.perf_counter_ns() - start) / n)
        return statistics.median(rounds)

    return asyncio.run(main())


def show(case: str, ns: float) -> None:
    text = f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"
    print(f"| {case} | {text} |")


def main() -> None:
    tmp = pathlib.Path(tempfile.mkdtemp())
    empty = hookhost.Runner.load(tmp / "none.toml", cwd=tmp)
    callable_runner = hookhost.Runner.load(tmp / "none.toml", cwd=tmp)

    def allow(event: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        return None

    callable_runner.register("PreToolUse", allow, matcher="Bash")
    (tmp / "hooks.toml").write_text(
        f'[[hooks]]\nname = "destructive-guard"\nevent = "PreToolUse"\nmatch_tool = "Bash"\nwasm = "{guard_wasm()}"\n'
    )
    wasm = hookhost.Runner.load(tmp / "hooks.toml", cwd=tmp)
    assert wasm.fire({**EVENT, "input": {"command": "rm -rf /"}}).blocked
    claude_input = {
        "hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(tmp),
        "tool_name": "Bash", "tool_input": {"command": "cargo test"}, "tool_use_id": "t",
    }
    import json

    claude_text = json.dumps(claude_input)

    print("| case (per PreToolUse fire, median of 15 rounds) | time |")
    print("|---|---|")
    show("no hooks configured: `fire`", per_call(lambda: empty.fire(EVENT), 20000))
    show("no hooks configured: `await fire_async`", per_call_async(empty, 5000))
    show("one Python callable (allows): `fire`", per_call(lambda: callable_runner.fire(EVENT), 5000))
    show("destructive-guard as a wasm hook: `fire`", per_call(lambda: wasm.fire(EVENT), 5000))
    show("destructive-guard as a wasm hook: `await fire_async`", per_call_async(wasm, 2000))
    show(
        "destructive-guard through the Claude Agent SDK callback (native part)",
        per_call(lambda: wasm._native.claude(claude_text), 5000),
    )


if __name__ == "__main__":
    main()
