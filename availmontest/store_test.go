package availmontest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// load runs Load and returns what decode was handed.
func load(t *testing.T, st *availmontest.Store, refuse error) (got [][]byte, err error) {
	t.Helper()
	err = st.Load(t.Context(), func(data []byte) error {
		got = append(got, data)
		return refuse
	})
	return got, err
}

// The store keeps what was saved, fails a load or a save when told, and
// sets aside a state decode refuses, as the Store interface asks.
func TestStore(t *testing.T) {
	st := availmontest.NewStore(nil)
	if got, err := load(t, st, nil); err != nil || got != nil {
		t.Fatalf("Load of an empty store: decode got %q, err %v; want neither", got, err)
	}
	if err := st.Save(t.Context(), []byte("one")); err != nil {
		t.Fatal(err)
	}
	full := errors.New("disk full")
	st.FailNextSave(full)
	if err := st.Save(t.Context(), []byte("lost")); !errors.Is(err, full) {
		t.Errorf("Save after FailNextSave: %v, want %v", err, full)
	}
	if got, want := string(st.Data()), "one"; got != want || st.Saves() != 1 {
		t.Errorf("after a failed save: %q in %d saves, want %q in 1", got, st.Saves(), want)
	}
	unreadable := errors.New("unreadable")
	st.FailNextLoad(unreadable)
	if got, err := load(t, st, nil); !errors.Is(err, unreadable) || got != nil {
		t.Errorf("Load after FailNextLoad: decode got %q, err %v", got, err)
	}
	if got, err := load(t, st, availmon.ErrBadState); !errors.Is(err, availmon.ErrBadState) || len(got) != 1 {
		t.Errorf("Load of a state decode refuses: decode got %q, err %v", got, err)
	}
	if diff := cmp.Diff([][]byte{[]byte("one")}, st.SetAside()); diff != "" {
		t.Errorf("set aside (-want +got):\n%s", diff)
	}
	if got, err := load(t, st, nil); err != nil || got != nil {
		t.Errorf("Load after the state was set aside: decode got %q, err %v; want a fresh start", got, err)
	}
}

// The save hook runs before each save and can fail it or hold it, and
// WaitSaves returns once the saves are done.
func TestStoreOnSave(t *testing.T) {
	st := availmontest.NewStore([]byte("before"))
	release := make(chan struct{})
	st.OnSave(func(ctx context.Context, data []byte) error {
		if string(data) == "refused" {
			return errors.New("refused")
		}
		<-release
		return nil
	})
	if err := st.Save(t.Context(), []byte("refused")); err == nil {
		t.Error("the hook's error did not fail the save")
	}
	go func() { _ = st.Save(context.Background(), []byte("slow")) }()
	close(release)
	if err := st.WaitSaves(guard(t), 1); err != nil {
		t.Fatal(err)
	}
	if got := string(st.Data()); got != "slow" {
		t.Errorf("Data = %q, want the slow save's", got)
	}
}
