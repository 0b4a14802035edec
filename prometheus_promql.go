package availmon

import (
	"fmt"

	"github.com/availmon/availmon/internal/promql"
)

// appValidator is implemented by sources that can tell a bad app apart
// before any check, so that New refuses it with the other problems of the
// options rather than reporting it as unavailable forever.
type appValidator interface {
	validateApp(App) error
}

var _ appValidator = (*PrometheusSource)(nil)

func validateApp(s Source, a App) error {
	v, ok := s.(appValidator)
	if !ok {
		return nil
	}
	return v.validateApp(a)
}

// validateApp parses the app's expressions with Prometheus's parser: a
// typo, a range vector or a string is refused at New, with the parser's
// line:column and message.
func (s *PrometheusSource) validateApp(a App) error {
	if a.HTTP != nil {
		return nil
	}
	if _, err := promql.Parse(a.Metric); err != nil {
		return fmt.Errorf("metric: %w", err)
	}
	if a.ResponseTimeMetric != "" {
		if _, err := promql.Parse(a.ResponseTimeMetric); err != nil {
			return fmt.Errorf("response time metric: %w", err)
		}
	}
	return nil
}
