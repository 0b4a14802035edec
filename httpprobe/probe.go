package httpprobe

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Probe is what a Source requests for one app: set it, as a *Probe, as the
// app's availmon.App.Settings.
type Probe struct {
	// URL is the absolute http or https URL to request.
	URL string
	// Method is the request method; default GET.
	Method string
	// ExpectStatus lists the status codes that mean up, as codes ("200")
	// or classes ("2xx"); default ["2xx"]. When it names a redirect
	// (3xx, or a code from 300 to 399) redirects are not followed, so that
	// the redirect itself can be checked.
	ExpectStatus []string
	// BodyContains, when set, must occur in the first Options.MaxBodyBytes
	// of the response body (else the app is down), and arrive
	// within the timeout (else it is unavailable). Without it the status
	// alone decides, however slowly the body comes.
	BodyContains string
	// Timeout bounds the probe; zero leaves it to the cycle's timeout.
	Timeout time.Duration
	// TLSSkipVerify accepts any server certificate. For tests and
	// self-signed staging hosts only.
	TLSSkipVerify bool
	// Headers are added to the request (Host sets the Host header).
	Headers map[string]string
}

// Validate reports what is wrong with p, if anything.
func (p *Probe) Validate() error {
	var errs []error
	u, err := url.Parse(p.URL)
	switch {
	case p.URL == "":
		errs = append(errs, errors.New("url is empty"))
	case err != nil:
		errs = append(errs, fmt.Errorf("url: %w", err))
	case u.Scheme != "http" && u.Scheme != "https":
		errs = append(errs, fmt.Errorf("url %q: scheme must be http or https", p.URL))
	case u.Host == "":
		errs = append(errs, fmt.Errorf("url %q has no host", p.URL))
	}
	if p.Method != "" && !validMethod(p.Method) {
		errs = append(errs, fmt.Errorf("method %q is not a valid HTTP method", p.Method))
	}
	if _, err := parseExpect(p.ExpectStatus); err != nil {
		errs = append(errs, err)
	}
	if p.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout %s is negative", p.Timeout))
	}
	for k := range p.Headers {
		if !validMethod(k) { // header names are tokens, like methods
			errs = append(errs, fmt.Errorf("header name %q is not valid", k))
		}
	}
	return errors.Join(errs...)
}

// String is the probe as an app's `metric` shows it, such as
// "GET https://example.com/healthz": the monitor takes it for the app's
// Metric when that is empty.
func (p *Probe) String() string {
	return p.method() + " " + p.URL
}

func (p *Probe) method() string {
	if p.Method == "" {
		return http.MethodGet
	}
	return strings.ToUpper(p.Method)
}

func validMethod(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}

// statusSet is a parsed ExpectStatus: a class digit (2 for "2xx") or an
// exact code per entry.
type statusSet struct {
	classes  [6]bool
	codes    []int
	redirect bool // some entry accepts a 3xx answer
}

func parseExpect(list []string) (statusSet, error) {
	var s statusSet
	if len(list) == 0 {
		list = []string{"2xx"}
	}
	for _, e := range list {
		e = strings.ToLower(strings.TrimSpace(e))
		if len(e) == 3 && strings.HasSuffix(e, "xx") && e[0] >= '1' && e[0] <= '5' {
			s.classes[e[0]-'0'] = true
			s.redirect = s.redirect || e[0] == '3'
			continue
		}
		code, err := strconv.Atoi(e)
		if err != nil || code < 100 || code > 599 {
			return s, fmt.Errorf("expect_status %q: want a code from 100 to 599 or a class such as 2xx", e)
		}
		s.codes = append(s.codes, code)
		s.redirect = s.redirect || code/100 == 3
	}
	return s, nil
}

func (s *statusSet) match(code int) bool {
	if code/100 < len(s.classes) && s.classes[code/100] {
		return true
	}
	for _, c := range s.codes {
		if c == code {
			return true
		}
	}
	return false
}
