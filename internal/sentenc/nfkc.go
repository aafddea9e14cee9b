package sentenc

import (
	"encoding/binary"
	"fmt"
	"sort"
	"unicode/utf8"
)

// nfkc is Unicode Normalization Form KC (what String.prototype.normalize
// ("NFKC") does) from tables internal/usegen derives from
// golang.org/x/text, since the standard library has none: full
// compatibility decomposition, canonical ordering of combining marks, then
// canonical composition. Hangul syllables decompose and compose by the
// algorithm, not by table.
type nfkc struct {
	decomp  map[rune]string
	ccc     map[rune]uint8
	compose map[[2]rune]rune
}

func newNFKC(decomp, ccc, compose []byte) (*nfkc, error) {
	n := &nfkc{decomp: map[rune]string{}, ccc: map[rune]uint8{}, compose: map[[2]rune]rune{}}
	bad := fmt.Errorf("%w: bad normalisation tables", ErrModel)
	for p := decomp; len(p) > 0; {
		if len(p) < 5 || len(p) < 5+int(p[4]) {
			return nil, bad
		}
		l := int(p[4])
		n.decomp[rune(binary.LittleEndian.Uint32(p))] = string(p[5 : 5+l])
		p = p[5+l:]
	}
	if len(ccc)%5 != 0 || len(compose)%12 != 0 {
		return nil, bad
	}
	for p := ccc; len(p) > 0; p = p[5:] {
		n.ccc[rune(binary.LittleEndian.Uint32(p))] = p[4]
	}
	for p := compose; len(p) > 0; p = p[12:] {
		a := rune(binary.LittleEndian.Uint32(p))
		b := rune(binary.LittleEndian.Uint32(p[4:]))
		n.compose[[2]rune{a, b}] = rune(binary.LittleEndian.Uint32(p[8:]))
	}
	return n, nil
}

const (
	hangulBase  = 0xAC00
	hangulL     = 0x1100
	hangulV     = 0x1161
	hangulT     = 0x11A7
	hangulLN    = 19
	hangulVN    = 21
	hangulTN    = 28
	hangulNN    = hangulVN * hangulTN
	hangulCount = hangulLN * hangulNN
)

func (n *nfkc) normalize(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var rs []rune
	for _, r := range s {
		if h := r - hangulBase; h >= 0 && h < hangulCount {
			rs = append(rs, hangulL+h/hangulNN, hangulV+h%hangulNN/hangulTN)
			if t := h % hangulTN; t != 0 {
				rs = append(rs, hangulT+t)
			}
			continue
		}
		if d, ok := n.decomp[r]; ok {
			rs = append(rs, []rune(d)...)
			continue
		}
		rs = append(rs, r)
	}
	// Canonical ordering: each run of combining marks sorted by class,
	// stably.
	for i := 0; i < len(rs); {
		if n.ccc[rs[i]] == 0 {
			i++
			continue
		}
		j := i
		for j < len(rs) && n.ccc[rs[j]] != 0 {
			j++
		}
		run := rs[i:j]
		sort.SliceStable(run, func(a, b int) bool { return n.ccc[run[a]] < n.ccc[run[b]] })
		i = j
	}
	// Canonical composition.
	out := rs[:0]
	starter := -1
	last := -1 // class of the last kept character after the starter; -1: none
	for _, r := range rs {
		cc := int(n.ccc[r])
		// r is blocked from the starter by a kept character in between
		// of class 0 or of a class not below its own.
		if starter >= 0 && (last == -1 || last < cc) {
			if c, ok := n.composePair(out[starter], r); ok {
				out[starter] = c
				continue
			}
		}
		if cc == 0 {
			starter, last = len(out), -1
		} else {
			last = cc
		}
		out = append(out, r)
	}
	return string(out)
}

func (n *nfkc) composePair(a, b rune) (rune, bool) {
	if l := a - hangulL; l >= 0 && l < hangulLN {
		if v := b - hangulV; v >= 0 && v < hangulVN {
			return hangulBase + (l*hangulVN+v)*hangulTN, true
		}
	}
	if s := a - hangulBase; s >= 0 && s < hangulCount && s%hangulTN == 0 {
		if t := b - hangulT; t > 0 && t < hangulTN {
			return a + t, true
		}
	}
	c, ok := n.compose[[2]rune{a, b}]
	return c, ok
}
