package promtest

import (
	"context"
	"testing"
	"time"
)

// Pause must not return while the server can still answer: SIGSTOP is
// delivered to one thread, which stops the others once it runs, so for a
// while after kill(2) returns other threads keep serving requests.
func TestPauseStopsAnswering(t *testing.T) {
	srv := Start(t)
	const rounds = 30
	answered := 0
	for range rounds {
		srv.Pause()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, err := srv.Query(ctx, "vector(1)")
		cancel()
		srv.Resume()
		if err == nil {
			answered++
		}
	}
	if answered > 0 {
		t.Errorf("the paused server answered %d of %d queries sent right after Pause", answered, rounds)
	}
}
