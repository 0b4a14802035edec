package availmon

import (
	"context"
	"io"
	"net/http"

	"github.com/availmon/availmon/internal/errlist"
)

// ReloadFunc reloads a monitor's configuration from wherever it came from
// (the binary: its file) and applies it, typically with Reconfigure. Its
// error says why nothing changed; an error that joins several (errors.Join)
// is reported one detail per problem.
type ReloadFunc func(ctx context.Context) (ConfigChange, error)

// reloadJSON is the answer to POST /-/reload: what changed.
type reloadJSON struct {
	wsChangeData
	// RestartNeeded lists settings that changed in the configuration but
	// take effect only after a restart.
	RestartNeeded []string `json:"restart_needed"`
}

// postReload serves POST /-/reload, the Prometheus convention for "read your
// configuration again". It takes no body.
func (m *Monitor) postReload(w http.ResponseWriter, r *http.Request) {
	n, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	switch {
	case err != nil:
		m.writeError(w, r, err)
		return
	case n > 0:
		m.writeError(w, r, validationError("POST /-/reload takes no body"))
		return
	}
	ch, err := m.reload(r.Context())
	if err != nil {
		m.writeError(w, r, validationError("the configuration was not reloaded; nothing changed", problems(err)...))
		return
	}
	out := reloadJSON{wsChangeData: changeData(&ch), RestartNeeded: ch.RestartNeeded}
	if out.RestartNeeded == nil {
		out.RestartNeeded = []string{}
	}
	writeJSON(w, http.StatusOK, envelope{Data: out, Meta: metaJSON{Timestamp: m.now()}})
}

// problems are the texts of the problems err joins, a detail each.
func problems(err error) []string {
	var out []string
	for _, e := range errlist.Split(err) {
		out = append(out, e.Error())
	}
	return out
}
