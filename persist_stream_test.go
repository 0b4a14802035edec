package availmon

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// streamStore is a StreamSaver that keeps what WriteTo writes into w (a
// buffer, or io.Discard to keep nothing), or, with skip, saves without
// calling WriteTo at all. Save, taken by Monitors whose store is not a
// StreamSaver, must not be called.
type streamStore struct {
	w     io.Writer
	skip  bool
	n     int64
	saves int
}

func (s *streamStore) Load(context.Context, func([]byte) error) error { return nil }

func (s *streamStore) Save(context.Context, []byte) error {
	return errors.New("Save called on a StreamSaver")
}

func (s *streamStore) SaveFrom(_ context.Context, src io.WriterTo) error {
	if s.skip {
		return nil
	}
	n, err := src.WriteTo(s.w)
	s.n = n
	if err == nil {
		s.saves++
	}
	return err
}

// A save into a StreamSaver streams the same bytes a Store's Save would be
// given, and records their number as the save's size.
func TestStreamedSaveWritesTheEncoding(t *testing.T) {
	m, _ := largeMonitor(t, 300, 10, 30)
	want := m.encodeLive(0)
	var buf bytes.Buffer
	st := &streamStore{w: &buf}
	m.persist.store = st
	sv := &saver{m: m}
	if err := sv.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("the streamed save wrote %d bytes unlike the encoding's %d", buf.Len(), len(want))
	}
	if st.n != int64(len(want)) {
		t.Errorf("WriteTo returned %d bytes, wrote %d", st.n, len(want))
	}
	if got := m.persist.saves.promStatus(); got.LastBytes != len(want) || got.LastDuration <= 0 || got.LastSuccess.IsZero() {
		t.Errorf("recorded save: %d bytes in %v at %v; want %d bytes, a duration and a time", got.LastBytes, got.LastDuration, got.LastSuccess, len(want))
	}
	if _, err := decodeState(buf.Bytes()); err != nil {
		t.Fatalf("the streamed state does not decode: %v", err)
	}
}

// A store that reports success without having taken the state did not
// save it: the save fails, and is counted as failed.
func TestStreamedSaveNotWrittenFails(t *testing.T) {
	m, _ := largeMonitor(t, 10, 2, 1)
	m.persist.store = &streamStore{skip: true}
	sv := &saver{m: m}
	if err := sv.save(t.Context()); err == nil {
		t.Fatal("a save the store never wrote succeeded")
	}
	if got := m.persist.saves.promStatus(); got.Failures != 1 || !got.LastSuccess.IsZero() {
		t.Errorf("recorded: %d failures, last success %v; want 1 failure and none", got.Failures, got.LastSuccess)
	}
}

// The state is written once: a store calling WriteTo again gets an error,
// not a second cut.
func TestLiveStateWrittenOnce(t *testing.T) {
	m, _ := largeMonitor(t, 10, 2, 1)
	src := &liveState{m: m}
	if _, err := src.WriteTo(io.Discard); err != nil {
		t.Fatal(err)
	}
	if n, err := src.WriteTo(io.Discard); err == nil || n != 0 {
		t.Fatalf("second WriteTo = %d, %v; want 0 and an error", n, err)
	}
}

// errWriter fails every write after the first ok bytes.
type errWriter struct{ ok int }

func (w *errWriter) Write(p []byte) (int, error) {
	if len(p) <= w.ok {
		w.ok -= len(p)
		return len(p), nil
	}
	n := w.ok
	w.ok = 0
	return n, errors.New("disk full")
}

// A stream that fails part way fails the save, and the next save, to a
// writer that works, writes the whole state: the failed one still took
// every chunk of its cut.
func TestStreamedSaveAfterFailedWrite(t *testing.T) {
	m, _ := largeMonitor(t, 600, 10, 10) // more than two chunks of 24-hour windows
	want := m.encodeLive(0)
	st := &streamStore{w: &errWriter{ok: len(want) / 3}}
	m.persist.store = st
	sv := &saver{m: m}
	if err := sv.save(t.Context()); err == nil {
		t.Fatal("a save whose writes failed succeeded")
	}
	var buf bytes.Buffer
	st.w = &buf
	if err := sv.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("the save after a failed one wrote %d bytes unlike the encoding's %d", buf.Len(), len(want))
	}
	for k := range m.state.days.chunks {
		if m.state.days.chunks[k].pending.Load() {
			t.Fatalf("chunk %d of the 24-hour windows is still the cut's after the saves", k)
		}
	}
}
