package host

import (
	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/module"
)

// ModuleConfig configures the wasm runtime New compiles the module with
// (Options.Module): Binary (nil means wasm.Binary), CacheDir (compiled code
// kept on disk between processes), MaxMemory (an instance's hard limit; 0
// means 1 GiB), Stderr (the module's standard error), Interruptible (a call
// stops when its context is done, at a cost of about four times a turn's
// time) and WordVectors (nil means assets.WordVectors when
// Options.SearchTools is set, unless Options.NoWordVectors is). The runtime is internal; this names its
// configuration, whose fields `go doc
// github.com/toolroute/toolroute/internal/module.Config` documents.
type ModuleConfig = module.Config

// Description is the catalogue for display that Describe returns: the
// system prompt, the groups, tools, files and skills, and the tools a
// session's next model call sends. It is the module's answer to
// toolroute_describe, whose fields wasm/ABI.md specifies.
type Description = abi.Description

// Refused is CheckArgs's error for arguments the module refuses (errors.As
// finds it): the tool result's error type and the sentence the model or the
// user reads.
type Refused = module.Refused
