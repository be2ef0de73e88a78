"""Write hookhost hooks in Python.

A hook is a class that subclasses :class:`Hook`: one method per forgeflare event (``guard``,
``observe``, ``post``, ``stop``) and ``handle`` for every event, each with a harmless default.
:func:`export` turns it into the ``Handler`` that componentize-py builds into a WebAssembly
component for hookhost's ``hook`` world (``hookhost:hooks@0.2.0``)::

    from hook_sdk import Guard, Hook, export

    class NoForcePush(Hook):
        def guard(self, call):
            shell = call.shell()  # every agent's shell tool; bash() is Claude Code's Bash only
            if shell and "push --force" in shell.command:
                return Guard.block("force pushes rewrite shared history")
            return Guard.allow()

    Handler = export(NoForcePush)

Build with ``componentize-py -d wit -w hook componentize app -o hook.wasm``.

The same concepts as the Rust SDK (hook-sdk): typed events (:class:`ToolCall` with one
vocabulary of tools whatever the agent, ``call.kind`` and ``call.shell()``, ``paths()``,
``contents()``, ``urls()``, ``mcp()``; :class:`Event` for every event), verdict builders
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
    "Answer", "Blocked", "ConfigError", "Event", "Guard", "Hook", "KINDS", "Observed",
    "ObserveEvent", "Post", "PostEvent", "ShellInput", "StateError", "StopEvent", "ToolCall",
    "ToolView", "Verdict", "config", "dispatch", "event_tool_name", "export", "log", "logs",
    "mcp_name", "reset", "set_config", "state", "tool_kind", "view_tool",
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


# ---------------------------------------------------------------------------------------------
# Tools: one vocabulary, whatever the agent
#
# Each agent names its tools its own way (a shell command is Claude Code's ``Bash``, Copilot
# CLI's ``bash``, Gemini CLI's ``run_shell_command``, Codex CLI's ``Bash``, Cursor's ``Shell``).
# The table below, generated from the Rust crate hookhost-tools (tools/src/table.rs, where each
# agent's rows say which release they were checked against), gives each its kind and where its
# fields are; ``view_tool`` reads a call through it. A location is a path into the input
# (``edits.new_string`` maps over an array; ``""`` is the input itself), ``patch:LOC`` the files
# an apply_patch text names, ``urls:LOC`` the URLs written in a text.

KINDS = ("shell", "read", "write", "edit", "search", "fetch", "mcp", "other")

# BEGIN GENERATED TOOL TABLE: `cargo run -p hookhost-tools --example gen-sdk-tables` writes it from tools/src/table.rs.
# (agent, name, kind, source, command, paths, contents, urls, patterns)
_TOOLS = (
    ("claude", "Bash", "shell", "tool", ("command",), (), (), (), ()),
    ("claude", "PowerShell", "shell", "tool", ("command",), (), (), (), ()),
    ("claude", "Monitor", "shell", "tool", ("command",), (), (), ("ws.url",), ()),
    ("claude", "Read", "read", "tool", (), ("file_path",), (), (), ()),
    ("claude", "Write", "write", "tool", (), ("file_path",), ("content",), (), ()),
    ("claude", "Edit", "edit", "tool", (), ("file_path",), ("new_string",), (), ()),
    ("claude", "MultiEdit", "edit", "tool", (), ("file_path",), ("edits.new_string",), (), ()),
    ("claude", "NotebookEdit", "edit", "tool", (), ("notebook_path",), ("new_source",), (), ()),
    ("claude", "Glob", "search", "tool", (), ("path",), (), (), ("pattern",)),
    ("claude", "Grep", "search", "tool", (), ("path",), (), (), ("pattern",)),
    ("claude", "LS", "search", "tool", (), ("path",), (), (), ()),
    ("claude", "WebFetch", "fetch", "tool", (), (), (), ("url",), ()),
    ("claude", "WebSearch", "fetch", "tool", (), (), (), ("allowed_domains",), ("query",)),
    ("claude", "ListMcpResourcesTool", "mcp", "tool", (), (), (), (), ()),
    ("claude", "ReadMcpResourceTool", "mcp", "tool", (), (), (), ("uri",), ()),
    ("claude", "Agent", "other", "tool", (), (), (), (), ()),
    ("claude", "Task", "other", "tool", (), (), (), (), ()),
    ("claude", "TodoWrite", "other", "tool", (), (), (), (), ()),
    ("copilot", "bash", "shell", "tool", ("command",), (), (), (), ()),
    ("copilot", "powershell", "shell", "tool", ("command",), (), (), (), ()),
    ("copilot", "write_bash", "shell", "tool", ("input",), (), (), (), ()),
    ("copilot", "write_powershell", "shell", "tool", ("input",), (), (), (), ()),
    ("copilot", "view", "read", "tool", (), ("path",), (), (), ()),
    ("copilot", "create", "write", "tool", (), ("path",), ("file_text",), (), ()),
    ("copilot", "edit", "edit", "tool", (), ("path",), ("new_str",), (), ()),
    ("copilot", "str_replace", "edit", "tool", (), ("path",), ("new_str",), (), ()),
    ("copilot", "insert", "edit", "tool", (), ("path",), ("new_str",), (), ()),
    ("copilot", "str_replace_editor", "edit", "tool", (), ("path",), ("file_text", "new_str"), (), ()),
    ("copilot", "apply_patch", "edit", "tool", (), ("patch:", "patch:input"), ("", "input"), (), ()),
    ("copilot", "grep", "search", "tool", (), ("paths",), (), (), ("pattern",)),
    ("copilot", "rg", "search", "tool", (), ("paths",), (), (), ("pattern",)),
    ("copilot", "glob", "search", "tool", (), ("paths",), (), (), ("pattern",)),
    ("copilot", "web_fetch", "fetch", "tool", (), (), (), ("url",), ()),
    ("copilot", "web_search", "fetch", "tool", (), (), (), (), ("query",)),
    ("copilot", "task", "other", "tool", (), (), (), (), ()),
    ("gemini", "run_shell_command", "shell", "tool", ("command",), (), (), (), ()),
    ("gemini", "read_file", "read", "tool", (), ("file_path", "absolute_path"), (), (), ()),
    ("gemini", "read_many_files", "read", "tool", (), ("include", "paths"), (), (), ()),
    ("gemini", "write_file", "write", "tool", (), ("file_path",), ("content",), (), ()),
    ("gemini", "replace", "edit", "tool", (), ("file_path",), ("new_string",), (), ()),
    ("gemini", "glob", "search", "tool", (), ("dir_path", "path"), (), (), ("pattern",)),
    ("gemini", "grep_search", "search", "tool", (), ("dir_path", "path"), (), (), ("pattern",)),
    ("gemini", "search_file_content", "search", "tool", (), ("dir_path", "path"), (), (), ("pattern",)),
    ("gemini", "list_directory", "search", "tool", (), ("dir_path", "path"), (), (), ()),
    ("gemini", "web_fetch", "fetch", "tool", (), (), (), ("urls:prompt",), ()),
    ("gemini", "google_web_search", "fetch", "tool", (), (), (), (), ("query",)),
    ("gemini", "read_mcp_resource", "mcp", "tool", (), (), (), ("uri",), ()),
    ("gemini", "list_mcp_resources", "mcp", "tool", (), (), (), (), ()),
    ("gemini", "invoke_agent", "other", "tool", (), (), (), (), ()),
    ("gemini", "write_todos", "other", "tool", (), (), (), (), ()),
    ("codex", "Bash", "shell", "tool", ("command",), (), (), (), ()),
    ("codex", "shell", "shell", "tool", ("command",), (), (), (), ()),
    ("codex", "local_shell", "shell", "tool", ("command",), (), (), (), ()),
    ("codex", "shell_command", "shell", "tool", ("command",), (), (), (), ()),
    ("codex", "exec_command", "shell", "tool", ("cmd", "command"), (), (), (), ()),
    ("codex", "apply_patch", "edit", "tool", (), ("patch:command",), ("command",), (), ()),
    ("codex", "spawn_agent", "other", "tool", (), (), (), (), ()),
    ("cursor", "Shell", "shell", "tool", ("command",), (), (), (), ()),
    ("cursor", "Read", "read", "tool", (), ("file_path", "path", "target_file"), (), (), ()),
    ("cursor", "Write", "write", "tool", (), ("file_path", "path"), ("contents", "content"), (), ()),
    ("cursor", "StrReplace", "edit", "tool", (), ("file_path", "path"), ("new_string",), (), ()),
    ("cursor", "Delete", "write", "tool", (), ("file_path", "path", "target_file"), (), (), ()),
    ("cursor", "Grep", "search", "tool", (), ("path",), (), (), ("pattern",)),
    ("cursor", "Task", "other", "tool", (), (), (), (), ()),
    ("cursor", "beforeShellExecution", "shell", "event", ("command",), (), (), (), ()),
    ("cursor", "afterShellExecution", "shell", "event", ("command",), (), (), (), ()),
    ("cursor", "beforeReadFile", "read", "event", (), ("file_path",), (), (), ()),
    ("cursor", "beforeTabFileRead", "read", "event", (), ("file_path",), (), (), ()),
    ("cursor", "afterFileEdit", "edit", "event", (), ("file_path",), ("edits.new_string",), (), ()),
    ("cursor", "afterTabFileEdit", "edit", "event", (), ("file_path",), ("edits.new_string",), (), ()),
    ("forgeflare", "Bash", "shell", "tool", ("command",), (), (), (), ()),
    ("forgeflare", "Read", "read", "tool", (), ("path", "file_path"), (), (), ()),
    ("forgeflare", "Edit", "edit", "tool", (), ("path", "file_path"), ("new_str",), (), ()),
    ("forgeflare", "Glob", "search", "tool", (), ("path",), (), (), ()),
    ("forgeflare", "Grep", "search", "tool", (), ("path",), (), (), ("pattern",)),
)
_MCP_EVENTS = ("beforeMCPExecution", "afterMCPExecution")
# END GENERATED TOOL TABLE


def _rows(name: str) -> list:
    return [row for row in _TOOLS if row[1] == name]


def mcp_name(name: str) -> Optional[tuple]:
    """``(server, tool)`` for an MCP tool's name in one of the agents' spellings that no row
    lists: ``mcp__server__tool`` (Claude Code, Codex), ``mcp_server_tool`` (Gemini),
    ``MCP:tool`` (Cursor: no server), ``server-tool`` (Copilot: split at the last ``-``)."""
    if _rows(name):
        return None

    def split(whole: str, parts: Optional[tuple]) -> tuple:
        if parts and parts[0] and parts[1]:
            return (parts[0], parts[1])
        return (None, whole)

    if name.startswith("mcp__"):
        rest = name[5:]
        return split(rest, tuple(rest.split("__", 1)) if "__" in rest else None)
    if name.startswith("mcp_"):
        rest = name[4:]
        return split(rest, tuple(rest.split("_", 1)) if "_" in rest else None)
    if name.startswith("MCP:"):
        return (None, name[4:]) if len(name) > 4 else None
    if "-" in name and all(c.isascii() and (c.isalnum() or c in "-_") for c in name):
        return split(name, tuple(name.rsplit("-", 1)))
    return None


def tool_kind(name: str) -> str:
    """What the tool named ``name`` does: one of :data:`KINDS` (``other`` for unknown tools)."""
    rows = _rows(name)
    if rows:
        return rows[0][2]
    return "mcp" if mcp_name(name) is not None else "other"


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def _shell_join(argv: list) -> str:
    words = []
    for word in argv:
        if word and all(c in _SAFE for c in word):
            words.append(word)
        else:
            words.append("'" + word.replace("'", "'\"'\"'") + "'")
    return " ".join(words)


def _walk(value: Any, path: str, out: list) -> None:
    if isinstance(value, list):
        for item in value:
            _walk(item, path, out)
        return
    if path == "":
        if isinstance(value, str):
            out.append(value)
        return
    key, _, rest = path.partition(".")
    if isinstance(value, dict) and key in value:
        _walk(value[key], rest, out)


_PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def _patch_paths(patch: str) -> list:
    paths = []
    for line in patch.split("\n"):
        line = line.rstrip("\r")
        for header in _PATCH_HEADERS:
            if line.startswith(header):
                path = line[len(header):].strip()
                if path:
                    paths.append(path)
                break
    return paths


def _urls_in(text: str) -> list:
    urls = []
    rest = text
    while True:
        starts = [i for i in (rest.find("http://"), rest.find("https://")) if i >= 0]
        if not starts:
            return urls
        candidate = rest[min(starts):]
        end = next((i for i, c in enumerate(candidate) if c.isspace() or c in "\"'<>()[]{}`"),
                   len(candidate))
        url = candidate[:end].rstrip(".,;:!?")
        rest = candidate[end:]
        if len(url) > (8 if url.startswith("https://") else 7):
            urls.append(url)


def _strings(value: Any, location: str) -> list:
    for prefix, reader in (("patch:", _patch_paths), ("urls:", _urls_in)):
        if location.startswith(prefix):
            texts: list = []
            _walk(value, location[len(prefix):], texts)
            return [found for text in texts for found in reader(text)]
    found: list = []
    _walk(value, location, found)
    return found


def _command(value: Any, location: str) -> Optional[str]:
    for key in location.split(".") if location else []:
        value = value.get(key) if isinstance(value, dict) else None
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(word, str) for word in value):
        return _shell_join(value)
    return None


@dataclass
class ToolView:
    """A tool call seen through the vocabulary: its kind, and its fields under one name each."""

    tool: str
    kind: str
    command: Optional[str] = None
    paths: list = field(default_factory=list)
    contents: list = field(default_factory=list)
    urls: list = field(default_factory=list)
    patterns: list = field(default_factory=list)
    mcp: Optional[tuple] = None  # (server or None, tool)


def view_tool(name: str, tool_input: Any) -> ToolView:
    """The call of ``name`` with ``tool_input`` (parsed JSON) through the table."""
    view = ToolView(name, tool_kind(name), mcp=mcp_name(name))
    for row in _rows(name):
        if view.command is None:
            view.command = next((c for c in (_command(tool_input, l) for l in row[4])
                                 if c is not None), None)
        for locations, found in zip(row[5:], (view.paths, view.contents, view.urls,
                                               view.patterns)):
            for location in locations:
                for value in _strings(tool_input, location):
                    if value not in found:
                        found.append(value)
    return view


def event_tool_name(event: str, tool: Optional[str]) -> Optional[str]:
    """The tool name a Cursor event without one is viewed under: the event's own name
    (``beforeShellExecution``), or ``MCP:<tool>`` for its MCP events; else ``None``."""
    if event in _MCP_EVENTS:
        return None if tool is None else f"MCP:{tool}"
    return event if any(row[1] == event and row[3] == "event" for row in _TOOLS) else None


@dataclass
class ShellInput:
    """The command line a shell tool runs, whatever the agent calls the tool."""

    command: str
    description: Optional[str] = None


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

    @property
    def kind(self) -> str:
        """What the tool does, whatever the agent calls it: one of :data:`KINDS`."""
        return tool_kind(self.tool)

    def view(self) -> ToolView:
        """The call through the vocabulary: kind, command, paths, contents, URLs, patterns."""
        return view_tool(self.tool, self.input)

    def shell(self) -> Optional[ShellInput]:
        """The command line of any agent's shell tool (``Bash``, ``bash``,
        ``run_shell_command``, ``Shell``, ...), else ``None``. Use it rather than :meth:`bash`."""
        if self.kind != "shell":
            return None
        view = self.view()
        if view.command is None:
            return None
        description = self.input.get("description") if isinstance(self.input, dict) else None
        return ShellInput(view.command, description if isinstance(description, str) else None)

    def paths(self) -> list:
        """The files and directories the call reads, writes or searches."""
        return self.view().paths

    def contents(self) -> list:
        """The text the call writes (whole files, new strings, patches)."""
        return self.view().contents

    def urls(self) -> list:
        """The URLs (or domains) the call reaches."""
        return self.view().urls

    def mcp(self) -> Optional[tuple]:
        """``(server, tool)`` when the tool is an MCP server's (server ``None`` if unnamed)."""
        return self.view().mcp

    def bash(self) -> Optional[BashInput]:
        """The input of a call of the tool named ``Bash`` (Claude Code's, Codex's, forgeflare's
        name only), else ``None``. Kept for compatibility: :meth:`shell` sees every agent's."""
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

    def tool_use(self) -> Optional[ToolCall]:
        """The tool call this event is about, whatever the agent: :meth:`tool_call` on tool
        events; on Cursor's events that carry no tool name, a call named after the event
        (``beforeShellExecution``, its payload as input) or ``MCP:<tool>`` (its MCP events)."""
        named = event_tool_name(self.name, self.tool_name)
        if named is None:
            return self.tool_call()
        call = self.tool_call()
        if call is not None:
            return ToolCall(named, call.input, call.tool_iterations, self.cwd)
        return ToolCall(named, self.payload_dict(), 1, self.cwd)

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
