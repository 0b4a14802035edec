package config

import (
	"time"

	"github.com/availmon/availmon"
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
}

// DefaultStoragePath is storage.path when the file leaves it out.
const DefaultStoragePath = "data"

type fileStorage struct {
	Path         string `yaml:"path"`
	SaveInterval string `yaml:"save_interval"`
	Backfill     *bool  `yaml:"backfill"`
}

// maxSaveInterval bounds storage.save_interval: a longer one loses too much
// on a crash to be meant.
const maxSaveInterval = 24 * time.Hour

func (p *parser) checkStorage(raw *fileStorage) Storage {
	s := Storage{Path: DefaultStoragePath, SaveInterval: availmon.DefaultSaveInterval, Backfill: true}
	if raw == nil {
		return s
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
