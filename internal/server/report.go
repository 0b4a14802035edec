package server

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/internal/report"
	"github.com/availmon/availmon/internal/statefile"
	"github.com/availmon/availmon/period"
)

// ReportSettings are what `availmon report` is asked.
type ReportSettings struct {
	// StateDir is the state directory; without it, ConfigPath's
	// storage.path (or the default "data"), whose reports.time_zone is
	// then the default zone too.
	StateDir, ConfigPath string
	Lookup               config.LookupFunc
	Period, Format, Zone string
}

// Report prints the report of a period from the state directory, as
// GET /api/reports/{period} answers it, without a server and without
// disturbing one that runs: the state file is read, never written, and a
// save replaces it by a rename, so the copy read is one save whole. Its
// figures run to the time of that save.
func Report(s ReportSettings, stdout io.Writer) error {
	if s.Period == "" || s.StateDir == "" && s.ConfigPath == "" {
		return errors.New("-period and one of -state-dir or -config are required")
	}
	dir, zone := s.StateDir, time.UTC
	if s.ConfigPath != "" {
		cfg, err := config.Load(s.ConfigPath, s.Lookup)
		if err != nil {
			return err
		}
		if dir == "" {
			dir = cfg.Storage.Path
		}
		if tz := cfg.Reports.TimeZone; tz != "" {
			if zone, err = period.LoadLocation(tz); err != nil {
				return err // the file's check accepted it: a zone database changed
			}
		}
	}
	q, err := report.ParseQuery(s.Period, s.Format, s.Zone, zone)
	if err != nil {
		return err
	}
	book, err := readBook(dir)
	if err != nil {
		return err
	}
	if err := q.Begun(book.At); err != nil {
		return err
	}
	return report.Make(book, q).Write(stdout, q.Format)
}

// readBook reads the ledger of the state file in dir as of its save.
func readBook(dir string) (*ledger.Book, error) {
	data, err := filestore.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the state: %w", err)
	}
	st, err := statefile.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("reading the state in %s: %w", dir, err)
	}
	saved := st.Records
	if saved == nil {
		saved = new(ledger.Saved)
	}
	return saved.Book(st.SavedAt), nil
}
