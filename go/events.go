package hookhost

import "encoding/json"

// HookEvent names an event: the Go agent SDK's 15, or any other name (a custom event, which
// hooks reach by name or glob).
type HookEvent string

// The Go agent SDK's events. Setup, TeammateIdle and TaskCompleted are custom events to
// hookhost (hooks reach them by name; any answer is allowed); the other twelve are built in,
// with the answers and fail modes of hookhost's event catalog (docs/events.md).
const (
	HookEventPreToolUse         HookEvent = "PreToolUse"
	HookEventPostToolUse        HookEvent = "PostToolUse"
	HookEventPostToolUseFailure HookEvent = "PostToolUseFailure"
	HookEventNotification       HookEvent = "Notification"
	HookEventUserPromptSubmit   HookEvent = "UserPromptSubmit"
	HookEventSessionStart       HookEvent = "SessionStart"
	HookEventSessionEnd         HookEvent = "SessionEnd"
	HookEventStop               HookEvent = "Stop"
	HookEventSubagentStart      HookEvent = "SubagentStart"
	HookEventSubagentStop       HookEvent = "SubagentStop"
	HookEventPreCompact         HookEvent = "PreCompact"
	HookEventPermissionRequest  HookEvent = "PermissionRequest"
	HookEventSetup              HookEvent = "Setup"
	HookEventTeammateIdle       HookEvent = "TeammateIdle"
	HookEventTaskCompleted      HookEvent = "TaskCompleted"
)

// HookEvents lists the 15 events in the SDK's order.
var HookEvents = []HookEvent{
	HookEventPreToolUse, HookEventPostToolUse, HookEventPostToolUseFailure,
	HookEventNotification, HookEventUserPromptSubmit, HookEventSessionStart,
	HookEventSessionEnd, HookEventStop, HookEventSubagentStart, HookEventSubagentStop,
	HookEventPreCompact, HookEventPermissionRequest, HookEventSetup,
	HookEventTeammateIdle, HookEventTaskCompleted,
}

// BaseHookInput is what every event carries. CWD, when set, must be the runner's directory
// (hooks run in it); leave it empty to mean the runner's.
type BaseHookInput struct {
	SessionID      string `json:"session_id,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	CWD            string `json:"cwd,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
}

// PreToolUseHookInput: before a tool runs.
type PreToolUseHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	ToolName      string `json:"tool_name"`
	ToolInput     any    `json:"tool_input"`
	ToolUseID     string `json:"tool_use_id,omitempty"`
}

// PostToolUseHookInput: after a tool ran. A string ToolResponse over 5120 bytes reaches hooks
// as its first and last 2560 bytes around a marker.
type PostToolUseHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	ToolName      string `json:"tool_name"`
	ToolInput     any    `json:"tool_input"`
	ToolResponse  any    `json:"tool_response"`
	ToolUseID     string `json:"tool_use_id,omitempty"`
}

// PostToolUseFailureHookInput: after a tool failed.
type PostToolUseFailureHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	ToolName      string `json:"tool_name"`
	ToolInput     any    `json:"tool_input"`
	ToolUseID     string `json:"tool_use_id,omitempty"`
	Error         string `json:"error"`
	IsInterrupt   bool   `json:"is_interrupt,omitempty"`
}

