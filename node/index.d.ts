// Types of the `hookhost` package (index.js). The shapes are docs/embedding.md's: the event's
// JSON in, the outcome's JSON out.

/** An event, in hookhost's documented shape: `event`, then hookhost's keys, then the event's own fields. */
export interface HookEvent {
  /** The event's name: built-in (`PreToolUse`, `PostToolUse`, `Stop`, ...) or custom (`llm:pre_request`). */
  event: string
  session_id?: string
  /** The runner's directory, if given at all: another directory is refused. */
  cwd?: string
  /** The tool, on tool events. */
  tool?: string
  /** The tool's input. */
  input?: unknown
  tool_iterations?: number
  /** Variables for the command hooks this event runs. */
  env?: Record<string, string>
  /** The event's own fields (`result`, `is_error`, `prompt`, `reason`, ...). */
  [field: string]: unknown
}

/** How a hook failed. */
export interface Failure {
  /** `timeout`, `trapped`, `panicked`, `bad_output`, ... */
  kind: string
  message: string
  detail: string
}

/** The guards' merged decision. */
export interface Decision {
  kind: 'allow' | 'approve' | 'warn' | 'ask' | 'block'
  /** The hook that decided. */
  by: string | null
  reason: string | null
  /** A block's message as the model is shown it: `blocked by NAME: REASON`, or `hook failed: ...`. */
  message: string | null
  /** How the guard failed, when it failed closed. */
  failure: Failure | null
}

export interface Notice {
  by: string
  reason: string
}

export interface Signal {
  signal: string
  reason: string
}

export interface Verdict {
  answer: string
  reason: string | null
  updated_input: unknown
  context: string | null
  stop: string | null
  signal: Signal | null
  message: string | null
  note: string | null
}

/** One hook that ran. */
export interface HookReport {
  name: string
  index: number
  event: string
  phase: 'guard' | 'observe'
  kind: string
  async: boolean
  mode: 'enforce' | 'monitor' | 'warn'
  duration_us: number
  verdict: Verdict | null
  failure: Failure | null
  stderr: string
  stderr_truncated: boolean
}

/** What the hooks of one event decided and asked for. */
export interface Outcome {
  event: string
  decision: Decision
  /** The agent may go on without asking: allow, approve or warn. */
  allowed: boolean
  /** A guard blocked (or failed closed). */
  blocked: boolean
  /** The hook that blocked. */
  blockedBy: string | null
  /** The tool input as the guards rewrote it: run the tool with this. */
  updated_input: unknown
  context: Array<{ by: string; text: string }>
  /** All context in one text. */
  context_text: string | null
  /** The first request to end the agent's run. */
  stop: Notice | null
  notices: Notice[]
  signals: Signal[]
  /** What monitor-mode hooks would have decided. */
  monitored: Decision[]
  reports: HookReport[]
  warnings: string[]
  final_written: boolean
}

export interface RunnerOptions {
  /** Where command hooks run and what events' `cwd` is (default: the process's). */
  cwd?: string
  /** Variables for every command hook. */
  env?: Record<string, string>
  /** Where convergence.json lives (default `{cwd}/.forgeflare`). */
  stateDir?: string
  /** Copy hooks' stderr to this process's (reports carry it either way). Default false. */
  forwardStderr?: boolean
  /** A configuration that does not load blocks every gate event instead of throwing ConfigError. */
  failClosed?: boolean
}

export interface LayersOptions extends RunnerOptions {
  user?: string
  project?: string
  local?: string
  /** Find the files from `cwd` (default true). */
  discover?: boolean
}

/** The event as a hook sees it: the JSON a forgeflare-protocol command hook reads (`event`, `phase`, `tool`, `input` as earlier guards rewrote it, the event's fields; for an observer, what the guards decided). With `protocol: 'claude'`, Claude Code's hook input. */
export type HookInput = Record<string, unknown> & { event?: string; phase?: 'guard' | 'observe'; tool?: string; input?: unknown }

