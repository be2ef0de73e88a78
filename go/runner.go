// Package hookhost embeds hookhost, the WebAssembly-sandboxed hook host, in a Go agent: the
// Go agent SDK's hook runner (its HookRunner interface, 15 events, typed inputs, Go callbacks
// with matchers and timeouts, async hooks, the expanded HookResult), running Go callbacks in
// hookhost's one runner beside the wasm and command hooks of hooks.toml, in declaration order.
//
// It is a thin layer over hookhost's C ABI (capi/, libhookhost_capi): events cross as JSON,
// outcomes come back as JSON, and Go callbacks answer as Claude Code hooks do, read by the
// same code that reads a `protocol = "claude"` command hook.
//
//	runner, err := hookhost.NewRunner(hookhost.RunnerConfig{
//		CWD:        "/path/to/project",
//		ConfigPath: ".forgeflare/hooks.toml",
//		Hooks: map[hookhost.HookEvent][]hookhost.CallbackMatcher{
//			hookhost.HookEventPreToolUse: {{
//				HookCallbackMatcher: hookhost.HookCallbackMatcher{Matcher: "Bash", Timeout: time.Second},
//				Hooks:               []hookhost.HookCallback{noSudo},
//			}},
//		},
//	})
//	defer runner.Close()
//	results, err := runner.Fire(ctx, hookhost.HookEventPreToolUse, &hookhost.PreToolUseHookInput{
//		ToolName: "Bash", ToolInput: map[string]any{"command": "rm -rf /"},
//	})
package hookhost

// #include <stdlib.h>
// #include "hookhost.h"
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ErrClosed is what Fire returns (wrapped) once the runner is closed.
var ErrClosed = errors.New("hookhost: the runner is closed")

// Error is a failure the C ABI reported: its status and hookhost's message.
type Error struct {
	// Status is the C ABI's hookhost_status (2 a configuration error, 3 a refused event, ...).
	Status  int
	Message string
}

func (e *Error) Error() string {
	return "hookhost: " + e.Message
}

// Is makes errors.Is(err, ErrClosed) true for a closed runner's error.
func (e *Error) Is(target error) bool {
	return target == ErrClosed && e.Status == int(C.HOOKHOST_STATUS_CLOSED)
}

// takeError turns a status and its C message into an error, freeing the message.
func takeError(status C.hookhost_status, message *C.char) error {
	if status == C.HOOKHOST_STATUS_OK {
		return nil
	}
	text := "unknown error"
	if message != nil {
		text = C.GoString(message)
		C.hookhost_string_free(message)
	}
	return &Error{Status: int(status), Message: text}
}

// HookCallbackMatcher selects the tools (or, on events without a tool, the field hookhost's
// catalog names: SessionStart's source, ...) a callback runs for, and its timeout.
type HookCallbackMatcher struct {
	// Matcher: "" for every tool, an exact name ("Bash"), a list ("Edit|Write"), or a glob over
	// the whole name ("mcp__*", as filepath.Match reads it).
	Matcher string
	// HookCallbackIDs names the Hooks in reports and messages (default: "go:{event}#{n}").
	HookCallbackIDs []string
	// Timeout per call; 0 is the event's default (5 s; Stop 3 s). A call still running then
	// is abandoned (its context is cancelled, its answer discarded) and the hook has timed out.
	Timeout time.Duration
}

// CallbackMatcher is a matcher with its Go callbacks.
type CallbackMatcher struct {
	HookCallbackMatcher
	Hooks []HookCallback
	// Async runs the callbacks in the background, as observers: nothing waits for them and
	// their answers change nothing (audit trails, telemetry). Flush waits for them.
	Async bool
}

// Layers names the configuration files a runner loads, beside the organisation's managed file
// (which always comes first where the machine has one). Empty names are left out.
type Layers struct {
	User, Project, Local string
}

