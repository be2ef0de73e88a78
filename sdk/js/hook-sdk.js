// Write hookhost hooks in JavaScript.
//
// A hook is a class that extends `Hook`: one method per forgeflare event (`guard`, `observe`,
// `post`, `stop`) and `handle` for every event, each with a harmless default. `exportHook`
// turns it into the `handler` object that componentize-qjs builds into a WebAssembly component
// for hookhost's `hook` world (hookhost:hooks@0.2.0):
//
//     import { Guard, Hook } from "./hook-sdk.js";
//
//     export class NoForcePush extends Hook {
//       guard(call) {
//         const shell = call.shell(); // every agent's shell tool; bash() is Claude Code's Bash only
//         if (shell && shell.command.includes("push --force")) {
//           return Guard.block("force pushes rewrite shared history");
//         }
//         return Guard.allow();
//       }
//     }
//
// and, in the component's entry file (the only file that imports hookhost's interfaces):
//
//     import host from "hookhost:hooks/host@0.2.0";
//     import state from "hookhost:hooks/state@0.2.0";
//     import { exportHook } from "./hook-sdk.js";
//     import { NoForcePush } from "./hook.js";
//     export const handler = exportHook(NoForcePush, { host, state });
//
// The same concepts as the Rust SDK (hook-sdk): typed events (`ToolCall` with one vocabulary
// of tools whatever the agent, `call.kind` and `call.shell()`, `paths()`, `contents()`,
// `urls()`, `mcp()`; `Event` for every event), verdict builders (`Guard`, `Post`, `Verdict`),
// `config()`, `log`, `state`. Until `exportHook` connects the real host (under plain Node, in
// unit tests) they use an in-memory host that `setConfig`, `logs` and `reset` control.
//
// Every call runs in a fresh instance: module variables do not survive from one call to the
// next. Use `state` for memory across calls.

/** The WIT package this SDK is written against. */
export const WIT_PACKAGE = "hookhost:hooks@0.2.0";

// ---------------------------------------------------------------------------------------------
// Tools: one vocabulary, whatever the agent
//
// Each agent names its tools its own way (a shell command is Claude Code's `Bash`, Copilot
// CLI's `bash`, Gemini CLI's `run_shell_command`, Codex CLI's `Bash`, Cursor's `Shell`). The
// table below, generated from the Rust crate hookhost-tools (tools/src/table.rs, where each
// agent's rows say which release they were checked against), gives each its kind and where its
// fields are; `viewTool` reads a call through it. A location is a path into the input
// (`edits.new_string` maps over an array; `""` is the input itself), `patch:LOC` the files an
// apply_patch text names, `urls:LOC` the URLs written in a text.

/** What a tool does: the vocabulary. */
export const KINDS = ["shell", "read", "write", "edit", "search", "fetch", "mcp", "other"];

