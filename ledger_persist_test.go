package availmon

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
	"github.com/google/go-cmp/cmp"
)

// ledgerState is a state of the current encoding whose ledger holds
// checks, outages and maintenance.
func ledgerState() []byte {
	l := ledger.New(ledger.Options{})
	l.SetLayout(t0, ledger.Layout{Apps: []ledger.AppRef{{Name: "a", Location: "l"}, {Name: "b", Location: "l"}}, Locations: []string{"l"},
		Services: []ledger.ServiceRef{{Name: "s", Apps: []int{0, 1}}}}, nil)
	l.Sync(t0, []ledger.Window{{Key: "w", From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute), Apps: func() []int { return []int{1} }}}, nil)
	for k := range 10 {
		at := t0.Add(time.Duration(k) * 30 * time.Second)
		l.Check(0, at, timeline.State(k%3), time.Minute, false)
		l.Check(1, at, timeline.Up, time.Minute, false)
		l.EndCycle(at, time.Minute, []timeline.State{timeline.Up}, nil)
	}
	return encodeState(&savedState{savedAt: t0, ledger: l.AppendBinary(nil)})
}

// A state of encoding 4 (testdata/state-encoding-4.bin, written by the
// availmon before the ledger was saved) is read, with an empty ledger, and
// written again as the current encoding.
func TestStateEncoding4Read(t *testing.T) {
	old, err := os.ReadFile("testdata/state-encoding-4.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeState(old)
	if err != nil {
		t.Fatalf("an encoding-4 file: %v", err)
	}
	if len(got.apps) != 3 || got.ledger != nil {
		t.Fatalf("the encoding-4 file read as %+v", got)
	}
	b := encodeState(got)
	if b[0] != stateEncoding {
		t.Errorf("written again as encoding %d", b[0])
	}
	again, err := decodeState(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again, stateCmp); diff != "" {
		t.Errorf("written again (-4 +now):\n%s", diff)
	}
}

// A state with a ledger reads back whole, and encodes to the same bytes.
func TestStateLedgerRoundTrip(t *testing.T) {
	b := ledgerState()
	s, err := decodeState(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ledger) < 20 {
		t.Fatalf("ledger section of %d bytes", len(s.ledger))
	}
	if again := encodeState(s); !bytes.Equal(again, b) {
		t.Errorf("re-encoded to %d bytes unlike the %d read", len(again), len(b))
	}
	// Every truncation is refused, as is a ledger cut short inside.
	for n := range len(b) {
		if _, err := decodeState(b[:n]); !errors.Is(err, ErrBadState) {
			t.Fatalf("the first %d of %d bytes: %v, want ErrBadState", n, len(b), err)
		}
	}
}
