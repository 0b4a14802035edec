// Package memstore is the in-memory store behind availmontest.Store. It
// lives apart so that availmon's own internal tests, which cannot import
// availmontest (it imports availmon), use the same one.
package memstore

import (
	"bytes"
	"context"
	"sync"
)

// Store keeps one state in memory, as a Store of availmon. The zero value
// is an empty store.
type Store struct {
	mu       sync.Mutex
	data     []byte
	saves    int
	setAside [][]byte
	loadErr  error
	saveErr  error
	onSave   func(ctx context.Context, data []byte) error
	changed  chan struct{} // closed when a save succeeds; nil until waited on
}

// New returns a store whose first Load finds data; nil is nothing saved.
func New(data []byte) *Store {
	return &Store{data: bytes.Clone(data)}
}

// Load hands the state to decode; nothing when none was saved. A state
// decode refuses is set aside (SetAside) and the error returned, as the
// interface asks.
func (s *Store) Load(_ context.Context, decode func([]byte) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.loadErr; err != nil {
		s.loadErr = nil
		return err
	}
	if s.data == nil {
		return nil
	}
	if err := decode(s.data); err != nil {
		s.setAside = append(s.setAside, s.data)
		s.data = nil
		return err
	}
	return nil
}

// Save keeps a copy of data, unless the hook or a failure set with
// FailNextSave refuses it.
func (s *Store) Save(ctx context.Context, data []byte) error {
	s.mu.Lock()
	hook, err := s.onSave, s.saveErr
	s.saveErr = nil
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if hook != nil {
		if err := hook(ctx, data); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data = bytes.Clone(data)
	s.saves++
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return nil
}

// Data is a copy of the state saved last; nil when none was.
func (s *Store) Data() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.data)
}

// Saves is how many saves succeeded.
func (s *Store) Saves() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saves
}

// SetAside is what Load set aside, in order.
func (s *Store) SetAside() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.setAside))
	for i, d := range s.setAside {
		out[i] = bytes.Clone(d)
	}
	return out
}

// FailNextLoad makes the next Load return err without decoding.
func (s *Store) FailNextLoad(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadErr = err
}

// FailNextSave makes the next Save return err and keep nothing.
func (s *Store) FailNextSave(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saveErr = err
}

// OnSave has every later Save call f first, outside the store's lock; an
// error from f fails the save, which keeps nothing. f may block (a slow
// disk) until ctx ends.
func (s *Store) OnSave(f func(ctx context.Context, data []byte) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onSave = f
}

// WaitSaves waits until at least n saves succeeded, or ctx ends (its
// error).
func (s *Store) WaitSaves(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		saves, changed := s.saves, s.changed
		s.mu.Unlock()
		if saves >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
