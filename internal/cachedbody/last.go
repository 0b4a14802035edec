package cachedbody

import (
	"strconv"
	"sync/atomic"
)

// Last keeps the last answer made and the key of what it was made from,
// for an answer polled far more often than what it says changes: it is
// encoded again only when the key differs from the last one's. Equal keys
// must mean equal answers; a key should hold copies, not pointers to what
// an answer is made from, lest a kept answer keep that alive. The zero
// Last is empty and ready; it is safe for concurrent use.
type Last[K comparable] struct{ last atomic.Pointer[keyed[K]] }

// Answer is an encoded answer with its Content-Length header value, made
// once for every request of it: neither may be changed.
type Answer struct {
	body   []byte
	length []string
}

// Body returns the answer's bytes.
func (a *Answer) Body() []byte { return a.body }

// Length returns the answer's Content-Length header value.
func (a *Answer) Length() []string { return a.length }

type keyed[K comparable] struct {
	key K
	Answer
}

// Get returns the answer for key: the last one when its key is equal,
// else the one encode makes, which is kept for the next request. ok is
// false when encode does not make one; nothing is kept then.
func (l *Last[K]) Get(key K, encode func() (body []byte, ok bool)) (a *Answer, ok bool) {
	if e := l.last.Load(); e != nil && e.key == key {
		return &e.Answer, true
	}
	body, ok := encode()
	if !ok {
		return nil, false
	}
	e := &keyed[K]{key: key, Answer: Answer{body: body, length: full(strconv.Itoa(len(body)))}}
	l.last.Store(e)
	return &e.Answer, true
}

// Load returns the answer kept, nil when none is.
func (l *Last[K]) Load() *Answer {
	if e := l.last.Load(); e != nil {
		return &e.Answer
	}
	return nil
}
