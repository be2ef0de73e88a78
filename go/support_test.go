package hookhost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The repository's root, and what TestMain prepared for every test: the destructive-guard
// component (built by cargo, as scripts/demo builds it) and a compile cache of the tests' own.
var (
	repoRoot      string
	guardWasm     string
	wasmCacheDir  string
	testScratch   string
	cargoNotFound = "cargo is not on PATH: the Go tests build the destructive-guard wasm hook with it (install Rust with rustup, then `rustup target add wasm32-wasip2`)"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = filepath.Dir(wd)
	testScratch, err = os.MkdirTemp("", "hookhost-go-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(testScratch)
	// hookhost's files (the compile cache's key, the user's hooks.toml) stay in the scratch
	// directory, never the user's.
	os.Setenv("HOOKHOST_CACHE_KEY", filepath.Join(testScratch, "cache.key"))
	os.Setenv("HOOKHOST_CONFIG_DIR", filepath.Join(testScratch, "config"))
	os.Setenv("HOOKHOST_DATA_DIR", filepath.Join(testScratch, "data"))
	wasmCacheDir = filepath.Join(testScratch, "compile-cache")
	if _, err := exec.LookPath("cargo"); err != nil {
		fmt.Fprintln(os.Stderr, cargoNotFound)
		return 1
	}
	build := exec.Command("cargo", "build", "--quiet", "--release", "--target", "wasm32-wasip2",
		"-p", "destructive-guard", "--target-dir", filepath.Join(repoRoot, "target"))
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building destructive-guard failed (%v): is the wasm32-wasip2 target installed? `rustup target add wasm32-wasip2`\n", err)
		return 1
	}
	guardWasm = filepath.Join(repoRoot, "target/wasm32-wasip2/release/destructive_guard.wasm")
	return m.Run()
}

// project is a throwaway project directory with a hooks.toml.
type project struct {
	dir string
}

func newProject(t testing.TB, hooksTOML string) project {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".forgeflare"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".forgeflare/hooks.toml"), []byte(hooksTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	return project{dir: dir}
}

func (p project) config(hooks map[HookEvent][]CallbackMatcher) RunnerConfig {
	return RunnerConfig{
		CWD:        p.dir,
		ConfigPath: ".forgeflare/hooks.toml",
		WasmCache:  wasmCacheDir,
		Hooks:      hooks,
	}
}

func (p project) runner(t testing.TB, hooks map[HookEvent][]CallbackMatcher) *Runner {
	t.Helper()
	runner, err := NewRunner(p.config(hooks))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Close() })
	return runner
}

func (p project) read(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// commandHook is a hooks.toml entry for a command hook.
func commandHook(event, command, extra string) string {
	return fmt.Sprintf("[[hooks]]\nevent = %q\ncommand = '''%s'''\n%s\n\n", event, command, extra)
}

// guardHook is the destructive-guard wasm hook for Bash.
func guardHook() string {
	return fmt.Sprintf("[[hooks]]\nname = \"destructive-guard\"\nevent = \"PreToolUse\"\nmatch_tool = \"Bash\"\nwasm = %q\ntimeout_ms = 2000\n\n", guardWasm)
}

func bash(command string) *PreToolUseHookInput {
	return &PreToolUseHookInput{ToolName: "Bash", ToolInput: map[string]any{"command": command}}
}

// processesWith lists the processes whose command line contains marker.
func processesWith(marker string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, entry := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", entry.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), marker) {
			found = append(found, strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return found
}

// eventually polls cond every few milliseconds up to limit.
func eventually(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cond()
}

func ptr[T any](v T) *T {
	return &v
}
