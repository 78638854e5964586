#!/usr/bin/env python3
"""Fails a SQL Server run whose lock tests did not really run.

Reads the Surefire and Failsafe XML reports (TEST-*.xml) of a run against a real SQL Server and
exits 1 when
  * a required class (the tests that only mean something on a real SQL Server, below) ran no
    test at all, or skipped any test: a green run where every lock test skipped proves nothing;
  * any test of any class skipped for a reason that names Babelfish, or says it needs a real SQL
    Server: the engine was not taken for the real SQL Server it is.
Prints one line per class it checked and one per problem; exit 0 when there is none.

    scripts/check-sqlserver-tests.py [--reports DIR ...] [--require CLASS ...] [--list-required]

DIR defaults to target/surefire-reports and target/failsafe-reports (a missing directory is
only a problem if a required class was to be found there). --require replaces the built-in list
(simple class names or fully qualified ones). Python 3 standard library only.
"""

import argparse
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

# The classes that must run, with no skip, on a real SQL Server (.github/workflows/sqlserver.yml):
# each guards its tests with an assumption about the engine (SqlServerCheckScriptTest finds
# every such class in src/test/java and fails when one is missing here).
REQUIRED = (
    # skip-don't-wait, lock modes, deadlock-free orders; skips only where hints are ignored
    "io.readpast.LockRulesTest",
    # plan shapes and lock footprint from SQL Server's DMVs; skips unless SQL Server proper
    "io.readpast.store.SqlServerLocksAndPlansTest",
    # a claim skips a row another transaction holds; that test skips where hints are ignored
    "io.readpast.ConcurrencyTest",
    # a claim that meets a capped queue's row held by another claim tries again, never waits
    "io.readpast.ClaimPathTest",
    # the packaged jar migrates and serves on SQL Server (Failsafe); skips without a URL
    "io.readpast.faults.SqlServerJarIT",
)

# A skip reason that means the run did not see a real SQL Server.
NOT_SQL_SERVER = re.compile(r"babelfish|needs a real sql server|no sql server here", re.IGNORECASE)


def read_reports(dirs):
    """{class name: {"tests": n, "skipped": [(test, reason)], "files": [...]}} over every report."""
    classes = {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "TEST-*.xml"))):
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError as e:
                raise SystemExit(f"check-sqlserver-tests: {path} is not XML: {e}")
            suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
            for suite in suites:
                for case in suite.iter("testcase"):
                    name = case.get("classname") or suite.get("name") or "?"
                    c = classes.setdefault(name, {"tests": 0, "skipped": [], "files": set()})
                    c["tests"] += 1
                    c["files"].add(path)
                    skip = case.find("skipped")
                    if skip is not None:
                        reason = skip.get("message") or ((skip.text or "").strip().splitlines() or [""])[0]
                        c["skipped"].append((case.get("name") or "?", reason))
                # a suite with no testcase element (a class whose every test was filtered out, or
                # that failed before its first test) still counts as seen, with no test run
                name = suite.get("name")
                if name and name not in classes:
                    classes[name] = {"tests": 0, "skipped": [], "files": {path}}
    return classes


def find(classes, wanted):
    """The report entry of a required class, by its full name or its simple name."""
    if wanted in classes:
        return wanted, classes[wanted]
    simple = wanted.rsplit(".", 1)[-1]
    for name, c in classes.items():
        if name.rsplit(".", 1)[-1] == simple:
            return name, c
    return wanted, None


def check(dirs, required):
    classes = read_reports(dirs)
    problems = []
    for wanted in required:
        name, c = find(classes, wanted)
        if c is None:
            problems.append(f"{name}: no report in {', '.join(dirs)}: the class did not run")
            continue
        print(f"{name}: {c['tests']} tests, {len(c['skipped'])} skipped")
        if c["tests"] == 0:
            problems.append(f"{name}: ran no test")
        for test, reason in c["skipped"]:
            problems.append(f"{name}.{test} skipped: {reason}")
    required_simple = {r.rsplit(".", 1)[-1] for r in required}
    for name, c in sorted(classes.items()):
        if name.rsplit(".", 1)[-1] in required_simple:
            continue
        for test, reason in c["skipped"]:
            if NOT_SQL_SERVER.search(reason):
                problems.append(f"{name}.{test} skipped as if this were not a real SQL Server: {reason}")
    return problems


def main(argv):
    ap = argparse.ArgumentParser(description="Fail a SQL Server run whose SQL-Server-only tests skipped or ran none.")
    ap.add_argument("--reports", nargs="+", default=["target/surefire-reports", "target/failsafe-reports"],
                    help="directories holding TEST-*.xml (default: target/surefire-reports target/failsafe-reports)")
    ap.add_argument("--require", nargs="+", default=None, help="the classes that must run without a skip")
    ap.add_argument("--list-required", action="store_true", help="print the built-in list and exit")
    args = ap.parse_args(argv)
    if args.list_required:
        print("\n".join(REQUIRED))
        return 0
    required = args.require if args.require else list(REQUIRED)
    problems = check(args.reports, required)
    for p in problems:
        print("FAIL " + p)
    if problems:
        print(f"check-sqlserver-tests: {len(problems)} problem(s): the SQL-Server-only tests did not all run")
        return 1
    print(f"check-sqlserver-tests: {len(required)} required classes ran with no skip")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
