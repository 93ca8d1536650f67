#!/bin/sh
# The history/gate proof of docs/src/guide/history-and-gate.md, on the built-in simulator:
#   step:  12 runs, decode step time +5% from run 8; each run checked against the runs
#          before it (`last 3`): runs 2-7 should exit 0, run 8 exit 1 naming TPOT and
#          server throughput.
#   drift: 12 runs, decode time +1% per run over runs 5-12; each checked against the run
#          before it (all exit 0); `history report` should mark a change point.
#   null:  every ordered pair of the 11 unchanged runs checked one against the other.
# Usage: tools/history-proof.sh [OUT_DIR] (needs a built plateau: cargo build -p plateau-bench)
set -eu
P=${PLATEAU:-$(dirname "$0")/../target/debug/plateau}
OUT=${1:-history-proof}
mkdir -p "$OUT"
config() { # name seed scale
  cat > "$OUT/$1.json" <<JSON
{"endpoints": [{"name": "sim", "engine": "sim", "sim": {"profile": "realistic", "seed": $2,
   "engine": {"decode_base_ms": $(awk "BEGIN { print 8 * $3 }"), "decode_per_seq_ms": $(awk "BEGIN { print 0.5 * $3 }")}}}],
 "models": [{"id": "m", "name": "plateau-sim"}], "scenarios": ["A1"], "batch_sizes": [4],
 "fill_seconds": 0.5, "stabilize_seconds": 1, "measure_seconds": 6, "drain_seconds": 2,
 "max_tokens": 32, "output_dir": "$OUT/$1",
 "check": {"server_tps": "-3%", "tpot_p50": "+3%"}}
JSON
}
sequence() { # name against scale-of-run-i...
  name=$1; against=$2; shift 2
  i=0
  for scale in "$@"; do
    i=$((i + 1))
    config "$name-$i" $((i * 7 + 1)) "$scale"
    "$P" run -q --config "$OUT/$name-$i.json" --history --db "$OUT/$name.sqlite" \
      --label "run=$i" > /dev/null 2>&1 || true
    if [ $i -gt 1 ]; then
      set +e
      "$P" check "$OUT/$name-$i" --db "$OUT/$name.sqlite" --against "$against" \
        > "$OUT/$name-$i.check.md" 2>&1
      code=$?
      set -e
      echo "$name run $i (decode x$scale) vs $against: exit $code $(grep -o 'REGRESSED |' "$OUT/$name-$i.check.md" | wc -l) regressed: $(grep 'REGRESSED |' "$OUT/$name-$i.check.md" | cut -d'|' -f3 | tr '\n' ',')"
    fi
  done
  "$P" history --db "$OUT/$name.sqlite" report --out "$OUT/$name-trends" > /dev/null
  echo "$name change points (history run id first):"
  awk '/^###/ { h = $0 } /◆/ { print h; print }' "$OUT/$name-trends/trends.md"
}
sequence step "last 3" 1 1 1 1 1 1 1 1.05 1.05 1.05 1.05 1.05
sequence drift "last 1" 1 1 1 1 1.01 1.02 1.03 1.04 1.05 1.06 1.07 1.08
# Gate false alarms on null runs: every ordered pair of the 11 runs at scale 1.0 (step
# runs 1-7, drift runs 1-4), one run as the baseline (`--against ID`).
rm -f "$OUT/null.sqlite"
nulls="step-1 step-2 step-3 step-4 step-5 step-6 step-7 drift-1 drift-2 drift-3 drift-4"
for r in $nulls; do "$P" history --db "$OUT/null.sqlite" add "$OUT/$r" > /dev/null; done
n=0; alarms=0; unjudged=0; k=0
for c in $nulls; do
  k=$((k + 1))
  for b in $(seq 1 11); do
    [ "$b" = "$k" ] && continue
    set +e
    "$P" check "$OUT/$c" --db "$OUT/null.sqlite" --against "$b" --resamples 2000 > /dev/null 2>&1
    code=$?
    set -e
    n=$((n + 1)); [ $code = 1 ] && alarms=$((alarms + 1)); [ $code = 3 ] && unjudged=$((unjudged + 1))
  done
done
echo "null pairs: $n checks, $alarms false alarms (exit 1), $unjudged not judged (exit 3)"
