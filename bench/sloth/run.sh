#!/usr/bin/env bash
# Measures, in one real Prometheus per rule set over the same data, the
# rule evaluation time (prometheus_rule_group_last_duration_seconds summed
# over the set's groups) and Prometheus's CPU (rate of
# process_cpu_seconds_total) of: no rules, availmon's objective alerts,
# all of `availmon rules`, and Sloth's rules for the same objectives. See
# README.md. Everything listens on loopback only.
#
#   APPS=10000 OBJECTIVES=1000 DAYS=30 STEP=30s MINUTES=15 bench/sloth/run.sh
set -euo pipefail

APPS=${APPS:-10000}
OBJECTIVES=${OBJECTIVES:-1000}
DAYS=${DAYS:-30}
STEP=${STEP:-30s}
MINUTES=${MINUTES:-15}         # how long each Prometheus runs
EVAL=${EVAL:-1m}               # scrape and rule evaluation interval
SETS=${SETS:-"none availmon-objective-rules availmon-rules sloth-rules"}
WORK=${WORK:-$(mktemp -d /tmp/availmon-sloth.XXXXXX)}
EXPORTER=127.0.0.1:${EXPORTER_PORT:-19464}
PROM=127.0.0.1:${PROM_PORT:-19090}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
echo "work dir $WORK: $APPS apps, $OBJECTIVES objectives, $DAYS days every $STEP, $MINUTES min per set" >&2

(cd "$root" && go run ./cmd/availmon rules) > "$WORK/in.yml"
(cd "$here" && go build -o "$WORK/bench" .)
"$WORK/bench" rules -apps "$APPS" -objectives "$OBJECTIVES" -availmon-rules "$WORK/in.yml" -out "$WORK"
: > "$WORK/none.yml"
if [ ! -d "$WORK/base" ]; then
  "$WORK/bench" history -apps "$APPS" -days "$DAYS" -step "$STEP" -dir "$WORK/base"
fi

"$WORK/bench" serve -apps "$APPS" -objectives "$OBJECTIVES" -addr "$EXPORTER" &
exporter=$!
trap 'kill $exporter 2>/dev/null || true' EXIT

query() { # instant query, first value or "-"
  curl -fsS "http://$PROM/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "-")'
}

printf '%-28s %8s %8s %12s %12s %10s\n' set groups rules eval_s_avg eval_s_max cpu_cores
for set in $SETS; do
  rm -rf "$WORK/data"
  cp -r "$WORK/base" "$WORK/data"
  cat > "$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: $EVAL
  evaluation_interval: $EVAL
rule_files: ["$WORK/$set.yml"]
scrape_configs:
  - job_name: availmon
    honor_labels: true
    static_configs: [{targets: ["$EXPORTER"]}]
  - job_name: prometheus
    static_configs: [{targets: ["$PROM"]}]
EOF
  prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
    --storage.tsdb.retention.time=400d --web.listen-address="$PROM" > "$WORK/prometheus-$set.log" 2>&1 &
  prom=$!
  until curl -fsS "http://$PROM/-/ready" > /dev/null 2>&1; do sleep 1; done
  sleep $((MINUTES * 60))
  groups=$(query 'count(prometheus_rule_group_last_duration_seconds)')
  rules=$(query 'sum(prometheus_rule_group_rules)')
  # The sum over the set's groups of each group's last evaluation, averaged
  # and at its most over the run's second half (the first evaluations read
  # cold blocks).
  half=$((MINUTES / 2))m
  avg=$(query "avg_over_time(sum(prometheus_rule_group_last_duration_seconds)[$half:])")
  mx=$(query "max_over_time(sum(prometheus_rule_group_last_duration_seconds)[$half:])")
  cpu=$(query "rate(process_cpu_seconds_total{job=\"prometheus\"}[$half])")
  printf '%-28s %8s %8s %12s %12s %10s\n' "$set" "$groups" "$rules" "$avg" "$mx" "$cpu"
  kill "$prom"
  wait "$prom" || true
done
