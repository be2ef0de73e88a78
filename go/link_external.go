//go:build hookhost_external

package hookhost

// The library and header come from CGO_CFLAGS (-I with hookhost.h) and CGO_LDFLAGS
// (-L with libhookhost_capi, and -lhookhost_capi).

// #cgo LDFLAGS: -lhookhost_capi
import "C"
