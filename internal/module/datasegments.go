package module

import (
	"cmp"
	"slices"
)

// Go's linker writes a module's data as one segment per run of non-zero
// bytes, leaving out runs of zeros longer than a segment's few bytes of
// header: the smallest binary. For toolroute's module that is some 56,000
// segments for 1.5 MB of data, and every runtime pays for each segment: wazero
// decodes each into a struct and two allocations of its own (about 5 MB of
// heap, kept as long as the compiled module), and each instantiation walks
// them. MergeDataSegments, run by `make wasm` (./internal/module/postlink),
// writes them again as a few segments, each taking in the gaps of zeros
// shorter than mergeGap: the binary grows by the zeros (about 1 MB, which
// compresses to nothing), and the memory an instance starts with is the same
// byte for byte.

// mergeGap is the longest run of zeros a merged segment takes in; a longer
// one (a large zeroed variable) still splits the data.
const mergeGap = 4096

// dataSegment is an active segment of memory 0: its offset and its bytes.
type dataSegment struct {
	offset uint32
	init   []byte
}

// MergeDataSegments returns a copy of a wasm binary whose data section's
// segments, sorted by offset, are merged wherever fewer than mergeGap zeros
// lie between them; or the binary unchanged and false when its data cannot
// be merged so (no data section, a passive segment or one whose offset is
// not a constant, segments that overlap) or is merged already.
func MergeDataSegments(bin []byte) ([]byte, bool) {
	segs, ok := readDataSegments(bin)
	if !ok {
		return bin, false
	}
	slices.SortStableFunc(segs, func(a, b dataSegment) int { return cmp.Compare(a.offset, b.offset) })
	var merged []dataSegment
	for _, s := range segs {
		if len(merged) > 0 {
			last := &merged[len(merged)-1]
			end := uint64(last.offset) + uint64(len(last.init))
			if uint64(s.offset) < end {
				return bin, false // overlapping segments: the order they are written in matters
			}
			if gap := uint64(s.offset) - end; gap < mergeGap {
				last.init = append(append(last.init, make([]byte, gap)...), s.init...)
				continue
			}
		}
		merged = append(merged, dataSegment{offset: s.offset, init: slices.Clone(s.init)})
	}
	if len(merged) == len(segs) {
		return bin, false
	}
	return withDataSegments(bin, merged), true
}

// dataSections locates a wasm binary's data section and data count
// section: where each one's id is and its body (-1 for none).
type dataSections struct {
	dataHead, dataStart, dataEnd    int
	countHead, countStart, countEnd int
}

// findDataSections reads a binary's sections for its data section, which
// it must have, after its data count section if it has one.
func findDataSections(bin []byte) (dataSections, bool) {
	const header = 8
	f := dataSections{-1, -1, -1, -1, -1, -1}
	if len(bin) < header || string(bin[:4]) != "\x00asm" {
		return f, false
	}
	for at := header; at < len(bin); {
		id := bin[at]
		size, n := uleb(bin[at+1:])
		if n == 0 || at+1+n+int(size) > len(bin) {
			return f, false
		}
		start := at + 1 + n
		switch id {
		case 11:
			f.dataHead, f.dataStart, f.dataEnd = at, start, start+int(size)
		case 12:
			f.countHead, f.countStart, f.countEnd = at, start, start+int(size)
		}
		at = start + int(size)
	}
	return f, f.dataHead >= 0 && (f.countHead < 0 || f.countHead < f.dataHead)
}

// withDataSegments returns a copy of bin, a binary readDataSegments reads,
// with segs as its data section's segments (and their count in its data
// count section, if it has one).
func withDataSegments(bin []byte, segs []dataSegment) []byte {
	f, _ := findDataSections(bin)
	body := appendUleb(nil, uint64(len(segs)))
	for _, s := range segs {
		body = append(body, 0, 0x41) // active, memory 0; i32.const
		body = appendSleb32(body, int32(s.offset))
		body = append(body, 0x0b) // end
		body = appendUleb(body, uint64(len(s.init)))
		body = append(body, s.init...)
	}
	out := make([]byte, 0, len(bin)-(f.dataEnd-f.dataStart)+len(body)+8)
	if f.countHead >= 0 {
		count := appendUleb(nil, uint64(len(segs)))
		out = append(out, bin[:f.countHead]...)
		out = append(out, 12)
		out = appendUleb(out, uint64(len(count)))
		out = append(out, count...)
		out = append(out, bin[f.countEnd:f.dataHead]...)
	} else {
		out = append(out, bin[:f.dataHead]...)
	}
	out = append(out, 11)
	out = appendUleb(out, uint64(len(body)))
	out = append(out, body...)
	return append(out, bin[f.dataEnd:]...)
}

// readDataSegments reads the data section of a wasm binary whose segments
// are all active, of memory 0, at an i32.const offset.
func readDataSegments(bin []byte) ([]dataSegment, bool) {
	f, ok := findDataSections(bin)
	if !ok {
		return nil, false
	}
	body := bin[f.dataStart:f.dataEnd]
	count, at := uleb(body)
	if at == 0 || count > uint64(len(body)) {
		return nil, false
	}
	segs := make([]dataSegment, 0, count)
	for range count {
		if at+2 > len(body) || body[at] != 0 || body[at+1] != 0x41 {
			return nil, false // passive, another memory, or an offset that is not a constant
		}
		at += 2
		offset, n := sleb32(body[at:])
		if n == 0 || at+n >= len(body) || body[at+n] != 0x0b {
			return nil, false
		}
		at += n + 1
		size, n := uleb(body[at:])
		if n == 0 || at+n+int(size) > len(body) {
			return nil, false
		}
		at += n
		segs = append(segs, dataSegment{offset: uint32(offset), init: body[at : at+int(size)]})
		at += int(size)
	}
	return segs, at == len(body)
}

// sleb32 reads a signed LEB128 number of at most 32 bits and how many bytes
// it took; 0 bytes when it is not one.
func sleb32(b []byte) (int32, int) {
	var v int64
	for i := 0; i < len(b) && i < 5; i++ {
		v |= int64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			if shift := 7 * (i + 1); shift < 64 && b[i]&0x40 != 0 {
				v |= -1 << shift
			}
			return int32(v), i + 1
		}
	}
	return 0, 0
}

func appendSleb32(b []byte, v int32) []byte {
	x := int64(v)
	for {
		c := byte(x & 0x7f)
		x >>= 7
		if (x == 0 && c&0x40 == 0) || (x == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
