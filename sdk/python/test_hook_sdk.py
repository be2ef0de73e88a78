"""The SDK's own tests, natively: ``python3 -m unittest`` in sdk/python. The tool vocabulary
is checked against the Rust crate's cases (tools/tests/cases.jsonl), one line per agent tool,
so that the Python reader of the generated table agrees with hookhost-tools."""

import json
import pathlib
import unittest

import hook_sdk
from hook_sdk import Event, ToolCall

CASES = pathlib.Path(__file__).resolve().parents[2] / "tools" / "tests" / "cases.jsonl"


class VocabularyTest(unittest.TestCase):
    def test_every_case_of_the_rust_table_reads_the_same(self):
        lines = [line for line in CASES.read_text().splitlines() if line.strip()]
        self.assertGreater(len(lines), 50)
        for number, line in enumerate(lines, 1):
            case = json.loads(line)
            view = hook_sdk.view_tool(case["tool"], case["input"])
            at = f"cases.jsonl:{number} ({case['tool']})"
            self.assertEqual(view.kind, case["kind"], at)
            self.assertEqual(view.command, case.get("command"), at)
            for name in ("paths", "contents", "urls", "patterns"):
                self.assertEqual(getattr(view, name), case.get(name, []), f"{at}: {name}")
            mcp = list(view.mcp) if view.mcp is not None else None
            self.assertEqual(mcp, case.get("mcp"), at)

    def test_shell_is_the_command_whatever_the_agent_and_bash_stays_claudes(self):
        for tool in ("Bash", "bash", "run_shell_command", "Shell", "PowerShell"):
            call = ToolCall(tool, {"command": "rm -rf /", "description": "d"})
            self.assertEqual(call.kind, "shell", tool)
            self.assertEqual(call.shell(), hook_sdk.ShellInput("rm -rf /", "d"), tool)
        self.assertEqual(ToolCall("shell", {"command": ["rm", "-rf", "/"]}).shell().command,
                         "rm -rf /")
        self.assertIsNone(ToolCall("Read", {"file_path": "/"}).shell())
        self.assertIsNone(ToolCall("run_shell_command", {"command": "ls"}).bash())
        self.assertEqual(ToolCall.bash_command("ls").bash().command, "ls")

    def test_paths_contents_urls_and_mcp(self):
        call = ToolCall("write_file", {"file_path": "/p/a", "content": "x"})
        self.assertEqual((call.paths(), call.contents(), call.urls()), (["/p/a"], ["x"], []))
        self.assertEqual(ToolCall("mcp__github__get_issue", {}).mcp(), ("github", "get_issue"))
        self.assertEqual(hook_sdk.tool_kind("no_such_tool"), "other")

    def test_cursors_events_without_a_tool_name_are_seen_as_their_tool(self):
        shell = Event("beforeShellExecution").with_field("command", "rm -rf /")
        self.assertIsNone(shell.tool_call())
        self.assertEqual(shell.tool_use().shell().command, "rm -rf /")
        mcp = Event("beforeMCPExecution").with_tool(ToolCall("query", {"sql": "x"}))
        self.assertEqual((mcp.tool_use().tool, mcp.tool_use().kind), ("MCP:query", "mcp"))
        pre = Event("PreToolUse").with_tool(ToolCall("Shell", {"command": "ls"}))
        self.assertEqual(pre.tool_use().tool, "Shell")
        self.assertIsNone(Event("SessionStart").tool_use())


if __name__ == "__main__":
    unittest.main()
