package hookhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The seed's scenarios (a Go agent SDK's hook runner), driven through the package.

func TestAWasmGuardDeniesADestructiveCommand(t *testing.T) {
	runner := newProject(t, guardHook()).runner(t, nil)
	results, err := runner.Fire(context.Background(), HookEventPreToolUse, bash("rm -rf /"))
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 {
		t.Fatalf("want one merged result, got %+v", results)
	}
	got := results[0]
	if got.Decision != "deny" || got.Message != "blocked by destructive-guard: recursive delete of / (rm -r)" ||
		got.Reason != "recursive delete of / (rm -r)" {
		t.Fatalf("got %+v", got)
	}
	specific, ok := got.HookSpecificOutput.(*PreToolUseSpecificOutput)
	if !ok || specific.PermissionDecision != "deny" || specific.PermissionDecisionReason != got.Message {
		t.Fatalf("hookSpecificOutput %#v", got.HookSpecificOutput)
	}
	// The same guard lets a harmless command through: no objection, no decision.
	results, err = runner.Fire(context.Background(), HookEventPreToolUse, bash("cargo test"))
	if err != nil || len(results) != 1 || results[0].Decision != "" || results[0].Message != "" {
		t.Fatalf("cargo test: %+v, %v", results, err)
	}
	outcome, err := runner.FireOutcome(context.Background(), HookEventPreToolUse, bash("rm -rf ~"))
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Allowed || len(outcome.Reports) != 1 || outcome.Reports[0].Kind != "wasm" ||
		outcome.Reports[0].Verdict == nil || outcome.Reports[0].Verdict.Answer != "block" {
		t.Fatalf("outcome %+v", outcome)
	}
}

func TestAGoCallbackRewritesTheInputBetweenHooksTomlsHooks(t *testing.T) {
	// hooks.toml: the wasm guard, then an observer that records the input it is told. The Go
	// callback is registered after them: the guard sees the agent's input, the callback
	// rewrites it, and the observer (which runs after every guard) sees the rewrite.
	p := newProject(t, guardHook()+commandHook("PreToolUse", `cat > seen.json`, "name = \"audit\"\nphase = \"observe\""))
	var mu sync.Mutex
	var seenInputs []*PreToolUseHookInput
	var toolUseIDs []string
	rewrite := func(input any, toolUseID string, ctx context.Context) (HookJSONOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		in, _ := input.(*PreToolUseHookInput)
		seenInputs = append(seenInputs, in)
		toolUseIDs = append(toolUseIDs, toolUseID)
		return SyncHookJSONOutput{HookSpecificOutput: &PreToolUseSpecificOutput{
			HookEventName:      "PreToolUse",
			PermissionDecision: "allow",
			UpdatedInput:       map[string]any{"command": "cargo test --locked"},
		}}, nil
	}
	runner := p.runner(t, map[HookEvent][]CallbackMatcher{
		HookEventPreToolUse: {{HookCallbackMatcher: HookCallbackMatcher{Matcher: "Bash"}, Hooks: []HookCallback{rewrite}}},
	})
	input := bash("cargo test")
	input.SessionID, input.ToolUseID, input.PermissionMode = "s-1", "tu_1", "default"
	results, err := runner.Fire(context.Background(), HookEventPreToolUse, input)
	if err != nil {
		t.Fatal(err)
	}
	specific := results[0].HookSpecificOutput.(*PreToolUseSpecificOutput)
	if results[0].Decision != "allow" || !reflect.DeepEqual(specific.UpdatedInput, map[string]any{"command": "cargo test --locked"}) {
		t.Fatalf("got %+v %+v", results[0], specific)
	}
	// The callback sees the agent's input, then (hookhost's re-check after rewrites: no guard
	// approves an input other than the one that runs) the final one.
	first := &PreToolUseHookInput{
		BaseHookInput: BaseHookInput{SessionID: "s-1", CWD: p.dir, PermissionMode: "default"},
		HookEventName: "PreToolUse", ToolName: "Bash",
		ToolInput: map[string]any{"command": "cargo test"}, ToolUseID: "tu_1",
	}
	again := *first
	again.ToolInput = map[string]any{"command": "cargo test --locked"}
	if !reflect.DeepEqual(seenInputs, []*PreToolUseHookInput{first, &again}) || !reflect.DeepEqual(toolUseIDs, []string{"tu_1", "tu_1"}) {
		t.Fatalf("the callback got %+v (%q), want %+v then %+v", seenInputs, toolUseIDs, first, &again)
	}
	var seen map[string]any
	if err := json.Unmarshal([]byte(p.read(t, "seen.json")), &seen); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen["input"], map[string]any{"command": "cargo test --locked"}) || seen["decision"] != "approve" || seen["decided_by"] != "go:PreToolUse#1" {
		t.Fatalf("the observer saw %v", seen)
	}
}

