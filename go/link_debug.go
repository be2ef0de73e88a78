//go:build !hookhost_release && !hookhost_external

package hookhost

// Links the C ABI that cargo built in this repository's target/debug/deps: `cargo test
// --workspace` leaves libhookhost_capi.so there (`cargo build -p hookhost-capi` too, and copies
// it up to target/debug). Build with `-tags hookhost_release` for target/release
// (`cargo build --release -p hookhost-capi`; what the benchmarks use), or with
// `-tags hookhost_external` and CGO_CFLAGS/CGO_LDFLAGS pointing at an installed library.

// #cgo CFLAGS: -I${SRCDIR}/../capi/include
// #cgo LDFLAGS: -L${SRCDIR}/../target/debug/deps -lhookhost_capi -Wl,-rpath,${SRCDIR}/../target/debug/deps
import "C"
