// The Claude Code CLI's side of the Claude Agent SDK's control protocol, for the tests.
//
// The SDK runs its CLI as a process and talks JSON lines over its stdin and stdout; the
// `spawnClaudeCodeProcess` option (the SDK's documented way to run the CLI elsewhere) hands it
// this object instead. At start the SDK sends an `initialize` control request carrying the
// `hooks` option as `{matcher, hookCallbackIds, timeout, onFailure}` per event; when a hook
// fires, the CLI sends a `hook_callback` control request and the SDK answers with the
// callback's output. This is that CLI side and nothing more, so that a test drives the real
// SDK's code from `query({options: {hooks}})` to the wire, without a model.
import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import { createInterface } from 'node:readline'

export class CliSide extends EventEmitter {
  constructor() {
    super()
    this.stdin = new PassThrough()
    this.stdout = new PassThrough()
    this.killed = false
    this.exitCode = null
    this.hooks = null
    this.next = 0
    this.waiting = new Map()
    this.initialized = new Promise((resolve) => {
      this.onInitialized = resolve
    })
    createInterface({ input: this.stdin }).on('line', (line) => this.read(JSON.parse(line)))
  }

  /** `spawnClaudeCodeProcess`'s return value. */
  spawn() {
    return this
  }

  read(message) {
    if (message.type === 'control_request') {
      const request = message.request
      let response = {}
      if (request.subtype === 'initialize') {
        this.hooks = request.hooks || {}
        response = { commands: [], hook_on_failure_supported: true, hooks_applied: true }
        this.onInitialized(this.hooks)
      }
      this.send({ type: 'control_response', response: { subtype: 'success', request_id: message.request_id, response } })
    } else if (message.type === 'control_response') {
      const waiter = this.waiting.get(message.response.request_id)
      if (waiter) {
        this.waiting.delete(message.response.request_id)
        waiter(message.response)
      }
    }
  }

  send(message) {
    this.stdout.write(JSON.stringify(message) + '\n')
  }

  /**
   * Sends the `hook_callback` request the CLI sends for the first callback registered for
   * `event`, and resolves with the SDK's answer: `{subtype: 'success', response: OUTPUT}` or
   * `{subtype: 'error', error}`.
   */
  async fire(event, input, toolUseId) {
    const hooks = await this.initialized
    const matchers = hooks[event]
    if (!matchers || !matchers.length) throw new Error(`the SDK registered no hooks for ${event}`)
    const requestId = `cli_${++this.next}`
    const answered = new Promise((resolve) => this.waiting.set(requestId, resolve))
    this.send({
      type: 'control_request',
      request_id: requestId,
      request: {
        subtype: 'hook_callback',
        callback_id: matchers[0].hookCallbackIds[0],
        input: { hook_event_name: event, ...input },
        tool_use_id: toolUseId,
      },
    })
    return answered
  }

  kill() {
    this.killed = true
    this.exitCode = 0
    this.stdout.end()
    setImmediate(() => this.emit('exit', 0, null))
    return true
  }
}
