// destructive-guard, in JavaScript: a PreToolUse guard for every agent's shell tool (`Bash`,
// `bash`, `run_shell_command`, `Shell`, ...: `call.shell()`) that blocks commands which
// destroy work or systems. A port of example-hooks/destructive-guard (Rust), rule for rule and
// reason for reason: recursive deletes of `/`, `~`, `$HOME` or `.`; force pushes; hard resets to
// a remote branch; `git clean -f`; deleting Kubernetes namespaces or everything of a kind;
// formatting disks; `dd` onto a device; `chmod -R 777 /`; `DROP TABLE`; and the phrases of its
// config (`deny = ["terraform destroy"]`).
//
// Commands are read the way a shell splits them (quotes, `;`, `&&`, `|`, `$(...)`,
// `bash -c '...'`), lowercased, with wrappers such as `sudo` removed.

import { ConfigError, Guard, Hook, config } from "./hook-sdk.js";

export class DestructiveGuard extends Hook {
  guard(call) {
    const shell = call.shell();
    if (!shell) return Guard.allow();
    let deny;
    try {
      deny = readConfig();
    } catch (error) {
      // A guard with a broken config blocks rather than guessing.
      return Guard.block(`destructive-guard is misconfigured: ${error.message}`);
    }
    const reason = check(shell.command, deny);
    return reason ? Guard.block(reason) : Guard.allow();
  }
}

/** The `deny` phrases of the hook's `[hooks.config]`. */
function readConfig() {
  const { deny = [], ...unknown } = config();
  if (Object.keys(unknown).length) throw new ConfigError(`unknown field \`${Object.keys(unknown)[0]}\``);
  if (!Array.isArray(deny) || !deny.every((p) => typeof p === "string")) {
    throw new ConfigError("`deny` must be a list of strings");
  }
  return deny;
}

const squash = (text) => text.split(/\s+/).filter(Boolean).join(" ");

/** Why `command` is destructive, or null. */
export function check(command, deny = []) {
  const normalised = squash(simpleCommands(command).map((words) => words.join(" ")).join(" ; "));
  for (const raw of deny) {
    const phrase = squash(raw).toLowerCase();
    if (phrase && normalised.includes(phrase)) return `command matches the deny pattern "${phrase}"`;
  }
  if (normalised.includes("drop table") || normalised.includes("drop database")) {
    return "DROP TABLE/DATABASE destroys data";
  }
  return checkCommands(command, 0);
}

function checkCommands(line, depth) {
  for (const words of simpleCommands(line)) {
    const argv = unwrapCommand(words);
    if (!argv.length) continue;
    const [program, ...args] = argv;
    let found = null;
    if (program === "rm") found = checkRm(args);
    else if (program === "git") found = checkGit(args);
    else if (program === "kubectl") found = checkKubectl(args);
    else if (program === "dd") {
      const device = args.find((a) => a.startsWith("of=/dev/"));
      if (device) found = `dd writing to a device (${device}) destroys its contents`;
    } else if (program === "chmod") found = checkChmod(args);
    else if (program === "mkfs" || program.startsWith("mkfs.")) found = `${program} formats a filesystem`;
    else if (["sh", "bash", "zsh", "dash", "ksh"].includes(program) && depth < 4) {
      // A shell running a string runs commands too.
      const i = args.findIndex((a) => a.startsWith("-") && !a.startsWith("--") && a.includes("c"));
      if (i >= 0 && i + 1 < args.length) found = checkCommands(args[i + 1], depth + 1);
    }
    if (found) return found;
  }
  return null;
}

/** Targets whose recursive deletion is never what an agent should do. */
function dangerousTarget(operand) {
  let target = operand;
  while (target.includes("//")) target = target.replaceAll("//", "/");
  if (target.endsWith("/*")) target = target.slice(0, -2);
  if (target.length > 1) target = target.replace(/\/+$/, "");
  return ["/", "", "~", "$home", "${home}", ".", "..", "*", "./*", "~/", "/*"].includes(target)
    || (target.startsWith("~/") && target.slice(2).replace(/\*+$/, "") === "");
}

function flagsAndOperands(args) {
  let recursive = false, force = false, noPreserve = false, optionsDone = false;
  const operands = [];
  for (const arg of args) {
    if (optionsDone || arg === "-" || !arg.startsWith("-")) operands.push(arg);
    else if (arg === "--") optionsDone = true;
    else if (arg.startsWith("--")) {
      recursive ||= arg === "--recursive";
      force ||= arg === "--force";
      noPreserve ||= arg === "--no-preserve-root";
    } else {
      recursive ||= arg.includes("r");
      force ||= arg.includes("f");
    }
  }
  return { recursive, force, noPreserve, operands };
}

function checkRm(args) {
  const { recursive, noPreserve, operands } = flagsAndOperands(args);
  if (!recursive) return null;
  if (noPreserve) return "rm --no-preserve-root is never allowed";
  const target = operands.find(dangerousTarget);
  return target === undefined ? null : `recursive delete of ${target} (rm -r)`;
}