// RunnerConfig sets a runner up.
type RunnerConfig struct {
	// CWD is the agent's working directory: hooks run in it and are told it. Default: the
	// process's.
	CWD string
	// ConfigPath is a hooks.toml (relative to CWD); a missing file is no hooks. When neither
	// it nor Layers is set, the runner loads what `hookhost agent-hook` would: the user's
	// hooks.toml, the project's (.forgeflare/hooks.toml, else hooks.toml) and its local file.
	ConfigPath string
	// Layers loads these files instead of ConfigPath.
	Layers *Layers
	// AgentName is HOOKHOST_AGENT for command hooks and the decision log.
	AgentName string
	// Env adds variables for every command hook.
	Env map[string]string
	// SessionID is the session of events whose input names none.
	SessionID string
	// StateDir is where convergence.json lives (default: {CWD}/.forgeflare).
	StateDir string
	// WasmCache: "default", "off", or a directory for compiled wasm hooks.
	WasmCache string
	// ForwardStderr copies hooks' stderr to this process's stderr (reports carry it anyway).
	ForwardStderr bool
	// Hooks are Go callbacks, registered after the configuration's hooks: for each event in
	// the SDK's order (HookEvents, then other names sorted), matchers in order, callbacks in
	// order.
	Hooks map[HookEvent][]CallbackMatcher
}

// HookRunner is the Go agent SDK's interface (pkg/agent): an agent loop fires its events
// through it. The SDK adopts this package's types (`type HookResult = hookhost.HookResult`,
// `type HookEvent = hookhost.HookEvent`), and *Runner is its HookRunner.
type HookRunner interface {
	Fire(ctx context.Context, event HookEvent, input any) ([]HookResult, error)
}

var _ HookRunner = (*Runner)(nil)

// Runner runs a project's hooks: hooks.toml's wasm and command hooks and Go callbacks. Safe
// for use by many goroutines at once.
type Runner struct {
	mu        sync.RWMutex
	ptr       *C.hookhost_runner
	closing   atomic.Bool
	sessionID string
	// registered counts callbacks per event, for default names.
	registered map[HookEvent]int
	regMu      sync.Mutex
}

// NewRunner loads a runner. A configuration that does not load is an error with hookhost's
// message (file, line, column); an agent should not run tools unguarded on it.
func NewRunner(config RunnerConfig) (*Runner, error) {
	if C.hookhost_abi_version() != C.HOOKHOST_ABI_VERSION {
		return nil, fmt.Errorf("hookhost: libhookhost_capi has ABI version %d, this package needs %d: rebuild them together",
			uint32(C.hookhost_abi_version()), uint32(C.HOOKHOST_ABI_VERSION))
	}
	cwd := config.CWD
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("hookhost: no CWD given, and the process's: %w", err)
		}
	}
	options, err := newOptions(cwd, &config)
	if err != nil {
		return nil, err
	}
	defer C.hookhost_options_free(options)
	var ptr *C.hookhost_runner
	var message *C.char
	var status C.hookhost_status
	switch {
	case config.Layers != nil:
		user, project, local := cOptional(config.Layers.User), cOptional(config.Layers.Project), cOptional(config.Layers.Local)
		defer freeAll(user, project, local)
		status = C.hookhost_runner_load_layers(options, user, project, local, &ptr, &message)
	case config.ConfigPath != "":
		path := C.CString(config.ConfigPath)
		defer C.free(unsafe.Pointer(path))
		status = C.hookhost_runner_load(options, path, &ptr, &message)
	default:
		status = C.hookhost_runner_discover(options, &ptr, &message)
	}
	if err := takeError(status, message); err != nil {
		return nil, err
	}
	runner := &Runner{ptr: ptr, sessionID: config.SessionID, registered: map[HookEvent]int{}}
	for _, event := range eventOrder(config.Hooks) {
		for _, matcher := range config.Hooks[event] {
			if err := runner.Register(event, matcher); err != nil {
				runner.Close()
				return nil, err
			}
		}
	}
	return runner, nil
}

