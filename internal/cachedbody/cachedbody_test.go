package cachedbody

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"
)

// gunzip decodes what Gzip.WriteTo wrote with the standard reader, which
// checks the member's CRC-32 and length.
func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	return out
}

func TestGzipRoundTrip(t *testing.T) {
	head := bytes.Repeat([]byte(`{"name":"checkout","status":"up"},`), 200)
	for _, tt := range []struct {
		name string
		tail []byte
	}{
		{"empty tail", nil},
		{"short tail", []byte(`,"meta":{}}` + "\n")},
		{"tail over one stored block", bytes.Repeat([]byte("x"), maxStored+10)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := New(head).Gzipped()
			if !ok {
				t.Fatal("a body over minGzipBytes is not compressed")
			}
			var buf bytes.Buffer
			if err := g.WriteTo(&buf, tt.tail); err != nil {
				t.Fatal(err)
			}
			if buf.Len() != g.Size(len(tt.tail)) {
				t.Errorf("wrote %d bytes, Size says %d", buf.Len(), g.Size(len(tt.tail)))
			}
			want := append(bytes.Clone(head), tt.tail...)
			if got := gunzip(t, buf.Bytes()); !bytes.Equal(got, want) {
				t.Errorf("decoded %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

func TestSmallBodyNotCompressed(t *testing.T) {
	if _, ok := New([]byte(`{"data":[]`)).Gzipped(); ok {
		t.Error("a body under minGzipBytes is compressed")
	}
}

func TestETag(t *testing.T) {
	b := New([]byte(`{"data":1`))
	tail := []byte("}\n")
	if b.ETag(tail, false) != New([]byte(`{"data":1`)).ETag(tail, false) {
		t.Error("equal bytes give different tags")
	}
	if b.ETag(tail, false) == b.ETag([]byte(" }\n"), false) {
		t.Error("a different tail gives the same tag")
	}
	if b.ETag(tail, false) == b.ETag(tail, true) {
		t.Error("the gzip representation shares the identity tag")
	}
}

func TestETagMatch(t *testing.T) {
	const etag = `"abc-12"`
	for _, tt := range []struct {
		name    string
		headers []string
		want    bool
	}{
		{"none", nil, false},
		{"same", []string{`"abc-12"`}, true},
		{"weak", []string{`W/"abc-12"`}, true},
		{"in a list", []string{`"x", "abc-12"`}, true},
		{"second header", []string{`"x"`, `"abc-12"`}, true},
		{"star", []string{"*"}, true},
		{"other", []string{`"abc-13"`}, false},
		{"garbage", []string{`,,;"`}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ETagMatch(tt.headers, etag); got != tt.want {
				t.Errorf("ETagMatch(%q) = %v, want %v", tt.headers, got, tt.want)
			}
		})
	}
}

func TestAcceptsGzip(t *testing.T) {
	for _, tt := range []struct {
		name    string
		headers []string
		want    bool
	}{
		{"none", nil, false},
		{"gzip", []string{"gzip"}, true},
		{"x-gzip", []string{"x-gzip"}, true},
		{"upper case", []string{"GZIP"}, true},
		{"q zero", []string{"gzip;q=0"}, false},
		{"q half", []string{"gzip; q=0.5"}, true},
		{"star", []string{"*"}, true},
		{"star refused", []string{"*;q=0"}, false},
		{"named zero beats star", []string{"gzip;q=0, *"}, false},
		{"bad q", []string{"gzip;q=x"}, false},
		{"others only", []string{"br, deflate"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := AcceptsGzip(tt.headers); got != tt.want {
				t.Errorf("AcceptsGzip(%q) = %v, want %v", tt.headers, got, tt.want)
			}
		})
	}
}

// Whatever the request headers, reading them never panics; whatever the
// body and tail, the gzip answer decodes to them.
func FuzzHeadersAndGzip(f *testing.F) {
	f.Add("gzip;q=0.5, *;q=0", `W/"a", *`, []byte(strings.Repeat("ab", 600)), []byte("}\n"))
	f.Add("", "", []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, accept, inm string, head, tail []byte) {
		AcceptsGzip([]string{accept})
		ETagMatch([]string{inm}, `"x"`)
		head = append(bytes.Repeat([]byte{'a'}, minGzipBytes), head...)
		g, _ := New(head).Gzipped()
		var buf bytes.Buffer
		if err := g.WriteTo(&buf, tail); err != nil {
			t.Fatal(err)
		}
		if got := gunzip(t, buf.Bytes()); !bytes.Equal(got, append(head, tail...)) {
			t.Fatal("the gzip answer decodes to other bytes")
		}
	})
}

// BenchmarkGzipLevels compresses a list of 10,000 apps like /api/apps at
// gzipLevel and at the default level, reporting the size of each.
func BenchmarkGzipLevels(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"data":[`)
	for i := range 10_000 {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"name":"app-%05d","location":"location-%03d","status":"up","last_check":"2026-11-25T10:%02d:%02d.%03dZ","response_time":0.0%d,"error":null,"labels":{"team":"team-%d"}}`,
			i, i%100, i%60, (i*7)%60, (i*13)%1000, 10+i%89, i%17)
	}
	head := buf.Bytes()
	for _, level := range []int{gzipLevel, flate.DefaultCompression} {
		b.Run(fmt.Sprintf("level%d", level), func(b *testing.B) {
			var out bytes.Buffer
			b.SetBytes(int64(len(head)))
			for b.Loop() {
				out.Reset()
				fw, _ := flate.NewWriter(&out, level)
				fw.Write(head) //nolint:errcheck
				fw.Flush()     //nolint:errcheck
			}
			b.ReportMetric(float64(out.Len()), "bytes/op-out")
		})
	}
}