// BEGIN GENERATED TOOL TABLE: `cargo run -p hookhost-tools --example gen-sdk-tables` writes it from tools/src/table.rs.
// [agent, name, kind, source, command, paths, contents, urls, patterns]
export const TOOLS = [
  ["claude", "Bash", "shell", "tool", ["command"], [], [], [], []],
  ["claude", "PowerShell", "shell", "tool", ["command"], [], [], [], []],
  ["claude", "Monitor", "shell", "tool", ["command"], [], [], ["ws.url"], []],
  ["claude", "Read", "read", "tool", [], ["file_path"], [], [], []],
  ["claude", "Write", "write", "tool", [], ["file_path"], ["content"], [], []],
  ["claude", "Edit", "edit", "tool", [], ["file_path"], ["new_string"], [], []],
  ["claude", "MultiEdit", "edit", "tool", [], ["file_path"], ["edits.new_string"], [], []],
  ["claude", "NotebookEdit", "edit", "tool", [], ["notebook_path"], ["new_source"], [], []],
  ["claude", "Glob", "search", "tool", [], ["path"], [], [], ["pattern"]],
  ["claude", "Grep", "search", "tool", [], ["path"], [], [], ["pattern"]],
  ["claude", "LS", "search", "tool", [], ["path"], [], [], []],
  ["claude", "WebFetch", "fetch", "tool", [], [], [], ["url"], []],
  ["claude", "WebSearch", "fetch", "tool", [], [], [], ["allowed_domains"], ["query"]],
  ["claude", "ListMcpResourcesTool", "mcp", "tool", [], [], [], [], []],
  ["claude", "ReadMcpResourceTool", "mcp", "tool", [], [], [], ["uri"], []],
  ["claude", "Agent", "other", "tool", [], [], [], [], []],
  ["claude", "Task", "other", "tool", [], [], [], [], []],
  ["claude", "TodoWrite", "other", "tool", [], [], [], [], []],
  ["copilot", "bash", "shell", "tool", ["command"], [], [], [], []],
  ["copilot", "powershell", "shell", "tool", ["command"], [], [], [], []],
  ["copilot", "write_bash", "shell", "tool", ["input"], [], [], [], []],
  ["copilot", "write_powershell", "shell", "tool", ["input"], [], [], [], []],
  ["copilot", "view", "read", "tool", [], ["path"], [], [], []],
  ["copilot", "create", "write", "tool", [], ["path"], ["file_text"], [], []],
  ["copilot", "edit", "edit", "tool", [], ["path"], ["new_str"], [], []],
  ["copilot", "str_replace", "edit", "tool", [], ["path"], ["new_str"], [], []],
  ["copilot", "insert", "edit", "tool", [], ["path"], ["new_str"], [], []],
  ["copilot", "str_replace_editor", "edit", "tool", [], ["path"], ["file_text", "new_str"], [], []],
  ["copilot", "apply_patch", "edit", "tool", [], ["patch:", "patch:input"], ["", "input"], [], []],
  ["copilot", "grep", "search", "tool", [], ["paths"], [], [], ["pattern"]],
  ["copilot", "rg", "search", "tool", [], ["paths"], [], [], ["pattern"]],
  ["copilot", "glob", "search", "tool", [], ["paths"], [], [], ["pattern"]],
  ["copilot", "web_fetch", "fetch", "tool", [], [], [], ["url"], []],
  ["copilot", "web_search", "fetch", "tool", [], [], [], [], ["query"]],
  ["copilot", "task", "other", "tool", [], [], [], [], []],
  ["gemini", "run_shell_command", "shell", "tool", ["command"], [], [], [], []],
  ["gemini", "read_file", "read", "tool", [], ["file_path", "absolute_path"], [], [], []],
  ["gemini", "read_many_files", "read", "tool", [], ["include", "paths"], [], [], []],
  ["gemini", "write_file", "write", "tool", [], ["file_path"], ["content"], [], []],
  ["gemini", "replace", "edit", "tool", [], ["file_path"], ["new_string"], [], []],
  ["gemini", "glob", "search", "tool", [], ["dir_path", "path"], [], [], ["pattern"]],
  ["gemini", "grep_search", "search", "tool", [], ["dir_path", "path"], [], [], ["pattern"]],
  ["gemini", "search_file_content", "search", "tool", [], ["dir_path", "path"], [], [], ["pattern"]],
  ["gemini", "list_directory", "search", "tool", [], ["dir_path", "path"], [], [], []],
  ["gemini", "web_fetch", "fetch", "tool", [], [], [], ["urls:prompt"], []],
  ["gemini", "google_web_search", "fetch", "tool", [], [], [], [], ["query"]],
  ["gemini", "read_mcp_resource", "mcp", "tool", [], [], [], ["uri"], []],
  ["gemini", "list_mcp_resources", "mcp", "tool", [], [], [], [], []],
  ["gemini", "invoke_agent", "other", "tool", [], [], [], [], []],
  ["gemini", "write_todos", "other", "tool", [], [], [], [], []],
  ["codex", "Bash", "shell", "tool", ["command"], [], [], [], []],
  ["codex", "shell", "shell", "tool", ["command"], [], [], [], []],
  ["codex", "local_shell", "shell", "tool", ["command"], [], [], [], []],
  ["codex", "shell_command", "shell", "tool", ["command"], [], [], [], []],
  ["codex", "exec_command", "shell", "tool", ["cmd", "command"], [], [], [], []],
  ["codex", "apply_patch", "edit", "tool", [], ["patch:command"], ["command"], [], []],
  ["codex", "spawn_agent", "other", "tool", [], [], [], [], []],
  ["cursor", "Shell", "shell", "tool", ["command"], [], [], [], []],
  ["cursor", "Read", "read", "tool", [], ["file_path", "path", "target_file"], [], [], []],
  ["cursor", "Write", "write", "tool", [], ["file_path", "path"], ["contents", "content"], [], []],
  ["cursor", "StrReplace", "edit", "tool", [], ["file_path", "path"], ["new_string"], [], []],
  ["cursor", "Delete", "write", "tool", [], ["file_path", "path", "target_file"], [], [], []],
  ["cursor", "Grep", "search", "tool", [], ["path"], [], [], ["pattern"]],
  ["cursor", "Task", "other", "tool", [], [], [], [], []],
  ["cursor", "beforeShellExecution", "shell", "event", ["command"], [], [], [], []],
  ["cursor", "afterShellExecution", "shell", "event", ["command"], [], [], [], []],
  ["cursor", "beforeReadFile", "read", "event", [], ["file_path"], [], [], []],
  ["cursor", "beforeTabFileRead", "read", "event", [], ["file_path"], [], [], []],
  ["cursor", "afterFileEdit", "edit", "event", [], ["file_path"], ["edits.new_string"], [], []],
  ["cursor", "afterTabFileEdit", "edit", "event", [], ["file_path"], ["edits.new_string"], [], []],
  ["forgeflare", "Bash", "shell", "tool", ["command"], [], [], [], []],
  ["forgeflare", "Read", "read", "tool", [], ["path", "file_path"], [], [], []],
  ["forgeflare", "Edit", "edit", "tool", [], ["path", "file_path"], ["new_str"], [], []],
  ["forgeflare", "Glob", "search", "tool", [], ["path"], [], [], []],
  ["forgeflare", "Grep", "search", "tool", [], ["path"], [], [], ["pattern"]],
];
export const MCP_EVENTS = ["beforeMCPExecution", "afterMCPExecution"];
// END GENERATED TOOL TABLE