// eventOrder is the SDK's 15 events, then any other, sorted.
func eventOrder(hooks map[HookEvent][]CallbackMatcher) []HookEvent {
	order := []HookEvent{}
	known := map[HookEvent]bool{}
	for _, event := range HookEvents {
		known[event] = true
		if _, ok := hooks[event]; ok {
			order = append(order, event)
		}
	}
	var others []string
	for event := range hooks {
		if !known[event] {
			others = append(others, string(event))
		}
	}
	sort.Strings(others)
	for _, event := range others {
		order = append(order, HookEvent(event))
	}
	return order
}

func newOptions(cwd string, config *RunnerConfig) (*C.hookhost_options, error) {
	var options *C.hookhost_options
	var message *C.char
	ccwd := C.CString(cwd)
	defer C.free(unsafe.Pointer(ccwd))
	if err := takeError(C.hookhost_options_new(ccwd, &options, &message), message); err != nil {
		return nil, err
	}
	set := func(status C.hookhost_status, message *C.char) error {
		if err := takeError(status, message); err != nil {
			C.hookhost_options_free(options)
			return err
		}
		return nil
	}
	withString := func(value string, apply func(*C.char, **C.char) C.hookhost_status) error {
		text := C.CString(value)
		defer C.free(unsafe.Pointer(text))
		var message *C.char
		return set(apply(text, &message), message)
	}
	if config.AgentName != "" {
		if err := withString(config.AgentName, func(v *C.char, m **C.char) C.hookhost_status {
			return C.hookhost_options_set_agent(options, v, m)
		}); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(config.Env))
	for name := range config.Env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cname := C.CString(name)
		value := config.Env[name]
		err := withString(value, func(v *C.char, m **C.char) C.hookhost_status {
			return C.hookhost_options_add_env(options, cname, v, m)
		})
		C.free(unsafe.Pointer(cname))
		if err != nil {
			return nil, err
		}
	}
	if config.StateDir != "" {
		if err := withString(config.StateDir, func(v *C.char, m **C.char) C.hookhost_status {
			return C.hookhost_options_set_state_dir(options, v, m)
		}); err != nil {
			return nil, err
		}
	}
	if config.WasmCache != "" {
		if err := withString(config.WasmCache, func(v *C.char, m **C.char) C.hookhost_status {
			return C.hookhost_options_set_wasm_cache(options, v, m)
		}); err != nil {
			return nil, err
		}
	}
	if config.ForwardStderr {
		var message *C.char
		if err := set(C.hookhost_options_set_forward_stderr(options, true, &message), message); err != nil {
			return nil, err
		}
	}
	return options, nil
}

func cOptional(text string) *C.char {
	if text == "" {
		return nil
	}
	return C.CString(text)
}

func freeAll(texts ...*C.char) {
	for _, text := range texts {
		if text != nil {
			C.free(unsafe.Pointer(text))
		}
	}
}

// Fire runs one event through every hook it reaches and returns the agent SDK's results: one
// HookResult with the merged answer (none when no hook ran). input is the event's typed
// input (a *PreToolUseHookInput, ...; a value works too), a map, or nil. Cancelling ctx, or
// its deadline, stops the hooks in flight (command hooks' processes are killed, wasm instances
// dropped, callbacks' contexts cancelled) and returns an error wrapping ctx.Err(): there is
// no decision then, and the agent must not act as if the hooks had allowed it.
func (r *Runner) Fire(ctx context.Context, event HookEvent, input any) ([]HookResult, error) {
	outcome, err := r.FireOutcome(ctx, event, input)
	if err != nil {
		return nil, err
	}
	return outcome.HookResults(), nil
}

// FireOutcome is Fire, returning hookhost's whole outcome: the merged decision, the updated
// input, context, notices, signals, and every hook's report.
func (r *Runner) FireOutcome(ctx context.Context, event HookEvent, input any) (*Outcome, error) {
	data, err := r.FireJSON(ctx, event, input)
	if err != nil {
		return nil, err
	}
	var outcome Outcome
	if err := json.Unmarshal(data, &outcome); err != nil {
		return nil, fmt.Errorf("hookhost: the outcome's JSON does not read: %w", err)
	}
	return &outcome, nil
}

