// {{name}}: a hookhost guard. Edit `guard` to enforce your own policy.
import { Guard, Hook, config } from "./hook-sdk.js";

export class {{Type}} extends Hook {
  guard(call) {
    // Every agent's shell tool (Claude Code's Bash, Copilot CLI's bash, Gemini CLI's
    // run_shell_command, ...); call.bash() would see Claude Code's name only.
    const shell = call.shell();
    if (!shell) return Guard.allow();
    let deny;
    try {
      // The hook's `[hooks.config]` (see hooks.toml): extra phrases to block.
      deny = config().deny ?? [];
      if (!Array.isArray(deny)) throw new Error("`deny` must be a list of strings");
    } catch (error) {
      // A guard with a broken configuration blocks: it fails closed.
      return Guard.block(`{{name}} is misconfigured: ${error.message}`);
    }
    const command = shell.command.split(/\s+/).filter(Boolean).join(" ");
    if (command.includes("git push") && (command.includes("--force") || command.includes(" -f"))) {
      return Guard.block("force pushes rewrite shared history");
    }
    const phrase = deny.find((p) => command.includes(p));
    return phrase === undefined ? Guard.allow() : Guard.block(`\`${phrase}\` is not allowed here`);
  }
}
