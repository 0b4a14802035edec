package config

import (
	"log/slog"
	"path/filepath"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/filestore"
)

// Storage is the storage section: where the state is kept across restarts
// and how often it is saved.
type Storage struct {
	// Path is the directory of the state file; relative paths are from
	// the working directory, like Prometheus's data/. Default DefaultStoragePath.
	Path string
	// SaveInterval is how often the state is saved while running; default
	// availmon.DefaultSaveInterval. It is also saved on shutdown.
	SaveInterval time.Duration
	// Backfill fills the history this instance did not see from the
	// Prometheus backends on start (storage.backfill, default true).
	Backfill bool
	// Retention is how long the record of availability over time is kept
	// (storage.retention, availmon.Options.Retention); default
	// availmon.DefaultRetention, 400 days.
	Retention time.Duration
}

// DefaultStoragePath is storage.path when the file leaves it out.
const DefaultStoragePath = "data"

// replayFileName is the file, beside the state, where the HMAC verifier
// keeps the signatures it accepted (hmac.VerifierOptions.ReplayFile).
const replayFileName = "availmon.replay"

// Open opens the state directory s.Path, creating it when missing, and
// logs where the state is kept. logger is given to the store; nil discards.
func (s Storage) Open(logger *slog.Logger) (*filestore.Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	st, err := filestore.New(filestore.Options{Dir: s.Path, Logger: logger})
	if err != nil {
		return nil, err
	}
	logger.Info("state kept in", "path", st.Path(), "save_interval", s.SaveInterval)
	return st, nil
}

// OptionsWithStore is Options for a monitor that keeps its state in store
// (opened with Storage.Open) as the storage section says, and the
// signatures the HMAC verifier accepted in a file beside it (it sets
// ReplayFile): the verifier must have them on disk before it lets a
// request through. With a nil store it is Options.
func (c *Config) OptionsWithStore(store *filestore.Store, logger *slog.Logger) (availmon.Options, error) {
	if store == nil {
		return c.Options(logger)
	}
	c.ReplayFile = filepath.Join(filepath.Dir(store.Path()), replayFileName)
	opts, err := c.Options(logger)
	if err != nil {
		return opts, err
	}
	opts.Store = store
	opts.SaveInterval, opts.Backfill = c.Storage.SaveInterval, c.Storage.Backfill
	return opts, nil
}

type fileStorage struct {
	Path         string `yaml:"path"`
	SaveInterval string `yaml:"save_interval"`
	Backfill     *bool  `yaml:"backfill"`
	Retention    string `yaml:"retention"`
}

// Bounds of storage.retention: a day is the shortest record worth the
// name; ten years of a flapping fleet would outgrow any memory.
const (
	minRetention = 24 * time.Hour
	maxRetention = 3650 * 24 * time.Hour
)

// maxSaveInterval bounds storage.save_interval: a longer one loses too much
// on a crash to be meant.
const maxSaveInterval = 24 * time.Hour

func (p *parser) checkStorage(raw *fileStorage) Storage {
	s := Storage{Path: DefaultStoragePath, SaveInterval: availmon.DefaultSaveInterval, Backfill: true, Retention: availmon.DefaultRetention}
	if raw == nil {
		return s
	}
	if raw.Retention != "" {
		if d, ok := p.duration("storage.retention", raw.Retention); ok {
			if d < minRetention || d > maxRetention {
				p.badAt("storage.retention", "storage.retention %s is outside [1d, 3650d]", raw.Retention)
			} else {
				s.Retention = d
			}
		}
	}
	if raw.Backfill != nil {
		s.Backfill = *raw.Backfill
	}
	if raw.Path != "" {
		s.Path = raw.Path
	}
	if raw.SaveInterval != "" {
		if d, ok := p.duration("storage.save_interval", raw.SaveInterval); ok {
			if d < time.Second || d > maxSaveInterval {
				p.badAt("storage.save_interval", "storage.save_interval %s is outside [1s, 24h]", raw.SaveInterval)
			} else {
				s.SaveInterval = d
			}
		}
	}
	return s
}
