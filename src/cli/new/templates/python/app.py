"""{{name}}: a hookhost guard. Edit `guard` to enforce your own policy."""

from dataclasses import dataclass, field

from hook_sdk import ConfigError, Guard, Hook, config, export


@dataclass
class Config:
    """The hook's `[hooks.config]` (see hooks.toml)."""

    deny: list = field(default_factory=list)  # extra phrases to block in shell commands


class {{Type}}(Hook):
    def guard(self, call):
        # Every agent's shell tool (Claude Code's Bash, Copilot CLI's bash, Gemini CLI's
        # run_shell_command, ...); call.bash() would see Claude Code's name only.
        shell = call.shell()
        if shell is None:
            return Guard.allow()
        try:
            settings = config(Config)
        except ConfigError as error:
            # A guard with a broken configuration blocks: it fails closed.
            return Guard.block(f"{{name}} is misconfigured: {error}")
        command = " ".join(shell.command.split())
        if "git push" in command and ("--force" in command or " -f" in command):
            return Guard.block("force pushes rewrite shared history")
        for phrase in settings.deny:
            if phrase in command:
                return Guard.block(f"`{phrase}` is not allowed here")
        return Guard.allow()


# The component's export: componentize-py looks for `Handler` in this module.
Handler = export({{Type}})
