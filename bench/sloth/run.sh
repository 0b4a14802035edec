#!/usr/bin/env bash
# Measures, in one real Prometheus per rule set over the same data, the
# rule evaluation time (prometheus_rule_group_last_duration_seconds, per
# group and summed over the set's groups) and Prometheus's CPU (rate of
# process_cpu_seconds_total) of: no rules, availmon's objective alerts,
# all of `availmon rules`, and Sloth's rules for the same objectives. See
# README.md. Everything listens on loopback only.
#
#   APPS=10000 OBJECTIVES=1000 DAYS=30 STEP=30s MINUTES=15 bench/sloth/run.sh
#
# Each set's line is appended to $WORK/results.txt (and printed) as soon as
# its Prometheus is done, so a run cut short keeps the sets it finished.
set -euo pipefail

APPS=${APPS:-10000}
OBJECTIVES=${OBJECTIVES:-1000}
DAYS=${DAYS:-30}
STEP=${STEP:-30s}
MINUTES=${MINUTES:-15}         # how long each Prometheus runs
EVAL=${EVAL:-1m}               # scrape and rule evaluation interval
SETS=${SETS:-"sloth-rules availmon-objective-rules availmon-rules none"}
WORK=${WORK:-$(mktemp -d /tmp/availmon-sloth.XXXXXX)}
EXPORTER=127.0.0.1:${EXPORTER_PORT:-19464}
PROM=127.0.0.1:${PROM_PORT:-19090}
RESULTS=$WORK/results.txt

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$WORK"

exporter=
prom=
cleanup() {
  for p in $prom $exporter; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '%s\n' "$*" | tee -a "$RESULTS" >&2; }

log "# $(date -u +%FT%TZ) $APPS apps, $OBJECTIVES objectives, $DAYS days every $STEP, eval every $EVAL, $MINUTES min per set, work dir $WORK"

(cd "$root" && go run ./cmd/availmon rules) > "$WORK/in.yml"
(cd "$here" && go build -o "$WORK/bench" .)
"$WORK/bench" rules -apps "$APPS" -objectives "$OBJECTIVES" -availmon-rules "$WORK/in.yml" -out "$WORK"
: > "$WORK/none.yml"
# The block is written aside and renamed, so that a run cut short while
# writing it does not leave a partial one for the next run to reuse.
if [ ! -d "$WORK/base" ]; then
  rm -rf "$WORK/base.tmp"
  start=$(date +%s)
  "$WORK/bench" history -apps "$APPS" -objectives "$OBJECTIVES" -days "$DAYS" -step "$STEP" \
    -record-step "$EVAL" -dir "$WORK/base.tmp"
  mv "$WORK/base.tmp" "$WORK/base"
  log "# history block written in $(( $(date +%s) - start )) s: $(du -sh "$WORK/base" | cut -f1)"
fi

"$WORK/bench" serve -apps "$APPS" -objectives "$OBJECTIVES" -addr "$EXPORTER" &
exporter=$!

query() { # instant query, first value or "-"
  curl -fsS "http://$PROM/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print("%.4g" % float(r[0]["value"][1]) if r else "-")'
}

# Per group: the average and the largest of one group's evaluation. Per
# cycle: the sum over the set's groups of each one's last evaluation (the
# time one round of the set's evaluations takes), average and largest.
# evals and failed count rule evaluations over the window; cpu is
# Prometheus's, in cores.
log "$(printf '%-26s %6s %6s %10s %10s %10s %10s %8s %6s %9s  %s' \
  set groups rules grp_avg_s grp_max_s cycle_avg_s cycle_max_s evals failed cpu_cores load)"
for set in $SETS; do
  rm -rf "$WORK/data"
  cp -r "$WORK/base" "$WORK/data"
  cat > "$WORK/prometheus.yml" <<YML
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
YML
  prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
    --storage.tsdb.retention.time=400d --web.listen-address="$PROM" > "$WORK/prometheus-$set.log" 2>&1 &
  prom=$!
  until curl -fsS "http://$PROM/-/ready" > /dev/null 2>&1; do
    kill -0 "$prom" 2>/dev/null || { log "# $set: prometheus exited, see $WORK/prometheus-$set.log"; exit 1; }
    sleep 1
  done
  sleep $((MINUTES * 60))
  # Over the run's second half: the first evaluations read cold blocks.
  half=$((MINUTES * 30))s
  d=prometheus_rule_group_last_duration_seconds
  line=$(printf '%-26s %6s %6s %10s %10s %10s %10s %8s %6s %9s  %s' "$set" \
    "$(query "count($d)")" \
    "$(query 'sum(prometheus_rule_group_rules)')" \
    "$(query "avg_over_time(avg($d)[$half:])")" \
    "$(query "max_over_time(max($d)[$half:])")" \
    "$(query "avg_over_time(sum($d)[$half:])")" \
    "$(query "max_over_time(sum($d)[$half:])")" \
    "$(query "sum(increase(prometheus_rule_evaluations_total[$half]))")" \
    "$(query "sum(increase(prometheus_rule_evaluation_failures_total[$half]))")" \
    "$(query "rate(process_cpu_seconds_total{job=\"prometheus\"}[$half])")" \
    "$(cut -d' ' -f1-3 /proc/loadavg)")
  log "$line"
  kill "$prom"
  wait "$prom" || true
  prom=
done