function checkGit(all) {
  let rest = all;
  // Skip git's global options (`-C dir`, `-c key=value`, `--no-pager`, ...).
  while (rest.length) {
    if (["-c", "-C", "--git-dir", "--work-tree", "--namespace"].includes(rest[0])) rest = rest.slice(2);
    else if (rest[0].startsWith("-")) rest = rest.slice(1);
    else break;
  }
  if (!rest.length) return null;
  const [subcommand, ...args] = rest;
  const shortFlag = (letter) => args.some((a) => a.startsWith("-") && !a.startsWith("--") && a.includes(letter));
  const longFlag = (name) => args.some((a) => a === name || a.startsWith(`${name}=`));
  if (subcommand === "push") {
    if (shortFlag("f") || ["--force", "--force-with-lease", "--force-if-includes", "--mirror"].some(longFlag)) {
      return "force push rewrites shared history (git push --force)";
    }
    if (args.some((a) => a.startsWith("+"))) return "force push rewrites shared history (git push +refspec)";
  } else if (subcommand === "reset" && longFlag("--hard")) {
    const target = args.find((a) => !a.startsWith("-") && (a.includes("@{u") || a.includes("@{upstream")
      || a.includes("@{push") || a.startsWith("refs/remotes/") || a.includes("/")));
    if (target !== undefined) return `git reset --hard ${target} throws away local work in favour of a remote branch`;
  } else if (subcommand === "clean" && (shortFlag("f") || longFlag("--force"))) {
    return "git clean -f deletes untracked files for good";
  }
  return null;
}

function checkKubectl(args) {
  const position = args.indexOf("delete");
  if (position < 0) return null;
  const rest = args.slice(position + 1);
  if (rest.some((a) => ["--all", "--all-namespaces", "-a"].includes(a))) {
    return "kubectl delete --all deletes every resource of a kind";
  }
  const kind = rest.find((a) => !a.startsWith("-"));
  return kind !== undefined && ["namespace", "namespaces", "ns"].includes(kind.split("/")[0])
    ? "kubectl delete namespace deletes everything in it"
    : null;
}

function checkChmod(args) {
  const recursive = args.some((a) => (a.startsWith("-") && !a.startsWith("--") && a.includes("r")) || a === "--recursive");
  const worldWritable = args.some((a) => ["777", "0777", "a+rwx", "ugo+rwx", "a=rwx"].includes(a));
  const target = args.find((a) => !a.startsWith("-") && dangerousTarget(a));
  return target !== undefined && recursive && worldWritable
    ? `chmod -R 777 ${target} opens everything to everyone`
    : null;
}

// Just enough of shell syntax to find every simple command of a command line.

/** The simple commands of `line`, each as its lowercased, unquoted words. */
export function simpleCommands(line) {
  const commands = [];
  let words = [], word = "", inWord = false;
  const endWord = () => {
    if (inWord) words.push(word.toLowerCase());
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length) commands.push(words);
    words = [];
  };
  const chars = [...line];
  for (let i = 0; i < chars.length; ) {
    const c = chars[i++];
    if (c === "'") {
      inWord = true;
      while (i < chars.length && chars[i] !== "'") word += chars[i++];
      i++;
    } else if (c === '"') {
      inWord = true;
      while (i < chars.length) {
        const d = chars[i++];
        if (d === '"') break;
        if (d === "\\" && i < chars.length && '"\\$`'.includes(chars[i])) word += chars[i++];
        else word += d;
      }
    } else if (c === "\\") {
      inWord = true;
      if (i < chars.length) {
        if (chars[i] !== "\n") word += chars[i];
        i++;
      }
    } else if (/\s/u.test(c) && c !== "\n") endWord();
    else if (";&|()`\n".includes(c) || (c === "$" && chars[i] === "(")) endCommand();
    else {
      inWord = true;
      word += c;
    }
  }
  endCommand();
  // Brace groups (`{ rm -rf /; }`) are words to the shell, and boundaries to us.
  const split = [];
  for (const command of commands) {
    let part = [];
    for (const w of [...command, "{"]) {
      if (w === "{" || w === "}") {
        if (part.length) split.push(part);
        part = [];
      } else part.push(w);
    }
  }
  return split;
}

const WRAPPERS = ["sudo", "doas", "command", "builtin", "exec", "nohup", "time", "nice", "env", "timeout", "stdbuf"];
const VALUED = { sudo: ["-u", "-g", "-c", "-h", "-p", "-r", "-t"], nice: ["-n"] };
const basename = (word) => word.slice(word.lastIndexOf("/") + 1);
const isAssignment = (word) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);

/** The words with wrappers, leading variable assignments and the program's directory removed. */
export function unwrapCommand(words) {
  let rest = words;
  for (;;) {
    while (rest.length && isAssignment(rest[0])) rest = rest.slice(1);
    if (!rest.length) return [];
    const program = basename(rest[0]);
    if (!WRAPPERS.includes(program)) break;
    rest = rest.slice(1);
    while (rest.length) {
      const option = rest[0];
      if (option.startsWith("-")) rest = rest.slice((VALUED[program] ?? []).includes(option) ? 2 : 1);
      else if (program === "timeout" && /^[0-9]/.test(option)) rest = rest.slice(1);
      else break;
    }
  }
  return [basename(rest[0]), ...rest.slice(1)];
}
