package registry

// Stem reduces an English word in lower case to its stem with the Porter
// algorithm (M. F. Porter, "An algorithm for suffix stripping", Program 14(3),
// 1980), as the paper gives it: "connections", "connected" and "connecting"
// all become "connect". Stems are not words ("happy" becomes "happi"); they
// only need to agree with each other. Words of one or two letters, and words
// holding anything but the letters a to z, are returned as they are.
func Stem(word string) string {
	if len(word) <= 2 {
		return word
	}
	for i := 0; i < len(word); i++ {
		if word[i] < 'a' || word[i] > 'z' {
			return word
		}
	}
	s := stemmer{b: []byte(word)}
	s.step1a()
	s.step1b()
	s.step1c()
	s.step2()
	s.step3()
	s.step4()
	s.step5()
	return string(s.b)
}

// stemmer holds the word being stemmed; k is the length of the stem a suffix
// test leaves (the paper's j), set by ends.
type stemmer struct {
	b []byte
	k int
}

// cons reports whether b[i] is a consonant: not a, e, i, o, u, and not a y
// that follows a consonant.
func (s *stemmer) cons(i int) bool {
	switch s.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !s.cons(i-1)
	}
	return true
}

// m is the paper's measure of b[:n]: the number of vowel-consonant
// sequences in [C](VC)^m[V].
func (s *stemmer) m(n int) int {
	m, i := 0, 0
	for i < n && s.cons(i) {
		i++
	}
	for i < n {
		for i < n && !s.cons(i) {
			i++
		}
		if i == n {
			break
		}
		for i < n && s.cons(i) {
			i++
		}
		m++
	}
	return m
}

// hasVowel reports whether b[:n] holds a vowel.
func (s *stemmer) hasVowel(n int) bool {
	for i := 0; i < n; i++ {
		if !s.cons(i) {
			return true
		}
	}
	return false
}

// doubleCons reports whether b[:n] ends with a double consonant.
func (s *stemmer) doubleCons(n int) bool {
	return n >= 2 && s.b[n-1] == s.b[n-2] && s.cons(n-1)
}

// cvc reports whether b[:n] ends consonant-vowel-consonant with the last not
// w, x or y: the stem of "hop(e)", "fil(e)", not of "snow" or "box".
func (s *stemmer) cvc(n int) bool {
	if n < 3 || !s.cons(n-1) || s.cons(n-2) || !s.cons(n-3) {
		return false
	}
	c := s.b[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

// ends reports whether the word ends with suffix, and sets k to the length of
// what is left.
func (s *stemmer) ends(suffix string) bool {
	n := len(s.b) - len(suffix)
	if n < 0 || string(s.b[n:]) != suffix {
		return false
	}
	s.k = n
	return true
}

// setTo replaces the suffix ends matched with r.
func (s *stemmer) setTo(r string) { s.b = append(s.b[:s.k], r...) }

// replace is the rule (m>0) suffix -> r for the suffix ends matched.
func (s *stemmer) replace(r string) {
	if s.m(s.k) > 0 {
		s.setTo(r)
	}
}

// step1a handles plurals: sses -> ss, ies -> i, ss -> ss, s -> "".
func (s *stemmer) step1a() {
	switch {
	case s.ends("sses"):
		s.setTo("ss")
	case s.ends("ies"):
		s.setTo("i")
	case s.ends("ss"):
	case s.ends("s"):
		s.setTo("")
	}
}

// step1b handles -ed and -ing, tidying the stem left behind.
func (s *stemmer) step1b() {
	if s.ends("eed") {
		if s.m(s.k) > 0 {
			s.b = s.b[:len(s.b)-1]
		}
		return
	}
	if !(s.ends("ed") || s.ends("ing")) || !s.hasVowel(s.k) {
		return
	}
	s.setTo("")
	n := len(s.b)
	switch {
	case s.ends("at"), s.ends("bl"), s.ends("iz"):
		s.b = append(s.b, 'e')
	case s.doubleCons(n) && s.b[n-1] != 'l' && s.b[n-1] != 's' && s.b[n-1] != 'z':
		s.b = s.b[:n-1]
	case s.m(n) == 1 && s.cvc(n):
		s.b = append(s.b, 'e')
	}
}

// step1c turns a final y into i when the stem has a vowel.
func (s *stemmer) step1c() {
	if s.ends("y") && s.hasVowel(s.k) {
		s.b[len(s.b)-1] = 'i'
	}
}

// The suffix rules of steps 2 to 4, each a suffix and its replacement,
// tried in order until one matches.
var (
	step2Rules = [][2]string{
		{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"},
		{"izer", "ize"}, {"abli", "able"}, {"alli", "al"}, {"entli", "ent"},
		{"eli", "e"}, {"ousli", "ous"}, {"ization", "ize"}, {"ation", "ate"},
		{"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"},
		{"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
	}
	step3Rules = [][2]string{
		{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
		{"ical", "ic"}, {"ful", ""}, {"ness", ""},
	}
	step4Suffixes = []string{
		"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
		"ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
	}
)

// step2 maps double suffixes to single ones: -ization -> -ize.
func (s *stemmer) step2() {
	for _, r := range step2Rules {
		if s.ends(r[0]) {
			s.replace(r[1])
			return
		}
	}
}

// step3 handles -ic-, -full, -ness.
func (s *stemmer) step3() {
	for _, r := range step3Rules {
		if s.ends(r[0]) {
			s.replace(r[1])
			return
		}
	}
}

// step4 takes off -ant, -ence and the like when the stem is long enough
// (m>1); -ion only after s or t.
func (s *stemmer) step4() {
	for _, suf := range step4Suffixes {
		if !s.ends(suf) {
			continue
		}
		if suf == "ion" && (s.k == 0 || s.b[s.k-1] != 's' && s.b[s.k-1] != 't') {
			return
		}
		if s.m(s.k) > 1 {
			s.setTo("")
		}
		return
	}
}

// step5 removes a final -e and turns -ll into -l, when the stem is long
// enough.
func (s *stemmer) step5() {
	n := len(s.b)
	if s.b[n-1] == 'e' {
		if m := s.m(n - 1); m > 1 || m == 1 && !s.cvc(n-1) {
			s.b = s.b[:n-1]
		}
	}
	n = len(s.b)
	if s.b[n-1] == 'l' && s.doubleCons(n) && s.m(n) > 1 {
		s.b = s.b[:n-1]
	}
}
