package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LookupFunc returns the value of an environment variable and whether it is
// set; os.LookupEnv is one.
type LookupFunc func(name string) (string, bool)

// expandNodes replaces ${VAR} in every scalar value under n. Mapping keys
// are left alone: a key that depends on the environment would make the
// file's shape depend on it too.
func expandNodes(n *yaml.Node, lookup LookupFunc, bad func(line int, format string, args ...any)) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			expandNodes(c, lookup, bad)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			expandNodes(n.Content[i], lookup, bad)
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "$") {
			return
		}
		v, err := expand(n.Value, lookup)
		if err != nil {
			bad(n.Line, "%v", err)
			return
		}
		n.Value = v
		if n.Style&yaml.TaggedStyle == 0 && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
			// A plain scalar's type was resolved from its text before
			// expansion ("${N}" is a string); resolve it again so that
			// `max_parallel: ${N}` is a number, as if N had been written.
			n.Tag = ""
		}
		// Aliases are not followed: they share the anchor's node, which
		// is expanded once where it is defined.
	}
}

// expand replaces ${NAME} with the variable's value and $$ with $. Any other
// $ is kept as written, so PromQL or URLs that contain a lone $ need no
// escaping.
func expand(s string, lookup LookupFunc) (string, error) {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 || i == len(s)-1 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			s = s[i+2:]
		case '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("%q has no closing }", s[i:])
			}
			name := s[i+2 : i+2+end]
			if !validVarName(name) {
				return "", fmt.Errorf("${%s}: %q is not a valid environment variable name (letters, digits and _, not starting with a digit)", name, name)
			}
			v, ok := lookup(name)
			if !ok {
				return "", fmt.Errorf("environment variable %s is not set (write $$ for a literal $)", name)
			}
			b.WriteString(v)
			s = s[i+2+end+1:]
		default:
			b.WriteByte('$')
			s = s[i+1:]
		}
	}
}

func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
