//go:build wasip1

// Command toolroute-wasm is toolroute's wasm module: registry/ and the turn
// engine behind the exports wasm/ABI.md specifies. Build it with `make wasm`:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
//
// It is a reactor: the host calls _initialize once, then the exports, one at
// a time. Nothing here waits on the host.
package main

import (
	"fmt"
	"unsafe"

	"github.com/toolroute/toolroute/internal/abi"
)

func main() {}

var guest abi.Guest

// pinned keeps every buffer the host may touch alive until it frees it: the
// host's inputs (from toolroute_alloc) and the module's results. Go's garbage
// collector does not move objects, so a pointer stays valid while pinned.
var pinned = map[uint32][]byte{}

func pin(b []byte) uint32 {
	p := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	pinned[p] = b
	return p
}

// result pins an answer and packs its address and length: (ptr << 32) | len.
func result(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(pin(b))<<32 | uint64(len(b))
}

// input finds the bytes the host wrote at ptr, which toolroute_alloc gave it.
func input(ptr, size uint32) ([]byte, []byte) {
	if size == 0 {
		return nil, nil
	}
	b, ok := pinned[ptr]
	if !ok {
		return nil, []byte(fmt.Sprintf(`{"error":{"code":"bad_json","message":"the input at %d (%d bytes) was not allocated with %s: write requests into memory it gives"}}`, ptr, size, abi.ExportAlloc))
	}
	if uint64(size) > uint64(cap(b)) {
		return nil, []byte(fmt.Sprintf(`{"error":{"code":"bad_json","message":"the input at %d is %d bytes, but %s gave %d there: allocate as many bytes as the request has"}}`, ptr, size, abi.ExportAlloc, cap(b)))
	}
	return b[:size], nil
}

// collected is result(out) for a call that took in bytes: the garbage of
// a call that moved many is collected before it returns (abi.Collect).
func collected(in int, out []byte) uint64 {
	abi.Collect(in + len(out))
	return result(out)
}

//go:wasmexport toolroute_abi_version
func abiVersion() uint32 { return abi.Version }

// alloc answers 0, not a trap, for a size over abi.MaxAlloc: make would
// ask the Go runtime for more than it can get, and it aborts.
//
//go:wasmexport toolroute_alloc
func alloc(size uint32) uint32 {
	if size == 0 || size > abi.MaxAlloc {
		return 0
	}
	return pin(make([]byte, size))
}

//go:wasmexport toolroute_free
func free(ptr uint32) {
	if b, ok := pinned[ptr]; ok {
		delete(pinned, ptr)
		guest.Freed(b)
	}
}

//go:wasmexport toolroute_load
func load(ptr, size uint32) uint64 {
	in, bad := input(ptr, size)
	if bad != nil {
		return result(bad)
	}
	return collected(len(in), guest.Load(in))
}

//go:wasmexport toolroute_word_vectors
func wordVectors(ptr, size uint32) uint64 {
	in, bad := input(ptr, size)
	if bad != nil {
		return result(bad)
	}
	return collected(len(in), guest.WordVectors(in))
}

//go:wasmexport toolroute_describe
func describe(ptr, size uint32) uint64 {
	in, bad := input(ptr, size)
	if bad != nil {
		return result(bad)
	}
	return collected(len(in), guest.Describe(in))
}

//go:wasmexport toolroute_turn_new
func turnNew() uint64 {
	return result(guest.TurnNew())
}

//go:wasmexport toolroute_turn_event
func turnEvent(turn, ptr, size uint32) uint64 {
	in, bad := input(ptr, size)
	if bad != nil {
		return result(bad)
	}
	return collected(len(in), guest.TurnEvent(turn, in))
}

//go:wasmexport toolroute_turn_chunk
func turnChunk(turn, ptr, size uint32) uint64 {
	in, bad := input(ptr, size)
	if bad != nil {
		return result(bad)
	}
	return collected(len(in), guest.TurnChunk(turn, in))
}

// turnBody hands out the body of the turn's last model call, raw: the
// host posts these bytes as they are.
//
//go:wasmexport toolroute_turn_body
func turnBody(turn uint32) uint64 {
	return collected(0, guest.TurnBody(turn))
}

//go:wasmexport toolroute_turn_free
func turnFree(turn uint32) {
	guest.TurnFree(turn)
}

//go:wasmexport toolroute_demo
func demoRespond(ptr, size uint32) uint64 {
	in, bad := input(ptr, size)
	if bad != nil {
		return result(bad)
	}
	return collected(len(in), guest.Demo(in))
}

//go:wasmexport toolroute_check
func checkArgs(ptr, size uint32) uint64 {
	in, bad := input(ptr, size)
	if bad != nil {
		return result(bad)
	}
	return collected(len(in), guest.Check(in))
}

//go:wasmexport toolroute_retry
func retry(ptr, size uint32) uint64 {
	in, bad := input(ptr, size)
	if bad != nil {
		return result(bad)
	}
	return collected(len(in), guest.Retry(in))
}
