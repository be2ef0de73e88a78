//go:build !hookhost_release && !hookhost_external

package hookhost

// Links the C ABI that `cargo build -p hookhost-capi` (or `cargo build --workspace`) built in
// this repository's target/debug. Build with `-tags hookhost_release` for target/release
// (`cargo build --release -p hookhost-capi`; what the benchmarks use), or with
// `-tags hookhost_external` and CGO_CFLAGS/CGO_LDFLAGS pointing at an installed library.

// #cgo CFLAGS: -I${SRCDIR}/../capi/include
// #cgo LDFLAGS: -L${SRCDIR}/../target/debug -lhookhost_capi -Wl,-rpath,${SRCDIR}/../target/debug
import "C"
