//go:build !linux && !darwin

package module

import "github.com/tetratelabs/wazero/experimental"

// memoryAllocator is nil here: instances use wazero's own memory.
func memoryAllocator() experimental.MemoryAllocator { return nil }
