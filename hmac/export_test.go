package hmac

// ReplayCacheLen exposes the replay cache's size to the tests.
func ReplayCacheLen(v *Verifier) int { return v.replay.len() }
