package hmac

// ReplayCacheLen exposes the replay cache's size to the tests.
func ReplayCacheLen(v *Verifier) int { return v.replay.len() }

// CompactReplayFileAt lowers the records a replay file holds before it is
// rewritten, so that a test sees rewrites without thousands of fsyncs.
func CompactReplayFileAt(v *Verifier, n int) { v.file.minRecords, v.file.compactAt = n, n }
