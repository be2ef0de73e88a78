"""Write hookhost hooks in Python.

A hook is a class that subclasses :class:`Hook`: one method per forgeflare event (``guard``,
``observe``, ``post``, ``stop``) and ``handle`` for every event, each with a harmless default.
:func:`export` turns it into the ``Handler`` that componentize-py builds into a WebAssembly
component for hookhost's ``hook`` world (``hookhost:hooks@0.2.0``)::

    from hook_sdk import Guard, Hook, export

    class NoForcePush(Hook):
        def guard(self, call):
            bash = call.bash()
            if bash and "push --force" in bash.command:
                return Guard.block("force pushes rewrite shared history")
            return Guard.allow()

    Handler = export(NoForcePush)

Build with ``componentize-py -d wit -w hook componentize app -o hook.wasm``.

The same concepts as the Rust SDK (hook-sdk): typed events (:class:`ToolCall` with
``bash()``, ``read()``, ``edit()``, ...; :class:`Event` for every event), verdict builders
(:class:`Guard`, :class:`Post`, :class:`Verdict`), :func:`config`, :data:`log`, :data:`state`.
Outside a component (plain ``python -m unittest``) the host is an in-memory stand-in that
:mod:`hook_sdk.testing`-style helpers (:func:`set_config`, :func:`logs`, :func:`reset`) control,
so hooks are unit-testable without building anything.

Every call runs in a fresh instance: module globals do not survive from one call to the next.
Use :data:`state` for memory across calls.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

__all__ = [
    "Answer", "Blocked", "ConfigError", "Event", "Guard", "Hook", "Observed", "ObserveEvent",
    "Post", "PostEvent", "StateError", "StopEvent", "ToolCall", "Verdict", "config", "dispatch",
    "export", "log", "logs", "reset", "set_config", "state",
]

# The WIT package this SDK is written against.
WIT_PACKAGE = "hookhost:hooks@0.2.0"

try:  # Inside the component: componentize-py's generated bindings.
    from wit_world.imports import host as _wit_host
    from wit_world.imports import state as _wit_state
    from wit_world.imports import types as _wit_types
except ImportError:  # Anywhere else: the in-memory host below.
    _wit_host = _wit_state = _wit_types = None


# ---------------------------------------------------------------------------------------------
# Events


@dataclass
class BashInput:
    """``Bash``: run a shell command."""

    command: str
    description: Optional[str] = None


@dataclass
class ReadInput:
    """``Read``: read a file."""

    file_path: str


@dataclass
class EditInput:
    """``Edit``: replace ``old_str`` with ``new_str`` in ``file_path``."""

    file_path: str
    old_str: str
    new_str: str
    replace_all: bool = False


@dataclass
class ToolCall:
    """A tool call. ``input`` is the parsed JSON input (a string when it is not JSON)."""

    tool: str
    input: Any
    tool_iterations: int = 1
    cwd: str = "/workspace"

    @staticmethod
    def bash_command(command: str) -> "ToolCall":
        """A ``Bash`` call of ``command``: for tests."""
        return ToolCall("Bash", {"command": command})

    @staticmethod
    def read_file(file_path: str) -> "ToolCall":
        """A ``Read`` call of ``file_path``: for tests."""
        return ToolCall("Read", {"file_path": file_path})

    @staticmethod
    def edit_file(file_path: str, old_str: str, new_str: str) -> "ToolCall":
        """An ``Edit`` call: for tests."""
        return ToolCall("Edit", {"file_path": file_path, "old_str": old_str, "new_str": new_str})

    def _typed(self, tool: str, cls: type, required: tuple, optional: tuple) -> Any:
        if self.tool != tool or not isinstance(self.input, dict):
            return None
        if not all(isinstance(self.input.get(name), str) for name in required):
            return None
        known = {name: self.input[name] for name in required + optional if name in self.input}
        return cls(**known)

    def bash(self) -> Optional[BashInput]:
        """The input of a ``Bash`` call, else ``None``."""
        return self._typed("Bash", BashInput, ("command",), ("description",))

    def read(self) -> Optional[ReadInput]:
        """The input of a ``Read`` call, else ``None``."""
        return self._typed("Read", ReadInput, ("file_path",), ())

    def edit(self) -> Optional[EditInput]:
        """The input of an ``Edit`` call, else ``None``."""
        return self._typed("Edit", EditInput, ("file_path", "old_str", "new_str"), ("replace_all",))


@dataclass
class Blocked:
    """Which guard blocked a call, and why."""

    by: str
    reason: str


@dataclass
class ObserveEvent:
    """PreToolUse, observe phase: the call and what the guards decided (``blocked``)."""

    call: ToolCall
    blocked: Optional[Blocked] = None


@dataclass
class PostEvent:
    """PostToolUse: the call and its result."""

    call: ToolCall
    result: str
    is_error: bool = False


STOP_REASONS = (
    "end_turn", "iteration_limit", "api_error", "continuation_cap",
    "block_limit_consecutive", "block_limit_total", "convergence_signal",
)


@dataclass
class StopEvent:
    """Stop: why the agent's run ended (one of :data:`STOP_REASONS`)."""

    reason: str
    tool_iterations: int = 0
    total_tokens: int = 0
    cwd: str = "/workspace"


