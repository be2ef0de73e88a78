//! A command hook's session, and killing everything in it.
//!
//! A session is what a hook cannot leave by accident: `timeout` and `set -m` move processes
//! to new process groups, but only `setsid` starts a new session. So when the hook ends or
//! times out, everything still in its session is killed, and only what detached on purpose
//! stays.

use std::time::{Duration, Instant};

/// The hook's session: the hook's shell leads it, and every process the hook starts stays in
/// it, whatever process group it moves to, unless it calls setsid itself. Everything in it is
/// killed (SIGKILL) once: when asked, or when this is dropped.
pub(super) struct HookSession {
    /// The session's id, which is the shell's pid; `None` once killed.
    sid: Option<libc::pid_t>,
    started: Instant,
}

/// How many times the session's members are looked for. Each look after the first finds only
/// what was forked while the previous one was killing, so a few suffice even for a hook that
/// forks in a loop; the bound keeps a pathological one from holding the runner.
const SESSION_LOOKS: usize = 64;

/// Within this time of the shell's start, the pid counter cannot have gone all the way round
/// (with the smallest default pid_max, that takes 32,468 new processes; nothing starts
/// 300,000 a second), so every process started since has a pid between the shell's and the
/// last one handed out.
const PID_RANGE_WINDOW: Duration = Duration::from_millis(100);

/// Beyond this many pids handed out since the shell, reading /proc is as cheap.
const PID_RANGE_MAX: libc::pid_t = 2048;

/// Where the members of a session are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lookup {
    /// The pids handed out since the shell's, when that is known to hold them all: a few
    /// getsid calls instead of a walk through /proc (which costs about 1 µs per process on
    /// the machine). Else every process in /proc.
    Auto,
    /// Every process in /proc.
    #[cfg_attr(not(test), allow(dead_code))]
    All,
}

impl HookSession {
    /// The session led by the shell `sid`, just started.
    pub(super) fn new(sid: libc::pid_t) -> HookSession {
        HookSession {
            sid: Some(sid),
            started: Instant::now(),
        }
    }

    /// Kills the shell's process group, then every other process of the session.
    pub(super) fn kill(&mut self) {
        self.kill_with(Lookup::Auto);
    }

    fn kill_with(&mut self, lookup: Lookup) {
        let Some(sid) = self.sid.take() else { return };
        // SAFETY: kill(2) with a negative pid signals a process group; it has no memory
        // effects. The shell leads a group numbered `sid` (a session leader leads a group).
        unsafe {
            libc::kill(-sid, libc::SIGKILL);
        }
        // Then what left the group but not the session.
        let mut signalled: Vec<libc::pid_t> = Vec::new();
        for _ in 0..SESSION_LOOKS {
            let range = match lookup {
                Lookup::Auto => pids_since(sid, self.started.elapsed(), last_pid()),
                Lookup::All => None,
            };
            let found = match range {
                Some(range) => kill_members(sid, range, &mut signalled),
                None => match std::fs::read_dir("/proc") {
                    Ok(proc) => {
                        let pids = proc
                            .flatten()
                            .filter_map(|e| e.file_name().to_str()?.parse().ok());
                        kill_members(sid, pids, &mut signalled)
                    }
                    // Without /proc, the group is all that can be found.
                    Err(_) => false,
                },
            };
            if !found {
                return;
            }
        }
    }
}

impl Drop for HookSession {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The last pid handed out in this pid namespace, if the kernel says.
fn last_pid() -> Option<libc::pid_t> {
    std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The pids handed out after the shell's (`sid`), if they are sure to include every process
/// the hook started: pids are handed out in increasing order and wrap around at pid_max, so
/// that holds while the counter has not wrapped since and has not had time to go all the way
/// round. `None`: look through /proc.
fn pids_since(
    sid: libc::pid_t,
    elapsed: Duration,
    last: Option<libc::pid_t>,
) -> Option<std::ops::RangeInclusive<libc::pid_t>> {
    let last = last?;
    let fresh = elapsed < PID_RANGE_WINDOW && last >= sid && last - sid <= PID_RANGE_MAX;
    fresh.then(|| sid + 1..=last)
}

/// Kills every process among `pids` whose session is `sid` and that was not signalled yet.
/// Returns whether there was one.
fn kill_members(
    sid: libc::pid_t,
    pids: impl IntoIterator<Item = libc::pid_t>,
    signalled: &mut Vec<libc::pid_t>,
) -> bool {
    let mut found = false;
    for pid in pids {
        // A member signalled by an earlier look (now gone or a zombie) is skipped.
        if signalled.contains(&pid) {
            continue;
        }
        // SAFETY: getsid(2) only reads another process's session id.
        let in_session = unsafe { libc::getsid(pid) } == sid;
        if in_session {
            // SAFETY: kill(2) has no memory effects. A session's number stays taken while any
            // member lives (and is reused only after the pid counter wraps around), so a
            // process found in it is one the hook started.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            signalled.push(pid);
            found = true;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::spawn::HookCommand;
    use super::*;

    #[test]
    fn pids_since_the_shell_only_while_they_hold_every_new_process() {
        let ms = Duration::from_millis;
        let cases = [
            (
                "a few new processes",
                1000,
                ms(5),
                Some(1003),
                Some((1001, 1003)),
            ),
            (
                "none since: an empty range",
                1000,
                ms(5),
                Some(1000),
                Some((1001, 1000)),
            ),
            ("the counter wrapped", 32000, ms(5), Some(400), None),
            (
                "too many since",
                1000,
                ms(5),
                Some(1000 + PID_RANGE_MAX + 1),
                None,
            ),
            ("long enough to go round", 1000, ms(100), Some(1003), None),
            ("the kernel does not say", 1000, ms(5), None, None),
        ];
        for (name, sid, elapsed, last, expected) in cases {
            let range = pids_since(sid, elapsed, last).map(|r| (*r.start(), *r.end()));
            assert_eq!(range, expected, "{name}");
        }
    }

    fn processes_with(marker: &str) -> usize {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|entry| {
                std::fs::read(entry.path().join("cmdline"))
                    .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
            })
            .count()
    }

    #[tokio::test]
    async fn both_lookups_find_what_left_the_process_group() {
        for (lookup, marker) in [(Lookup::Auto, "35.1012"), (Lookup::All, "35.2012")] {
            let command = format!(
                "set -m; sleep {marker} & timeout 60 sleep {marker} & (set -m; sleep {marker} &)"
            );
            let hook = HookCommand {
                shell: Path::new("bash"),
                command: &command,
                cwd: Path::new("/"),
                base_env: None,
                env: Vec::new(),
            };
            let mut running = hook.spawn().unwrap();
            drop(running.stdin);
            assert!(running.exit.await.unwrap().unwrap().success());
            running.session.kill_with(lookup);
            let mut left = processes_with(marker);
            for _ in 0..100 {
                if left == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
                left = processes_with(marker);
            }
            assert_eq!(left, 0, "{lookup:?} left processes behind");
        }
    }
}
