"""`Runner` and the typed outcome of a fire.

Events go in as mappings in hookhost's documented shape (docs/embedding.md, "The event's
JSON"): `event`, then optionally `session_id`, `cwd`, `tool`, `input`, `tool_iterations`, `env`,
and the event's own fields. Outcomes come back as frozen dataclasses mapping every field of the
outcome's JSON ("The outcome's JSON").
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from dataclasses import dataclass
from typing import (
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Tuple,
    TypeVar,
    Union,
)

from . import _native

PathLike = Union[str, "os.PathLike[str]"]
Hook = Callable[..., Optional[Mapping[str, Any]]]
H = TypeVar("H", bound=Hook)


@dataclass(frozen=True)
class Failure:
    """How a hook failed: `kind` (`timeout`, `trapped`, `panicked`, `bad_output`, ...),
    hookhost's one-line `message`, and a longer `detail`."""

    kind: str
    message: str
    detail: str


@dataclass(frozen=True)
class Decision:
    """The guards' merged decision: `kind` is `allow`, `approve`, `warn`, `ask` or `block`;
    `by` the hook that decided; `reason` its reason; `message` what the model is shown for a
    block (`blocked by NAME: REASON`, or `hook failed: ...` when a guard failed closed, then
    `failure` says how)."""

    kind: str
    by: Optional[str] = None
    reason: Optional[str] = None
    message: Optional[str] = None
    failure: Optional[Failure] = None


@dataclass(frozen=True)
class Notice:
    """A hook's message: who (`by`) and what (`reason`)."""

    by: str
    reason: str


@dataclass(frozen=True)
class Context:
    """Context for the model from one hook."""

    by: str
    text: str


@dataclass(frozen=True)
class Signal:
    """A PostToolUse signal (forgeflare's convergence): its name and reason."""

    signal: str
    reason: str


@dataclass(frozen=True)
class Verdict:
    """What one hook answered."""

    answer: str
    reason: Optional[str] = None
    updated_input: Optional[Any] = None
    context: Optional[str] = None
    stop: Optional[str] = None
    signal: Optional[Signal] = None
    message: Optional[str] = None
    note: Optional[str] = None


@dataclass(frozen=True)
class HookReport:
    """One hook that ran: its answer (`verdict`) or its `failure`, its time, its stderr."""

    name: str
    index: int
    event: str
    phase: str
    kind: str
    background: bool
    mode: str
    duration_us: int
    verdict: Optional[Verdict]
    failure: Optional[Failure]
    stderr: str
    stderr_truncated: bool


@dataclass(frozen=True)
class Outcome:
    """What the hooks of one event decided and asked for."""

    event: str
    decision: Decision
    allowed: bool
    updated_input: Optional[Any]
    context: List[Context]
    context_text: Optional[str]
    stop: Optional[Notice]
    notices: List[Notice]
    signals: List[Signal]
    monitored: List[Decision]
    reports: List[HookReport]
    warnings: List[str]
    final_written: bool

    @property
    def blocked(self) -> bool:
        """True when a guard blocked (or failed closed)."""
        return self.decision.kind == "block"

    @property
    def blocked_by(self) -> Optional[str]:
        """The hook that blocked, if one did."""
        return self.decision.by if self.blocked else None

    @staticmethod
    def from_json(text: Union[str, bytes]) -> "Outcome":
        """The outcome from its JSON (what the native module returns)."""
        o = json.loads(text)
        return Outcome(
            event=o["event"],
            decision=_decision(o["decision"]),
            allowed=o["allowed"],
            updated_input=o.get("updated_input"),
            context=[Context(**c) for c in o["context"]],
            context_text=o.get("context_text"),
            stop=Notice(**o["stop"]) if o.get("stop") else None,
            notices=[Notice(**n) for n in o["notices"]],
            signals=[Signal(**s) for s in o["signals"]],
            monitored=[_decision(d) for d in o["monitored"]],
            reports=[_report(r) for r in o["reports"]],
            warnings=list(o["warnings"]),
            final_written=o["final_written"],
        )


def _failure(f: Optional[Dict[str, Any]]) -> Optional[Failure]:
    return Failure(**f) if f else None


def _decision(d: Dict[str, Any]) -> Decision:
    return Decision(
        kind=d["kind"],
        by=d.get("by"),
        reason=d.get("reason"),
        message=d.get("message"),
        failure=_failure(d.get("failure")),
    )


