package availmontest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// A script gives each app its results in turn and repeats the last; an app
// with no script is unavailable and says why; SetErr fails whole calls
// without taking from the scripts; every call is recorded.
func TestSource(t *testing.T) {
	up, down := availmon.Result{Status: availmon.StatusUp}, availmon.Result{Status: availmon.StatusDown}
	src := availmontest.NewSource()
	src.Set("a", up, down)
	src.Set("b", down)
	apps := []availmon.App{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	status := func() []availmon.Status {
		t.Helper()
		rs, err := src.Check(t.Context(), apps)
		if err != nil {
			t.Fatal(err)
		}
		var out []availmon.Status
		for _, r := range rs {
			out = append(out, r.Status)
		}
		return out
	}
	if diff := cmp.Diff([]availmon.Status{availmon.StatusUp, availmon.StatusDown, availmon.StatusUnavailable}, status()); diff != "" {
		t.Errorf("first call (-want +got):\n%s", diff)
	}
	boom := errors.New("backend down")
	src.SetErr(boom)
	if _, err := src.Check(t.Context(), apps[:1]); !errors.Is(err, boom) {
		t.Errorf("Check with SetErr: %v, want %v", err, boom)
	}
	src.SetErr(nil)
	for call := range 2 {
		if diff := cmp.Diff([]availmon.Status{availmon.StatusDown, availmon.StatusDown, availmon.StatusUnavailable}, status()); diff != "" {
			t.Errorf("call %d after the first (-want +got):\n%s", call+1, diff)
		}
	}
	rs, _ := src.Check(t.Context(), apps[2:])
	if rs[0].Err == nil || !strings.Contains(rs[0].Err.Error(), `"c"`) {
		t.Errorf("an unscripted app's error %v does not name it", rs[0].Err)
	}
	src.Set("a")
	if rs, _ := src.Check(t.Context(), apps[:1]); rs[0].Status != availmon.StatusUnavailable {
		t.Errorf("a after its script was cleared: %s, want unavailable", rs[0].Status)
	}
	want := [][]string{{"a", "b", "c"}, {"a"}, {"a", "b", "c"}, {"a", "b", "c"}, {"c"}, {"a"}}
	if diff := cmp.Diff(want, src.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