const rowsNamed = (name) => TOOLS.filter((row) => row[1] === name);

/**
 * `{ server, tool }` for an MCP tool's name in one of the agents' spellings that no row lists:
 * `mcp__server__tool` (Claude Code, Codex), `mcp_server_tool` (Gemini), `MCP:tool` (Cursor: no
 * server), `server-tool` (Copilot: split at the last `-`); else null.
 */
export function mcpName(name) {
  if (rowsNamed(name).length > 0) return null;
  const split = (whole, at, width) =>
    at > 0 && at + width < whole.length
      ? { server: whole.slice(0, at), tool: whole.slice(at + width) }
      : { server: null, tool: whole };
  if (name.startsWith("mcp__")) {
    const rest = name.slice(5);
    return split(rest, rest.indexOf("__"), 2);
  }
  if (name.startsWith("mcp_")) {
    const rest = name.slice(4);
    return split(rest, rest.indexOf("_"), 1);
  }
  if (name.startsWith("MCP:")) return name.length > 4 ? { server: null, tool: name.slice(4) } : null;
  if (name.includes("-") && /^[A-Za-z0-9_-]+$/.test(name)) return split(name, name.lastIndexOf("-"), 1);
  return null;
}

/** What the tool named `name` does: one of `KINDS` (`other` for unknown tools). */
export function toolKind(name) {
  const rows = rowsNamed(name);
  if (rows.length > 0) return rows[0][2];
  return mcpName(name) ? "mcp" : "other";
}

const shellJoin = (argv) =>
  argv.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.split("'").join(`'"'"'`)}'`)).join(" ");

function walk(value, path, out) {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, path, out);
    return;
  }
  if (path === "") {
    if (typeof value === "string") out.push(value);
    return;
  }
  const dot = path.indexOf(".");
  const [key, rest] = dot < 0 ? [path, ""] : [path.slice(0, dot), path.slice(dot + 1)];
  if (value !== null && typeof value === "object" && Object.prototype.hasOwnProperty.call(value, key)) walk(value[key], rest, out);
}

const PATCH_HEADERS = ["*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "];

