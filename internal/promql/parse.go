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
	text string
	fuse []fusion
	// odd is what only some expressions need: nil for an instant vector
	// printed as written, as most apps' are. There is an Expr an app, and
	// without the printed form and a bool it fits 48 bytes, not 64.
	odd *oddExpr
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
	e := &Expr{text: text, fuse: findFusions(text, node)}
	scalar := node.Type() == parser.ValueTypeScalar
	if printed := node.String(); printed != text || scalar {
		e.odd = &oddExpr{printed: printed, scalar: scalar}
	}
	return e, nil
}

type oddExpr struct {
	printed string
	scalar  bool
}

// printed is the syntax tree printed: what is sent, and the key of equal
// expressions.
func (e *Expr) printed() string {
	if e.odd != nil {
		return e.odd.printed
	}
	return e.text
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
func (e *Expr) Scalar() bool { return e.odd != nil && e.odd.scalar }
