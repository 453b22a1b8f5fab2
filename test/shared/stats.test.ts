import { describe, expect, test } from "bun:test";
import { erfc, rates, twoProportionPValue, wilson } from "../../src/shared/stats";

describe("wilson", () => {
  test("matches textbook 95% intervals", () => {
    const [lo, hi] = wilson(5, 10);
    expect(lo).toBeCloseTo(0.2366, 4);
    expect(hi).toBeCloseTo(0.7634, 4);
    const [lo2, hi2] = wilson(81, 263);
    expect(lo2).toBeCloseTo(0.2553, 3);
    expect(hi2).toBeCloseTo(0.3662, 3);
  });
  test("edges are exact and empty samples give [0, 0]", () => {
    expect(wilson(0, 10)[0]).toBe(0);
    expect(wilson(0, 10)[1]).toBeCloseTo(0.2775, 4);
    expect(wilson(10, 10)[1]).toBe(1);
    expect(wilson(0, 0)).toEqual([0, 0]);
  });
});

describe("two-proportion z-test", () => {
  test("known p-values", () => {
    // 20/100 vs 35/100: z ≈ 2.37, two-sided p ≈ 0.0179
    expect(twoProportionPValue(20, 100, 35, 100)).toBeCloseTo(0.0179, 3);
    expect(twoProportionPValue(10, 100, 10, 100)).toBeCloseTo(1, 6);
    expect(twoProportionPValue(0, 0, 5, 10)).toBe(1);
    expect(twoProportionPValue(0, 1000, 0, 1000)).toBe(1);
  });
  test("erfc", () => {
    expect(erfc(0)).toBeCloseTo(1, 6);
    expect(erfc(1)).toBeCloseTo(0.157299, 5);
    expect(erfc(-1)).toBeCloseTo(1.842701, 5);
  });
});

test("rates: shares of resolved attempts with intervals", () => {
  const r = rates({ landed: 80, failedOnchain: 10, dropped: 6, preflight: 4 });
  expect(r.attempts).toBe(100);
  expect(r.landingRate).toBe(0.8);
  expect(r.dropRate).toBe(0.06);
  expect(r.ci95.landingRate).toEqual(wilson(80, 100));
  expect(rates({ landed: 0, failedOnchain: 0, dropped: 0, preflight: 0 }).landingRate).toBe(0);
});
