package promanswer

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Full decodes an answer already read (its HTTP status and body) in full,
// exactly as client_golang's v1.API.Query decodes it: the value, the
// warnings, and the error (*v1.Error for an error status or body, with the
// types and messages client_golang gives). It is what a body Decode refuses
// means, and what the state rules were written against.
func Full(ctx context.Context, status int, body []byte) (model.Value, v1.Warnings, error) {
	v, warnings, _, err := v1.NewAPI(replay{res: &http.Response{StatusCode: status}, body: body}).
		Query(ctx, "", time.Time{})
	return v, warnings, err
}

// replay is an api.Client that answers every request with one answer read
// before.
type replay struct {
	res  *http.Response
	body []byte
}

var _ api.Client = replay{}

func (r replay) URL(ep string, _ map[string]string) *url.URL { return &url.URL{Path: ep} }

func (r replay) Do(context.Context, *http.Request) (*http.Response, []byte, error) {
	return r.res, r.body, nil
}