// FireJSON is Fire, returning the outcome's JSON as hookhost wrote it (docs/embedding.md).
func (r *Runner) FireJSON(ctx context.Context, event HookEvent, input any) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("hookhost: %s was not fired: %w", event, err)
	}
	data, err := eventJSON(event, input, r.sessionID)
	if err != nil {
		return nil, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ptr == nil || r.closing.Load() {
		return nil, fmt.Errorf("%w: %s was not fired", ErrClosed, event)
	}
	var cancel *C.hookhost_cancel
	if done := ctx.Done(); done != nil {
		cancel = C.hookhost_cancel_new()
		stop := make(chan struct{})
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			select {
			case <-done:
				C.hookhost_cancel_trigger(cancel)
			case <-stop:
			}
		}()
		defer func() {
			close(stop)
			<-stopped
			C.hookhost_cancel_free(cancel)
		}()
	}
	var out *C.char
	var outLen C.size_t
	var message *C.char
	status := C.hookhost_runner_fire(r.ptr, (*C.uint8_t)(unsafe.Pointer(&data[0])), C.size_t(len(data)),
		cancel, &out, &outLen, &message)
	if status == C.HOOKHOST_STATUS_CANCELLED {
		text := C.GoString(message)
		C.hookhost_string_free(message)
		return nil, fmt.Errorf("hookhost: %s: %w", text, ctx.Err())
	}
	if err := takeError(status, message); err != nil {
		return nil, err
	}
	result := C.GoBytes(unsafe.Pointer(out), C.int(outLen))
	C.hookhost_string_free(out)
	return result, nil
}

// Register adds Go callbacks for event after every hook already there.
func (r *Runner) Register(event HookEvent, matcher CallbackMatcher) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ptr == nil {
		return ErrClosed
	}
	for i, callback := range matcher.Hooks {
		if callback == nil {
			return fmt.Errorf("hookhost: %s matcher %q: callback %d is nil", event, matcher.Matcher, i+1)
		}
		r.regMu.Lock()
		r.registered[event]++
		name := fmt.Sprintf("go:%s#%d", event, r.registered[event])
		r.regMu.Unlock()
		if i < len(matcher.HookCallbackIDs) && matcher.HookCallbackIDs[i] != "" {
			name = matcher.HookCallbackIDs[i]
		}
		if err := register(r.ptr, name, event, matcher, callback); err != nil {
			return err
		}
	}
	return nil
}

// Flush waits until the async hooks have finished, or timeout passed, and returns the reports
// of those that finished since the last flush, and how many are still running. Firing
// SessionEnd flushes too.
func (r *Runner) Flush(timeout time.Duration) ([]HookReport, int, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ptr == nil {
		return nil, 0, ErrClosed
	}
	var out *C.char
	var message *C.char
	status := C.hookhost_runner_flush(r.ptr, C.uint64_t(timeout.Milliseconds()), &out, &message)
	if err := takeError(status, message); err != nil {
		return nil, 0, err
	}
	data := C.GoString(out)
	C.hookhost_string_free(out)
	var flushed struct {
		Reports []HookReport `json:"reports"`
		Pending int          `json:"pending"`
	}
	if err := json.Unmarshal([]byte(data), &flushed); err != nil {
		return nil, 0, fmt.Errorf("hookhost: the flushed reports do not read: %w", err)
	}
	return flushed.Reports, flushed.Pending, nil
}

// Close closes the runner: fires in flight stop their hooks and return ErrClosed, later ones
// too; then its memory is freed. Safe to call more than once, from any goroutine.
func (r *Runner) Close() error {
	r.closing.Store(true)
	r.mu.RLock()
	if r.ptr != nil {
		C.hookhost_runner_close(r.ptr)
	}
	r.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ptr != nil {
		C.hookhost_runner_free(r.ptr)
		r.ptr = nil
	}
	return nil
}
