package statefile

import (
	"errors"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/ledger"
)

// Version is the encoding an Encoder writes. Encoding 3 added the
// maintenance windows of the API at the end; encoding 4 writes checks as
// compactly as a history holds them, each app's error texts once; encoding
// 5 the ledger of availability over time after the apps; encoding 6 writes
// an app's checks relative to the app's before it (checks.go).
const Version = 6

// oldest is the oldest encoding Decode reads.
const oldest = 2

// ErrCorrupt is wrapped by Decode's error for bytes an Encoder could not
// have written, or written in an encoding this package does not read.
var ErrCorrupt = errors.New("state file is corrupt")

// State is a state file as decoded, everything keyed by name.
type State struct {
	SavedAt time.Time
	// Interval is the interval set at run time; nil when it never was.
	Interval    *Interval
	Minutes     []Minute // the minutes that saw a cycle
	System      Day      // every app's checks
	Locations   []Location
	Apps        []App
	Replay      []hmac.ReplayEntry
	Maintenance Maintenance
	// Ledger is the ledger section (internal/ledger's AppendBinary), nil
	// for an empty ledger. Decode has checked it whole; it shares the
	// bytes Decode read.
	Ledger []byte
	// Records is the ledger section as Decode read it to check it, nil
	// for an empty ledger and for a State to encode. It shares no bytes
	// with Ledger: a reader that takes it may drop Ledger, and with it
	// the file's bytes, before it builds anything else.
	Records *ledger.Saved
}

// Interval is a cycle interval with the text it was set with.
type Interval struct {
	D    time.Duration
	Text string
}

// Minute is one minute of the history of cycles.
type Minute struct {
	Minute                            int32 // unix minutes
	Up, Down                          uint32
	LastUp, LastDown, LastUnavailable int32 // app counts of the minute's last cycle
}

// Counts are check outcomes summed over an hour.
type Counts struct {
	Up, Down, Unavailable int64
	RTSum                 float64 // seconds, over the RTN checks that measured one
	RTN                   int64
}

func (c Counts) total() int64 { return c.Up + c.Down + c.Unavailable }

// Hour is an hour of a Day.
type Hour struct {
	Hour int64 // unix hours
	C    Counts
}

// Day is a 24-hour window, each hour in slot Hour mod 24; a slot with zero
// counts is empty.
type Day [24]Hour

// Location is a location's day window.
type Location struct {
	Name string
	Day  Day
}

// App is an app's recent checks, oldest first, its last state and its day
// window.
type App struct {
	Name, Location string
	Checks         []Check
	Last           Last
	Day            Day
}

// Status is a check's outcome as the file codes it.
type Status uint8

const (
	Unavailable Status = 0
	Up          Status = 1
	Down        Status = 2
)

// Check is one check of an app's history.
type Check struct {
	At     int64 // unix nanoseconds, kept to the millisecond
	RT     time.Duration
	Status Status
	Err    string
}

// Last is an app's last state.
type Last struct {
	Checked bool // false: never checked, the other fields are zero
	Status  Status
	At      int64 // unix nanoseconds
	RT      time.Duration
	Err     string
}

// Maintenance is what the file keeps of the maintenance windows: those the
// API added and the number of the last id given, so that an id deleted
// before a restart is not given again after it.
type Maintenance struct {
	NextID  int
	Windows []Window
}

// Window is a maintenance window added through the API, field for field
// the API's.
type Window struct {
	ID, App, Location, Service string
	Labels                     map[string]string
	From, To                   time.Time
	Cron                       string
	Duration                   time.Duration
	TimeZone, Comment          string
}

// MaxWindows bounds the windows a file may hold, the most the API keeps.
const MaxWindows = 1000
