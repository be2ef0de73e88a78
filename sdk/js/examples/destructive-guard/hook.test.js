// Unit tests, natively: node --test (hook-sdk.js's in-memory host stands in for hookhost).
// The cases are the Rust destructive-guard's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Guard, ToolCall, reset, setConfig } from "./hook-sdk.js";
import { DestructiveGuard, check } from "./hook.js";

const BLOCKED = [
  "rm -rf /", "RM  -RF /", "rm -rf -- /", "rm -fr /", "rm -r -f /", "rm --recursive --force /",
  "rm -rf /*", "rm -rf //", "rm -rf '/'", 'rm -rf "/"', "sudo rm -rf /",
  "sudo -u root /bin/rm -rf /", "\\rm -rf /", "r\\m -rf /", "echo ok && rm -rf ~",
  "ls; rm -rf $HOME", "rm -rf ${HOME}", "rm -rf ~/", "rm -rf .", "rm -rf ./", "rm -rf *",
  "x=$(rm -rf /)", "bash -c 'rm -rf /'", 'sh -c "cd / && rm -rf ."', "env FOO=1 rm -rf /",
  "rm -r /", "{ rm -rf /; }", "rm --no-preserve-root -rf /tmp/x", "git push --force",
  "git push -f origin main", "git push origin +main", "git push --force-with-lease",
  "git -C repo push -fu origin main", "GIT PUSH --FORCE", "git reset --hard origin/main",
  "git reset --hard @{u}", "git reset --hard upstream/dev", "git clean -fd", "git clean -xdf",
  "git clean --force", "kubectl delete namespace prod", "kubectl delete ns prod",
  "kubectl -n x delete pods --all", "kubectl delete namespaces/prod", "mkfs.ext4 /dev/sda1",
  "mkfs -t ext4 /dev/sdb", "dd if=/dev/zero of=/dev/sda bs=1M", "chmod -R 777 /",
  "sudo chmod --recursive 0777 /", "psql -c 'DROP TABLE users'",
  'mysql -e "drop   table accounts"', "echo 'DROP DATABASE prod' | psql",
];

const ALLOWED = [
  "cargo test", "rm -rf target", "rm -rf ./build", "rm file.txt", "rm -f /tmp/x.lock",
  "ls -la /", "git push", "git push origin main", "git push --set-upstream origin feature",
  "git reset --hard HEAD~1", "git reset --soft origin/main", "git clean -n", "git clean -nd",
  "kubectl get ns", "kubectl delete pod web-1", "dd if=/dev/zero of=disk.img bs=1M count=10",
  "chmod -R 755 src", "chmod 777 /tmp/x", "echo rm", "grep -r 'drop' src", "mkdir -p a/b",
];

test("blocks destructive commands and their disguises", () => {
  for (const command of BLOCKED) assert.notEqual(check(command), null, command);
});

test("allows everyday commands", () => {
  for (const command of ALLOWED) assert.equal(check(command), null, command);
});

test("reasons name what was found", () => {
  assert.equal(check("rm -rf -- /"), "recursive delete of / (rm -r)");
  assert.equal(check("git push -f"), "force push rewrites shared history (git push --force)");
  assert.equal(check("kubectl delete ns x"), "kubectl delete namespace deletes everything in it");
});

test("config adds patterns after normalisation", () => {
  assert.equal(check("TERRAFORM destroy -auto-approve", ["Terraform   Destroy"]),
    'command matches the deny pattern "terraform destroy"');
  assert.equal(check("terraform plan", ["terraform destroy"]), null);
});

test("every agent's shell tool is guarded", () => {
  const hook = new DestructiveGuard();
  setConfig({ deny: ["terraform destroy"] });
  for (const tool of ["Bash", "bash", "run_shell_command", "Shell", "PowerShell"]) {
    for (const command of ["rm -rf /", "terraform destroy"]) {
      assert.equal(hook.guard(new ToolCall(tool, { command })).answer.kind, "block", `${tool}: ${command}`);
    }
    assert.equal(hook.guard(new ToolCall(tool, { command: "ls" })).answer.kind, "allow", tool);
  }
  assert.equal(hook.guard(new ToolCall("shell", { command: ["bash", "-lc", "rm -rf /"] })).answer.kind, "block");
});

test("the hook reads shell calls only and fails closed on bad config", () => {
  reset();
  const hook = new DestructiveGuard();
  assert.deepEqual(hook.guard(ToolCall.readFile("/")), Guard.allow());
  assert.equal(hook.guard(ToolCall.bashCommand("rm -rf /")).answer.kind, "block");
  setConfig({ deny: "not a list" });
  assert.match(hook.guard(ToolCall.bashCommand("ls")).answer.reason, /^destructive-guard is misconfigured/);
});
