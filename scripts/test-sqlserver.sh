#!/usr/bin/env bash
# Runs the whole test suite against a SQL Server (or Babelfish) database, and prints the
# surefire totals. The database must exist and be empty (or hold only Readpast's own tables);
# the login needs to create tables in it (the migrations run at the first start).
#
#   scripts/test-sqlserver.sh 'jdbc:sqlserver://127.0.0.1:1433;databaseName=readpast_test;encrypt=false' USER PASSWORD [extra mvnw args]
#
# Tests of behaviour an engine does not have skip there, with the reason in the report
# (Babelfish ignores table hints, so "a claim skips rows another transaction holds" skips).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
url=$1 user=$2 password=$3
shift 3
case "$url" in
  jdbc:sqlserver:*) ;;
  *) echo "the URL must start with jdbc:sqlserver:" >&2; exit 2 ;;
esac
if [ -z "${JAVA_HOME:-}" ] && [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
[ -n "${JAVA_HOME:-}" ] && export PATH="$JAVA_HOME/bin:$PATH"
status=0
rm -rf target/surefire-reports  # the totals below count this run only, not an earlier one's reports
READPAST_TEST_DB_URL="$url" READPAST_TEST_DB_USERNAME="$user" READPAST_TEST_DB_PASSWORD="$password" \
  ./mvnw -B test "$@" || status=$?
python3 - <<'PY'
import glob, xml.etree.ElementTree as ET
t = f = e = s = 0
skipped = []
for p in sorted(glob.glob('target/surefire-reports/TEST-*.xml')):
    r = ET.parse(p).getroot()
    t += int(r.get('tests')); f += int(r.get('failures')); e += int(r.get('errors')); s += int(r.get('skipped'))
    for c in r.iter('testcase'):
        k = c.find('skipped')
        if k is not None:
            why = k.get('message') or ((k.text or '').strip().splitlines() or [''])[0]
            skipped.append(f"{c.get('classname').split('.')[-1]}.{c.get('name')}: {why}")
print(f"SQL Server run: {t - f - e - s} passed, {f + e} failed, {s} skipped")
for line in skipped:
    print("  skipped " + line)
PY
exit $status
