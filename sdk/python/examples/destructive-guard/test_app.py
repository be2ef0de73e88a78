"""Unit tests, natively: python3 -m unittest (hook_sdk's in-memory host stands in for hookhost).
The cases are the Rust destructive-guard's."""

import unittest

import hook_sdk
from app import Config, DestructiveGuard, check
from hook_sdk import Guard, ToolCall

BLOCKED = [
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
]

ALLOWED = [
    "cargo test", "rm -rf target", "rm -rf ./build", "rm file.txt", "rm -f /tmp/x.lock",
    "ls -la /", "git push", "git push origin main", "git push --set-upstream origin feature",
    "git reset --hard HEAD~1", "git reset --soft origin/main", "git clean -n", "git clean -nd",
    "kubectl get ns", "kubectl delete pod web-1", "dd if=/dev/zero of=disk.img bs=1M count=10",
    "chmod -R 755 src", "chmod 777 /tmp/x", "echo rm", "grep -r 'drop' src", "mkdir -p a/b",
]


class DestructiveGuardTest(unittest.TestCase):
    def setUp(self):
        hook_sdk.reset()

    def test_blocks_destructive_commands_and_their_disguises(self):
        for command in BLOCKED:
            self.assertIsNotNone(check(command), command)

    def test_allows_everyday_commands(self):
        for command in ALLOWED:
            self.assertIsNone(check(command), command)

    def test_reasons_name_what_was_found(self):
        self.assertEqual(check("rm -rf -- /"), "recursive delete of / (rm -r)")
        self.assertEqual(check("git push -f"), "force push rewrites shared history (git push --force)")
        self.assertEqual(check("kubectl delete ns x"), "kubectl delete namespace deletes everything in it")

    def test_config_adds_patterns_after_normalisation(self):
        config = Config(deny=["Terraform   Destroy"])
        self.assertEqual(check("TERRAFORM destroy -auto-approve", config),
                         'command matches the deny pattern "terraform destroy"')
        self.assertIsNone(check("terraform plan", config))

    def test_every_agents_shell_tool_is_guarded(self):
        hook = DestructiveGuard()
        hook_sdk.set_config({"deny": ["terraform destroy"]})
        for tool in ("Bash", "bash", "run_shell_command", "Shell", "PowerShell"):
            for command in ("rm -rf /", "terraform destroy"):
                verdict = hook.guard(ToolCall(tool, {"command": command}))
                self.assertEqual(verdict.answer.kind, "block", f"{tool}: {command}")
            self.assertEqual(hook.guard(ToolCall(tool, {"command": "ls"})), Guard.allow(), tool)
        argv = ToolCall("shell", {"command": ["bash", "-lc", "rm -rf /"]})
        self.assertEqual(hook.guard(argv).answer.kind, "block")

    def test_the_hook_reads_shell_calls_only_and_fails_closed_on_bad_config(self):
        hook = DestructiveGuard()
        self.assertEqual(hook.guard(ToolCall.read_file("/")), Guard.allow())
        self.assertEqual(hook.guard(ToolCall.bash_command("rm -rf /")).answer.kind, "block")
        hook_sdk.set_config({"deny": "not a list"})
        verdict = hook.guard(ToolCall.bash_command("ls"))
        self.assertTrue(verdict.answer.reason.startswith("destructive-guard is misconfigured"))


if __name__ == "__main__":
    unittest.main()
