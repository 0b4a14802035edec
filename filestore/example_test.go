package filestore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/filestore"
)

// A monitor that remembers its history across restarts: New restores what
// the directory holds, Run saves every minute and when it returns.
func Example() {
	dir, err := os.MkdirTemp("", "availmon-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	st, err := filestore.New(filestore.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source: availmon.SourceFunc(func(context.Context, availmon.App) availmon.Result {
			return availmon.Result{Status: availmon.StatusUp}
		}),
		Store: st,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Run would run until the program's end; here it saves and returns at once
	if err := m.Run(ctx); err != nil {
		log.Fatal(err)
	}
	_, err = os.Stat(st.Path())
	fmt.Println("state saved:", err == nil)
	// Output: state saved: true
}
