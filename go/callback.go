package hookhost

// #include <stdlib.h>
// #include "hookhost.h"
// extern void hookhostGoCallback(void *user_data, hookhost_call *call);
// extern void hookhostGoFree(void *user_data);
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/cgo"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// registered is one Go callback as the C ABI holds it (through a cgo.Handle).
type registered struct {
	event    HookEvent
	callback HookCallback
	timeout  time.Duration
}

// register hands one callback to the runner. Its calls are "deferred": hookhost calls the
// trampoline on the thread that runs the hook (for a foreground hook, the goroutine inside
// Fire), which starts a goroutine and returns; the goroutine answers when the callback
// returns. hookhost enforces the timeout and discards a late answer.
func register(runner *C.hookhost_runner, name string, event HookEvent, matcher CallbackMatcher, callback HookCallback) error {
	spec := map[string]any{
		"name":     name,
		"event":    string(event),
		"protocol": "claude",
		"call":     "deferred",
	}
	if m := strings.TrimSpace(matcher.Matcher); m != "" && m != "*" {
		if strings.ContainsAny(m, "*?[") {
			spec["matcher"] = map[string]string{"glob": m}
		} else {
			spec["matcher"] = m
		}
	}
	if matcher.Timeout > 0 {
		ms := matcher.Timeout.Milliseconds()
		if ms < 1 {
			ms = 1
		}
		spec["timeout_ms"] = ms
	}
	if matcher.Async {
		spec["async"] = true
	}
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	cspec := C.CString(string(specJSON))
	defer C.free(unsafe.Pointer(cspec))
	handle := cgo.NewHandle(&registered{event: event, callback: callback, timeout: matcher.Timeout})
	// The handle travels as C memory: a Go value must not be passed to C as a pointer.
	userData := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(userData) = C.uintptr_t(handle)
	var message *C.char
	// On failure hookhost frees the user data (hookhostGoFree) before returning.
	status := C.hookhost_runner_register(runner, cspec, C.hookhost_callback(C.hookhostGoCallback),
		userData, C.hookhost_free_fn(C.hookhostGoFree), &message)
	return takeError(status, message)
}

//export hookhostGoFree
func hookhostGoFree(userData unsafe.Pointer) {
	handle := cgo.Handle(*(*C.uintptr_t)(userData))
	handle.Delete()
	C.free(userData)
}

//export hookhostGoCallback
func hookhostGoCallback(userData unsafe.Pointer, call *C.hookhost_call) {
	reg := cgo.Handle(*(*C.uintptr_t)(userData)).Value().(*registered)
	var length C.size_t
	data := C.hookhost_call_event(call, &length)
	event := C.GoBytes(unsafe.Pointer(data), C.int(length))
	go reg.run(event, call)
}

// run calls the Go callback and answers hookhost, whatever happens: an error or a panic is
// the hook's failure, never the agent's crash.
func (reg *registered) run(event []byte, call *C.hookhost_call) {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if reg.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, reg.timeout)
	}
	ctx, cancelAbandoned := context.WithCancel(ctx)
	defer cancel()
	watched := abandoned.watch(call, cancelAbandoned)
	answered := false
	finish := func(answer func()) {
		if answered {
			return
		}
		answered = true
		abandoned.forget(watched)
		answer()
	}
	defer func() {
		if p := recover(); p != nil {
			finish(func() { fail(call, fmt.Sprint(p), true) })
		}
	}()
	input, toolUseID, err := decodeCallbackInput(event)
	if err != nil {
		finish(func() { fail(call, "the event's JSON does not read as a typed input: "+err.Error(), false) })
		return
	}
	output, err := reg.callback(input, toolUseID, ctx)
	if ctx.Err() != nil {
		// Its context ended (its deadline, which is hookhost's, or an abandoned call): what it
		// answers now comes too late. hookhost's own deadline decides, so that the hook is
		// reported as timed out however the two timers raced.
		waitFor(100*time.Millisecond, func() bool { return bool(C.hookhost_call_is_cancelled(call)) })
		finish(func() { fail(call, "answered after its deadline", false) })
		return
	}
	if err != nil {
		finish(func() { fail(call, err.Error(), false) })
		return
	}
	answer, err := callbackAnswer(reg.event, output)
	if err != nil {
		finish(func() { fail(call, err.Error(), false) })
		return
	}
	finish(func() {
		var message *C.char
		status := C.hookhost_call_answer(call, (*C.uint8_t)(unsafe.Pointer(&answer[0])), C.size_t(len(answer)), &message)
		_ = takeError(status, message)
	})
}

// waitFor polls cond every millisecond, up to limit.
func waitFor(limit time.Duration, cond func() bool) {
	for deadline := time.Now().Add(limit); !cond() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

func fail(call *C.hookhost_call, message string, panicked bool) {
	text := C.CString(message)
	defer C.free(unsafe.Pointer(text))
	var out *C.char
	status := C.hookhost_call_fail(call, text, C.bool(panicked), &out)
	_ = takeError(status, out)
}

// abandonedCalls cancels the context of a callback whose call hookhost abandoned (its timeout
// passed, its fire was cancelled, its runner closed): one goroutine polls the calls in flight
// every few milliseconds, and only while there are any.
type abandonedCalls struct {
	mu      sync.Mutex
	calls   map[*C.hookhost_call]context.CancelFunc
	polling bool
}

var abandoned = abandonedCalls{calls: map[*C.hookhost_call]context.CancelFunc{}}

const abandonPoll = 5 * time.Millisecond

func (a *abandonedCalls) watch(call *C.hookhost_call, cancel context.CancelFunc) *C.hookhost_call {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls[call] = cancel
	if !a.polling {
		a.polling = true
		go a.poll()
	}
	return call
}

// forget stops watching a call; it must be called before the call is answered (which frees
// it), so that the poller never reads a freed call.
func (a *abandonedCalls) forget(call *C.hookhost_call) {
	a.mu.Lock()
	delete(a.calls, call)
	a.mu.Unlock()
}

func (a *abandonedCalls) poll() {
	for {
		time.Sleep(abandonPoll)
		a.mu.Lock()
		for call, cancel := range a.calls {
			if C.hookhost_call_is_cancelled(call) {
				cancel()
				delete(a.calls, call)
			}
		}
		if len(a.calls) == 0 {
			a.polling = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
	}
}
