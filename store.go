package availmon

import (
	"context"
	"errors"
)

// Store keeps what a Monitor knows across restarts: the status history, the
// 24h counters, each app's recent checks and last state, the interval set
// through the API and the Authenticator's replay cache (when it is a
// ReplayKeeper, as *hmac.Verifier is). The data is opaque to the store; it is keyed inside by app
// and location name, so a configuration that changed between two runs keeps
// what belongs to every app and location still there and drops the rest.
//
// The filestore package has the built-in implementation. A Monitor without a
// Store does no file I/O at all.
type Store interface {
	// Load hands the state saved last to decode. It returns nil without
	// calling decode when nothing was saved yet. When the saved state is
	// unreadable (damaged, written by an unknown version) or decode refuses
	// it, Load must set it aside, so that the next Save does not destroy
	// it, and return an error; the Monitor then starts afresh.
	Load(ctx context.Context, decode func(data []byte) error) error
	// Save replaces the saved state with data, atomically: after a crash,
	// Load finds either the previous state or this one, whole.
	Save(ctx context.Context, data []byte) error
}

// ErrBadState is wrapped by the error a Store's decode function returns for
// data it cannot use (damaged, or of an unknown encoding version).
var ErrBadState = errors.New("availmon: saved state is unreadable")
