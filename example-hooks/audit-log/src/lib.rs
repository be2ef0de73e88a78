//! audit-log: a PreToolUse observe hook that appends one JSON line per tool call to a file in
//! a directory granted with `write`: the tool, a SHA-256 digest of its input (not the input,
//! which may hold secrets), whether a guard blocked it and why, the batch counter and the
//! time. Each line is one append (`O_APPEND`, one write), so concurrent calls never
//! interleave lines.

use hook_sdk::{Hook, ObserveEvent};
use serde::Deserialize;
use serde_json::json;

/// The hook's `[hooks.config]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The log file; relative paths are relative to the workspace root. Its directory must be
    /// granted with `write`.
    pub path: String,
}

/// The longest block reason kept in a line.
const MAX_REASON: usize = 1000;

/// The hook.
#[derive(Debug)]
pub struct AuditLog;

impl Hook for AuditLog {
    fn observe(event: &ObserveEvent) {
        let config: Config = match hook_sdk::config() {
            Ok(config) => config,
            Err(error) => {
                return hook_sdk::log::error(format!("audit-log is misconfigured: {error}"));
            }
        };
        let line = record(event, &hook_sdk::timestamp());
        if let Err(error) = hook_sdk::fs::append(&event.call.cwd, &config.path, &line) {
            hook_sdk::log::error(format!(
                "cannot append to {}: {error} (is its directory granted with `write`?)",
                config.path
            ));
        }
    }
}

hook_sdk::export!(AuditLog);

/// The line for `event`, with its newline.
pub fn record(event: &ObserveEvent, time: &str) -> String {
    let input = event.call.input.to_string();
    let mut reason = event.blocked.as_ref().map(|b| b.reason.clone());
    if let Some(reason) = reason.as_mut()
        && reason.len() > MAX_REASON
    {
        let cut = (0..=MAX_REASON)
            .rev()
            .find(|&i| reason.is_char_boundary(i))
            .unwrap_or(0);
        reason.truncate(cut);
        reason.push('…');
    }
    let line = json!({
        "time": time,
        "tool": event.call.tool,
        "input_sha256": sha256::hex(input.as_bytes()),
        "input_bytes": input.len(),
        "blocked": event.blocked.is_some(),
        "blocked_by": event.blocked.as_ref().map(|b| &b.by),
        "block_reason": reason,
        "tool_iterations": event.call.tool_iterations,
    });
    format!("{line}\n")
}

/// A small SHA-256 (FIPS 180-4), so the hook needs no extra crate.
mod sha256 {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];

    pub fn hex(data: &[u8]) -> String {
        let mut h: [u32; 8] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
            0x5be0cd19,
        ];
        let mut message = data.to_vec();
        message.push(0x80);
        while message.len() % 64 != 56 {
            message.push(0);
        }
        message.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
        for block in message.chunks(64) {
            let mut w = [0u32; 64];
            for (i, word) in block.chunks(4).enumerate() {
                w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
            }
            for i in 16..64 {
                let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
                let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16]
                    .wrapping_add(s0)
                    .wrapping_add(w[i - 7])
                    .wrapping_add(s1);
            }
            let mut v = h;
            for i in 0..64 {
                let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
                let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
                let t1 = v[7]
                    .wrapping_add(s1)
                    .wrapping_add(ch)
                    .wrapping_add(K[i])
                    .wrapping_add(w[i]);
                let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
                let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
                let t2 = s0.wrapping_add(maj);
                v = [
                    t1.wrapping_add(t2),
                    v[0],
                    v[1],
                    v[2],
                    v[3].wrapping_add(t1),
                    v[4],
                    v[5],
                    v[6],
                ];
            }
            for (state, value) in h.iter_mut().zip(v) {
                *state = state.wrapping_add(value);
            }
        }
        h.iter().map(|word| format!("{word:08x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_sdk::{Blocked, ToolCall};

    #[test]
    fn digest_matches_known_values() {
        assert_eq!(
            sha256::hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256::hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn records_one_json_line_without_the_input() {
        let call = ToolCall::bash_command("rm -rf / # secret-token").with_iterations(7);
        let event = ObserveEvent {
            call,
            blocked: Some(Blocked {
                by: "destructive-guard".into(),
                reason: "x".repeat(2000),
            }),
        };
        let line = record(&event, "2026-02-13T19:30:00Z");
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        assert!(!line.contains("secret-token"));
        let json: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(json["tool"], "Bash");
        assert_eq!(json["blocked"], true);
        assert_eq!(json["blocked_by"], "destructive-guard");
        assert_eq!(json["tool_iterations"], 7);
        assert_eq!(json["time"], "2026-02-13T19:30:00Z");
        assert_eq!(
            json["block_reason"].as_str().unwrap().chars().count(),
            MAX_REASON + 1
        );
        assert_eq!(
            json["input_sha256"],
            sha256::hex(br#"{"command":"rm -rf / # secret-token"}"#)
        );
    }
}
