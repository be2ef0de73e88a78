//go:build hookhost_release && !hookhost_external

package hookhost

// #cgo CFLAGS: -I${SRCDIR}/../capi/include
// #cgo LDFLAGS: -L${SRCDIR}/../target/release -lhookhost_capi -Wl,-rpath,${SRCDIR}/../target/release
import "C"
