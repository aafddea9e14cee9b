//go:build linux || darwin

package module

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// reservedMemory is an instance's linear memory in address space reserved
// up to its maximum at once: growing it makes more of the reservation
// usable and never moves or copies it, where wazero's own memory appends
// to a Go slice, copying the whole memory each time the slice's capacity
// runs out. The pages stay out of the Go heap.
type reservedMemory struct {
	mem  []byte // the whole reservation
	size uint64 // how much of it is usable
}

// memoryAllocator reserves each instance's memory; where the address space
// cannot be reserved, the memory grows as a Go slice, as wazero's does.
func memoryAllocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		mem, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return &sliceMemory{max: max}
		}
		return &reservedMemory{mem: mem}
	})
}

// sliceMemory is a linear memory in a Go slice.
type sliceMemory struct {
	buf []byte
	max uint64
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if n := uint64(len(m.buf)); size > n {
		m.buf = append(m.buf, make([]byte, size-n)...)
	}
	return m.buf[:size]
}

func (m *sliceMemory) Free() { m.buf = nil }

// Reallocate makes the first size bytes usable; nil when it cannot.
func (m *reservedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.mem)) {
		return nil
	}
	if size > m.size {
		if err := syscall.Mprotect(m.mem[m.size:size], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return nil
		}
		m.size = size
	}
	return m.mem[:size:size]
}

// Free releases the reservation.
func (m *reservedMemory) Free() {
	if m.mem != nil {
		_ = syscall.Munmap(m.mem)
		m.mem, m.size = nil, 0
	}
}
