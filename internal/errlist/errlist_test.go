package errlist

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"one", a, []string{"a"}},
		{"joined", errors.Join(a, b), []string{"a", "b"}},
		{"nested", errors.Join(a, errors.Join(b, c)), []string{"a", "b", "c"}},
		{"joined, wrapped once", fmt.Errorf("file: %w", errors.Join(a, b)), []string{"a", "b"}},
		{"wrapped", fmt.Errorf("file: %w", a), []string{"file: a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range Split(tt.err) {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Split = %q, want %q", got, tt.want)
			}
		})
	}
}
