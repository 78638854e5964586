#!/usr/bin/env bash
# Generates clients from openapi/openapi.json with OpenAPI Generator (from Maven Central),
# compiles them unpatched, and runs src/test/clients/check.* with each against a running broker:
# enqueue with runAt, claim from every queue, complete, read back, queue settings and a key.
#
#   READPAST_URL=http://localhost:8080 READPAST_API_KEY=rp_... scripts/generated-clients.sh [typescript java python]
#
# Prints "PASS <lang>", "FAIL <lang>: reason" or "SKIP <lang>: reason" per client; exits 1 if any failed.
# typescript needs Node 20.3+ and npm (typescript itself is installed from npm into target/tools);
# java builds the generated Maven project with ./mvnw; python needs python3 -m venv and a pip
# index that has the generated package's dependencies (pydantic, urllib3, python-dateutil).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${READPAST_URL:?set READPAST_URL}" "${READPAST_API_KEY:?set READPAST_API_KEY}"
GENERATOR_VERSION=7.25.0
TOOLS=$PWD/target/tools
OUT=$PWD/target/clients
SPEC=$PWD/openapi/openapi.json
CHECKS=$PWD/src/test/clients
LANGS=("$@")
[ ${#LANGS[@]} -gt 0 ] || LANGS=(typescript java python)
mkdir -p "$TOOLS" "$OUT"
JAVA_BIN=${JAVA_HOME:+$JAVA_HOME/bin/}java

jar=$TOOLS/openapi-generator-cli-$GENERATOR_VERSION.jar
if [ ! -f "$jar" ]; then
  ./mvnw -q -B dependency:copy -Dartifact=org.openapitools:openapi-generator-cli:$GENERATOR_VERSION \
    -DoutputDirectory="$TOOLS" || { echo "FAIL all: cannot fetch openapi-generator-cli $GENERATOR_VERSION"; exit 1; }
fi

failed=0
result() { echo "$1"; case $1 in FAIL*) failed=1;; esac; }

generate() {  # generate <generator> <dir> [options...]
  local g=$1 dir=$2; shift 2
  rm -rf "$dir"
  "$JAVA_BIN" -jar "$jar" generate -g "$g" -i "$SPEC" -o "$dir" "$@" > "$dir.generate.log" 2>&1
}

for lang in "${LANGS[@]}"; do
  case $lang in
  typescript)
    dir=$OUT/typescript
    if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=3)?0:1)' 2>/dev/null; then
      result "SKIP typescript: Node 20.3+ is not on PATH"; continue
    fi
    generate typescript-fetch "$dir" --additional-properties=npmName=readpast-client,supportsES6=true \
      || { result "FAIL typescript: generation failed (see $dir.generate.log)"; continue; }
    if [ ! -x "$TOOLS/node/node_modules/.bin/tsc" ] || [ ! -d "$TOOLS/node/node_modules/@types/node" ]; then
      npm install --silent --prefix "$TOOLS/node" typescript@5 @types/node@20 >/dev/null 2>&1 \
        || { result "FAIL typescript: cannot install typescript from npm"; continue; }
    fi
    rm -rf "$OUT/ts-check" && mkdir -p "$OUT/ts-check" && cp "$CHECKS/check.ts" "$OUT/ts-check/"
    # the client as its own tsconfig builds it (no patching), then the check against its sources
    if ! (cd "$dir" && "$TOOLS/node/node_modules/.bin/tsc" -p tsconfig.json > "$OUT/tsc.log" 2>&1) \
       || ! (cd "$OUT/ts-check" && "$TOOLS/node/node_modules/.bin/tsc" --strict --target es2020 --module commonjs \
             --moduleResolution node --lib es2020,dom --types node --typeRoots "$TOOLS/node/node_modules/@types" \
             --outDir out check.ts >> "$OUT/tsc.log" 2>&1); then
      result "FAIL typescript: the generated client does not compile: $(head -3 "$OUT/tsc.log" | tr '\n' ' ')"; continue
    fi
    out=$(cd "$OUT/ts-check" && node out/ts-check/check.js 2>&1)
    result "$(echo "$out" | tail -1)"
    ;;
  java)
    dir=$OUT/java
    generate java "$dir" --library native --additional-properties=hideGenerationTimestamp=true \
      || { result "FAIL java: generation failed (see $dir.generate.log)"; continue; }
    if ! ./mvnw -q -B -f "$dir/pom.xml" package -DskipTests -Dmaven.javadoc.skip=true > "$dir.build.log" 2>&1 \
       || ! ./mvnw -q -B -f "$dir/pom.xml" dependency:build-classpath -Dmdep.outputFile="$dir/cp.txt" >> "$dir.build.log" 2>&1; then
      result "FAIL java: the generated client does not build (see $dir.build.log)"; continue
    fi
    cp=$(ls "$dir"/target/openapi-java-client-*[0-9T].jar | head -1):$(cat "$dir/cp.txt")
    out=$("$JAVA_BIN" -cp "$cp" "$CHECKS/Check.java" 2>&1)
    result "$(echo "$out" | grep -E '^(PASS|FAIL)' | tail -1 || true)"
    [ -n "$(echo "$out" | grep -E '^PASS')" ] || { failed=1; echo "$out" | tail -5; }
    ;;
  python)
    dir=$OUT/python
    generate python "$dir" --additional-properties=packageName=openapi_client \
      || { result "FAIL python: generation failed (see $dir.generate.log)"; continue; }
    if ! python3 -m venv "$dir/.venv" > "$dir.venv.log" 2>&1; then
      result "SKIP python: python3 -m venv is not available"; continue
    fi
    if ! "$dir/.venv/bin/pip" install -q --retries 1 --timeout 20 "$dir" > "$dir.pip.log" 2>&1; then
      result "SKIP python: its packages do not install from the reachable indexes: $(grep -m1 -E 'ERROR' "$dir.pip.log")"; continue
    fi
    out=$("$dir/.venv/bin/python" "$CHECKS/check.py" 2>&1)
    result "$(echo "$out" | tail -1)"
    ;;
  *) result "FAIL $lang: unknown client (typescript, java, python)";;
  esac
done
exit $failed
