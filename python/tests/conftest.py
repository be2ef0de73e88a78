"""Fixtures: the destructive-guard wasm hook built from this repository, and a project directory
with a hooks.toml that runs it beside a command hook."""

from __future__ import annotations

import os
import pathlib
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def guard_wasm() -> pathlib.Path:
    """example-hooks/destructive-guard, built for wasm32-wasip2 in release (as .ci/run does)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    wasm = target / "wasm32-wasip2" / "release" / "destructive_guard.wasm"
    if not wasm.exists():
        pytest.fail(
            f"{wasm} is missing: build it with "
            "`cargo build --release --target wasm32-wasip2 -p destructive-guard` (.ci/run does)"
        )
    return wasm


@pytest.fixture
def project(tmp_path: pathlib.Path) -> pathlib.Path:
    """A project whose hooks.toml runs destructive-guard (wasm) on Bash, and a command hook that
    adds context to every prompt."""
    (tmp_path / "hooks.toml").write_text(
        textwrap.dedent(
            f"""
            [[hooks]]
            name = "destructive-guard"
            event = "PreToolUse"
            match_tool = "Bash"
            wasm = "{guard_wasm()}"
            timeout_ms = 5000

            [[hooks]]
            name = "house-rules"
            event = "UserPromptSubmit"
            command = 'echo "{{\\"action\\":\\"allow\\",\\"context\\":\\"house rules: run the tests\\"}}"'
            """
        )
    )
    return tmp_path