/** What a hook answers: what a forgeflare-protocol command hook prints (or its protocol's hook prints); undefined/null for no objection. */
export interface HookAnswer {
  [key: string]: unknown
  action?: 'allow' | 'continue' | 'block' | 'ask' | 'warn' | 'approve' | 'signal'
  reason?: string
  updated_input?: unknown
  context?: string
  stop?: string
  signal?: string
  message?: string
}

/** A JavaScript hook. `signal` aborts when hookhost abandons the call (its timeout passed, or its fire was cancelled). */
export type Hook = (event: HookInput, options: { signal: AbortSignal }) => HookAnswer | null | undefined | void | Promise<HookAnswer | null | undefined | void>

export interface HookOptions {
  name?: string
  /** Claude Code's matcher: `Bash`, `Edit|Write`, a regex. */
  matcher?: string
  /** Default: the event's. */
  timeoutMs?: number
  phase?: 'guard' | 'observe'
  onFailure?: 'block' | 'allow'
  mode?: 'enforce' | 'monitor' | 'warn'
  /** An observer that runs without being waited for. */
  background?: boolean
  /** The JSON the hook reads and answers: forgeflare's (default), or an agent's (`claude`, `copilot`, `gemini`). On Stop, forgeflare's reads only `continue`: use Claude Code's `{decision: 'block', reason}` to keep the agent going. */
  protocol?: 'forgeflare' | 'claude' | 'copilot' | 'gemini'
}

export declare class Runner {
  private constructor()
  /** Loads one hooks.toml (a missing file: no hooks). Throws ConfigError with hookhost's message. */
  static load(path: string, options?: RunnerOptions): Runner
  /** Loads the user's, the project's and the local hooks.toml of `cwd`, as `hookhost agent-hook` does. */
  static layers(options?: LayersOptions): Runner
  /** Runs the hooks `event` reaches off the JavaScript thread. Rejects with EventError, CancelledError (the signal aborted) or ClosedError. */
  fire(event: HookEvent, options?: { signal?: AbortSignal }): Promise<Outcome>
  /** Adds `hook` as an in-process hook for `event` (a name, a glob, a comma list). A hook that throws, rejects or overruns is a failed hook: a guard that fails closed blocks. */
  register(event: string, hook: Hook, options?: HookOptions): void
  hook<F extends Hook>(event: string, options: HookOptions, hook: F): F
  /** Stops the runner: fires in flight reject with ClosedError, and so do later ones. */
  close(): void
  readonly closed: boolean
  /** The configuration error a `failClosed` runner blocks with. */
  readonly loadError: string | null
}

export declare class HookhostError extends Error {}
export declare class ConfigError extends HookhostError {}
export declare class EventError extends HookhostError {}
export declare class CancelledError extends HookhostError {}
export declare class ClosedError extends HookhostError {}

/** A Claude Agent SDK hook callback, as the SDK's `HookCallback` is typed. */
export type ClaudeHookCallback = (input: any, toolUseID: string | undefined, options: { signal: AbortSignal }) => Promise<Record<string, unknown>>

export interface ClaudeHookMatcher {
  matcher?: string
  hooks: ClaudeHookCallback[]
  timeout?: number
  onFailure?: 'continue' | 'block'
}

export interface ClaudeAgentHooksOptions {
  /** The events to hook (default: every Claude Code event hookhost reads). */
  events?: string[]
  /** The matchers' timeout, in seconds (the SDK's default: 60). */
  timeout?: number
  /** What Claude Code would have read on a hook's stderr (default: process.emitWarning). */
  onDiagnostics?: (text: string) => void
}

/** The `hooks` option of the Claude Agent SDK's `query()`: `query({prompt, options: {hooks: claudeAgentHooks(runner)}})`. */
export declare function claudeAgentHooks(runner: Runner, options?: ClaudeAgentHooksOptions): Record<string, ClaudeHookMatcher[]>
