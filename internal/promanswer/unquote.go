package promanswer

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Strings are unescaped in two ways, so that an answer reads the same here
// as in client_golang and the standard library: values as encoding/json
// decodes them, keys as json-iterator does. Both take the bytes between
// the quotes of a string str has read.

// appendValue appends raw unescaped as encoding/json decodes a string: a
// byte that is not UTF-8 becomes U+FFFD, and so does a \u escape of a
// surrogate that does not pair with the escape after it.
func appendValue(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		switch c := raw[i]; {
		case c == '\\' && raw[i+1] == 'u':
			r := hex4(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if next, ok := escapedRune(raw[i:]); ok {
					if pair := utf16.DecodeRune(r, next); pair != utf8.RuneError {
						dst = utf8.AppendRune(dst, pair)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		case c == '\\':
			dst = append(dst, unescape(raw[i+1]))
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			dst = utf8.AppendRune(dst, r)
			i += n
		}
	}
	return dst
}

// appendKey appends raw unescaped as json-iterator decodes a key: bytes
// that are not UTF-8 are kept as they are, and a \u escape of a surrogate
// takes the \u escape right after it along, whether the two pair or not.
func appendKey(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		switch c := raw[i]; {
		case c == '\\' && raw[i+1] == 'u':
			r := hex4(raw[i+2:])
			i += 6
			if !utf16.IsSurrogate(r) {
				dst = utf8.AppendRune(dst, r)
				continue
			}
			next, ok := escapedRune(raw[i:])
			if !ok {
				dst = utf8.AppendRune(dst, utf8.RuneError)
				continue
			}
			i += 6
			if pair := utf16.DecodeRune(r, next); pair != utf8.RuneError {
				dst = utf8.AppendRune(dst, pair)
				continue
			}
			// AppendRune writes U+FFFD for a surrogate.
			dst = utf8.AppendRune(utf8.AppendRune(dst, r), next)
		case c == '\\':
			dst = append(dst, unescape(raw[i+1]))
			i += 2
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst
}

// escapedRune reads the \u escape b starts with, if it does.
func escapedRune(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	return hex4(b[2:]), true
}

// hex4 is the value of the four hex digits b starts with.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unescape is the byte a one-letter escape stands for.
func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\' and '/'
}
