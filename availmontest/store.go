package availmontest

import (
	"context"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/memstore"
)

// Store is an availmon.Store in memory, with faults a test can inject: a
// load or save that fails, a save that waits.
type Store struct{ s *memstore.Store }

var _ availmon.Store = (*Store)(nil)

// NewStore returns a store whose first Load finds data (a state saved
// earlier, by Data of another store or read from a file); nil is nothing
// saved yet.
func NewStore(data []byte) *Store { return &Store{memstore.New(data)} }

// Load hands the state saved last to decode, as the Store interface says:
// nothing when none was saved; a state decode refuses is set aside
// (SetAside) and decode's error returned.
func (s *Store) Load(ctx context.Context, decode func(data []byte) error) error {
	return s.s.Load(ctx, decode)
}

// Save keeps a copy of data, unless FailNextSave or the OnSave hook makes
// it fail.
func (s *Store) Save(ctx context.Context, data []byte) error { return s.s.Save(ctx, data) }

// Data is a copy of the state saved last; nil when none was.
func (s *Store) Data() []byte { return s.s.Data() }

// Saves is how many saves succeeded.
func (s *Store) Saves() int { return s.s.Saves() }

// WaitSaves waits until at least n saves succeeded, or ctx ends (then it
// returns ctx's error). A Monitor saves in the background: this is how a
// test knows a save it caused is done.
func (s *Store) WaitSaves(ctx context.Context, n int) error { return s.s.WaitSaves(ctx, n) }

// SetAside is what Load set aside because decode refused it, in order.
func (s *Store) SetAside() [][]byte { return s.s.SetAside() }

// FailNextLoad makes the next Load return err without decoding anything,
// as a store that cannot be read.
func (s *Store) FailNextLoad(err error) { s.s.FailNextLoad(err) }

// FailNextSave makes the next Save return err and keep nothing, as a full
// disk.
func (s *Store) FailNextSave(err error) { s.s.FailNextSave(err) }

// OnSave has every later Save call f first; an error from f fails the
// save, which then keeps nothing. f may block until ctx ends, as a slow
// disk: a Monitor bounds a save's time and never has two under way.
func (s *Store) OnSave(f func(ctx context.Context, data []byte) error) { s.s.OnSave(f) }