func TestAShellHooksAdditionalContextReachesTheResult(t *testing.T) {
	p := newProject(t,
		commandHook("UserPromptSubmit", `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"branch: main, 3 files changed"}}'`, "protocol = \"claude\"")+
			commandHook("PostToolUse", `echo '{"action":"continue","context":"the build took 41s"}'`, ""))
	runner := p.runner(t, nil)
	results, err := runner.Fire(context.Background(), HookEventUserPromptSubmit, &UserPromptSubmitHookInput{Prompt: "fix the build"})
	if err != nil {
		t.Fatal(err)
	}
	if out, ok := results[0].HookSpecificOutput.(*ContextOutput); !ok || out.AdditionalContext != "branch: main, 3 files changed" || out.HookEventName != "UserPromptSubmit" {
		t.Fatalf("got %+v", results)
	}
	results, err = runner.Fire(context.Background(), HookEventPostToolUse, &PostToolUseHookInput{
		ToolName: "Bash", ToolInput: map[string]any{"command": "make"}, ToolResponse: "ok",
	})
	if err != nil {
		t.Fatal(err)
	}
	if out, ok := results[0].HookSpecificOutput.(*PostToolUseSpecificOutput); !ok || out.AdditionalContext != "the build took 41s" {
		t.Fatalf("got %+v", results)
	}
}

func TestStopWithContinueTrueKeepsTheLoopGoing(t *testing.T) {
	keepGoing := func(input any, _ string, _ context.Context) (HookJSONOutput, error) {
		if stop, ok := input.(*StopHookInput); !ok || stop.StopHookActive {
			return nil, fmt.Errorf("unexpected input %#v", input)
		}
		return SyncHookJSONOutput{Continue: ptr(true), Reason: "the tests still fail: fix them"}, nil
	}
	runner := newProject(t, "").runner(t, map[HookEvent][]CallbackMatcher{HookEventStop: {{Hooks: []HookCallback{keepGoing}}}})
	results, err := runner.Fire(context.Background(), HookEventStop, &StopHookInput{})
	if err != nil {
		t.Fatal(err)
	}
	got := results[0]
	if got.Continue == nil || !*got.Continue || got.Decision != "block" || got.Reason != "the tests still fail: fix them" {
		t.Fatalf("got %+v", got)
	}
	// continue: false ends the run, with its reason.
	stop := func(any, string, context.Context) (HookJSONOutput, error) {
		return SyncHookJSONOutput{Continue: ptr(false), StopReason: "budget spent"}, nil
	}
	runner = newProject(t, "").runner(t, map[HookEvent][]CallbackMatcher{HookEventPostToolUse: {{Hooks: []HookCallback{stop}}}})
	results, err = runner.Fire(context.Background(), HookEventPostToolUse, &PostToolUseHookInput{ToolName: "Bash", ToolResponse: "ok"})
	if err != nil || results[0].Continue == nil || *results[0].Continue || results[0].StopReason != "budget spent" {
		t.Fatalf("got %+v, %v", results, err)
	}
}

