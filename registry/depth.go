package registry

import "github.com/toolroute/toolroute/registry/internal/jsondec"

// MaxDepth is how deep, in arrays and objects, JSON from outside may nest
// for the registry and the turn engine to read it: a catalogue tool's
// parameters, a manifest, an event, a response body or stream event, a
// tool call's arguments (wasm/ABI.md, Nesting). registry/internal/jsondec
// says why 512.
const MaxDepth = jsondec.MaxDepth

// DepthError is JSON that nests more than MaxDepth arrays and objects; its
// Offset is where the array or object that goes past begins. Its text
// follows what the JSON is: "the event " + err.Error().
type DepthError = jsondec.DepthError

// CheckDepth reports, as a *DepthError, whether data, JSON text, nests more
// than MaxDepth arrays and objects, in one pass without recursion: read
// JSON from outside only after it, as the module does, since reading it
// recursively in wasm under V8 overflows the stack and kills the instance.
func CheckDepth(data []byte) error { return jsondec.CheckDepth(data) }
