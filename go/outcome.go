package hookhost

import (
	"encoding/json"
	"strings"
	"time"
)

// Outcome is everything hookhost returns for one event (docs/embedding.md, "The outcome's
// JSON", field by field).
type Outcome struct {
	Event    string   `json:"event"`
	Decision Decision `json:"decision"`
	// Allowed: the agent may go on without asking anyone (allow, approve or warn).
	Allowed bool `json:"allowed"`
	// UpdatedInput is the tool input as the guards rewrote it (run the tool with it), or nil.
	UpdatedInput json.RawMessage `json:"updated_input"`
	Context      []ContextEntry  `json:"context"`
	// ContextText is every hook's context in one text, or nil.
	ContextText  *string      `json:"context_text"`
	Stop         *Notice      `json:"stop"`
	Notices      []Notice     `json:"notices"`
	Signals      []Signal     `json:"signals"`
	Monitored    []Decision   `json:"monitored"`
	Reports      []HookReport `json:"reports"`
	Warnings     []string     `json:"warnings"`
	FinalWritten bool         `json:"final_written"`
}

// Decision is the guards' merged decision (or, in Outcome.Monitored, what a hook in monitor
// mode would have decided).
type Decision struct {
	// Kind: allow, approve, warn, ask or block.
	Kind string `json:"kind"`
	// By: the deciding hook (or, for a configuration that did not load, its file).
	By *string `json:"by"`
	// Reason: the hook's words (warn, ask, block).
	Reason *string `json:"reason"`
	// Message: a block's message as the model sees it.
	Message *string `json:"message"`
	// Failure: how the hook failed, when the block is a failure.
	Failure *Failure `json:"failure"`
}

// Failure says how a hook failed.
type Failure struct {
	// Kind: timed_out, exited, signaled, invalid_output, output_too_large, spawn,
	// out_of_fuel, memory_limit, trapped, sandbox_limit, not_allowed, panicked,
	// invalid_verdict, config.
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Detail  string `json:"detail"`
}

// Notice is who said what.
type Notice struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
}

// ContextEntry is one hook's context for the model.
type ContextEntry struct {
	By   string `json:"by"`
	Text string `json:"text"`
}

// Signal is a PostToolUse convergence signal.
type Signal struct {
	Signal string `json:"signal"`
	Reason string `json:"reason"`
}

// HookReport is one hook call.
type HookReport struct {
	Name  string `json:"name"`
	Index int    `json:"index"`
	Event string `json:"event"`
	// Phase: guard or observe.
	Phase string `json:"phase"`
	// Kind: command, wasm, native (a callback), held or skipped.
	Kind       string `json:"kind"`
	Async      bool   `json:"async"`
	Mode       string `json:"mode"`
	DurationUS int64  `json:"duration_us"`
	// Verdict is its answer; nil when it failed (see Failure).
	Verdict         *Verdict `json:"verdict"`
	Failure         *Failure `json:"failure"`
	Stderr          string   `json:"stderr"`
	StderrTruncated bool     `json:"stderr_truncated"`
}

// Duration is the call's wall-clock time.
func (r HookReport) Duration() time.Duration {
	return time.Duration(r.DurationUS) * time.Microsecond
}

// Verdict is one hook's answer.
type Verdict struct {
	// Answer: allow, approve, warn, ask or block.
	Answer       string          `json:"answer"`
	Reason       *string         `json:"reason"`
	UpdatedInput json.RawMessage `json:"updated_input"`
	Context      *string         `json:"context"`
	Stop         *string         `json:"stop"`
	Signal       *Signal         `json:"signal"`
	Message      *string         `json:"message"`
	Note         *string         `json:"note"`
}

func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// hasJSON is true for a JSON value other than null.
func hasJSON(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// contextEvents take additionalContext from hooks.
var contextEvents = map[string]bool{
	"UserPromptSubmit": true, "SessionStart": true, "Setup": true, "SubagentStart": true,
	"PostToolUseFailure": true, "Notification": true,
}

// HookResults is the outcome as the Go agent SDK's results: one merged HookResult, or none
// when no hook ran and nothing was decided.
func (o *Outcome) HookResults() []HookResult {
	if len(o.Reports) == 0 && o.Decision.Kind == "allow" && o.Stop == nil && len(o.Notices) == 0 {
		return nil
	}
	return []HookResult{o.HookResult()}
}

// HookResult is the outcome as one SDK HookResult (see HookResult's fields).
func (o *Outcome) HookResult() HookResult {
	var result HookResult
	stopEvent := o.Event == "Stop" || o.Event == "SubagentStop"
	result.Reason = text(o.Decision.Reason)
	switch o.Decision.Kind {
	case "block":
		if stopEvent {
			result.Decision = "block"
			result.Message = result.Reason
			result.Continue = boolPtr(true)
		} else {
			result.Decision = "deny"
			result.Message = text(o.Decision.Message)
		}
	case "ask":
		result.Decision = "ask"
		result.Message = result.Reason
	case "approve":
		result.Decision = "allow"
	case "warn":
		result.Message = result.Reason
	}
	if o.Stop != nil {
		result.Continue = boolPtr(false)
		result.StopReason = o.Stop.Reason
	}
	lines := make([]string, 0, len(o.Notices))
	for _, notice := range o.Notices {
		lines = append(lines, notice.Reason)
	}
	result.SystemMessage = strings.Join(lines, "\n")
	result.HookSpecificOutput = o.specificOutput()
	return result
}

func (o *Outcome) specificOutput() any {
	var updated any
	if hasJSON(o.UpdatedInput) {
		_ = json.Unmarshal(o.UpdatedInput, &updated)
	}
	context := text(o.ContextText)
	switch {
	case o.Event == "PreToolUse":
		permission := map[string]string{"block": "deny", "ask": "ask", "approve": "allow"}[o.Decision.Kind]
		if permission == "" && updated == nil && context == "" {
			return nil
		}
		out := &PreToolUseSpecificOutput{
			HookEventName:      o.Event,
			PermissionDecision: permission,
			UpdatedInput:       updated,
			AdditionalContext:  context,
		}
		if permission == "deny" {
			out.PermissionDecisionReason = text(o.Decision.Message)
		} else if permission != "" {
			out.PermissionDecisionReason = text(o.Decision.Reason)
		}
		return out
	case o.Event == "PermissionRequest":
		behavior := map[string]string{"block": "deny", "approve": "allow"}[o.Decision.Kind]
		if behavior == "" && updated == nil {
			return nil
		}
		decision := &PermissionRequestDecision{Behavior: behavior, UpdatedInput: updated}
		if behavior == "deny" {
			decision.Message = text(o.Decision.Message)
		}
		return &PermissionRequestSpecificOutput{HookEventName: o.Event, Decision: decision}
	case o.Event == "PostToolUse" && context != "":
		return &PostToolUseSpecificOutput{HookEventName: o.Event, AdditionalContext: context}
	case contextEvents[o.Event] && context != "":
		return &ContextOutput{HookEventName: o.Event, AdditionalContext: context}
	}
	return nil
}

func boolPtr(b bool) *bool {
	return &b
}
