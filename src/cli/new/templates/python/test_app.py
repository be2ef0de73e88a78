"""Unit tests, natively: python3 -m unittest (hook_sdk's in-memory host stands in for hookhost)."""

import unittest

import hook_sdk
from app import {{Type}}
from hook_sdk import Guard, ToolCall


class {{Type}}Test(unittest.TestCase):
    def test_blocks_force_pushes_and_configured_phrases(self):
        hook_sdk.reset()
        hook_sdk.set_config({"deny": ["terraform destroy"]})
        hook = {{Type}}()
        self.assertEqual(hook.guard(ToolCall.bash_command("git push --force")).answer.kind, "block")
        self.assertEqual(hook.guard(ToolCall.bash_command("terraform destroy")).answer.kind, "block")
        self.assertEqual(hook.guard(ToolCall.bash_command("git push")), Guard.allow())
        self.assertEqual(hook.guard(ToolCall.read_file("README.md")), Guard.allow())

    def test_holds_for_every_agents_shell(self):
        hook_sdk.reset()
        hook = {{Type}}()
        for tool in ["bash", "run_shell_command", "Shell"]:
            call = ToolCall(tool, {"command": "git push -f"})
            self.assertEqual(hook.guard(call).answer.kind, "block", tool)


if __name__ == "__main__":
    unittest.main()