function patchPaths(patch) {
  const paths = [];
  for (let line of patch.split("\n")) {
    line = line.replace(/\r$/, "");
    const header = PATCH_HEADERS.find((h) => line.startsWith(h));
    const path = header ? line.slice(header.length).trim() : "";
    if (path) paths.push(path);
  }
  return paths;
}

function urlsIn(text) {
  const urls = [];
  let rest = text;
  for (;;) {
    const starts = [rest.indexOf("http://"), rest.indexOf("https://")].filter((i) => i >= 0);
    if (starts.length === 0) return urls;
    const candidate = rest.slice(Math.min(...starts));
    const stop = candidate.search(/[\s"'<>()[\]{}`]/);
    const end = stop < 0 ? candidate.length : stop;
    const url = candidate.slice(0, end).replace(/[.,;:!?]+$/, "");
    rest = candidate.slice(end);
    if (url.length > (url.startsWith("https://") ? 8 : 7)) urls.push(url);
  }
}

function strings(value, location) {
  for (const [prefix, reader] of [["patch:", patchPaths], ["urls:", urlsIn]]) {
    if (location.startsWith(prefix)) {
      const texts = [];
      walk(value, location.slice(prefix.length), texts);
      return texts.flatMap(reader);
    }
  }
  const found = [];
  walk(value, location, found);
  return found;
}

function commandAt(value, location) {
  for (const key of location ? location.split(".") : []) {
    value = value !== null && typeof value === "object" && !Array.isArray(value) ? value[key] : undefined;
  }
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.length > 0 && value.every((word) => typeof word === "string")) return shellJoin(value);
  return null;
}

/**
 * The call of `name` with `input` (parsed JSON) through the table: `{ tool, kind, command,
 * paths, contents, urls, patterns, mcp }`.
 */
export function viewTool(name, input) {
  const view = { tool: name, kind: toolKind(name), command: null, paths: [], contents: [], urls: [], patterns: [], mcp: mcpName(name) };
  for (const row of rowsNamed(name)) {
    if (view.command === null) {
      view.command = row[4].map((location) => commandAt(input, location)).find((c) => c !== null) ?? null;
    }
    [view.paths, view.contents, view.urls, view.patterns].forEach((found, i) => {
      for (const location of row[5 + i]) {
        for (const value of strings(input, location)) if (!found.includes(value)) found.push(value);
      }
    });
  }
  return view;
}

/**
 * The tool name a Cursor event without one is viewed under: the event's own name
 * (`beforeShellExecution`), or `MCP:<tool>` for its MCP events; else null.
 */
export function eventToolName(event, tool) {
  if (MCP_EVENTS.includes(event)) return tool == null ? null : `MCP:${tool}`;
  return TOOLS.some((row) => row[1] === event && row[3] === "event") ? event : null;
}

// ---------------------------------------------------------------------------------------------
// Events

/** A tool call. `input` is the parsed JSON input (a string when it is not JSON). */
export class ToolCall {
  constructor(tool, input, toolIterations = 1, cwd = "/workspace") {
    this.tool = tool;
    this.input = input;
    this.toolIterations = toolIterations;
    this.cwd = cwd;
  }

  /** A `Bash` call of `command`: for tests. */
  static bashCommand(command) {
    return new ToolCall("Bash", { command });
  }

  /** A `Read` call of `filePath`: for tests. */
  static readFile(filePath) {
    return new ToolCall("Read", { file_path: filePath });
  }

  /** An `Edit` call: for tests. */
  static editFile(filePath, oldStr, newStr) {
    return new ToolCall("Edit", { file_path: filePath, old_str: oldStr, new_str: newStr });
  }

  #typed(tool, required) {
    const input = this.input;
    if (this.tool !== tool || input === null || typeof input !== "object") return null;
    return required.every((name) => typeof input[name] === "string") ? input : null;
  }

  /** What the tool does, whatever the agent calls it: one of `KINDS`. */
  get kind() {
    return toolKind(this.tool);
  }

  /** The call through the vocabulary: `{ tool, kind, command, paths, contents, urls, patterns, mcp }`. */
  view() {
    return viewTool(this.tool, this.input);
  }

  /**
   * `{ command, description }` of any agent's shell tool (`Bash`, `bash`, `run_shell_command`,
   * `Shell`, ...), else null. Use it rather than `bash()`.
   */
  shell() {
    if (this.kind !== "shell") return null;
    const { command } = this.view();
    if (command === null) return null;
    const description = this.input !== null && typeof this.input === "object" ? this.input.description : undefined;
    return { command, description: typeof description === "string" ? description : null };
  }

  /** The files and directories the call reads, writes or searches. */
  paths() {
    return this.view().paths;
  }

  /** The text the call writes (whole files, new strings, patches). */
  contents() {
    return this.view().contents;
  }

  /** The URLs (or domains) the call reaches. */
  urls() {
    return this.view().urls;
  }

  /** `{ server, tool }` when the tool is an MCP server's (server null if unnamed), else null. */
  mcp() {
    return this.view().mcp;
  }

  /**
   * The input of a call of the tool named `Bash` (Claude Code's, Codex's, forgeflare's name
   * only: `command`, `description`), else null. Kept for compatibility: `shell()` sees every
   * agent's.
   */
  bash() {
    return this.#typed("Bash", ["command"]);
  }

  /** The input of a `Read` call (`file_path`), else null. */
  read() {
    return this.#typed("Read", ["file_path"]);
  }

  /** The input of an `Edit` call (`file_path`, `old_str`, `new_str`), else null. */
  edit() {
    return this.#typed("Edit", ["file_path", "old_str", "new_str"]);
  }
}

