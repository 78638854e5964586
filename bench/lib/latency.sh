# Enqueue-to-claim latency at a light fixed rate (sourced by bench/run): on the drain's warm broker
# (shared mode), W long-polling workers and $lat_rate jobs/s for $lat_seconds s.
latency_phase() {
  log "latency: $w long-polling workers, $lat_rate jobs/s for ${lat_seconds}s (after ${lat_warmup}s of untimed warm-up at five times that rate, drained before the measured part)"
  # start from a fresh checkpoint, as the drains do: the warm-up rounds and drains just wrote
  # gigabytes of WAL, and a checkpoint they triggered would otherwise be flushing meanwhile
  psqlq -d $DB_RP -c CHECKPOINT
  driver latency --workers "$w" --rate "$lat_rate" --seconds "$lat_seconds" --warmup "$lat_warmup" --queue lat \
    > "$tmp/latency.out" || fail "driver latency"
  check_pg
  lat_line="$(grep '^RESULT latency' "$tmp/latency.out")"
  log "latency: $lat_line"
}