// NotificationHookInput: the agent notifies its user.
type NotificationHookInput struct {
	BaseHookInput
	HookEventName    string `json:"hook_event_name,omitempty"`
	Message          string `json:"message"`
	Title            string `json:"title,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
}

// UserPromptSubmitHookInput: the user submitted a prompt.
type UserPromptSubmitHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	Prompt        string `json:"prompt"`
}

// SessionStartHookInput: a session begins; Source is startup, resume, clear or compact.
type SessionStartHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	Source        string `json:"source"`
	AgentType     string `json:"agent_type,omitempty"`
	Model         string `json:"model,omitempty"`
}

// SessionEndHookInput: the session ends (the runner then waits for its async hooks).
type SessionEndHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	Reason        string `json:"reason"`
}

// StopHookInput: the agent finished.
type StopHookInput struct {
	BaseHookInput
	HookEventName  string `json:"hook_event_name,omitempty"`
	StopHookActive bool   `json:"stop_hook_active"`
}

// SubagentStartHookInput: the agent starts a subagent.
type SubagentStartHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	AgentID       string `json:"agent_id"`
	AgentType     string `json:"agent_type"`
}

// SubagentStopHookInput: a subagent finished.
type SubagentStopHookInput struct {
	BaseHookInput
	HookEventName       string `json:"hook_event_name,omitempty"`
	StopHookActive      bool   `json:"stop_hook_active"`
	AgentID             string `json:"agent_id"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`
	AgentType           string `json:"agent_type"`
}

// PreCompactHookInput: before the agent compacts its context; Trigger is manual or auto.
type PreCompactHookInput struct {
	BaseHookInput
	HookEventName      string  `json:"hook_event_name,omitempty"`
	Trigger            string  `json:"trigger"`
	CustomInstructions *string `json:"custom_instructions"`
}

// PermissionRequestHookInput: the agent is about to ask its user for permission.
type PermissionRequestHookInput struct {
	BaseHookInput
	HookEventName         string `json:"hook_event_name,omitempty"`
	ToolName              string `json:"tool_name"`
	ToolInput             any    `json:"tool_input"`
	PermissionSuggestions []any  `json:"permission_suggestions,omitempty"`
}

// SetupHookInput: the agent sets up; Trigger is init or maintenance.
type SetupHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	Trigger       string `json:"trigger"`
}

// TeammateIdleHookInput: a teammate has nothing to do.
type TeammateIdleHookInput struct {
	BaseHookInput
	HookEventName string `json:"hook_event_name,omitempty"`
	TeammateName  string `json:"teammate_name"`
	TeamName      string `json:"team_name"`
}

// TaskCompletedHookInput: a task was completed.
type TaskCompletedHookInput struct {
	BaseHookInput
	HookEventName   string `json:"hook_event_name,omitempty"`
	TaskID          string `json:"task_id"`
	TaskSubject     string `json:"task_subject"`
	TaskDescription string `json:"task_description,omitempty"`
	TeammateName    string `json:"teammate_name,omitempty"`
	TeamName        string `json:"team_name,omitempty"`
}

// newInput is the typed input a callback gets for an event: a pointer to the event's struct,
// or nil for a custom event (which gets a map).
func newInput(event HookEvent) any {
	switch event {
	case HookEventPreToolUse:
		return &PreToolUseHookInput{}
	case HookEventPostToolUse:
		return &PostToolUseHookInput{}
	case HookEventPostToolUseFailure:
		return &PostToolUseFailureHookInput{}
	case HookEventNotification:
		return &NotificationHookInput{}
	case HookEventUserPromptSubmit:
		return &UserPromptSubmitHookInput{}
	case HookEventSessionStart:
		return &SessionStartHookInput{}
	case HookEventSessionEnd:
		return &SessionEndHookInput{}
	case HookEventStop:
		return &StopHookInput{}
	case HookEventSubagentStart:
		return &SubagentStartHookInput{}
	case HookEventSubagentStop:
		return &SubagentStopHookInput{}
	case HookEventPreCompact:
		return &PreCompactHookInput{}
	case HookEventPermissionRequest:
		return &PermissionRequestHookInput{}
	case HookEventSetup:
		return &SetupHookInput{}
	case HookEventTeammateIdle:
		return &TeammateIdleHookInput{}
	case HookEventTaskCompleted:
		return &TaskCompletedHookInput{}
	}
	return nil
}

// decodeCallbackInput reads the JSON a callback's hook gets (Claude Code's shape, which the
// typed inputs spell) into the event's typed input, and its tool use id.
func decodeCallbackInput(data []byte) (any, string, error) {
	var head struct {
		HookEventName string `json:"hook_event_name"`
		ToolUseID     string `json:"tool_use_id"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, "", err
	}
	input := newInput(HookEvent(head.HookEventName))
	if input == nil {
		var custom map[string]any
		if err := json.Unmarshal(data, &custom); err != nil {
			return nil, "", err
		}
		return custom, head.ToolUseID, nil
	}
	if err := json.Unmarshal(data, input); err != nil {
		return nil, "", err
	}
	return input, head.ToolUseID, nil
}