/** The reasons a run stops, as Stop events spell them. */
export const STOP_REASONS = [
  "end_turn", "iteration_limit", "api_error", "continuation_cap",
  "block_limit_consecutive", "block_limit_total", "convergence_signal",
];

/**
 * One event, as the hook sees it: SessionStart, UserPromptSubmit, PreToolUse, custom ones.
 * `payload` is the event's own fields as JSON text; read it with `field()`.
 */
export class Event {
  constructor(name, fields = {}) {
    this.name = name;
    this.phase = fields.phase ?? "guard"; // or "observe"
    this.sessionId = fields.sessionId ?? null;
    this.cwd = fields.cwd ?? "/workspace";
    this.tool = fields.tool ?? null; // { tool, input (JSON text), toolIterations }
    this.payload = fields.payload ?? "{}";
    this.observed = fields.observed ?? null; // { decision, by, reason }
  }

  /** The same event about `call`: for tests. */
  withTool(call) {
    this.tool = { tool: call.tool, input: JSON.stringify(call.input), toolIterations: call.toolIterations };
    return this;
  }

  /** The same event with a payload field set: for tests. */
  withField(name, value) {
    this.payload = JSON.stringify({ ...this.payloadObject(), [name]: value });
    return this;
  }

  /** The tool's name, for tool events, without parsing the input. */
  get toolName() {
    return this.tool ? this.tool.tool : null;
  }

  /**
   * The tool call this event is about, whatever the agent: `toolCall()` on tool events; on
   * Cursor's events that carry no tool name, a call named after the event
   * (`beforeShellExecution`, its payload as input) or `MCP:<tool>` (its MCP events).
   */
  toolUse() {
    const named = eventToolName(this.name, this.toolName);
    const call = this.toolCall();
    if (named === null) return call;
    return call
      ? new ToolCall(named, call.input, call.toolIterations, this.cwd)
      : new ToolCall(named, this.payloadObject(), 1, this.cwd);
  }

  /** The tool call, for tool events (its input parsed). */
  toolCall() {
    if (!this.tool) return null;
    let input;
    try {
      input = JSON.parse(this.tool.input);
    } catch {
      input = this.tool.input;
    }
    return new ToolCall(this.tool.tool, input, Number(this.tool.toolIterations), this.cwd);
  }

  /** The event's own fields (`{}` when none). */
  payloadObject() {
    try {
      const payload = JSON.parse(this.payload);
      return payload !== null && typeof payload === "object" && !Array.isArray(payload) ? payload : {};
    } catch {
      return {};
    }
  }

  /** A payload field, or `fallback`. */
  field(name, fallback = null) {
    return this.payloadObject()[name] ?? fallback;
  }
}

// ---------------------------------------------------------------------------------------------
// Answers

