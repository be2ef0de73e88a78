// Fixtures: the destructive-guard wasm hook built from this repository, and a project
// directory with a hooks.toml that runs it beside a command hook.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** example-hooks/destructive-guard, built for wasm32-wasip2 in release (as .ci/run does). */
export function guardWasm() {
  const target = process.env.CARGO_TARGET_DIR || join(repo, 'target')
  const wasm = join(target, 'wasm32-wasip2', 'release', 'destructive_guard.wasm')
  if (!existsSync(wasm)) {
    throw new Error(`${wasm} is missing: build it with \`cargo build --release --target wasm32-wasip2 -p destructive-guard\` (.ci/run does)`)
  }
  return wasm
}

export function tempDir() {
  return mkdtempSync(join(tmpdir(), 'hookhost-node-'))
}

/** A project whose hooks.toml runs destructive-guard (wasm) on Bash, and a command hook that adds context to every prompt. */
export function project() {
  const dir = tempDir()
  writeFileSync(join(dir, 'hooks.toml'), `
[[hooks]]
name = "destructive-guard"
event = "PreToolUse"
match_tool = "Bash"
wasm = "${guardWasm()}"
timeout_ms = 5000

[[hooks]]
name = "house-rules"
event = "UserPromptSubmit"
command = 'echo "{\\"action\\":\\"allow\\",\\"context\\":\\"house rules: run the tests\\"}"'
`)
  return dir
}

export const RM = { event: 'PreToolUse', tool: 'Bash', input: { command: 'rm -rf /' } }
export const TESTS = { event: 'PreToolUse', tool: 'Bash', input: { command: 'cargo test' } }
