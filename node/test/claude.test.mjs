// `claudeAgentHooks` inside the real Claude Agent SDK (`@anthropic-ai/claude-agent-sdk` from
// npm): `query({options: {hooks}})` registers the callbacks with the CLI at start, and each hook
// call goes through the SDK's control protocol exactly as when its CLI calls it (`CliSide`
// plays the CLI, no model needed).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { query } from '@anthropic-ai/claude-agent-sdk'
import hookhost from '../index.js'
import { CliSide } from './cli-side.mjs'
import { project, tempDir } from './fixtures.mjs'

const { Runner, claudeAgentHooks } = hookhost

async function withSdk(runner, scenario) {
  const cli = new CliSide()
  // Streaming input keeps the session open while the scenario runs.
  let finish
  const done = new Promise((resolve) => { finish = resolve })
  async function* prompt() {
    await done
  }
  const session = query({
    prompt: prompt(),
    options: {
      hooks: claudeAgentHooks(runner),
      pathToClaudeCodeExecutable: process.execPath,
      spawnClaudeCodeProcess: () => cli.spawn(),
    },
  })
  const reading = (async () => { for await (const _ of session) { /* no messages */ } })().catch(() => {})
  try {
    await scenario(cli)
  } finally {
    finish()
    session.close()
    await reading
  }
}

const bash = (command) => ({
  session_id: 's1', transcript_path: '/tmp/t.jsonl', cwd: '/', permission_mode: 'default',
  tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_1',
})

test('the SDK registers a matcher per event that blocks on failure', async () => {
  const dir = project()
  await withSdk(Runner.load(join(dir, 'hooks.toml'), { cwd: dir }), async (cli) => {
    const hooks = await cli.initialized
    for (const event of ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SessionStart']) {
      assert.ok(hooks[event], `no hooks for ${event}`)
    }
    assert.equal(hooks.PreToolUse[0].hookCallbackIds.length, 1)
    assert.equal(hooks.PreToolUse[0].onFailure, 'block')
  })
})

test('a wasm guard denies through the SDK', async () => {
  const dir = project()
  await withSdk(Runner.load(join(dir, 'hooks.toml'), { cwd: dir }), async (cli) => {
    const answer = await cli.fire('PreToolUse', bash('rm -rf /'), 'toolu_1')
    assert.equal(answer.subtype, 'success')
    const specific = answer.response.hookSpecificOutput
    assert.equal(specific.hookEventName, 'PreToolUse')
    assert.equal(specific.permissionDecision, 'deny')
    assert.match(specific.permissionDecisionReason, /^blocked by destructive-guard: /)
    const allowed = await cli.fire('PreToolUse', bash('cargo test'), 'toolu_2')
    assert.deepEqual(allowed.response, {})
  })
})

test("a hook's rewrite and context reach the SDK", async () => {
  const dir = project()
  const runner = Runner.load(join(dir, 'hooks.toml'), { cwd: dir })
  runner.register('PreToolUse', () => ({ action: 'approve', updated_input: { command: 'cargo test --quiet' } }), { matcher: 'Bash', name: 'quiet' })
  await withSdk(runner, async (cli) => {
    const answer = await cli.fire('PreToolUse', bash('cargo test'))
    assert.deepEqual(answer.response.hookSpecificOutput, {
      hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'cargo test --quiet' },
    })
    const prompt = await cli.fire('UserPromptSubmit', { session_id: 's1', cwd: '/', prompt: 'fix it' })
    assert.equal(prompt.response.hookSpecificOutput.additionalContext, 'house rules: run the tests')
  })
})

test('Stop: a block, and continue: false', async () => {
  const runner = Runner.load(join(tempDir(), 'none.toml'))
  // On Stop, forgeflare's protocol reads only `continue` (seed 000); a hook that keeps the
  // agent going speaks Claude Code's.
  runner.register('Stop', () => ({ decision: 'block', reason: 'the tests still fail' }), { name: 'tests', protocol: 'claude' })
  runner.register('SubagentStop', () => ({ action: 'continue', stop: 'budget spent' }), { name: 'budget' })
  await withSdk(runner, async (cli) => {
    const answer = await cli.fire('Stop', { session_id: 's1', cwd: '/', stop_hook_active: false })
    assert.deepEqual(answer.response, { decision: 'block', reason: 'the tests still fail' })
    const stop = await cli.fire('SubagentStop', { session_id: 's1', cwd: '/', stop_hook_active: false, agent_id: 'a1', agent_transcript_path: '/tmp/a.jsonl', agent_type: 'general-purpose' })
    assert.equal(stop.response.continue, false)
    assert.equal(stop.response.stopReason, 'budget: budget spent')
  })
})

test('a failing guard and a closed runner both deny', async () => {
  const runner = Runner.load(join(tempDir(), 'none.toml'))
  runner.register('PreToolUse', function broken() { throw new TypeError('no policy') })
  await withSdk(runner, async (cli) => {
    const answer = await cli.fire('PreToolUse', bash('ls'))
    assert.equal(answer.response.hookSpecificOutput.permissionDecision, 'deny')
    assert.match(answer.response.hookSpecificOutput.permissionDecisionReason, /TypeError: no policy/)
    runner.close()
    const closed = await cli.fire('PreToolUse', bash('ls'))
    // The callback threw: the SDK answers the CLI with an error, which a matcher with
    // `onFailure: 'block'` turns into a block.
    assert.equal(closed.subtype, 'error')
    assert.match(closed.error, /the runner is closed/)
  })
})
