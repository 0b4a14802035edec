package promanswer

import (
	"strconv"
	"unicode/utf8"
)

// maxDepth is how deep encoding/json lets values nest (its scanner's
// maxNestingDepth), and so how deep an answer may.
const maxDepth = 10000

// scanner reads a JSON text once, front to back, and refuses what
// encoding/json.Valid refuses: RFC 8259's grammar, at most maxDepth levels
// of nesting, and no check of UTF-8 inside strings (encoding/json replaces
// bad bytes when it decodes a string; it does not refuse them).
type scanner struct {
	buf []byte
	pos int
	// bad is set once the text is known not to be valid JSON.
	bad bool
	// odd is the first number json-iterator fails to skip (see
	// jsoniterSkips): valid JSON, yet refused.
	odd []byte
}

// invalid records that the text is not valid JSON and returns false.
func (s *scanner) invalid() bool {
	s.bad = true
	return false
}

// peek skips whitespace and returns the next byte, or 0 at the end (a 0
// byte in the text is no valid JSON either).
func (s *scanner) peek() byte {
	for ; s.pos < len(s.buf); s.pos++ {
		switch c := s.buf[s.pos]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// more reads what comes after the i-th element of an object or array that
// end closes (after its opening when i is 0) and reports whether an element
// follows. When it returns false, the container was closed or the text is
// invalid (s.bad).
func (s *scanner) more(end byte, i int) bool {
	c := s.peek()
	switch {
	case c == end:
		s.pos++
		return false
	case i == 0:
		return true
	case c == ',':
		s.pos++
		return true
	}
	return s.invalid()
}

// str is a string as it is written: what is between its quotes, whether
// that holds an escape, and whether a byte beyond ASCII.
type str struct {
	raw       []byte
	esc, wide bool
}

// str reads the string whose quote is next.
func (s *scanner) str() (str, bool) {
	var t str
	b := s.buf
	for i := s.pos + 1; i < len(b); i++ {
		c := b[i]
		if c-' ' < utf8.RuneSelf-' ' && c != '"' && c != '\\' {
			continue // most bytes: printable ASCII
		}
		switch {
		case c == '"':
			t.raw = b[s.pos+1 : i]
			s.pos = i + 1
			return t, true
		case c == '\\':
			n := escapeLen(b[i:])
			if n == 0 {
				return t, s.invalid()
			}
			t.esc = true
			i += n - 1
		case c < ' ':
			return t, s.invalid()
		case c >= utf8.RuneSelf:
			t.wide = true
		}
	}
	return t, s.invalid()
}

// escapeLen is the length of the escape b starts with, 0 if it is none.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if !isHex(c) {
				return 0
			}
		}
		return 6
	}
	return 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// colon reads the colon after an object's key.
func (s *scanner) colon() bool {
	if s.peek() != ':' {
		return s.invalid()
	}
	s.pos++
	return true
}

// num reads the number that is next, as RFC 8259 writes numbers, and
// returns it as it is written.
func (s *scanner) num() ([]byte, bool) {
	b, start := s.buf, s.pos
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return nil, s.invalid()
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return nil, s.invalid()
		}
		i = j
	}
	exp := i < len(b) && (b[i] == 'e' || b[i] == 'E')
	if exp {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return nil, s.invalid()
		}
		i = j
	}
	s.pos = i
	tok := b[start:i]
	if (exp || tok[0] == '0') && s.odd == nil && !jsoniterSkips(tok) {
		s.odd = tok
	}
	return tok, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// jsoniterSkips reports whether json-iterator's Iterator.Skip reads tok,
// a valid JSON number with an exponent or starting with 0, without an
// error (other numbers it passes over unparsed). It fails for those beyond
// a float64's range, or a float32's for those starting with 0. Decode
// refuses such answers anywhere, as client_golang (which reads what Decode
// refuses, with json-iterator) refuses them in data.result: one rule for
// both readers of an answer, so that an answer is never half accepted.
func jsoniterSkips(tok []byte) bool {
	bits := 64
	if tok[0] == '0' {
		bits = 32
	}
	_, err := strconv.ParseFloat(string(tok), bits)
	return err == nil
}

// literal reads word (true, false or null), whose first byte is next.
func (s *scanner) literal(word string) bool {
	end := s.pos + len(word)
	if end > len(s.buf) || string(s.buf[s.pos:end]) != word {
		return s.invalid()
	}
	s.pos = end
	return true
}

// skip reads the value that is next, nested in depth objects and arrays,
// keeping nothing of it.
func (s *scanner) skip(depth int) bool {
	switch c := s.peek(); c {
	case '{', '[':
		if depth >= maxDepth {
			return s.invalid()
		}
		s.pos++
		end := byte(']')
		if c == '{' {
			end = '}'
		}
		for i := 0; s.more(end, i); i++ {
			if c == '{' && (s.peek() != '"' || !s.skipStr() || !s.colon()) {
				return s.invalid()
			}
			if !s.skip(depth + 1) {
				return false
			}
		}
		return !s.bad
	case '"':
		return s.skipStr()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		_, ok := s.num()
		return ok
	}
	return s.invalid()
}

// skipStr reads the string whose quote is next.
func (s *scanner) skipStr() bool {
	_, ok := s.str()
	return ok
}
