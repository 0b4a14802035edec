package promsource

import (
	"bufio"
	"context"
	"errors"
	"net"
	"runtime"
	"testing"
)

// A Content-Length a server says is no size to allocate beyond
// max_response_bytes: a hostile or broken server saying 10 GB fails the
// query as too large, with nothing of that size allocated.
func TestHostileContentLengthAllocatesNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				for {
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				_, _ = conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10737418240\r\n\r\n{\"status\":\"success\""))
			}()
		}
	}()
	src, err := New(Options{Name: "main", URL: "http://" + ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = src.Check(context.Background(), jobApps(3))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrResponseTooLarge) {
		t.Errorf("Check's error %v, want %v", err, ErrResponseTooLarge)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<30 {
		t.Errorf("a query allocated %d bytes for an answer said to be 10 GB", n)
	}
}
