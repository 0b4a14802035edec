package promql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
)

// Expr is a parsed expression that evaluates to an instant vector or a
// scalar, the two kinds of answer an app's state can be read from.
type Expr struct {
	text    string
	printed string // the syntax tree printed: what is sent, and the key of equal expressions
	scalar  bool
	fuse    []fusion
	// The syntax tree itself is not kept: it is several times the size of
	// the text, there is one per app, and it is only needed again when a
	// plan is made (tree), which is far rarer than a cycle.
}

// Parse parses text with Prometheus's parser (without experimental
// functions, as a server runs by default). The error reads like the
// server's: the line:column of the problem in text and the parser's message.
func Parse(text string) (*Expr, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("the expression is empty")
	}
	node, err := parser.NewParser(parser.Options{}).ParseExpr(text)
	if err != nil {
		var errs parser.ParseErrors
		if errors.As(err, &errs) && len(errs) > 1 {
			// The parser's own text keeps only the first; one is what the
			// user needs to fix first anyway, and the rest often follow
			// from it.
			return nil, &errs[0]
		}
		return nil, err
	}
	switch t := node.Type(); t {
	case parser.ValueTypeVector, parser.ValueTypeScalar:
	default:
		return nil, fmt.Errorf("%s: the expression returns a %s; it must return an instant vector or a scalar",
			node.PositionRange().StartPosInput(text, 0), parser.DocumentedType(t))
	}
	printed := node.String()
	if printed == text {
		printed = text // one copy, not two, of most apps' expression
	}
	return &Expr{text: text, printed: printed, scalar: node.Type() == parser.ValueTypeScalar,
		fuse: findFusions(text, node)}, nil
}

// tree parses the expression again. It parsed once, and the parser is
// deterministic, so it cannot fail.
func (e *Expr) tree() parser.Expr {
	node, err := parser.NewParser(parser.Options{}).ParseExpr(e.text)
	if err != nil {
		panic(fmt.Sprintf("promql: %q parsed once and not again: %v", e.text, err))
	}
	return node
}

// String returns the expression as written.
func (e *Expr) String() string { return e.text }

// Scalar reports whether the expression returns a scalar.
func (e *Expr) Scalar() bool { return e.scalar }
