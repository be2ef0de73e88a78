package hookhost

import (
	"context"
	"testing"
)

// What a fire costs through the package: cgo calls and JSON both ways on top of the runner.
// The same three cases through the Rust API are in benches/embed.rs; docs/benchmarks.md has
// both side by side. Run against the release library:
//
//	cargo build --release -p hookhost-capi
//	go test -tags hookhost_release -run '^$' -bench . -benchtime 3s

var benchInput = &PreToolUseHookInput{
	ToolName:  "Bash",
	ToolInput: map[string]any{"command": "cargo test --release -- --nocapture"},
}

func benchFire(b *testing.B, runner *Runner) {
	ctx := context.Background()
	results, err := runner.Fire(ctx, HookEventPreToolUse, benchInput)
	if err != nil {
		b.Fatal(err)
	}
	if len(results) > 0 && results[0].Decision == "deny" {
		b.Fatalf("the sample call is denied: %+v", results[0])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := runner.Fire(ctx, HookEventPreToolUse, benchInput); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFireNoHooks(b *testing.B) {
	benchFire(b, newProject(b, "").runner(b, nil))
}

func BenchmarkFireOneGoCallback(b *testing.B) {
	allow := func(any, string, context.Context) (HookJSONOutput, error) {
		return nil, nil
	}
	benchFire(b, newProject(b, "").runner(b, map[HookEvent][]CallbackMatcher{
		HookEventPreToolUse: {{HookCallbackMatcher: HookCallbackMatcher{Matcher: "Bash"}, Hooks: []HookCallback{allow}}},
	}))
}

func BenchmarkFireDestructiveGuardWasm(b *testing.B) {
	benchFire(b, newProject(b, guardHook()).runner(b, nil))
}

// BenchmarkEventJSON is the Go half of the boundary alone: the typed input written as the
// event's JSON.
func BenchmarkEventJSON(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := eventJSON(HookEventPreToolUse, benchInput, ""); err != nil {
			b.Fatal(err)
		}
	}
}
