// Package availmontest provides test doubles for code that embeds or
// extends availmon: a fake Clock that drives a Monitor, a scripted Source
// and an in-memory Store with fault injection. It is to availmon what
// net/http/httptest is to net/http.
//
// The Clock makes timers (it is an availmon.TimerClock), so a Monitor given
// it runs its check cycle, its health deadline, its periodic save and its
// backfill's retries on it: moving the clock is all a test does to make
// time pass, and nothing waits on the real time.
//
//	clock := availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
//	src := availmontest.NewSource()
//	src.Set("checkout", availmon.Result{Status: availmon.StatusUp})
//	m, err := availmon.New(availmon.Options{..., Source: src, Clock: clock})
//	go m.Run(ctx)
//	clock.BlockUntil(ctx, 1) // the first cycle is done, the next one scheduled
//	clock.Advance(time.Minute)
//	clock.BlockUntil(ctx, 1) // the second cycle is done
//
// Every type is safe for concurrent use.
package availmontest
