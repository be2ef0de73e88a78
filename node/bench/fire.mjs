// What a fire costs through the Node package (release build: `npm run build`).
//
//     node bench/fire.mjs
//
// Each case: 15 rounds of N fires, one after another (each awaited); prints the median time per
// fire over the rounds. The cases are the Rust benchmark's (`cargo bench --bench hooks`): no
// hooks configured, one in-process hook (here a JavaScript function), destructive-guard as a
// wasm hook; the difference from the Rust figures is what the boundary adds (the event's JSON in,
// the outcome's out, a Promise settled from napi's threads; for the function, the hop to the
// JavaScript thread and back).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import hookhost from '../index.js'
import { guardWasm, tempDir } from '../test/fixtures.mjs'

const { Runner } = hookhost
const EVENT = { event: 'PreToolUse', tool: 'Bash', input: { command: 'cargo test' } }
const ROUNDS = 15

async function perCall(fire, n) {
  for (let i = 0; i < n / 10; i++) await fire()
  const rounds = []
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < n; i++) await fire()
    rounds.push(Number(process.hrtime.bigint() - start) / n)
  }
  rounds.sort((a, b) => a - b)
  return rounds[Math.floor(ROUNDS / 2)]
}

function show(name, ns) {
  console.log(`| ${name} | ${ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`} |`)
}

const dir = tempDir()
const empty = Runner.load(join(dir, 'none.toml'), { cwd: dir })
const withFunction = Runner.load(join(dir, 'none.toml'), { cwd: dir })
withFunction.register('PreToolUse', function allow() { return null }, { matcher: 'Bash' })
writeFileSync(join(dir, 'hooks.toml'), `[[hooks]]\nname = "destructive-guard"\nevent = "PreToolUse"\nmatch_tool = "Bash"\nwasm = "${guardWasm()}"\n`)
const wasm = Runner.load(join(dir, 'hooks.toml'), { cwd: dir })
if (!(await wasm.fire({ ...EVENT, input: { command: 'rm -rf /' } })).blocked) throw new Error('destructive-guard did not block')
const claudeInput = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: dir, tool_name: 'Bash', tool_input: { command: 'cargo test' }, tool_use_id: 't' })

console.log('| case (per PreToolUse fire, awaited, median of 15 rounds) | time |')
console.log('|---|---|')
show('no hooks configured', await perCall(() => empty.fire(EVENT), 20000))
show('one JavaScript function (allows)', await perCall(() => withFunction.fire(EVENT), 5000))
show('destructive-guard as a wasm hook', await perCall(() => wasm.fire(EVENT), 5000))
show('destructive-guard through the Claude Agent SDK callback (native part)', await perCall(() => wasm._native.claude(claudeInput), 5000))
