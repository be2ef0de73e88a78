// hookhost's Node package: a wasm guard, JavaScript functions as hooks, failures, concurrency,
// cancellation, errors. Each test fires real hooks: the destructive-guard component, `bash -c`
// commands, JavaScript functions.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import hookhost from '../index.js'
import { project, tempDir, RM, TESTS } from './fixtures.mjs'

const { Runner } = hookhost

test('a wasm guard blocks and allows', async () => {
  const dir = project()
  const runner = Runner.load(join(dir, 'hooks.toml'), { cwd: dir })
  const blocked = await runner.fire(RM)
  assert.equal(blocked.blocked, true)
  assert.equal(blocked.allowed, false)
  assert.equal(blocked.blockedBy, 'destructive-guard')
  assert.match(blocked.decision.message, /^blocked by destructive-guard: .*rm -r/)
  assert.deepEqual(blocked.reports.map((r) => [r.name, r.kind]), [['destructive-guard', 'wasm']])
  const allowed = await runner.fire(TESTS)
  assert.equal(allowed.decision.kind, 'allow')
  assert.equal(allowed.blockedBy, null)
})

test('a hook rewrites the input and the guards after it see the rewrite', async () => {
  const runner = Runner.load(join(tempDir(), 'none.toml'))
  const seen = []
  runner.register('PreToolUse', function quietTests(event) {
    if (event.input.command === 'cargo test') {
      return { action: 'allow', updated_input: { command: 'cargo test --quiet' } }
    }
  }, { matcher: 'Bash' })
  runner.register('PreToolUse', async (event) => { seen.push(event) }, { name: 'sees-the-rewrite' })
  const outcome = await runner.fire(TESTS)
  assert.deepEqual(outcome.updated_input, { command: 'cargo test --quiet' })
  assert.deepEqual(seen[0].input, { command: 'cargo test --quiet' })
  assert.equal(seen[0].tool, 'Bash')
  assert.equal(seen[0].phase, 'guard')
  // The guards run again on the rewritten input (the rewriter too): it must still pass.
  assert.deepEqual(outcome.reports.map((r) => [r.name, r.kind]), [['quietTests', 'native'], ['sees-the-rewrite', 'native'], ['quietTests', 'native']])
  const read = await runner.fire({ event: 'PreToolUse', tool: 'Read', input: { path: 'x' } })
  assert.deepEqual(read.reports.map((r) => r.name), ['sees-the-rewrite'])
})

test('context from a command hook and a function, in declaration order', async () => {
  const dir = project()
  const runner = Runner.load(join(dir, 'hooks.toml'), { cwd: dir })
  runner.register('UserPromptSubmit', async (event) => ({ action: 'allow', context: `prompt was "${event.prompt}"` }), { name: 'echo-prompt' })
  const outcome = await runner.fire({ event: 'UserPromptSubmit', prompt: 'fix the parser' })
  assert.deepEqual(outcome.context, [
    { by: 'house-rules', text: 'house rules: run the tests' },
    { by: 'echo-prompt', text: 'prompt was "fix the parser"' },
  ])
})

test('a hook that throws or rejects fails closed, naming the error', async () => {
  const runner = Runner.load(join(tempDir(), 'none.toml'))
  runner.register('PreToolUse', function broken() { throw new RangeError('the policy server is down') })
  const outcome = await runner.fire(TESTS)
  assert.equal(outcome.blockedBy, 'broken')
  assert.match(outcome.decision.failure.message, /RangeError: the policy server is down/)
  assert.match(outcome.decision.message, /^hook failed: .*\(tool blocked by default\)$/)

  const rejecting = Runner.load(join(tempDir(), 'none.toml'))
  rejecting.register('PreToolUse', async function rejects() { throw new Error('nope') })
  assert.match((await rejecting.fire(TESTS)).decision.failure.message, /Error: nope/)

  const observer = Runner.load(join(tempDir(), 'none.toml'))
  observer.register('PreToolUse', () => { throw new Error('nope') }, { phase: 'observe' })
  const observed = await observer.fire(TESTS)
  assert.equal(observed.allowed, true)
  assert.notEqual(observed.reports[0].failure, null)
})

test('a hook that overruns its timeout is a timed-out guard, and its signal aborts', async () => {
  const runner = Runner.load(join(tempDir(), 'none.toml'))
  let aborted
  runner.register('PreToolUse', (event, { signal }) => new Promise((resolve) => {
    signal.addEventListener('abort', () => { aborted = true; resolve(null) })
    setTimeout(resolve, 5000).unref()
  }), { name: 'slow', timeoutMs: 100 })
  const start = performance.now()
  const outcome = await runner.fire(TESTS)
  const took = performance.now() - start
  assert.equal(outcome.blocked, true)
  assert.equal(outcome.decision.failure.kind, 'timed_out')
  assert.match(outcome.decision.failure.message, /timed out after 100ms/)
  assert.ok(took < 1000, `the 100 ms timeout fired after ${took} ms`)
  for (let i = 0; i < 100 && !aborted; i++) await sleep(10)
  assert.equal(aborted, true)
})

