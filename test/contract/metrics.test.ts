// The Prometheus text writer of GET /metrics: names, escaping, histograms, the bearer token check.
import { describe, expect, test } from "bun:test";
import { bearerTokenMatches, Counter, Gauge, Histogram, renderFamilies } from "../../src/contract/metrics";
import { parsePrometheusText } from "../helpers/prometheus-text";

describe("renderFamilies", () => {
  test("writes HELP and TYPE, then samples; label values and help text escaped as the format requires", () => {
    const counter = new Counter("demo_total", "Line one\nand a back\\slash.", ["route"]);
    counter.inc({ route: 'a "quoted" \\ path\nwith a line feed' }, 2);
    counter.inc({ route: "/v1/plain" });
    const gauge = new Gauge("demo_bytes", "A gauge.");
    gauge.set(1.5);
    const text = renderFamilies([counter, gauge]);
    expect(text).toContain("# HELP demo_total Line one\\nand a back\\\\slash.\n# TYPE demo_total counter\n");
    expect(text).toContain('demo_total{route="a \\"quoted\\" \\\\ path\\nwith a line feed"} 2\n');
    const parsed = parsePrometheusText(text);
    expect(parsed.get("demo_total")!.samples.map((s) => [s.labels.route, s.value])).toEqual([
      ['a "quoted" \\ path\nwith a line feed', 2],
      ["/v1/plain", 1],
    ]);
    expect(parsed.get("demo_bytes")!.samples[0].value).toBe(1.5);
  });

  test("a histogram has cumulative buckets ending at +Inf, a sum and a count per series", () => {
    const histogram = new Histogram("demo_seconds", "Durations.", ["status"], [0.1, 1]);
    for (const seconds of [0.05, 0.5, 5]) histogram.observe(seconds, { status: "200" });
    histogram.observe(0.1, { status: "500" });
    const samples = parsePrometheusText(renderFamilies([histogram])).get("demo_seconds")!.samples;
    const ok = samples.filter((s) => s.labels.status === "200").map((s) => [s.name, s.labels.le ?? "", s.value]);
    expect(ok).toEqual([
      ["demo_seconds_bucket", "0.1", 1],
      ["demo_seconds_bucket", "1", 2],
      ["demo_seconds_bucket", "+Inf", 3],
      ["demo_seconds_sum", "", 5.55],
      ["demo_seconds_count", "", 3],
    ]);
    // A value equal to a bound falls in that bucket (le: less than or equal).
    expect(samples.find((s) => s.labels.status === "500" && s.labels.le === "0.1")!.value).toBe(1);
  });

  test("refuses invalid names, reserved labels, mismatched label sets and a counter going down", () => {
    expect(() => new Counter("bad-name", "x")).toThrow();
    expect(() => new Histogram("h", "x", ["le"], [1])).toThrow();
    expect(() => new Histogram("h", "x", [], [1, 1])).toThrow();
    const counter = new Counter("c_total", "x", ["job"]);
    expect(() => counter.inc({ other: "y" })).toThrow();
    expect(() => counter.inc({ job: "y" }, -1)).toThrow();
  });
});

test("bearerTokenMatches: only the exact token after Bearer", () => {
  const token = "s3cret-token-0123456789";
  expect(bearerTokenMatches(`Bearer ${token}`, token)).toBe(true);
  expect(bearerTokenMatches(`bearer ${token}`, token)).toBe(true);
  expect(bearerTokenMatches(`Bearer ${token}x`, token)).toBe(false);
  expect(bearerTokenMatches(token, token)).toBe(false);
  expect(bearerTokenMatches(null, token)).toBe(false);
});
