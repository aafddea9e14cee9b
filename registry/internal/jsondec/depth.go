package jsondec

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// MaxDepth is how deep, in arrays and objects, the JSON the module reads
// from outside may nest: an event, a describe or demo request, each
// catalogue tool's parameters and each manifest, and the JSON read from
// strings (a response body, a stream event's data, a tool call's
// arguments). Past it the JSON is refused before anything reads it
// (wasm/ABI.md, Nesting).
//
// Go on wasm makes each Go call a wasm call, and under V8 the wasm call
// stack is the thread's, so reading JSON recursively traps the instance
// past a few thousand levels. The recursive Skip this package had trapped
// at 4,919 levels in a Chromium 156 dedicated worker (where the chat page
// runs the module) and 8,684 in Node 20. The schema scanner, the deepest
// recursion left, measured with no limit, trapped at 5,451 levels of
// objects in that worker, 6,459 in Node, 10,831 on Chromium's main thread
// and 10,988 in workerd: 512 is under a tenth of the least. Real inputs
// are far shallower: tool schemas and arguments nest a few levels, a few
// tens for the deepest generated ones (serde_json, Rust's JSON library,
// stops at 128 by default), and a response adds fewer than ten.
const MaxDepth = 512

// DepthError is JSON that nests more than Limit arrays and objects
// (MaxDepth, but where a reader allows for levels of its own around).
type DepthError struct {
	Limit int
	// Offset is where, in bytes, the array or object that goes past
	// Limit begins.
	Offset int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("nests more than %d levels of arrays and objects (at byte %d)", e.Limit, e.Offset)
}

// CheckDepth reports, as a *DepthError, whether data, JSON text, nests
// more than MaxDepth arrays and objects: call it before anything reads
// data recursively.
func CheckDepth(data []byte) error {
	if at := TooDeep(data, MaxDepth); at >= 0 {
		return &DepthError{Limit: MaxDepth, Offset: at}
	}
	return nil
}

// CheckDepthString is CheckDepth of a string's bytes, without copying them.
func CheckDepthString(s string) error {
	return CheckDepth(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// TooDeep is where data, JSON text, first nests more than limit arrays
// and objects: the offset of the bracket that goes past, or -1. It counts
// brackets outside strings in one pass, without recursion and without
// checking the grammar, which the reader that comes after it does; a
// stray closing bracket counts as none, so that it never lets more
// opening ones through.
func TooDeep(data []byte, limit int) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			if depth++; depth > limit {
				return i
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case '"':
			i = stringEnd(data, i+1)
		}
	}
	return -1
}

// stringEnd is the index of the quote that ends the string whose text
// starts at i, or the end of data.
func stringEnd(data []byte, i int) int {
	for i < len(data) {
		for i+8 <= len(data) && plain8(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		if i >= len(data) {
			break
		}
		switch data[i] {
		case '"':
			return i
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return len(data)
}