test('many fires at once, and the JavaScript thread stays free', async () => {
  const dir = project()
  const runner = Runner.load(join(dir, 'hooks.toml'), { cwd: dir })
  runner.register('PreToolUse', (event) => event.input.command.startsWith('sudo') ? { action: 'block', reason: 'no sudo' } : null, { name: 'no-sudo' })
  const commands = Array.from({ length: 50 }, () => ['rm -rf /', 'cargo test', 'sudo ls', 'ls']).flat()
  const outcomes = await Promise.all(commands.map((command) => runner.fire({ event: 'PreToolUse', tool: 'Bash', input: { command } })))
  assert.deepEqual(outcomes.map((o) => o.blockedBy), commands.map((c) => c.startsWith('rm') ? 'destructive-guard' : c.startsWith('sudo') ? 'no-sudo' : null))

  // A command hook that sleeps: the event loop goes on meanwhile.
  const slow = tempDir()
  writeFileSync(join(slow, 'hooks.toml'), '[[hooks]]\nname = "slow"\nevent = "PreToolUse"\ncommand = "sleep 0.3; echo \'{\\"action\\":\\"allow\\"}\'"\n')
  const slowRunner = Runner.load(join(slow, 'hooks.toml'), { cwd: slow })
  let ticks = 0
  const ticker = setInterval(() => ticks++, 10)
  const all = await Promise.all(Array.from({ length: 8 }, () => slowRunner.fire(TESTS)))
  clearInterval(ticker)
  assert.ok(all.every((o) => o.allowed))
  assert.ok(ticks >= 10, `the event loop ran ${ticks} ticks while hooks ran`)
})

function alive(pid) {
  try { process.kill(pid, 0); return true } catch { return false }
}

async function sleeperPid(dir) {
  const file = join(dir, 'sleeper.pid')
  for (let i = 0; i < 500; i++) {
    if (existsSync(file) && readFileSync(file, 'utf8').trim()) return Number(readFileSync(file, 'utf8'))
    await sleep(10)
  }
  throw new Error(`${file} was never written`)
}

function sleeper() {
  const dir = tempDir()
  writeFileSync(join(dir, 'hooks.toml'), '[[hooks]]\nname = "sleeper"\nevent = "PreToolUse"\ncommand = "echo $$ > sleeper.pid; exec sleep 30"\ntimeout_ms = 60000\n')
  return dir
}

async function gone(pid) {
  for (let i = 0; i < 500 && alive(pid); i++) await sleep(10)
  return !alive(pid)
}

test('closing the runner stops a fire in flight', async () => {
  const dir = sleeper()
  const runner = Runner.load(join(dir, 'hooks.toml'), { cwd: dir })
  const fire = runner.fire(TESTS)
  const pid = await sleeperPid(dir)
  runner.close()
  await assert.rejects(fire, (error) => error instanceof hookhost.ClosedError && /there is no decision/.test(error.message))
  assert.ok(await gone(pid), "the hook's process outlived the closed runner")
  await assert.rejects(runner.fire(TESTS), hookhost.ClosedError)
  assert.equal(runner.closed, true)
})

test('aborting a fire stops its hooks', async () => {
  const dir = sleeper()
  const runner = Runner.load(join(dir, 'hooks.toml'), { cwd: dir })
  const controller = new AbortController()
  const fire = runner.fire(TESTS, { signal: controller.signal })
  const pid = await sleeperPid(dir)
  controller.abort()
  await assert.rejects(fire, hookhost.CancelledError)
  assert.ok(await gone(pid), 'the aborted fire\'s hook is still running')
  assert.equal((await runner.fire({ event: 'Stop' })).allowed, true)
})

test('a configuration that does not load throws or fails closed', async () => {
  const dir = tempDir()
  const bad = join(dir, 'hooks.toml')
  writeFileSync(bad, '[[hooks]]\nevent = "PreToolUse"\ncommand = "true"\ntimeout_ms = "soon"\n')
  assert.throws(() => Runner.load(bad, { cwd: dir }), (error) => error instanceof hookhost.ConfigError && error.message.includes(`${bad}:4:`) && error.message.includes('timeout_ms'))
  const runner = Runner.load(bad, { cwd: dir, failClosed: true })
  assert.match(runner.loadError, /timeout_ms/)
  const outcome = await runner.fire(TESTS)
  assert.equal(outcome.blocked, true)
  assert.match(outcome.decision.message, /^hook failed: /)
})

test('an event hookhost cannot read is an error naming the key', async () => {
  const runner = Runner.load(join(tempDir(), 'none.toml'))
  await assert.rejects(runner.fire({ tool: 'Bash' }), (error) => error instanceof hookhost.EventError && error.message.includes('`event`'))
  await assert.rejects(runner.fire({ event: 'PreToolUse', tool: 'Bash', tool_iterations: 'three' }), /`tool_iterations`/)
  await assert.rejects(runner.fire({ event: 'PreToolUSE', tool: 'Bash' }), /did you mean/)
  assert.throws(() => runner.register('PreToolUse', () => null, { matcher: '(' }), (error) => error instanceof hookhost.ConfigError && /not a valid regular expression/.test(error.message))
})