def _report(r: Dict[str, Any]) -> HookReport:
    v = r.get("verdict")
    verdict = None
    if v:
        signal = v.get("signal")
        verdict = Verdict(**{**v, "signal": Signal(**signal) if signal else None})
    return HookReport(
        name=r["name"],
        index=r["index"],
        event=r["event"],
        phase=r["phase"],
        kind=r["kind"],
        background=r["async"],
        mode=r["mode"],
        duration_us=r["duration_us"],
        verdict=verdict,
        failure=_failure(r.get("failure")),
        stderr=r["stderr"],
        stderr_truncated=r["stderr_truncated"],
    )


def _path(path: Optional[PathLike]) -> Optional[str]:
    return None if path is None else os.fspath(path)


def _env(env: Optional[Mapping[str, str]]) -> Optional[List[Tuple[str, str]]]:
    return None if env is None else list(env.items())


class Runner:
    """A project's hooks, loaded once; fire events through it from any thread, or from asyncio.

    Build one with `Runner.load` (one hooks.toml) or `Runner.layers` (the user's, the
    project's and the local file, as `hookhost agent-hook` finds them). A configuration that
    does not load raises `ConfigError` with hookhost's message (file, line, hook), unless
    `fail_closed=True`: then every gate event (PreToolUse, ...) is blocked with that message.
    """

    def __init__(self, native: "_native.NativeRunner") -> None:
        self._native = native

    @classmethod
    def load(
        cls,
        path: PathLike,
        *,
        cwd: Optional[PathLike] = None,
        env: Optional[Mapping[str, str]] = None,
        state_dir: Optional[PathLike] = None,
        forward_stderr: bool = False,
        fail_closed: bool = False,
    ) -> "Runner":
        """Loads `path` (a missing file: no hooks). `cwd` (default: the current directory) is
        where command hooks run and what events' `cwd` is; `env` adds variables for every
        command hook; `state_dir` holds convergence.json (default `{cwd}/.forgeflare`);
        `forward_stderr` copies hooks' stderr to this process's (reports carry it either way)."""
        return cls(
            _native.NativeRunner.load(
                os.fspath(path),
                cwd=_path(cwd),
                env=_env(env),
                state_dir=_path(state_dir),
                forward_stderr=forward_stderr,
                fail_closed=fail_closed,
            )
        )

    @classmethod
    def layers(
        cls,
        cwd: Optional[PathLike] = None,
        *,
        user: Optional[PathLike] = None,
        project: Optional[PathLike] = None,
        local: Optional[PathLike] = None,
        discover: bool = True,
        env: Optional[Mapping[str, str]] = None,
        state_dir: Optional[PathLike] = None,
        forward_stderr: bool = False,
        fail_closed: bool = False,
    ) -> "Runner":
        """Loads the layered configuration of `cwd`: the organisation's managed file, the
        user's, the project's (`.forgeflare/hooks.toml`, else `hooks.toml`) and its
        `hooks.local.toml`, under the `[projects]` policy. A path given replaces the one
        `discover` found; `discover=False` loads only the paths given."""
        return cls(
            _native.NativeRunner.layers(
                cwd=_path(cwd),
                user=_path(user),
                project=_path(project),
                local=_path(local),
                discover=discover,
                env=_env(env),
                state_dir=_path(state_dir),
                forward_stderr=forward_stderr,
                fail_closed=fail_closed,
            )
        )

    def fire(self, event: Mapping[str, Any]) -> Outcome:
        """Runs the hooks `event` reaches and returns their merged outcome. Blocks the calling
        thread (not the others: the GIL is released while hooks run). Raises `ConfigError` for
        an event hookhost cannot read (naming the key at fault) and `ClosedError` after
        `close`, also when `close` is called while this fire runs."""
        return Outcome.from_json(self._native.fire(json.dumps(event)))

    async def fire_async(self, event: Mapping[str, Any]) -> Outcome:
        """`fire` for asyncio: the hooks run on hookhost's threads while the event loop goes
        on. Cancelling the task cancels the fire (its command hooks are killed, its wasm calls
        stopped)."""
        loop = asyncio.get_running_loop()
        future: "asyncio.Future[Any]" = loop.create_future()
        handle = self._native.fire_then(json.dumps(event), _completer(loop, future))
        try:
            text = await future
        except asyncio.CancelledError:
            handle.cancel()
            raise
        return Outcome.from_json(text)

    def register(
        self,
        event: str,
        callback: Hook,
        *,
        name: Optional[str] = None,
        matcher: Optional[str] = None,
        timeout: Optional[float] = None,
        phase: str = "guard",
        on_failure: Optional[str] = None,
        mode: Optional[str] = None,
        background: bool = False,
        protocol: str = "forgeflare",
    ) -> None:
        """Adds `callback` as an in-process hook for `event` (a name, a glob such as `tool:*`,
        or a comma list), after every hook already there.

        `callback(event)` gets the event as this hook sees it (the JSON a forgeflare-protocol
        command hook reads: `event`, `phase`, `tool`, `input` as earlier guards rewrote it, the
        event's fields; for an observer, what the guards decided) and returns what such a hook
        prints: `None` for no objection, or a dict such as `{"action": "block", "reason":
        "..."}`, `{"action": "allow", "updated_input": {...}}`, `{"action": "allow", "context":
        "..."}`. `protocol="claude"` (or `copilot`, `gemini`) makes it read and answer that
        agent's hook JSON instead (on Stop, forgeflare's protocol reads only `continue`; Claude
        Code's `{"decision": "block", "reason": ...}` keeps the agent going).
        A callback that takes a second argument also gets a `CancelFlag`: its `cancelled`
        turns true when hookhost abandons the call.

        It runs on one of hookhost's threads, holding the GIL only while it runs. `matcher` is
        Claude Code's (`Bash`, `Edit|Write`, a regex); `timeout` in seconds (default: the
        event's); `phase` `guard` or `observe`; `on_failure` `block` or `allow` (default: the
        event's: a PreToolUse guard fails closed); `mode` `enforce`, `monitor` or `warn`;
        `background` runs an observer without waiting for it. A callback that raises, returns
        something that is not a hook's answer, or overruns `timeout` is a failed hook, never a
        crash: a guard that fails closed blocks, naming the error.
        """
        spec: Dict[str, Any] = {
            "name": name or getattr(callback, "__name__", "python-hook"),
            "event": event,
            "phase": phase,
            "async": background,
            "protocol": protocol,
        }
        if matcher is not None:
            spec["matcher"] = matcher
        if timeout is not None:
            spec["timeout_ms"] = max(1, round(timeout * 1000))
        if on_failure is not None:
            spec["on_failure"] = on_failure
        if mode is not None:
            spec["mode"] = mode
        self._native.register(json.dumps(spec), _adapter(callback, protocol))

    def hook(
        self,
        event: str,
        *,
        name: Optional[str] = None,
        matcher: Optional[str] = None,
        timeout: Optional[float] = None,
        phase: str = "guard",
        on_failure: Optional[str] = None,
        mode: Optional[str] = None,
        background: bool = False,
        protocol: str = "forgeflare",
    ) -> Callable[[H], H]:
        """`register` as a decorator: `@runner.hook("PreToolUse", matcher="Bash")`."""

        def decorate(callback: H) -> H:
            self.register(
                event,
                callback,
                name=name,
                matcher=matcher,
                timeout=timeout,
                phase=phase,
                on_failure=on_failure,
                mode=mode,
                background=background,
                protocol=protocol,
            )
            return callback

        return decorate

    def close(self) -> None:
        """Stops the runner: fires in flight are cancelled (they raise `ClosedError`: there is
        no decision), later fires raise `ClosedError`."""
        self._native.close()

    @property
    def closed(self) -> bool:
        """True once `close` was called."""
        return self._native.closed

    @property
    def load_error(self) -> Optional[str]:
        """The configuration error a `fail_closed` runner blocks with, if any."""
        return self._native.load_error

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


