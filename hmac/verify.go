package hmac

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultReplayCacheSize bounds the signatures a Verifier remembers.
const DefaultReplayCacheSize = 100_000

// VerifierOptions configures a Verifier. Only Secrets is required.
type VerifierOptions struct {
	// Secrets are the active secrets; a request signed with any of them is
	// accepted, so a secret can be rotated by adding the new one, moving
	// clients over, then removing the old one.
	Secrets [][]byte
	// SkewTolerance is how far X-Timestamp may lie from Now, either way;
	// default DefaultSkew.
	SkewTolerance time.Duration
	// Now tells the time; default time.Now.
	Now func() time.Time
	// DisableReplayProtection lets a signature be used more than once
	// within the tolerance. Replay protection is on by default.
	DisableReplayProtection bool
	// ReplayCacheSize bounds the remembered signatures; default
	// DefaultReplayCacheSize. When it is full of signatures that are
	// still within the window, the oldest is forgotten (and a warning
	// logged), so memory stays bounded at the cost of a replay window for
	// that one signature.
	ReplayCacheSize int
	// ReplayFile, when set, keeps the replay cache in that file, so that
	// no restart lets a signature be used again, not even one after a
	// crash: Verify appends every signature it accepts and syncs the file
	// before it lets the request through (one fsync per accepted request),
	// and NewVerifier reads the file back. Its directory must exist; one
	// Verifier per file. When the file cannot be written, Verify refuses
	// the request with ErrReplayFile. NewVerifier moves aside, with a
	// warning, anything there that is not a regular file (a FIFO would
	// hold it up for ever), and removes the temporary files of rewrites
	// that a crash cut short. Ignored with DisableReplayProtection.
	ReplayFile string
	// MaxBodyBytes bounds the body read to verify it; default
	// DefaultMaxBodyBytes. A larger body is refused with ErrBodyTooLarge
	// before it is read.
	MaxBodyBytes int64
	// Logger receives warnings and, with Debug, the canonical request and
	// the signatures of each verification (never a secret). Nil discards.
	Logger *slog.Logger
	// Debug logs what was signed. For development only: the log then
	// holds request bodies.
	Debug bool
	// ErrorHandler answers a refused request in Middleware; default: a
	// plain text error with 403, 413 (ErrBodyTooLarge) or 400
	// (ErrBadRequest).
	ErrorHandler func(w http.ResponseWriter, r *http.Request, err error)
}

// Verifier checks signed requests. It is safe for concurrent use.
type Verifier struct {
	macs    []sync.Pool // per secret: keyed hash.Hash values, Reset after use
	skew    time.Duration
	now     func() time.Time
	replay  *replayCache // nil when disabled
	file    *replayFile  // nil without ReplayFile
	maxBody int64
	log     *slog.Logger
	debug   bool
	onError func(w http.ResponseWriter, r *http.Request, err error)
	bufs    sync.Pool // *[]byte body buffers
}

// NewVerifier returns a Verifier for o.
func NewVerifier(o VerifierOptions) (*Verifier, error) {
	if len(o.Secrets) == 0 {
		return nil, errors.New("hmac: a verifier needs at least one secret")
	}
	if o.SkewTolerance < 0 || o.MaxBodyBytes < 0 || o.ReplayCacheSize < 0 {
		return nil, errors.New("hmac: negative skew tolerance, body limit or replay cache size")
	}
	v := &Verifier{
		macs:    make([]sync.Pool, len(o.Secrets)),
		skew:    o.SkewTolerance,
		now:     o.Now,
		maxBody: o.MaxBodyBytes,
		log:     o.Logger,
		debug:   o.Debug,
		onError: o.ErrorHandler,
	}
	for i, s := range o.Secrets {
		if len(s) == 0 {
			return nil, fmt.Errorf("hmac: secret %d is empty", i+1)
		}
		key := bytes.Clone(s)
		v.macs[i].New = func() any { return hmac.New(sha256.New, key) }
	}
	v.bufs.New = func() any { return new([]byte) }
	if v.skew == 0 {
		v.skew = DefaultSkew
	}
	if v.now == nil {
		v.now = time.Now
	}
	if v.maxBody == 0 {
		v.maxBody = DefaultMaxBodyBytes
	}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	if v.onError == nil {
		v.onError = plainError
	}
	if !o.DisableReplayProtection {
		size := o.ReplayCacheSize
		if size == 0 {
			size = DefaultReplayCacheSize
		}
		v.replay = newReplayCache(size)
		if o.ReplayFile != "" {
			f, es, err := openReplayFile(o.ReplayFile, v.now(), v.log)
			if err != nil {
				return nil, err
			}
			v.file = f
			v.RestoreReplay(es)
		}
	}
	return v, nil
}

