package promsource

// SetShardValues makes s cut wide groups of more than n values in shards,
// so that tests see shards without 50,000 series.
func SetShardValues(s *Source, n int) { s.shardValues = n }