func TestACallbackThatOverrunsItsTimeoutIsAFailureAndItsContextEnds(t *testing.T) {
	ended := make(chan error, 1)
	slow := func(_ any, _ string, ctx context.Context) (HookJSONOutput, error) {
		select {
		case <-ctx.Done():
			ended <- ctx.Err()
		case <-time.After(10 * time.Second):
			ended <- nil
		}
		return SyncHookJSONOutput{}, nil
	}
	runner := newProject(t, "").runner(t, map[HookEvent][]CallbackMatcher{
		HookEventPreToolUse: {{HookCallbackMatcher: HookCallbackMatcher{HookCallbackIDs: []string{"slow-policy"}, Timeout: 100 * time.Millisecond}, Hooks: []HookCallback{slow}}},
	})
	started := time.Now()
	results, err := runner.Fire(context.Background(), HookEventPreToolUse, bash("ls"))
	if err != nil {
		t.Fatal(err)
	}
	if results[0].Decision != "deny" || results[0].Message != "hook failed: slow-policy timed out after 100ms (tool blocked by default)" {
		t.Fatalf("got %+v", results[0])
	}
	if elapsed := time.Since(started); elapsed > time.Second {
		t.Fatalf("the fire took %v for a 100ms timeout", elapsed)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("the callback's context never ended")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the callback's context never ended")
	}
}

func TestACallbackThatPanicsOrFailsIsAHookFailureNotACrash(t *testing.T) {
	panics := func(any, string, context.Context) (HookJSONOutput, error) {
		var m map[string]int
		m["x"] = 1 // a nil map: a runtime panic
		return nil, nil
	}
	fails := func(any, string, context.Context) (HookJSONOutput, error) {
		return nil, errors.New("policy server unreachable")
	}
	observerFails := func(any, string, context.Context) (HookJSONOutput, error) {
		return nil, errors.New("audit disk full")
	}
	for _, c := range []struct {
		name     string
		event    HookEvent
		input    any
		callback HookCallback
		want     string
	}{
		{"panics", HookEventPreToolUse, bash("ls"), panics, "hook failed: go:PreToolUse#1 panicked: assignment to entry in nil map (tool blocked by default)"},
		{"fails", HookEventPreToolUse, bash("ls"), fails, "hook failed: go:PreToolUse#1 trapped: policy server unreachable (tool blocked by default)"},
		// A PostToolUse hook fails open: the failure is reported, nothing is blocked.
		{"fails open", HookEventPostToolUse, &PostToolUseHookInput{ToolName: "Bash"}, observerFails, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			runner := newProject(t, "").runner(t, map[HookEvent][]CallbackMatcher{c.event: {{Hooks: []HookCallback{c.callback}}}})
			outcome, err := runner.FireOutcome(context.Background(), c.event, c.input)
			if err != nil {
				t.Fatal(err)
			}
			if got := outcome.HookResult().Message; got != c.want {
				t.Fatalf("message %q, want %q", got, c.want)
			}
			if outcome.Reports[0].Failure == nil {
				t.Fatalf("no failure reported: %+v", outcome.Reports[0])
			}
		})
	}
}

