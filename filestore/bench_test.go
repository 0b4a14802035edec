package filestore

import (
	"context"
	"testing"
)

// BenchmarkSave writes a state of the size a 10,000-app monitor with full
// histories saves (BenchmarkStateEncode in the root package: about 14 MB),
// through temp file, fsync, rename and directory fsync.
func BenchmarkSave(b *testing.B) {
	s, err := New(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 14<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := s.Save(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad reads it back and checks it.
func BenchmarkLoad(b *testing.B) {
	s, err := New(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 14<<20)
	if err := s.Save(context.Background(), data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := s.Load(context.Background(), func([]byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