func plainError(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusForbidden
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		status = http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrBadRequest):
		status = http.StatusBadRequest
	case errors.Is(err, ErrReplayFile):
		// Its details name a file of the server; the client needs none.
		http.Error(w, ErrReplayFile.Error(), http.StatusServiceUnavailable)
		return
	}
	http.Error(w, err.Error(), status)
}

// Middleware lets through only requests that Verify accepts.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := v.Verify(r); err != nil {
			v.onError(w, r, err)
			return
		}
		// The server closes the body it made, not the one Verify put in its
		// place: closing ours once next is done recycles its buffer.
		defer r.Body.Close()
		next.ServeHTTP(w, r)
	})
}

// maxTimestampDigits rejects absurd X-Timestamp values early: Unix seconds
// have 10 digits until the year 2286.
const maxTimestampDigits = 11

// Verify checks r's signature. It reads the body (at most MaxBodyBytes)
// and leaves an identical one in r.Body for the next handler; closing that
// body when the request is done lets the Verifier reuse its buffer
// (Middleware does). The error
// matches one of ErrMissingHeaders, ErrInvalidSignature (ErrReplayed),
// ErrTimestamp, ErrBodyTooLarge, ErrBadRequest or ErrReplayFile.
func (v *Verifier) Verify(r *http.Request) error {
	path := requestPath(r)
	if strings.IndexByte(r.Method, '\n') >= 0 || strings.IndexByte(path, '\n') >= 0 {
		return fmt.Errorf("%w: method or path contains a line feed", ErrBadRequest)
	}
	auth, ts := r.Header.Get(HeaderAuthorization), r.Header.Get(HeaderTimestamp)
	switch {
	case auth == "" && ts == "":
		return fmt.Errorf("%w: %s and %s are required", ErrMissingHeaders, HeaderAuthorization, HeaderTimestamp)
	case auth == "":
		return fmt.Errorf("%w: %s is required", ErrMissingHeaders, HeaderAuthorization)
	case ts == "":
		return fmt.Errorf("%w: %s is required", ErrMissingHeaders, HeaderTimestamp)
	}

	now := v.now()
	if len(ts) > maxTimestampDigits || strings.TrimLeft(ts, "0123456789") != "" {
		return fmt.Errorf("%w: %s %q is not decimal Unix seconds; server time is %d",
			ErrTimestamp, HeaderTimestamp, truncate(ts, 32), now.Unix())
	}
	sec, _ := strconv.ParseInt(ts, 10, 64) // at most 11 digits: cannot overflow
	reqTime := time.Unix(sec, 0)
	if d := now.Sub(reqTime); d > v.skew || d < -v.skew {
		return &TimestampError{ServerTime: now, RequestTime: reqTime, Tolerance: v.skew}
	}

	scheme, given, ok := strings.Cut(auth, " ")
	var sig [sha256.Size]byte
	if !ok || !strings.EqualFold(scheme, Scheme) {
		return fmt.Errorf("%w: %s must be %q followed by the hex signature", ErrInvalidSignature, HeaderAuthorization, Scheme)
	}
	if len(given) != hex.EncodedLen(sha256.Size) {
		return fmt.Errorf("%w: the signature must be %d hex digits", ErrInvalidSignature, hex.EncodedLen(sha256.Size))
	}
	if _, err := hex.Decode(sig[:], []byte(given)); err != nil {
		return fmt.Errorf("%w: the signature is not hex", ErrInvalidSignature)
	}

	body, err := v.readBody(r)
	if err != nil {
		return err
	}

	var want [sha256.Size]byte
	matched := false
	for i := range v.macs {
		mac := v.macs[i].Get().(hash.Hash)
		sum(mac, r.Method, path, body, ts, want[:0])
		mac.Reset()
		v.macs[i].Put(mac)
		if hmac.Equal(want[:], sig[:]) {
			matched = true
			break
		}
	}
	if v.debug {
		// The expected signature of a request that failed is not logged:
		// whoever reads the log could then sign any request of their own.
		// Compare the canonical request with the client's instead.
		var canon bytes.Buffer
		writeCanonical(&canon, nil, r.Method, path, body, ts)
		v.log.Info("hmac verification", "canonical_request", canon.String(),
			"given_signature", given, "match", matched)
	}
	if !matched {
		return fmt.Errorf("%w: the signature does not match the request", ErrInvalidSignature)
	}
	if v.replay != nil {
		return v.remember(sig, now, reqTime.Add(v.skew))
	}
	return nil
}