func TestCancellingTheContextStopsTheFireAndItsHooks(t *testing.T) {
	const marker = "go-cancel-marker-5521"
	p := newProject(t, commandHook("PreToolUse", "sleep 30 # "+marker+"\necho '{\"action\":\"allow\"}'", "name = \"sleeper\"\ntimeout_ms = 60000"))
	runner := p.runner(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		eventually(10*time.Second, func() bool { return len(processesWith(marker)) > 0 })
		cancel()
	}()
	started := time.Now()
	results, err := runner.Fire(ctx, HookEventPreToolUse, bash("ls"))
	if !errors.Is(err, context.Canceled) || results != nil {
		t.Fatalf("got %+v, %v", results, err)
	}
	if !strings.Contains(err.Error(), "the PreToolUse fire was cancelled before its hooks answered: there is no decision") {
		t.Fatalf("error %q", err)
	}
	if elapsed := time.Since(started); elapsed > 10*time.Second {
		t.Fatalf("cancelling took %v", elapsed)
	}
	if !eventually(2*time.Second, func() bool { return len(processesWith(marker)) == 0 }) {
		t.Fatalf("the hook's processes outlived the cancel: %v", processesWith(marker))
	}

	// A deadline, with a Go callback blocked on its context: it is told too.
	told := make(chan struct{})
	blocked := func(_ any, _ string, ctx context.Context) (HookJSONOutput, error) {
		<-ctx.Done()
		close(told)
		return nil, nil
	}
	runner = newProject(t, "").runner(t, map[HookEvent][]CallbackMatcher{
		HookEventPreToolUse: {{HookCallbackMatcher: HookCallbackMatcher{Timeout: time.Minute}, Hooks: []HookCallback{blocked}}},
	})
	ctx, stop := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer stop()
	_, err = runner.Fire(ctx, HookEventPreToolUse, bash("ls"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	select {
	case <-told:
	case <-time.After(5 * time.Second):
		t.Fatal("the callback's context was not cancelled with its fire")
	}
	// A context already done: nothing is fired.
	_, err = runner.Fire(ctx, HookEventPreToolUse, bash("ls"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
}

func TestManyGoroutinesFireAtOnce(t *testing.T) {
	var calls atomic.Int64
	echo := func(input any, _ string, _ context.Context) (HookJSONOutput, error) {
		calls.Add(1)
		in := input.(*PreToolUseHookInput)
		command := in.ToolInput.(map[string]any)["command"].(string)
		return SyncHookJSONOutput{HookSpecificOutput: &PreToolUseSpecificOutput{
			HookEventName: "PreToolUse",
			UpdatedInput:  map[string]any{"command": command + " --checked"},
		}}, nil
	}
	runner := newProject(t, guardHook()).runner(t, map[HookEvent][]CallbackMatcher{
		HookEventPreToolUse: {{Hooks: []HookCallback{echo}}},
	})
	const goroutines, fires = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*fires)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < fires; i++ {
				command := fmt.Sprintf("echo %d-%d", g, i)
				if i%5 == 0 {
					command = fmt.Sprintf("rm -rf / # %d-%d", g, i)
				}
				results, err := runner.Fire(context.Background(), HookEventPreToolUse, bash(command))
				switch {
				case err != nil:
					errs <- err
				case i%5 == 0 && results[0].Decision != "deny":
					errs <- fmt.Errorf("%s was not denied: %+v", command, results[0])
				case i%5 != 0 && !reflect.DeepEqual(results[0].HookSpecificOutput.(*PreToolUseSpecificOutput).UpdatedInput, map[string]any{"command": command + " --checked"}):
					errs <- fmt.Errorf("%s came back as %+v", command, results[0].HookSpecificOutput)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The guard blocks every fifth call before the callback (R4); for the others the callback
	// runs twice: once to rewrite, once more to re-check the rewritten input.
	if got := calls.Load(); got != goroutines*fires*4/5*2 {
		t.Fatalf("the callback ran %d times", got)
	}
}

func TestAFireAfterCloseIsAClearError(t *testing.T) {
	runner := newProject(t, guardHook()).runner(t, nil)
	if err := runner.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := runner.Fire(context.Background(), HookEventPreToolUse, bash("rm -rf /"))
	if !errors.Is(err, ErrClosed) || err.Error() != "hookhost: the runner is closed: PreToolUse was not fired" {
		t.Fatalf("got %v", err)
	}
	if err := runner.Close(); err != nil {
		t.Fatal(err)
	}
	if err := runner.Register(HookEventStop, CallbackMatcher{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("register: %v", err)
	}
	if _, _, err := runner.Flush(time.Second); !errors.Is(err, ErrClosed) {
		t.Fatalf("flush: %v", err)
	}
}

func TestClosingStopsFiresInFlight(t *testing.T) {
	inside := make(chan struct{})
	wait := func(_ any, _ string, ctx context.Context) (HookJSONOutput, error) {
		close(inside)
		<-ctx.Done()
		return nil, nil
	}
	runner := newProject(t, "").runner(t, map[HookEvent][]CallbackMatcher{
		HookEventPreToolUse: {{HookCallbackMatcher: HookCallbackMatcher{Timeout: time.Minute}, Hooks: []HookCallback{wait}}},
	})
	go func() {
		<-inside
		runner.Close()
	}()
	_, err := runner.Fire(context.Background(), HookEventPreToolUse, bash("ls"))
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "the runner is closed") {
		t.Fatalf("got %v", err)
	}
}

func TestAsyncCallbacksRunInTheBackground(t *testing.T) {
	release := make(chan struct{})
	audit := func(input any, _ string, _ context.Context) (HookJSONOutput, error) {
		<-release
		return nil, nil
	}
	runner := newProject(t, "").runner(t, map[HookEvent][]CallbackMatcher{
		HookEventPostToolUse: {{Hooks: []HookCallback{audit}, Async: true, HookCallbackMatcher: HookCallbackMatcher{HookCallbackIDs: []string{"audit"}, Timeout: 5 * time.Second}}},
	})
	outcome, err := runner.FireOutcome(context.Background(), HookEventPostToolUse, &PostToolUseHookInput{ToolName: "Bash", ToolResponse: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if len(outcome.Reports) != 0 {
		t.Fatalf("the fire waited for the async hook: %+v", outcome.Reports)
	}
	close(release)
	reports, pending, err := runner.Flush(5 * time.Second)
	if err != nil || pending != 0 || len(reports) != 1 || reports[0].Name != "audit" || !reports[0].Async {
		t.Fatalf("flush: %+v %d %v", reports, pending, err)
	}
}

func TestTheSeedsFifteenEventsReachCallbacksWithTheirTypedInputs(t *testing.T) {
	base := BaseHookInput{SessionID: "s-9", TranscriptPath: "/tmp/t.jsonl", PermissionMode: "plan"}
	custom := "keep the API notes"
	inputs := []any{
		&PreToolUseHookInput{BaseHookInput: base, ToolName: "Bash", ToolInput: map[string]any{"command": "ls"}, ToolUseID: "tu_1"},
		&PostToolUseHookInput{BaseHookInput: base, ToolName: "Bash", ToolInput: map[string]any{"command": "ls"}, ToolResponse: "a\nb", ToolUseID: "tu_1"},
		&PostToolUseFailureHookInput{BaseHookInput: base, ToolName: "Bash", ToolInput: map[string]any{}, ToolUseID: "tu_2", Error: "exit 1", IsInterrupt: true},
		&NotificationHookInput{BaseHookInput: base, Message: "needs you", Title: "hi", NotificationType: "idle_prompt"},
		&UserPromptSubmitHookInput{BaseHookInput: base, Prompt: "refactor \"the\" parser\n"},
		&SessionStartHookInput{BaseHookInput: base, Source: "resume", AgentType: "coder", Model: "m"},
		&SessionEndHookInput{BaseHookInput: base, Reason: "logout"},
		&StopHookInput{BaseHookInput: base, StopHookActive: true},
		&SubagentStartHookInput{BaseHookInput: base, AgentID: "a1", AgentType: "explorer"},
		&SubagentStopHookInput{BaseHookInput: base, StopHookActive: true, AgentID: "a1", AgentTranscriptPath: "/tmp/a1.jsonl", AgentType: "explorer"},
		&PreCompactHookInput{BaseHookInput: base, Trigger: "manual", CustomInstructions: &custom},
		&PermissionRequestHookInput{BaseHookInput: base, ToolName: "Write", ToolInput: map[string]any{"file_path": "x"}, PermissionSuggestions: []any{"allow"}},
		&SetupHookInput{BaseHookInput: base, Trigger: "init"},
		&TeammateIdleHookInput{BaseHookInput: base, TeammateName: "ann", TeamName: "core"},
		&TaskCompletedHookInput{BaseHookInput: base, TaskID: "t1", TaskSubject: "docs", TaskDescription: "write them", TeammateName: "ann", TeamName: "core"},
	}
	got := make(chan any, 1)
	record := func(input any, _ string, _ context.Context) (HookJSONOutput, error) {
		got <- input
		return nil, nil
	}
	hooks := map[HookEvent][]CallbackMatcher{}
	for _, event := range HookEvents {
		hooks[event] = []CallbackMatcher{{Hooks: []HookCallback{record}}}
	}
	p := newProject(t, "")
	runner := p.runner(t, hooks)
	for i, event := range HookEvents {
		input := inputs[i]
		if _, err := runner.Fire(context.Background(), event, input); err != nil {
			t.Fatalf("%s: %v", event, err)
		}
		received := <-got
		// What the callback gets is what the agent gave, with the event's name and the
		// runner's directory filled in.
		want := reflect.ValueOf(input).Elem()
		copied := reflect.New(want.Type())
		copied.Elem().Set(want)
		copied.Elem().FieldByName("HookEventName").SetString(string(event))
		copied.Elem().FieldByName("BaseHookInput").FieldByName("CWD").SetString(p.dir)
		if !reflect.DeepEqual(received, copied.Interface()) {
			t.Errorf("%s: the callback got\n%#v\nwant\n%#v", event, received, copied.Interface())
		}
	}
}

func TestBadInputsAreClearErrors(t *testing.T) {
	runner := newProject(t, "").runner(t, nil)
	for _, c := range []struct {
		name  string
		event HookEvent
		input any
		want  string
	}{
		{"a tool event without its tool", HookEventPreToolUse, nil, "hookhost: the event's `tool` is missing: a PreToolUse event is about a tool call; give `tool` (the tool's name) and `input`"},
		{"another event's input", HookEventStop, bash("ls"), "hookhost: a *hookhost.PreToolUseHookInput is PreToolUse's input, fired as Stop"},
		{"another event's name", HookEventStop, map[string]any{"hook_event_name": "PreToolUse"}, "hookhost: the input is a PreToolUse input (hook_event_name), fired as Stop"},
		{"another directory", HookEventStop, &StopHookInput{BaseHookInput: BaseHookInput{CWD: "/elsewhere"}}, "hookhost: the event's `cwd` \"/elsewhere\" is not the runner's directory"},
		{"a misspelt event", HookEvent("PreToolUSE"), nil, "hookhost: unknown event \"PreToolUSE\": did you mean \"PreToolUse\"?"},
		{"not an object", HookEventStop, []int{1}, "hookhost: the input must be a JSON object"},
	} {
		_, err := runner.Fire(context.Background(), c.event, c.input)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// A map in the SDK's spelling works like a typed input.
	outcome, err := runner.FireOutcome(context.Background(), HookEventPreToolUse, map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"},
	})
	if err != nil || outcome.Event != "PreToolUse" {
		t.Fatalf("a map input: %+v %v", outcome, err)
	}
}

func TestAConfigurationThatDoesNotLoadIsAnErrorNamingTheFile(t *testing.T) {
	p := newProject(t, "[[hooks]]\nevent = \"PreToolUse\"\ncomand = \"true\"\n")
	_, err := NewRunner(p.config(nil))
	var hookhostErr *Error
	if !errors.As(err, &hookhostErr) || hookhostErr.Status != 2 || !strings.Contains(err.Error(), ".forgeflare/hooks.toml:3:1") {
		t.Fatalf("got %v", err)
	}
}
