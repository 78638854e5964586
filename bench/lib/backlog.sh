# The claim's cost against a large table (sourced by bench/run), shared mode: single claims with
# $backlog_pending pending jobs and 1000, then $backlog_archived archived rows, then with
# $backlog_delayed delayed jobs of a higher priority in front of the due ones.
backlog_phase() {
  log "backlog: $DB_BL with $backlog_pending pending, 1000 then $backlog_archived archived"
  fresh_db $DB_BL
  start_broker $DB_BL
  archive_rows() { # $1 first, $2 last (offsets; ids start at 1e12 so they never meet the job ids)
    psqlq -d $DB_BL <<SQL
INSERT INTO readpast_job_archive (id, queue, type, payload, priority, status, attempt, max_attempts, due_at,
    worker_id, created_at, started_at, updated_at, finished_at)
SELECT 1000000000000 + g, 'backlog', 'noop', '{}', 0, 3, 1, 5,
       now() - interval '2 days' - g * interval '100 ms', 'old-worker',
       now() - interval '2 days' - g * interval '100 ms', now() - interval '2 days' - g * interval '100 ms',
       now() - interval '1 day' - g * interval '50 ms', now() - interval '1 day' - g * interval '50 ms'
FROM generate_series($1, $2) AS g;
ANALYZE;
CHECKPOINT;
SQL
  }
  psqlq -d $DB_BL <<SQL
INSERT INTO readpast_queue (name) VALUES ('backlog') ON CONFLICT DO NOTHING;
INSERT INTO readpast_job (queue, type, payload, max_attempts, due_at)
SELECT 'backlog', 'noop', '{}', 5, now() - interval '1 hour' FROM generate_series(1, $backlog_pending);
SQL
  archive_rows 1 1000
  driver backlog --count "$backlog_claims" --warmup "$backlog_warmup" --queue backlog --label 1k \
    > "$tmp/backlog1.out" || fail "driver backlog (1k)"
  check_pg
  bl1="$(grep '^RESULT backlog' "$tmp/backlog1.out")"
  log "backlog: $bl1"
  archive_rows 1001 "$backlog_archived"
  bl_count="$(pgval -d $DB_BL -c "select count(*) from readpast_job_archive")"
  driver backlog --count "$backlog_claims" --warmup "$backlog_warmup" --queue backlog --label big \
    > "$tmp/backlog2.out" || fail "driver backlog (big)"
  check_pg
  bl2="$(grep '^RESULT backlog' "$tmp/backlog2.out")"
  log "backlog: $bl2 (archive rows: $bl_count)"
  # Delayed jobs in front: backlog_delayed jobs enqueued through the API with a delay of an hour
  # and a higher priority than the due ones (retries backing off look the same). They are stored as
  # scheduled, outside the claim index, so claims must cost what they cost without them.
  log "backlog: + $backlog_delayed delayed jobs (priority 10, due in an hour) through POST /jobs/batch"
  local delayed_body="$tmp/delayed.json"
  python3 - "$delayed_body" <<'PY'
import json, sys
json.dump({"jobs": [{"queue": "backlog", "type": "later", "priority": 10, "delaySeconds": 3600}
                    for _ in range(1000)]}, open(sys.argv[1], "w"))
PY
  for _ in $(seq 1 $((backlog_delayed / 1000))); do
    curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary "@$delayed_body" "$url/jobs/batch" \
      || fail "backlog: delayed enqueue"
  done
  bl_delayed_count="$(pgval -d $DB_BL -c "select count(*) from readpast_job where queue = 'backlog' and due_at > now()")"
  psqlq -d $DB_BL -c "ANALYZE readpast_job" -c "CHECKPOINT"
  driver backlog --count "$backlog_claims" --warmup "$backlog_warmup" --queue backlog --label delayed \
    > "$tmp/backlog3.out" || fail "driver backlog (delayed)"
  check_pg
  bl3="$(grep '^RESULT backlog' "$tmp/backlog3.out")"
  log "backlog: $bl3 (delayed rows: $bl_delayed_count)"
  stop_broker
  drop_db $DB_BL
}
