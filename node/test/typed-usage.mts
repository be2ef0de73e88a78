// Checked by `tsc --noEmit` (`npm run typecheck`, in .ci/run): the package's types as an agent
// uses them, beside the Claude Agent SDK's own. Never run.
import { query, type HookCallbackMatcher, type HookEvent, type Options } from '@anthropic-ai/claude-agent-sdk'
import { Runner, claudeAgentHooks, type Outcome } from '../index.js'

const runner = Runner.layers({ cwd: '.', failClosed: true })
const options: Options = { hooks: claudeAgentHooks(runner, { timeout: 30 }) }
query({ prompt: 'fix the tests', options })
// Each matcher, callback and output is the SDK's own type (a record of them alone would be
// assigned without its values checked).
const hooks = claudeAgentHooks(runner, { events: ['PreToolUse', 'Stop'] satisfies HookEvent[] })
const matcher: HookCallbackMatcher = hooks.PreToolUse![0]!

runner.register('PreToolUse', (event) => {
  const input = event.input as { command?: string }
  return input.command?.startsWith('sudo') ? { action: 'block', reason: 'no sudo' } : undefined
}, { matcher: 'Bash', timeoutMs: 500 })

export { matcher }

export async function pre(): Promise<string | null> {
  const outcome: Outcome = await runner.fire({ event: 'PreToolUse', tool: 'Bash', input: { command: 'ls' } })
  return outcome.blocked ? outcome.decision.message : null
}
