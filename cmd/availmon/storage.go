package main

import (
	"cmp"
	"log/slog"
	"path/filepath"

	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/filestore"
)

// openStore opens the state directory: the -storage.path flag when given,
// else storage.path of the file.
func openStore(s config.Storage, flagPath string, logger *slog.Logger) (*filestore.Store, error) {
	st, err := filestore.New(filestore.Options{Dir: cmp.Or(flagPath, s.Path), Logger: logger})
	if err != nil {
		return nil, err
	}
	logger.Info("state kept in", "path", st.Path(), "save_interval", s.SaveInterval)
	return st, nil
}

// replayFileName is the file, beside the state, where the HMAC verifier
// keeps the signatures it accepted (hmac.VerifierOptions.ReplayFile).
const replayFileName = "availmon.replay"

// replayFile is the path of the replay file in st's directory.
func replayFile(st *filestore.Store) string {
	return filepath.Join(filepath.Dir(st.Path()), replayFileName)
}