// remember records an accepted signature until expires, in the cache and
// then durably in the replay file, or says it was used already. The cache
// takes it first, so that a second copy of the request arriving meanwhile
// is refused; if the file cannot take it, the cache lets it go again and
// the request is refused, since it could be replayed after a restart.
func (v *Verifier) remember(sig [sha256.Size]byte, now, expires time.Time) error {
	evicted := v.replay.add(sig, now, expires)
	if evicted < 0 {
		return ErrReplayed
	}
	if evicted > 0 {
		v.log.Warn("hmac replay cache full: forgot the oldest signatures", "forgotten", evicted)
	}
	if v.file == nil {
		return nil
	}
	err := v.file.add(ReplayEntry{Signature: sig, Expires: expires}, func() []ReplayEntry { return v.replay.entries(v.now()) })
	if err != nil {
		v.replay.remove(sig)
		v.log.Error("hmac replay file: cannot record a signature; refused the request", "err", err)
	}
	return err
}

// readBody reads the body once, bounded, and puts back an identical one.
func (v *Verifier) readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > v.maxBody {
		return nil, fmt.Errorf("%w: %d bytes; at most %d are accepted", ErrBodyTooLarge, r.ContentLength, v.maxBody)
	}
	// The buffer comes from a pool and goes back when the server closes
	// the body after the handler, so a busy verifier does not allocate a
	// body-sized buffer per request.
	bp := v.bufs.Get().(*[]byte)
	buf := (*bp)[:0]
	if r.ContentLength > 0 && int64(cap(buf)) < r.ContentLength+1 {
		buf = make([]byte, 0, r.ContentLength+1) // +1: room to see the end
	}
	for int64(len(buf)) <= v.maxBody {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			v.putBuf(bp, buf)
			return nil, fmt.Errorf("%w: reading the body: %v", ErrBadRequest, err)
		}
	}
	if int64(len(buf)) > v.maxBody {
		v.putBuf(bp, buf)
		return nil, fmt.Errorf("%w: at most %d bytes are accepted", ErrBodyTooLarge, v.maxBody)
	}
	r.Body = &pooledBody{Reader: bytes.NewReader(buf), orig: r.Body, release: func() { v.putBuf(bp, buf) }}
	return buf, nil
}

func (v *Verifier) putBuf(bp *[]byte, buf []byte) {
	if int64(cap(buf)) <= v.maxBody+1 {
		*bp = buf[:0]
		v.bufs.Put(bp)
	}
}

// pooledBody hands the next handler the bytes read. Close closes the
// original body and returns the buffer to the pool; reads after Close see
// EOF, never a reused buffer.
type pooledBody struct {
	*bytes.Reader
	orig    io.Closer
	release func()
	once    sync.Once
}

func (b *pooledBody) Close() error {
	b.once.Do(func() {
		b.Reader.Reset(nil)
		b.release()
	})
	return b.orig.Close()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// replayCache remembers accepted signatures until their timestamp leaves the
// window. Entries sit in a ring in the order they were added; expired ones
// are dropped from the front as new ones arrive.
type replayCache struct {
	mu    sync.Mutex
	seen  map[[sha256.Size]byte]time.Time // signature -> end of its window
	order [][sha256.Size]byte             // ring of the signatures in seen
	head  int                             // index of the oldest in order
	n     int
}

func newReplayCache(size int) *replayCache {
	return &replayCache{seen: make(map[[sha256.Size]byte]time.Time), order: make([][sha256.Size]byte, size)}
}

// add records sig, valid until expires. It returns -1 if sig is already
// recorded and still valid, else how many unexpired entries had to be
// forgotten to make room.
func (c *replayCache) add(sig [sha256.Size]byte, now, expires time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if end, ok := c.seen[sig]; ok && !now.After(end) {
		return -1
	}
	// Drop expired entries from the front. Entries are roughly in expiry
	// order; one that lives longer than those behind it only delays their
	// removal, and the ring bounds the total either way. When the ring is
	// full of live entries, the oldest is forgotten.
	evicted := 0
	for c.n > 0 {
		old := c.order[c.head]
		end := c.seen[old]
		live := now.Before(end)
		if live && c.n < len(c.order) {
			break
		}
		delete(c.seen, old)
		c.head = (c.head + 1) % len(c.order)
		c.n--
		if live {
			evicted++
			break
		}
	}
	c.seen[sig] = expires
	c.order[(c.head+c.n)%len(c.order)] = sig
	c.n++
	return evicted
}

// remove forgets sig. Its slot in the ring stays until it reaches the
// front, where a signature no longer in seen counts as expired.
func (c *replayCache) remove(sig [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.seen, sig)
}

func (c *replayCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}
