// The SDK's own tests, natively: node --test hook-sdk.test.js in sdk/js. The tool vocabulary is
// checked against the Rust crate's cases (tools/tests/cases.jsonl), one line per agent tool, so
// that the JavaScript reader of the generated table agrees with hookhost-tools.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Event, ToolCall, toolKind, viewTool } from "./hook-sdk.js";

const cases = readFileSync(new URL("../../tools/tests/cases.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "");

test("every case of the Rust table reads the same", () => {
  assert.ok(cases.length > 50);
  cases.forEach((line, i) => {
    const c = JSON.parse(line);
    const view = viewTool(c.tool, c.input);
    const at = `cases.jsonl:${i + 1} (${c.tool})`;
    assert.equal(view.kind, c.kind, at);
    assert.equal(view.command, c.command ?? null, at);
    for (const name of ["paths", "contents", "urls", "patterns"]) {
      assert.deepEqual(view[name], c[name] ?? [], `${at}: ${name}`);
    }
    assert.deepEqual(view.mcp ? [view.mcp.server, view.mcp.tool] : null, c.mcp ?? null, at);
  });
});

test("shell() is the command whatever the agent, and bash() stays Claude's", () => {
  for (const tool of ["Bash", "bash", "run_shell_command", "Shell", "PowerShell"]) {
    const call = new ToolCall(tool, { command: "rm -rf /", description: "d" });
    assert.equal(call.kind, "shell", tool);
    assert.deepEqual(call.shell(), { command: "rm -rf /", description: "d" }, tool);
  }
  assert.equal(new ToolCall("shell", { command: ["rm", "-rf", "/"] }).shell().command, "rm -rf /");
  assert.equal(new ToolCall("Read", { file_path: "/" }).shell(), null);
  assert.equal(new ToolCall("run_shell_command", { command: "ls" }).bash(), null);
  assert.equal(ToolCall.bashCommand("ls").bash().command, "ls");
});

test("paths, contents, urls and mcp", () => {
  const call = new ToolCall("write_file", { file_path: "/p/a", content: "x" });
  assert.deepEqual([call.paths(), call.contents(), call.urls()], [["/p/a"], ["x"], []]);
  assert.deepEqual(new ToolCall("mcp__github__get_issue", {}).mcp(), { server: "github", tool: "get_issue" });
  assert.equal(toolKind("no_such_tool"), "other");
});

test("Cursor's events without a tool name are seen as their tool", () => {
  const shell = new Event("beforeShellExecution").withField("command", "rm -rf /");
  assert.equal(shell.toolCall(), null);
  assert.equal(shell.toolUse().shell().command, "rm -rf /");
  const mcp = new Event("beforeMCPExecution").withTool(new ToolCall("query", { sql: "x" }));
  assert.deepEqual([mcp.toolUse().tool, mcp.toolUse().kind], ["MCP:query", "mcp"]);
  assert.equal(new Event("PreToolUse").withTool(new ToolCall("Shell", { command: "ls" })).toolUse().tool, "Shell");
  assert.equal(new Event("SessionStart").toolUse(), null);
});
