// hookhost for Node agents: a project's hooks (sandboxed wasm policies, `bash -c` commands,
// JavaScript functions) run in process, their answers merged under one contract. Types:
// index.d.ts; documentation: docs/embedding.md in hookhost's repository.
'use strict'

const native = require('./native/binding.js')

/** Every error hookhost throws; `message` is hookhost's. */
class HookhostError extends Error {
  constructor(message) {
    super(message)
    this.name = this.constructor.name
  }
}
/** A hooks.toml that does not load, or bad options or hook specs. */
class ConfigError extends HookhostError {}
/** An event hookhost cannot read: the message names the key at fault. */
class EventError extends HookhostError {}
/** The fire was cancelled before its hooks answered: there is no decision. */
class CancelledError extends HookhostError {}
/** The runner was closed: it runs no more events. */
class ClosedError extends HookhostError {}

const ERRORS = { event: EventError, cancelled: CancelledError, closed: ClosedError }

// The word for "no objection" where `allow` is not one (forgeflare's protocol).
const CONTINUE_EVENTS = new Set(['PostToolUse', 'Stop'])

function configured(build) {
  try {
    return build()
  } catch (error) {
    throw new ConfigError(error.message)
  }
}

function outcome(result) {
  if (result.outcome === undefined || result.outcome === null) {
    const Kind = ERRORS[result.errorKind] || HookhostError
    throw new Kind(result.error)
  }
  const o = JSON.parse(result.outcome)
  o.blocked = o.decision.kind === 'block'
  o.blockedBy = o.blocked ? o.decision.by : null
  return o
}

class Runner {
  /** @internal */
  constructor(nativeRunner) {
    this._native = nativeRunner
  }

  /** Loads one hooks.toml (a missing file: no hooks). */
  static load(path, options = {}) {
    return new Runner(configured(() => native.NativeRunner.load(String(path), nativeOptions(options))))
  }

  /** Loads the layered configuration of `options.cwd`, as `hookhost agent-hook` finds it. */
  static layers(options = {}) {
    return new Runner(configured(() => native.NativeRunner.layers(nativeOptions(options))))
  }

  /** Runs the hooks `event` reaches, off the JavaScript thread; resolves with their outcome. */
  async fire(event, options = {}) {
    const { signal } = options
    let cancel
    let onAbort
    if (signal) {
      if (signal.aborted) throw new CancelledError(`the ${event.event} fire was aborted before it started: there is no decision`)
      cancel = new native.CancelHandle()
      onAbort = () => cancel.cancel()
      signal.addEventListener('abort', onAbort, { once: true })
    }
    const text = JSON.stringify(event)
    if (text === undefined) throw new EventError('the event is not a JSON object')
    try {
      return outcome(await this._native.fire(text, cancel))
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort)
    }
  }

  /**
   * Adds `hook` as an in-process hook for `event`. `hook(event, {signal})` gets the event as this
   * hook sees it and returns (or resolves with) what a forgeflare-protocol command hook prints:
   * undefined/null for no objection, or `{action: 'block', reason}` and so on.
   */
  register(event, hook, options = {}) {
    if (typeof hook !== 'function') throw new ConfigError('a hook must be a function')
    const protocol = options.protocol || 'forgeflare'
    const spec = { name: options.name || hook.name || 'js-hook', event, phase: options.phase || 'guard', async: Boolean(options.background), protocol }
    if (options.matcher !== undefined) spec.matcher = options.matcher
    if (options.timeoutMs !== undefined) spec.timeout_ms = Math.max(1, Math.round(options.timeoutMs))
    if (options.onFailure !== undefined) spec.on_failure = options.onFailure
    if (options.mode !== undefined) spec.mode = options.mode
    const runner = this._native
    // napi hands the call over as one array: [callId, eventJson].
    const dispatch = ([callId, eventJson]) => {
      const controller = new AbortController()
      // hookhost abandons a call at its deadline: the signal says so to a hook that listens.
      const watch = setInterval(() => {
        if (runner.callCancelled(callId)) {
          controller.abort()
          clearInterval(watch)
        }
      }, 20)
      watch.unref()
      Promise.resolve()
        .then(() => {
          const seen = JSON.parse(eventJson)
          return Promise.resolve(hook(seen, { signal: controller.signal })).then((answer) => {
            if (answer === undefined || answer === null) {
              answer = protocol !== 'forgeflare' ? {} : { action: CONTINUE_EVENTS.has(seen.event) ? 'continue' : 'allow' }
            }
            const json = JSON.stringify(answer)
            if (json === undefined) throw new TypeError('the hook returned something that is not JSON')
            runner.answer(callId, json)
          })
        })
        .catch((error) => {
          const message = error instanceof Error ? `${error.name}: ${error.message}` : `threw ${String(error)}`
          runner.fail(callId, message)
        })
        .finally(() => clearInterval(watch))
    }
    configured(() => runner.register(JSON.stringify(spec), dispatch))
  }

  /** `register` as a decorator-like helper: `runner.hook('PreToolUse', {matcher: 'Bash'}, fn)`. */
  hook(event, options, hook) {
    this.register(event, hook, options)
    return hook
  }

  /** Stops the runner: fires in flight reject with ClosedError, later fires too. */
  close() {
    this._native.close()
  }

  get closed() {
    return this._native.closed
  }

  get loadError() {
    return this._native.loadError ?? null
  }
}

function nativeOptions(options) {
  const out = {}
  for (const key of ['cwd', 'stateDir', 'user', 'project', 'local']) {
    if (options[key] !== undefined && options[key] !== null) out[key] = String(options[key])
  }
  for (const key of ['forwardStderr', 'failClosed', 'discover']) {
    if (options[key] !== undefined) out[key] = Boolean(options[key])
  }
  if (options.env) out.env = Object.fromEntries(Object.entries(options.env).map(([k, v]) => [k, String(v)]))
  return out
}

// Events on which a callback that fails must block the action (the SDK's `onFailure`).
const GATES = new Set(['PreToolUse', 'PermissionRequest', 'UserPromptSubmit'])
/**
 * The `hooks` option of the Claude Agent SDK's `query()`: one matcher per event, matching every
 * tool (hooks.toml's matchers decide), whose callback fires the event through `runner` and
 * answers as `hookhost agent-hook --format claude` does.
 */
function claudeAgentHooks(runner, options = {}) {
  const events = options.events || native.claudeEventsList()
  const onDiagnostics = options.onDiagnostics || ((text) => process.emitWarning(text, 'HookhostWarning'))
  const callback = async (input) => {
    const answer = await runner._native.claude(JSON.stringify(input))
    if (answer.diagnostics) onDiagnostics(answer.diagnostics)
    return JSON.parse(answer.output)
  }
  const hooks = {}
  for (const event of events) {
    const matcher = { hooks: [callback] }
    if (options.timeout !== undefined) matcher.timeout = options.timeout
    if (GATES.has(event)) matcher.onFailure = 'block'
    hooks[event] = [matcher]
  }
  return hooks
}

module.exports = {
  Runner,
  HookhostError,
  ConfigError,
  EventError,
  CancelledError,
  ClosedError,
  claudeAgentHooks,
}
