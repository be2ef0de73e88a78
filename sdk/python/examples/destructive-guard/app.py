"""destructive-guard, in Python: a PreToolUse guard for every agent's shell tool (``Bash``,
``bash``, ``run_shell_command``, ``Shell``, ...: ``call.shell()``) that blocks commands which
destroy work or systems. A port of example-hooks/destructive-guard (Rust), rule for rule and
reason for reason: recursive deletes of ``/``, ``~``, ``$HOME`` or ``.``; force pushes; hard
resets to a remote branch; ``git clean -f``; deleting Kubernetes namespaces or everything of a
kind; formatting disks; ``dd`` onto a device; ``chmod -R 777 /``; ``DROP TABLE``; and the
phrases of its config (``deny = ["terraform destroy"]``).

Commands are read the way a shell splits them (quotes, ``;``, ``&&``, ``|``, ``$(...)``,
``bash -c '...'``), lowercased, with wrappers such as ``sudo`` removed.
"""

from dataclasses import dataclass, field

from hook_sdk import ConfigError, Guard, Hook, config, export


@dataclass
class Config:
    """The hook's ``[hooks.config]``."""

    deny: list = field(default_factory=list)

    def __post_init__(self):
        if not isinstance(self.deny, list) or not all(isinstance(p, str) for p in self.deny):
            raise ConfigError("`deny` must be a list of strings")


class DestructiveGuard(Hook):
    def guard(self, call):
        shell = call.shell()
        if shell is None:
            return Guard.allow()
        try:
            settings = config(Config)
        except ConfigError as error:
            # A guard with a broken config blocks rather than guessing.
            return Guard.block(f"destructive-guard is misconfigured: {error}")
        reason = check(shell.command, settings)
        return Guard.block(reason) if reason else Guard.allow()


Handler = export(DestructiveGuard)


def check(command, settings=Config()):
    """Why ``command`` is destructive, or ``None``."""
    normalised = " ".join(" ; ".join(" ".join(words) for words in simple_commands(command)).split())
    for phrase in settings.deny:
        phrase = " ".join(phrase.split()).lower()
        if phrase and phrase in normalised:
            return f'command matches the deny pattern "{phrase}"'
    if "drop table" in normalised or "drop database" in normalised:
        return "DROP TABLE/DATABASE destroys data"
    return check_commands(command, 0)


def check_commands(line, depth):
    for words in simple_commands(line):
        argv = unwrap_command(words)
        if not argv:
            continue
        program, args = argv[0], argv[1:]
        found = None
        if program == "rm":
            found = check_rm(args)
        elif program == "git":
            found = check_git(args)
        elif program == "kubectl":
            found = check_kubectl(args)
        elif program == "dd":
            device = next((a for a in args if a.startswith("of=/dev/")), None)
            if device:
                found = f"dd writing to a device ({device}) destroys its contents"
        elif program == "chmod":
            found = check_chmod(args)
        elif program == "mkfs" or program.startswith("mkfs."):
            found = f"{program} formats a filesystem"
        elif program in ("sh", "bash", "zsh", "dash", "ksh") and depth < 4:
            # A shell running a string runs commands too.
            for i, arg in enumerate(args):
                if arg.startswith("-") and not arg.startswith("--") and "c" in arg:
                    if i + 1 < len(args):
                        found = check_commands(args[i + 1], depth + 1)
                    break
        if found:
            return found
    return None


def dangerous_target(operand):
    """Targets whose recursive deletion is never what an agent should do."""
    target = operand
    while "//" in target:
        target = target.replace("//", "/")
    if target.endswith("/*"):
        target = target[:-2]
    if len(target) > 1:
        target = target.rstrip("/")
    return target in ("/", "", "~", "$home", "${home}", ".", "..", "*", "./*", "~/", "/*") or (
        target.startswith("~/") and target[2:].rstrip("*") == ""
    )


def flags_and_operands(args):
    recursive = force = no_preserve = options_done = False
    operands = []
    for arg in args:
        if options_done or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            options_done = True
        elif arg.startswith("--"):
            recursive |= arg == "--recursive"
            force |= arg == "--force"
            no_preserve |= arg == "--no-preserve-root"
        else:
            recursive |= "r" in arg
            force |= "f" in arg
    return recursive, force, no_preserve, operands


def check_rm(args):
    recursive, _force, no_preserve, operands = flags_and_operands(args)
    if not recursive:
        return None
    if no_preserve:
        return "rm --no-preserve-root is never allowed"
    target = next((o for o in operands if dangerous_target(o)), None)
    return None if target is None else f"recursive delete of {target} (rm -r)"