/** A hook's whole answer to an event. Build it with the static methods and `with*`. */
export class Verdict {
  constructor(answer = { kind: "allow", reason: null }) {
    this.answer = answer; // kind: allow, approve, warn, ask, block
    this.updatedInput = null;
    this.context = null;
    this.stop = null;
    this.signal = null; // { name, reason }
    this.message = null;
  }

  /** No objection. */
  static allow() {
    return new Verdict();
  }

  /** Explicit permission: an agent with permission prompts may skip its prompt. */
  static approve() {
    return new Verdict({ kind: "approve", reason: null });
  }

  /** Go on, surfacing `reason`. */
  static warn(reason) {
    return new Verdict({ kind: "warn", reason });
  }

  /** Defer to the agent's user. */
  static ask(reason) {
    return new Verdict({ kind: "ask", reason });
  }

  /** Stop what the event is about (PreToolUse: the model sees `blocked by HOOK: reason`). */
  static block(reason) {
    return new Verdict({ kind: "block", reason });
  }

  /** No objection, and a named signal (PostToolUse). */
  static signal(name, reason) {
    return new Verdict().withSignal(name, reason);
  }

  /** Adds context for the model. */
  withContext(context) {
    this.context = context;
    return this;
  }

  /** Rewrites the tool input (any JSON value): the tool runs with it. */
  withUpdatedInput(input) {
    this.updatedInput = input;
    return this;
  }

  /** Asks the agent to end its run. */
  withStop(reason) {
    this.stop = reason;
    return this;
  }

  /** Raises a signal. */
  withSignal(name, reason) {
    this.signal = { name, reason };
    return this;
  }

  /** Adds a message for the agent's user. */
  withMessage(message) {
    this.message = message;
    return this;
  }
}

/** A guard's answer: `Guard.allow()` or `Guard.block(reason)`. */
export const Guard = {
  allow: () => Verdict.allow(),
  block: (reason) => Verdict.block(reason),
};

/** A PostToolUse answer: `Post.proceed()` or `Post.signal(name, reason)`. */
export const Post = {
  proceed: () => Verdict.allow(),
  signal: (name, reason) => Verdict.signal(name, reason),
};

// ---------------------------------------------------------------------------------------------
// The hook

/**
 * Extend it and override what you need. hookhost calls `handle` for every event the hook is
 * configured for; its default sends forgeflare's events to the methods below.
 */
export class Hook {
  /** PreToolUse, guard phase: allow or block. An exception blocks too (fail closed). */
  guard(_call) {
    return Guard.allow();
  }

  /** PreToolUse, observe phase ({ call, blocked: { by, reason } | null }): runs always. */
  observe(_event) {}

  /** PostToolUse ({ call, result, isError }): look at a result; optionally signal. */
  post(_event) {
    return Post.proceed();
  }

  /** Stop ({ reason, toolIterations, totalTokens, cwd }): the agent's run ended. */
  stop(_event) {}

  /** Every event. Override it for other events or richer answers; call `dispatch` for the rest. */
  handle(event) {
    return dispatch(this, event);
  }
}

/**
 * The default routing of `Hook.handle`: forgeflare's events go to `guard`, `observe`, `post`
 * and `stop`; every other event is allowed.
 */
export function dispatch(hook, event) {
  const call = event.toolCall();
  if (event.name === "PreToolUse" && call) {
    if (event.phase === "guard") return hook.guard(call);
    const observed = event.observed;
    const blocked = observed && observed.decision === "block"
      ? { by: observed.by ?? "", reason: observed.reason ?? "" }
      : null;
    hook.observe({ call, blocked });
    return Verdict.allow();
  }
  if (event.name === "PostToolUse" && call) {
    const result = event.field("result", "");
    return hook.post({ call, result: typeof result === "string" ? result : "", isError: event.field("is_error") === true });
  }
  if (event.name === "Stop") {
    const reason = event.field("reason");
    if (STOP_REASONS.includes(reason)) {
      const number = (name) => (Number.isInteger(event.field(name)) ? event.field(name) : 0);
      hook.stop({ reason, toolIterations: number("tool_iterations"), totalTokens: number("total_tokens"), cwd: event.cwd });
    }
  }
  return Verdict.allow();
}

// ---------------------------------------------------------------------------------------------
// The host: configuration, logging, state

