package hookhost

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"unicode/utf8"
)

// eventJSON writes the event as hookhost reads it (docs/embedding.md, "The event's JSON"):
// `event`, then the input's fields with the SDK's names turned into hookhost's (tool_name is
// `tool`, tool_input `input`, tool_response `result`); callbacks get them back under the SDK's
// names. A typed input is written field by field; anything else (a map, another struct) goes
// through encoding/json first.
func eventJSON(event HookEvent, input any, defaultSession string) ([]byte, error) {
	if event == "" {
		return nil, fmt.Errorf("hookhost: the event has no name")
	}
	w := eventWriter{buf: make([]byte, 0, 256)}
	w.buf = append(w.buf, '{')
	w.str("event", string(event))
	switch in := input.(type) {
	case nil:
		w.optStr("session_id", defaultSession)
	case typedInput:
		if v := reflect.ValueOf(in); v.Kind() == reflect.Pointer && v.IsNil() {
			w.optStr("session_id", defaultSession)
			break
		}
		if name := in.eventName(); name != "" && name != string(event) {
			return nil, fmt.Errorf("hookhost: the input is a %s input (hook_event_name), fired as %s", name, event)
		}
		// A built-in event takes its own input type; a custom name takes any.
		if own := in.event(); own != event && newInput(event) != nil {
			return nil, fmt.Errorf("hookhost: a %T is %s's input, fired as %s", input, own, event)
		}
		w.base(in.base(), defaultSession)
		in.writeFields(&w)
	default:
		if err := w.generic(event, input, defaultSession); err != nil {
			return nil, err
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	w.buf = append(w.buf, '}')
	return w.buf, nil
}

// typedInput is implemented by the SDK's 15 input structs (values and pointers).
type typedInput interface {
	event() HookEvent
	base() BaseHookInput
	eventName() string
	writeFields(w *eventWriter)
}

type eventWriter struct {
	buf []byte
	err error
}

func (w *eventWriter) key(key string) {
	if len(w.buf) > 1 {
		w.buf = append(w.buf, ',')
	}
	w.buf = appendJSONString(w.buf, key)
	w.buf = append(w.buf, ':')
}

func (w *eventWriter) str(key, value string) {
	w.key(key)
	w.buf = appendJSONString(w.buf, value)
}

func (w *eventWriter) optStr(key, value string) {
	if value != "" {
		w.str(key, value)
	}
}

func (w *eventWriter) boolean(key string, value bool) {
	w.key(key)
	if value {
		w.buf = append(w.buf, "true"...)
	} else {
		w.buf = append(w.buf, "false"...)
	}
}

// value writes any JSON value; nil is written as `orNil` (`{}` for a tool input).
func (w *eventWriter) value(key string, value any, orNil string) {
	w.key(key)
	switch v := value.(type) {
	case nil:
		w.buf = append(w.buf, orNil...)
	case string:
		w.buf = appendJSONString(w.buf, v)
	case json.RawMessage:
		if len(v) == 0 {
			w.buf = append(w.buf, orNil...)
			return
		}
		w.raw(key, v)
	default:
		data, err := json.Marshal(v)
		if err != nil {
			w.err = fmt.Errorf("hookhost: the input's %s is not JSON: %w", key, err)
			return
		}
		w.buf = append(w.buf, data...)
	}
}

func (w *eventWriter) raw(key string, data json.RawMessage) {
	if !json.Valid(data) {
		w.err = fmt.Errorf("hookhost: the input's %s is not valid JSON", key)
		return
	}
	w.buf = append(w.buf, data...)
}

func (w *eventWriter) base(b BaseHookInput, defaultSession string) {
	if b.SessionID == "" {
		b.SessionID = defaultSession
	}
	w.optStr("session_id", b.SessionID)
	w.optStr("transcript_path", b.TranscriptPath)
	w.optStr("cwd", b.CWD)
	w.optStr("permission_mode", b.PermissionMode)
}

func (w *eventWriter) tool(name string, input any) {
	w.str("tool", name)
	w.value("input", input, "{}")
}

// generic writes an input that is not one of the typed ones: its JSON object's keys, the
// SDK's names turned into hookhost's, in sorted order.
func (w *eventWriter) generic(event HookEvent, input any, defaultSession string) error {
	var data []byte
	switch in := input.(type) {
	case json.RawMessage:
		data = in
	case []byte:
		data = in
	default:
		var err error
		if data, err = json.Marshal(input); err != nil {
			return fmt.Errorf("hookhost: the input is not JSON: %w", err)
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("hookhost: the input must be a JSON object (a typed input, a map or a struct): %w", err)
	}
	if raw, ok := fields["hook_event_name"]; ok {
		var name string
		if json.Unmarshal(raw, &name) == nil && name != "" && name != string(event) {
			return fmt.Errorf("hookhost: the input is a %s input (hook_event_name), fired as %s", name, event)
		}
		delete(fields, "hook_event_name")
	}
	if _, ok := fields["session_id"]; !ok && defaultSession != "" {
		w.str("session_id", defaultSession)
	}
	renames := map[string]string{"tool_name": "tool", "tool_input": "input", "tool_response": "result"}
	keys := make([]string, 0, len(fields))
	for key := range fields {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		name := key
		if renamed, ok := renames[key]; ok {
			if _, both := fields[renamed]; both {
				return fmt.Errorf("hookhost: the input has both %s and %s", key, renamed)
			}
			name = renamed
		}
		w.key(name)
		w.buf = append(w.buf, fields[key]...)
	}
	return nil
}

func (in PreToolUseHookInput) event() HookEvent    { return HookEventPreToolUse }
func (in PreToolUseHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in PreToolUseHookInput) eventName() string   { return in.HookEventName }
func (in PreToolUseHookInput) writeFields(w *eventWriter) {
	w.tool(in.ToolName, in.ToolInput)
	w.optStr("tool_use_id", in.ToolUseID)
}

func (in PostToolUseHookInput) event() HookEvent    { return HookEventPostToolUse }
func (in PostToolUseHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in PostToolUseHookInput) eventName() string   { return in.HookEventName }
func (in PostToolUseHookInput) writeFields(w *eventWriter) {
	w.tool(in.ToolName, in.ToolInput)
	w.value("result", in.ToolResponse, "null")
	w.optStr("tool_use_id", in.ToolUseID)
}

func (in PostToolUseFailureHookInput) event() HookEvent    { return HookEventPostToolUseFailure }
func (in PostToolUseFailureHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in PostToolUseFailureHookInput) eventName() string   { return in.HookEventName }
func (in PostToolUseFailureHookInput) writeFields(w *eventWriter) {
	w.tool(in.ToolName, in.ToolInput)
	w.optStr("tool_use_id", in.ToolUseID)
	w.str("error", in.Error)
	if in.IsInterrupt {
		w.boolean("is_interrupt", true)
	}
}

func (in NotificationHookInput) event() HookEvent    { return HookEventNotification }
func (in NotificationHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in NotificationHookInput) eventName() string   { return in.HookEventName }
func (in NotificationHookInput) writeFields(w *eventWriter) {
	w.str("message", in.Message)
	w.optStr("title", in.Title)
	w.optStr("notification_type", in.NotificationType)
}

func (in UserPromptSubmitHookInput) event() HookEvent    { return HookEventUserPromptSubmit }
func (in UserPromptSubmitHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in UserPromptSubmitHookInput) eventName() string   { return in.HookEventName }
func (in UserPromptSubmitHookInput) writeFields(w *eventWriter) {
	w.str("prompt", in.Prompt)
}

func (in SessionStartHookInput) event() HookEvent    { return HookEventSessionStart }
func (in SessionStartHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in SessionStartHookInput) eventName() string   { return in.HookEventName }
func (in SessionStartHookInput) writeFields(w *eventWriter) {
	w.str("source", in.Source)
	w.optStr("agent_type", in.AgentType)
	w.optStr("model", in.Model)
}

func (in SessionEndHookInput) event() HookEvent    { return HookEventSessionEnd }
func (in SessionEndHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in SessionEndHookInput) eventName() string   { return in.HookEventName }
func (in SessionEndHookInput) writeFields(w *eventWriter) {
	w.str("reason", in.Reason)
}

func (in StopHookInput) event() HookEvent    { return HookEventStop }
func (in StopHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in StopHookInput) eventName() string   { return in.HookEventName }
func (in StopHookInput) writeFields(w *eventWriter) {
	w.boolean("stop_hook_active", in.StopHookActive)
}

func (in SubagentStartHookInput) event() HookEvent    { return HookEventSubagentStart }
func (in SubagentStartHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in SubagentStartHookInput) eventName() string   { return in.HookEventName }
func (in SubagentStartHookInput) writeFields(w *eventWriter) {
	w.str("agent_id", in.AgentID)
	w.str("agent_type", in.AgentType)
}

func (in SubagentStopHookInput) event() HookEvent    { return HookEventSubagentStop }
func (in SubagentStopHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in SubagentStopHookInput) eventName() string   { return in.HookEventName }
func (in SubagentStopHookInput) writeFields(w *eventWriter) {
	w.boolean("stop_hook_active", in.StopHookActive)
	w.str("agent_id", in.AgentID)
	w.optStr("agent_transcript_path", in.AgentTranscriptPath)
	w.str("agent_type", in.AgentType)
}

func (in PreCompactHookInput) event() HookEvent    { return HookEventPreCompact }
func (in PreCompactHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in PreCompactHookInput) eventName() string   { return in.HookEventName }
func (in PreCompactHookInput) writeFields(w *eventWriter) {
	w.str("trigger", in.Trigger)
	if in.CustomInstructions == nil {
		w.value("custom_instructions", nil, "null")
	} else {
		w.str("custom_instructions", *in.CustomInstructions)
	}
}

func (in PermissionRequestHookInput) event() HookEvent    { return HookEventPermissionRequest }
func (in PermissionRequestHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in PermissionRequestHookInput) eventName() string   { return in.HookEventName }
func (in PermissionRequestHookInput) writeFields(w *eventWriter) {
	w.tool(in.ToolName, in.ToolInput)
	if in.PermissionSuggestions != nil {
		w.value("permission_suggestions", in.PermissionSuggestions, "null")
	}
}

func (in SetupHookInput) event() HookEvent    { return HookEventSetup }
func (in SetupHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in SetupHookInput) eventName() string   { return in.HookEventName }
func (in SetupHookInput) writeFields(w *eventWriter) {
	w.str("trigger", in.Trigger)
}

func (in TeammateIdleHookInput) event() HookEvent    { return HookEventTeammateIdle }
func (in TeammateIdleHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in TeammateIdleHookInput) eventName() string   { return in.HookEventName }
func (in TeammateIdleHookInput) writeFields(w *eventWriter) {
	w.str("teammate_name", in.TeammateName)
	w.str("team_name", in.TeamName)
}

func (in TaskCompletedHookInput) event() HookEvent    { return HookEventTaskCompleted }
func (in TaskCompletedHookInput) base() BaseHookInput { return in.BaseHookInput }
func (in TaskCompletedHookInput) eventName() string   { return in.HookEventName }
func (in TaskCompletedHookInput) writeFields(w *eventWriter) {
	w.str("task_id", in.TaskID)
	w.str("task_subject", in.TaskSubject)
	w.optStr("task_description", in.TaskDescription)
	w.optStr("teammate_name", in.TeammateName)
	w.optStr("team_name", in.TeamName)
}

// appendJSONString appends s as a JSON string: quotes, backslashes and control characters
// escaped, invalid UTF-8 replaced by U+FFFD (as encoding/json does).
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
