package availmon

import "time"

// discoveryHealth is what /api/status says of the discovery rules: a rule
// whose query fails leaves its apps unavailable while the backend may
// answer everything else (prometheus_connectivity stays connected), so the
// rules are reported on their own.
type discoveryHealth struct {
	rules   int
	failing []ruleFailure // in the rules' order
}

// ruleFailure is a rule whose last query failed.
type ruleFailure struct {
	rule, backend string
	err           string
	since         time.Time
}

// discoveryHealthOf reads the rules' last answers. It runs under cycleMu.
func discoveryHealthOf(rules []*ruleState) discoveryHealth {
	h := discoveryHealth{rules: len(rules)}
	for _, rs := range rules {
		if rs.failing != nil {
			h.failing = append(h.failing, ruleFailure{rule: rs.rule.Name, backend: rs.rule.Backend,
				err: rs.failing.Error(), since: rs.failingSince})
		}
	}
	return h
}

type discoveryStatusJSON struct {
	// Status is "ok" when every rule's last query answered, "failing"
	// when one did not.
	Status       string            `json:"status"`
	Rules        int               `json:"rules"`
	FailingRules []failingRuleJSON `json:"failing_rules"`
}

type failingRuleJSON struct {
	Rule    string   `json:"rule"`
	Backend string   `json:"backend"`
	Error   string   `json:"error"`
	Since   jsonTime `json:"since"`
}

// json is the discovery member of /api/status; nil (left out) without
// rules.
func (h discoveryHealth) json() *discoveryStatusJSON {
	if h.rules == 0 {
		return nil
	}
	out := &discoveryStatusJSON{Status: "ok", Rules: h.rules, FailingRules: make([]failingRuleJSON, len(h.failing))}
	for i, f := range h.failing {
		out.FailingRules[i] = failingRuleJSON{Rule: f.rule, Backend: f.backend, Error: f.err, Since: jsonTime(f.since)}
	}
	if len(h.failing) > 0 {
		out.Status = "failing"
	}
	return out
}