/** The hook's `[hooks.config]` could not be read. */
export class ConfigError extends Error {}

/** `state.set` went past a limit (keys 256 bytes, values 64 KiB, 1024 keys). */
export class StateError extends Error {}

function memoryHost() {
  const memory = { config: "{}", state: new Map(), logs: [] };
  return {
    memory,
    host: {
      config: () => memory.config,
      log: (level, message) => memory.logs.push([level, message]),
    },
    state: {
      get: (key) => memory.state.get(key),
      set: (key, value) => void memory.state.set(key, Uint8Array.from(value)),
      delete: (key) => void memory.state.delete(key),
    },
  };
}

let current = memoryHost();

/** The hook's `[hooks.config]` table. Throws `ConfigError` when it is not JSON. */
export function config() {
  try {
    return JSON.parse(current.host.config());
  } catch (error) {
    throw new ConfigError(`the configuration is not JSON: ${error.message}`);
  }
}

/** Logging, shown on the agent's stderr as `[hook NAME] level: message`. */
export const log = Object.fromEntries(
  ["trace", "debug", "info", "warn", "error"].map((level) => [
    level,
    (message) => current.host.log(level, String(message)),
  ]),
);

// UTF-8 without TextEncoder, which QuickJS lacks.
const utf8 = {
  encode: (text) => Uint8Array.from(unescape(encodeURIComponent(text)), (c) => c.charCodeAt(0)),
  decode: (bytes) => decodeURIComponent(escape(String.fromCharCode(...bytes))),
};

/** A small key-value store that outlives a call (one agent session, in memory). */
export const state = {
  /** The bytes under `key` (a Uint8Array), or null. */
  get: (key) => current.state.get(key) ?? null,
  /** Stores `value` (bytes); throws `StateError` past a limit. */
  set(key, value) {
    try {
      current.state.set(key, value);
    } catch (error) {
      throw new StateError(String(error.payload ?? error.message ?? error));
    }
  },
  /** Removes `key` (a missing key is not an error). */
  delete: (key) => current.state.delete(key),
  /** The JSON value under `key`, or null. */
  getJson(key) {
    const bytes = state.get(key);
    return bytes == null ? null : JSON.parse(utf8.decode(Uint8Array.from(bytes)));
  },
  /** Stores `value` as JSON. */
  setJson: (key, value) => state.set(key, utf8.encode(JSON.stringify(value))),
};

/** Tests: what `config()` returns. */
export function setConfig(table) {
  current.memory.config = JSON.stringify(table);
}

/** Tests: the [level, message] pairs logged so far. */
export function logs() {
  return [...current.memory.logs];
}

/** Tests: clears the configuration, state and logs. */
export function reset() {
  current = memoryHost();
}

// ---------------------------------------------------------------------------------------------
// The component glue

/**
 * The `handler` export for `HookClass`, connected to hookhost's `host` and `state` imports.
 * Export it from the component's entry file: `export const handler = exportHook(MyHook, { host, state })`.
 */
export function exportHook(HookClass, imports) {
  current = { memory: null, host: imports.host, state: imports.state };
  return {
    handle(raw) {
      const event = new Event(raw.name, {
        phase: raw.phase,
        sessionId: raw.sessionId,
        cwd: raw.cwd,
        tool: raw.tool,
        payload: raw.payload,
        observed: raw.observed,
      });
      return toWit(new HookClass().handle(event));
    },
  };
}

function toWit(verdict) {
  if (!(verdict instanceof Verdict)) {
    throw new TypeError(`a hook must return a Verdict, not ${verdict}`);
  }
  const { kind, reason } = verdict.answer;
  const answer = kind === "allow" || kind === "approve" ? { tag: kind } : { tag: kind, val: String(reason ?? "") };
  const text = (value) => (value == null ? undefined : String(value));
  return {
    answer,
    updatedInput: verdict.updatedInput == null ? undefined : JSON.stringify(verdict.updatedInput),
    context: text(verdict.context),
    stop: text(verdict.stop),
    signal: verdict.signal == null ? undefined : { name: String(verdict.signal.name), reason: String(verdict.signal.reason) },
    message: text(verdict.message),
  };
}
