package hookhost

import (
	"context"
	"encoding/json"
	"fmt"
)

// HookCallback is a Go hook: it gets the event's typed input (a pointer to the event's
// *HookInput struct, or a map[string]any for a custom event), the tool use id (empty when the
// event has none), and a context that ends at the hook's timeout or when hookhost abandons the
// call (its Fire was cancelled, its runner closed). It answers like a Claude Code hook:
// a SyncHookJSONOutput (nil output: no objection), or an error, which is a hook failure (a
// PreToolUse guard's failure blocks the tool). A panic is caught and is a failure too.
type HookCallback func(input any, toolUseID string, ctx context.Context) (HookJSONOutput, error)

// HookJSONOutput is what a callback answers: a SyncHookJSONOutput or an AsyncHookJSONOutput.
type HookJSONOutput interface {
	hookJSONOutput()
}

// SyncHookJSONOutput is Claude Code's hook answer, read by hookhost's Claude protocol code
// exactly as a `protocol = "claude"` command hook's stdout is.
type SyncHookJSONOutput struct {
	// Continue false ends the agent's run (with StopReason). On Stop and SubagentStop, true
	// means "do not stop": the model goes on (hookhost's Stop block, with Reason as its next
	// instruction).
	Continue *bool `json:"continue,omitempty"`
	// SuppressOutput has no effect: a callback prints nothing to show or hide.
	SuppressOutput *bool  `json:"suppressOutput,omitempty"`
	StopReason     string `json:"stopReason,omitempty"`
	// Decision is "approve" or "block" (with Reason).
	Decision      string `json:"decision,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
	Reason        string `json:"reason,omitempty"`
	// HookSpecificOutput is one of the *SpecificOutput structs.
	HookSpecificOutput any `json:"hookSpecificOutput,omitempty"`
}

func (SyncHookJSONOutput) hookJSONOutput() {}

// AsyncHookJSONOutput defers the answer in Claude Code; here it is no objection. A callback
// whose work should not hold up the agent is registered with CallbackMatcher.Async instead: it
// then runs in the background and nothing waits for it.
type AsyncHookJSONOutput struct {
	Async        bool `json:"async"`
	AsyncTimeout int  `json:"asyncTimeout,omitempty"`
}

func (AsyncHookJSONOutput) hookJSONOutput() {}

// PreToolUseSpecificOutput: allow (skip the permission prompt), deny or ask, a rewritten
// input, context for the model.
type PreToolUseSpecificOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             any    `json:"updatedInput,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// PermissionRequestDecision answers a PermissionRequest: Behavior is "allow" or "deny".
type PermissionRequestDecision struct {
	Behavior     string `json:"behavior"`
	UpdatedInput any    `json:"updatedInput,omitempty"`
	Message      string `json:"message,omitempty"`
	Interrupt    bool   `json:"interrupt,omitempty"`
}

// PermissionRequestSpecificOutput: the permission's decision.
type PermissionRequestSpecificOutput struct {
	HookEventName string                     `json:"hookEventName"`
	Decision      *PermissionRequestDecision `json:"decision,omitempty"`
}

// PostToolUseSpecificOutput: context for the model. hookhost cannot rewrite a tool's output:
// a callback that sets UpdatedMCPToolOutput fails, saying so.
type PostToolUseSpecificOutput struct {
	HookEventName        string `json:"hookEventName"`
	AdditionalContext    string `json:"additionalContext,omitempty"`
	UpdatedMCPToolOutput any    `json:"updatedMCPToolOutput,omitempty"`
}

// ContextOutput is the specific output of the events that add context for the model and
// nothing else: UserPromptSubmit, SessionStart, Setup, SubagentStart, PostToolUseFailure,
// Notification (where hookhost's catalog lets them).
type ContextOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// The SDK's names for the context-only outputs.
type (
	UserPromptSubmitSpecificOutput   = ContextOutput
	SessionStartSpecificOutput       = ContextOutput
	SetupSpecificOutput              = ContextOutput
	SubagentStartSpecificOutput      = ContextOutput
	PostToolUseFailureSpecificOutput = ContextOutput
	NotificationSpecificOutput       = ContextOutput
)

// callbackAnswer is what a callback's answer is sent to hookhost as: Claude Code's JSON.
func callbackAnswer(event HookEvent, output HookJSONOutput) ([]byte, error) {
	var sync SyncHookJSONOutput
	switch out := output.(type) {
	case nil, AsyncHookJSONOutput, *AsyncHookJSONOutput:
		return []byte("{}"), nil
	case SyncHookJSONOutput:
		sync = out
	case *SyncHookJSONOutput:
		if out == nil {
			return []byte("{}"), nil
		}
		sync = *out
	default:
		return nil, fmt.Errorf("answered a %T, not a SyncHookJSONOutput", output)
	}
	if post, ok := sync.HookSpecificOutput.(*PostToolUseSpecificOutput); ok && post != nil && post.UpdatedMCPToolOutput != nil {
		return nil, fmt.Errorf("set updatedMCPToolOutput, which hookhost does not support (a tool's output is never rewritten): add context instead")
	}
	if post, ok := sync.HookSpecificOutput.(PostToolUseSpecificOutput); ok && post.UpdatedMCPToolOutput != nil {
		return nil, fmt.Errorf("set updatedMCPToolOutput, which hookhost does not support (a tool's output is never rewritten): add context instead")
	}
	// The SDK's Stop semantics: continue=true keeps the loop going, which is hookhost's
	// Stop block with the reason as the model's next instruction.
	if (event == HookEventStop || event == HookEventSubagentStop) && sync.Continue != nil && *sync.Continue && sync.Decision == "" {
		sync.Decision = "block"
		if sync.Reason == "" {
			sync.Reason = "a " + string(event) + " hook asked to continue"
		}
		sync.Continue = nil
	}
	return json.Marshal(sync)
}

// HookResult is the Go agent SDK's expanded result: what the agent loop acts on.
//
// hookhost merges every hook's answer by one rule (block > ask > warn > approve > allow,
// rewrites chained, context concatenated), so Fire returns one HookResult for the event (none
// when no hook ran); the first-deny-wins and any-continue rules of the SDK's loop give the
// same answer on it. FireOutcome has every hook's report.
type HookResult struct {
	// Decision: "deny" (a guard blocked, or failed closed), "ask", "allow" (a guard
	// approved: skip the permission prompt), "block" (Stop and SubagentStop: do not stop),
	// or "" (no objection, perhaps with a warning).
	Decision string
	// Message is what the model (deny) or the user (ask, a warning) reads:
	// "blocked by {hook}: {reason}", or "hook failed: {hook} {failure} (tool blocked by default)".
	Message string
	// Continue: false when a hook asked to end the run (see StopReason); true on Stop and
	// SubagentStop when a hook asked the agent to go on; nil otherwise.
	Continue *bool
	// SystemMessage: every warning and message for the user, one per line.
	SystemMessage string
	// SuppressOutput is always nil: hookhost hooks have no output to hide.
	SuppressOutput *bool
	// StopReason: why a hook asked to end the run.
	StopReason string
	// Reason: the deciding hook's own words (deny, ask, a warning, a Stop's "go on").
	Reason string
	// HookSpecificOutput is the event's *SpecificOutput (PreToolUse's permission decision,
	// updated input and context; context for the events that take it), or nil.
	HookSpecificOutput any
}