# The word for "no objection" where `allow` is not one (forgeflare's protocol).
_CONTINUE_EVENTS = ("PostToolUse", "Stop")


def _adapter(callback: Hook, protocol: str) -> Callable[[str, Any], str]:
    """The callback as the native module calls it: the event's JSON text in, the answer's
    JSON text out. Exceptions go back to hookhost, which fails the hook with their message."""
    try:
        wants_cancel = len(inspect.signature(callback).parameters) >= 2
    except (TypeError, ValueError):
        wants_cancel = False

    def call(text: str, cancel: Any) -> str:
        event = json.loads(text)
        answer = callback(event, cancel) if wants_cancel else callback(event)
        if answer is None:
            if protocol != "forgeflare":
                return "{}"
            answer = {"action": "continue" if event.get("event") in _CONTINUE_EVENTS else "allow"}
        return json.dumps(answer)

    return call


def _completer(
    loop: asyncio.AbstractEventLoop, future: "asyncio.Future[Any]"
) -> Callable[[Any, Optional[BaseException]], None]:
    """A callback for the native module's `*_then` methods, called from a hookhost thread:
    settles `future` on its event loop."""

    def settle(result: Any, error: Optional[BaseException]) -> None:
        if future.cancelled():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def done(result: Any, error: Optional[BaseException]) -> None:
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:
            pass  # the loop is closed: nobody waits any more

    return done