@dataclass
class Observed:
    """What the guards of an event decided, as an observer sees it."""

    decision: str  # allow, approve, warn, ask or block
    by: Optional[str] = None
    reason: Optional[str] = None


@dataclass
class Event:
    """One event, as the hook sees it: SessionStart, UserPromptSubmit, PreToolUse, custom ones.

    ``payload`` is the event's own fields as JSON text; read it with :meth:`field`.
    """

    name: str
    phase: str = "guard"  # or "observe"
    session_id: Optional[str] = None
    cwd: str = "/workspace"
    tool: Optional[tuple] = None  # (tool, input JSON text, tool_iterations)
    payload: str = "{}"
    observed: Optional[Observed] = None

    def with_tool(self, call: ToolCall) -> "Event":
        """The same event about ``call``: for tests."""
        self.tool = (call.tool, json.dumps(call.input), call.tool_iterations)
        return self

    def with_field(self, name: str, value: Any) -> "Event":
        """The same event with a payload field set: for tests."""
        payload = self.payload_dict()
        payload[name] = value
        self.payload = json.dumps(payload)
        return self

    @property
    def tool_name(self) -> Optional[str]:
        """The tool's name, for tool events, without parsing the input."""
        return self.tool[0] if self.tool else None

    def tool_call(self) -> Optional[ToolCall]:
        """The tool call, for tool events (its input parsed)."""
        if self.tool is None:
            return None
        tool, text, iterations = self.tool
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        return ToolCall(tool, parsed, iterations, self.cwd)

    def payload_dict(self) -> dict:
        """The event's own fields (``{}`` when none)."""
        try:
            payload = json.loads(self.payload)
        except ValueError:
            return {}
        return payload if isinstance(payload, dict) else {}

    def field(self, name: str, default: Any = None) -> Any:
        """A payload field."""
        return self.payload_dict().get(name, default)


# ---------------------------------------------------------------------------------------------
# Answers


@dataclass(frozen=True)
class Answer:
    """A decision: ``allow``, ``approve``, ``warn``, ``ask`` or ``block`` (the last three with a
    reason)."""

    kind: str = "allow"
    reason: Optional[str] = None


@dataclass
class Verdict:
    """A hook's whole answer to an event. Build it with the class methods and ``with_*``."""

    answer: Answer = field(default_factory=Answer)
    updated_input: Any = None
    context: Optional[str] = None
    stop: Optional[str] = None
    signal: Optional[tuple] = None  # (name, reason)
    message: Optional[str] = None

    @classmethod
    def allow(cls) -> "Verdict":
        """No objection."""
        return cls()

    @classmethod
    def approve(cls) -> "Verdict":
        """Explicit permission: an agent with permission prompts may skip its prompt."""
        return cls(Answer("approve"))

    @classmethod
    def warn(cls, reason: str) -> "Verdict":
        """Go on, surfacing ``reason``."""
        return cls(Answer("warn", reason))

    @classmethod
    def ask(cls, reason: str) -> "Verdict":
        """Defer to the agent's user."""
        return cls(Answer("ask", reason))

    @classmethod
    def block(cls, reason: str) -> "Verdict":
        """Stop what the event is about (PreToolUse: the model sees ``blocked by HOOK: reason``)."""
        return cls(Answer("block", reason))

    @classmethod
    def raise_signal(cls, name: str, reason: str) -> "Verdict":
        """No objection, and a named signal (PostToolUse)."""
        return cls(signal=(name, reason))

    def with_context(self, context: str) -> "Verdict":
        """Adds context for the model."""
        self.context = context
        return self

    def with_updated_input(self, updated_input: Any) -> "Verdict":
        """Rewrites the tool input (any JSON value): the tool runs with it."""
        self.updated_input = updated_input
        return self

    def with_stop(self, reason: str) -> "Verdict":
        """Asks the agent to end its run."""
        self.stop = reason
        return self

    def with_message(self, message: str) -> "Verdict":
        """Adds a message for the agent's user."""
        self.message = message
        return self


