// Unit tests, natively: npm test (hook-sdk.js's in-memory host stands in for hookhost).
import assert from "node:assert/strict";
import { test } from "node:test";

import { Guard, ToolCall, reset, setConfig } from "./hook-sdk.js";
import { {{Type}} } from "./hook.js";

test("blocks force pushes and configured phrases", () => {
  reset();
  setConfig({ deny: ["terraform destroy"] });
  const hook = new {{Type}}();
  assert.equal(hook.guard(ToolCall.bashCommand("git push --force")).answer.kind, "block");
  assert.equal(hook.guard(ToolCall.bashCommand("terraform destroy")).answer.kind, "block");
  assert.deepEqual(hook.guard(ToolCall.bashCommand("git push")), Guard.allow());
  assert.deepEqual(hook.guard(ToolCall.readFile("README.md")), Guard.allow());
});

test("holds for every agent's shell", () => {
  reset();
  const hook = new {{Type}}();
  for (const tool of ["bash", "run_shell_command", "Shell"]) {
    assert.equal(hook.guard(new ToolCall(tool, { command: "git push -f" })).answer.kind, "block", tool);
  }
});