def check_git(args):
    rest = list(args)
    # Skip git's global options (`-C dir`, `-c key=value`, `--no-pager`, ...).
    while rest:
        if rest[0] in ("-c", "-C", "--git-dir", "--work-tree", "--namespace"):
            rest = rest[2:]
        elif rest[0].startswith("-"):
            rest = rest[1:]
        else:
            break
    if not rest:
        return None
    subcommand, args = rest[0], rest[1:]

    def short_flag(letter):
        return any(a.startswith("-") and not a.startswith("--") and letter in a for a in args)

    def long_flag(name):
        return any(a == name or a.startswith(name + "=") for a in args)

    if subcommand == "push":
        forced = ("--force", "--force-with-lease", "--force-if-includes", "--mirror")
        if short_flag("f") or any(long_flag(name) for name in forced):
            return "force push rewrites shared history (git push --force)"
        if any(a.startswith("+") for a in args):
            return "force push rewrites shared history (git push +refspec)"
    elif subcommand == "reset" and long_flag("--hard"):
        for a in args:
            remote = ("@{u" in a or "@{upstream" in a or "@{push" in a
                      or a.startswith("refs/remotes/") or "/" in a)
            if not a.startswith("-") and remote:
                return f"git reset --hard {a} throws away local work in favour of a remote branch"
    elif subcommand == "clean" and (short_flag("f") or long_flag("--force")):
        return "git clean -f deletes untracked files for good"
    return None


def check_kubectl(args):
    if "delete" not in args:
        return None
    rest = args[args.index("delete") + 1:]
    if any(a in ("--all", "--all-namespaces", "-a") for a in rest):
        return "kubectl delete --all deletes every resource of a kind"
    kind = next((a for a in rest if not a.startswith("-")), None)
    if kind is not None and kind.split("/")[0] in ("namespace", "namespaces", "ns"):
        return "kubectl delete namespace deletes everything in it"
    return None


def check_chmod(args):
    recursive = any(
        (a.startswith("-") and not a.startswith("--") and "r" in a) or a == "--recursive"
        for a in args
    )
    world_writable = any(a in ("777", "0777", "a+rwx", "ugo+rwx", "a=rwx") for a in args)
    target = next((a for a in args if not a.startswith("-") and dangerous_target(a)), None)
    if target is not None and recursive and world_writable:
        return f"chmod -R 777 {target} opens everything to everyone"
    return None


# Just enough of shell syntax to find every simple command of a command line.


def simple_commands(line):
    """The simple commands of ``line``, each as its lowercased, unquoted words."""
    commands, words, word, in_word = [], [], [], False
    i, n = 0, len(line)

    def end_word():
        nonlocal word, in_word
        if in_word:
            words.append("".join(word).lower())
            word, in_word = [], False

    def end_command():
        nonlocal words
        end_word()
        if words:
            commands.append(words)
            words = []

    while i < n:
        c = line[i]
        i += 1
        if c == "'":
            in_word = True
            end = line.find("'", i)
            end = n if end < 0 else end
            word.append(line[i:end])
            i = end + 1
        elif c == '"':
            in_word = True
            while i < n:
                c = line[i]
                i += 1
                if c == '"':
                    break
                if c == "\\" and i < n and line[i] in '"\\$`':
                    word.append(line[i])
                    i += 1
                else:
                    word.append(c)
        elif c == "\\":
            in_word = True
            if i < n:
                if line[i] != "\n":
                    word.append(line[i])
                i += 1
        elif c.isspace() and c != "\n":
            end_word()
        elif c in ";&|()`\n" or (c == "$" and i < n and line[i] == "("):
            end_command()
        else:
            in_word = True
            word.append(c)
    end_command()
    # Brace groups (`{ rm -rf /; }`) are words to the shell, and boundaries to us.
    split = []
    for command in commands:
        part = []
        for w in command + ["{"]:
            if w in ("{", "}"):
                if part:
                    split.append(part)
                part = []
            else:
                part.append(w)
    return split


WRAPPERS = ("sudo", "doas", "command", "builtin", "exec", "nohup", "time", "nice", "env",
            "timeout", "stdbuf")
VALUED = {"sudo": ("-u", "-g", "-c", "-h", "-p", "-r", "-t"), "nice": ("-n",)}


def unwrap_command(words):
    """The words with wrappers (``sudo``, ``env A=b``, ``timeout 10``, ...), leading variable
    assignments and the program's directory (``/bin/rm``) removed."""
    rest = list(words)
    while True:
        while rest and is_assignment(rest[0]):
            rest = rest[1:]
        if not rest:
            return []
        program = rest[0].rsplit("/", 1)[-1]
        if program not in WRAPPERS:
            break
        rest = rest[1:]
        while rest:
            option = rest[0]
            if option.startswith("-"):
                rest = rest[2 if option in VALUED.get(program, ()) else 1:]
            elif program == "timeout" and option[:1].isdigit():
                rest = rest[1:]
            else:
                break
    return [rest[0].rsplit("/", 1)[-1]] + rest[1:]


def is_assignment(word):
    name, equals, _ = word.partition("=")
    return bool(equals) and name != "" and not name[0].isdigit() and all(
        c.isascii() and (c.isalnum() or c == "_") for c in name
    )