class Guard:
    """A guard's answer: ``Guard.allow()`` or ``Guard.block(reason)``."""

    @staticmethod
    def allow() -> Verdict:
        """Let the tool run."""
        return Verdict.allow()

    @staticmethod
    def block(reason: str) -> Verdict:
        """Do not run it; the model sees ``blocked by HOOK: reason``."""
        return Verdict.block(reason)


class Post:
    """A PostToolUse answer: ``Post.proceed()`` or ``Post.signal(name, reason)``."""

    @staticmethod
    def proceed() -> Verdict:
        """Nothing to say."""
        return Verdict.allow()

    @staticmethod
    def signal(name: str, reason: str) -> Verdict:
        """Raise a signal (for example ``converged``); the first one ends forgeflare's loop."""
        return Verdict.raise_signal(name, reason)


# ---------------------------------------------------------------------------------------------
# The hook


class Hook:
    """Subclass it and override what you need. hookhost calls :meth:`handle` for every event
    the hook is configured for; its default sends forgeflare's events to the methods below."""

    def guard(self, call: ToolCall) -> Verdict:
        """PreToolUse, guard phase: allow or block. An exception blocks too (fail closed)."""
        return Guard.allow()

    def observe(self, event: ObserveEvent) -> None:
        """PreToolUse, observe phase: runs after the guards, always."""

    def post(self, event: PostEvent) -> Verdict:
        """PostToolUse: look at a result; optionally signal."""
        return Post.proceed()

    def stop(self, event: StopEvent) -> None:
        """Stop: the agent's run ended."""

    def handle(self, event: Event) -> Verdict:
        """Every event. Override it for other events or richer answers (ask, warn, rewrites,
        context); call :func:`dispatch` for the events you leave to the methods above."""
        return dispatch(self, event)


def dispatch(hook: Hook, event: Event) -> Verdict:
    """The default routing of :meth:`Hook.handle`: forgeflare's events go to ``guard``,
    ``observe``, ``post`` and ``stop``; every other event is allowed."""
    call = event.tool_call()
    if event.name == "PreToolUse" and call is not None:
        if event.phase == "guard":
            return hook.guard(call)
        observed = event.observed
        blocked = None
        if observed is not None and observed.decision == "block":
            blocked = Blocked(observed.by or "", observed.reason or "")
        hook.observe(ObserveEvent(call, blocked))
        return Verdict.allow()
    if event.name == "PostToolUse" and call is not None:
        result = event.field("result", "")
        return hook.post(PostEvent(call, result if isinstance(result, str) else "",
                                   event.field("is_error") is True))
    if event.name == "Stop":
        reason = event.field("reason")
        if reason in STOP_REASONS:
            number = lambda name: event.field(name) if isinstance(event.field(name), int) else 0
            hook.stop(StopEvent(reason, number("tool_iterations"), number("total_tokens"), event.cwd))
        return Verdict.allow()
    return Verdict.allow()


# ---------------------------------------------------------------------------------------------
# The host: configuration, logging, state


class ConfigError(ValueError):
    """The hook's ``[hooks.config]`` could not be read."""


class StateError(RuntimeError):
    """``state.set`` went past a limit (keys 256 bytes, values 64 KiB, 1024 keys)."""


class _MemoryHost:
    """The stand-in host outside a component, for unit tests."""

    def __init__(self) -> None:
        self.config = "{}"
        self.state: dict = {}
        self.logs: list = []


_memory = _MemoryHost()


def config(kind: Optional[Callable[..., Any]] = None) -> Any:
    """The hook's ``[hooks.config]`` table as a dict, or ``kind(**table)`` (a dataclass, say).

    Raises :class:`ConfigError` when it does not fit; a guard should then block (fail closed).
    """
    text = _wit_host.config() if _wit_host else _memory.config
    try:
        table = json.loads(text)
    except ValueError as error:
        raise ConfigError(f"the configuration is not JSON: {error}") from None
    if kind is None:
        return table
    try:
        return kind(**table)
    except TypeError as error:
        raise ConfigError(f"invalid [hooks.config]: {error}") from None


