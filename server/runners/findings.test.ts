import { describe, expect, it } from "vitest";
import { junitFindings } from "./junit";
import type { Locator } from "./locate";
import { tapFindings } from "./tap";

const files = ["test/math.test.ts", "tests/test_math.py", "pkg/calc/calc_test.go", "src/sum.test.js", "src/helper.js"];
const locator: Locator = {
  exists: (relative) => files.includes(relative),
  bySuffix: (suffix) => {
    const found = files.filter((file) => file === suffix || file.endsWith(`/${suffix}`));
    return found.length === 1 ? found[0] : undefined;
  },
};

describe("JUnit reports", () => {
  it("reads vitest's: the class is the file, the line is the assertion's in the failure text", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="2" failures="1" errors="0" time="0.01">
  <testsuite name="test/math.test.ts" timestamp="2026-11-28T16:00:00.000Z" hostname="h" tests="2" failures="1" errors="0" skipped="0" time="0.003">
    <testcase classname="test/math.test.ts" name="math &gt; adds" time="0.002">
      <failure message="expected 2 to be 3 // Object.is equality" type="AssertionError">
AssertionError: expected 2 to be 3 // Object.is equality
 ❯ test/math.test.ts:7:19
      </failure>
    </testcase>
    <testcase classname="test/math.test.ts" name="math &gt; subtracts" time="0.001"></testcase>
  </testsuite>
</testsuites>`;
    expect(junitFindings(xml, locator)).toEqual([
      {
        message: "expected 2 to be 3 // Object.is equality",
        file: "test/math.test.ts",
        line: 7,
        rule: "test:math > adds",
      },
    ]);
  });

  it("reads pytest's (errors too), with the path printed relative to the repository", () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="1" skipped="0" tests="3" time="0.05">
<testcase classname="tests.test_math" name="test_adds" time="0.001"><failure message="assert 2 == 3">def test_adds():
&gt;       assert 1 + 1 == 3
E       assert 2 == 3

tests/test_math.py:4: AssertionError</failure></testcase>
<testcase classname="tests.test_math" name="test_fixture" time="0.001"><error message="failed on setup with &quot;KeyError&quot;">tests/test_math.py:9: KeyError</error></testcase>
<testcase classname="tests.test_math" name="test_ok" time="0.001"/>
</testsuite></testsuites>`;
    expect(junitFindings(xml, locator)).toEqual([
      { message: "assert 2 == 3", file: "tests/test_math.py", line: 4, rule: "test:test_adds" },
      { message: 'failed on setup with "KeyError"', file: "tests/test_math.py", line: 9, rule: "test:test_fixture" },
    ]);
  });

  it("reads go-junit-report's: a file named relative to its package is found in the repository", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="1">
  <testsuite name="example.com/m/pkg/calc" tests="1" failures="1" errors="0" id="0" hostname="h" time="0.001" timestamp="2026-11-28T16:00:00Z">
    <testcase name="TestAdd" classname="example.com/m/pkg/calc" time="0.000">
      <failure message="Failed"><![CDATA[    calc_test.go:12: Add(1, 1) = 2, want 3]]></failure>
    </testcase>
  </testsuite>
</testsuites>`;
    expect(junitFindings(xml, locator)).toEqual([
      { message: "Failed", file: "pkg/calc/calc_test.go", line: 12, rule: "test:TestAdd" },
    ]);
  });

  it("reads jest-junit's: no message attribute, the stack in the text, the file attribute when asked for", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="1" failures="1" errors="0" time="0.5">
  <testsuite name="sum" errors="0" failures="1" skipped="0" timestamp="2026-11-28T16:00:00" time="0.4" tests="1">
    <testcase classname="sum adds" name="sum adds" time="0.003" file="src/sum.test.js">
      <failure>Error: expect(received).toBe(expected) // Object.is equality

Expected: 3
Received: 2
    at Object.toBe (/home/ci/project/src/helper.js:2:5)
    at Object.toBe (/home/ci/project/src/sum.test.js:5:17)</failure>
    </testcase>
  </testsuite>
</testsuites>`;
    const [finding] = junitFindings(xml, locator);
    expect(finding).toMatchObject({ file: "src/sum.test.js", line: 5, rule: "test:sum adds" });
    expect(finding.message).toContain("Expected: 3");
  });

  it("gives nothing for a file that is not XML", () => {
    expect(junitFindings("not <xml", locator)).toEqual([]);
  });
});

describe("TAP from node --test", () => {
  it("reports failed tests, not the parents that failed only through them, nor skipped ones", () => {
    const tap = `TAP version 13
# Subtest: /src/src/sum.test.js
    # Subtest: sums
    not ok 1 - sums
      ---
      duration_ms: 1.1
      location: '/src/src/sum.test.js:3:1'
      failureType: 'testCodeFailure'
      error: 'boom'
      stack: |-
        helper (/src/src/helper.js:2:9)
        TestContext.<anonymous> (/src/src/sum.test.js:4:3)
      ...
    not ok 2 - later # SKIP
    1..2
not ok 1 - /src/src/sum.test.js
  ---
  duration_ms: 40
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  ...
1..1`;
    expect(tapFindings(tap, locator)).toEqual([
      { message: "boom", file: "src/sum.test.js", line: 4, rule: "test:sums" },
    ]);
  });
});