class _Log:
    """Logging, shown on the agent's stderr as ``[hook NAME] level: message``."""

    def _log(self, level: str, message: str) -> None:
        if _wit_host:
            _wit_host.log(getattr(_wit_host.LogLevel, level.upper()), str(message))
        else:
            _memory.logs.append((level, str(message)))

    def trace(self, message: str) -> None:
        """Fine detail."""
        self._log("trace", message)

    def debug(self, message: str) -> None:
        """Diagnostics."""
        self._log("debug", message)

    def info(self, message: str) -> None:
        """Normal messages."""
        self._log("info", message)

    def warn(self, message: str) -> None:
        """Something looks wrong."""
        self._log("warn", message)

    def error(self, message: str) -> None:
        """Something is wrong."""
        self._log("error", message)


class _State:
    """A small key-value store that outlives a call (one agent session, in memory)."""

    def get(self, key: str) -> Optional[bytes]:
        """The value under ``key``, if any."""
        if _wit_state:
            return _wit_state.get(key)
        return _memory.state.get(key)

    def set(self, key: str, value: bytes) -> None:
        """Stores ``value``; raises :class:`StateError` past a limit."""
        if _wit_state:
            try:
                _wit_state.set(key, bytes(value))
            except Exception as error:  # componentize_py_types.Err carries the host's message
                raise StateError(getattr(error, "value", str(error))) from None
        else:
            _memory.state[key] = bytes(value)

    def delete(self, key: str) -> None:
        """Removes ``key`` (a missing key is not an error)."""
        if _wit_state:
            _wit_state.delete(key)
        else:
            _memory.state.pop(key, None)

    def get_json(self, key: str) -> Any:
        """The JSON value under ``key``, or ``None``."""
        value = self.get(key)
        return None if value is None else json.loads(value)

    def set_json(self, key: str, value: Any) -> None:
        """Stores ``value`` as JSON."""
        self.set(key, json.dumps(value).encode())


log = _Log()
state = _State()


def set_config(table: dict) -> None:
    """Tests: what :func:`config` returns."""
    _memory.config = json.dumps(table)


def logs() -> list:
    """Tests: the ``(level, message)`` pairs logged so far."""
    return list(_memory.logs)


def reset() -> None:
    """Tests: clears the configuration, state and logs."""
    global _memory
    _memory = _MemoryHost()


# ---------------------------------------------------------------------------------------------
# The component glue


def export(hook_class: type) -> type:
    """The ``Handler`` class componentize-py exports for ``hook_class``: assign it to a global
    named ``Handler`` in the app module (``Handler = export(MyHook)``)."""
    base = object
    if _wit_types is not None:
        from wit_world import exports as _wit_exports
        base = _wit_exports.Handler

    class Handler(base):  # type: ignore[misc, valid-type]
        def handle(self, raw: Any) -> Any:
            return _to_wit(hook_class().handle(_from_wit(raw)))

    Handler.__qualname__ = f"Handler[{hook_class.__name__}]"
    return Handler


_DECISIONS = ("allow", "approve", "warn", "ask", "block")


def _from_wit(raw: Any) -> Event:
    observed = None
    if raw.observed is not None:
        observed = Observed(_DECISIONS[raw.observed.decision.value], raw.observed.by,
                            raw.observed.reason)
    tool = None
    if raw.tool is not None:
        tool = (raw.tool.tool, raw.tool.input, raw.tool.tool_iterations)
    phase = "guard" if raw.phase == _wit_types.Phase.GUARD else "observe"
    return Event(raw.name, phase, raw.session_id, raw.cwd, tool, raw.payload, observed)


def _to_wit(verdict: Verdict) -> Any:
    t = _wit_types
    if not isinstance(verdict, Verdict):
        raise TypeError(f"a hook must return a Verdict, not {type(verdict).__name__}")
    kind, reason = verdict.answer.kind, verdict.answer.reason or ""
    answer = {
        "allow": lambda: t.Answer_Allow(),
        "approve": lambda: t.Answer_Approve(),
        "warn": lambda: t.Answer_Warn(reason),
        "ask": lambda: t.Answer_Ask(reason),
        "block": lambda: t.Answer_Block(reason),
    }[kind]()
    updated = None if verdict.updated_input is None else json.dumps(verdict.updated_input)
    signal = None if verdict.signal is None else t.Signal(*verdict.signal)
    return t.Verdict(answer, updated, verdict.context, verdict.stop, signal, verdict.message)
