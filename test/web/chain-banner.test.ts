// The chain banner's sentence and the home page's figures for a program with nothing resolved yet,
// from /v1/status's `chain` (the pages render them as text nodes).
import { expect, test } from "bun:test";
import { chainBannerText, resolvedOr } from "../../src/web/pages/common";

const since = Date.UTC(2026, 11, 2, 4, 0, 0);

test("the chain unreachable: since when and how it fails; reachable or never asked: no banner", () => {
  expect(chainBannerText({ reachable: false, since, lastError: "timeout" }, since + 120_000)).toBe(
    "The Solana RPC endpoint cannot be reached since 2026-12-02 04:00:00 UTC (2 min ago): it does not answer in time. Attempts sent meanwhile stay pending, and out of every figure, until it answers.",
  );
  expect(chainBannerText({ reachable: false, since: null, lastError: null })).toStartWith(
    "The Solana RPC endpoint cannot be reached: its requests fail.",
  );
  expect(chainBannerText({ reachable: true, since, lastError: "timeout" })).toBeNull();
  expect(chainBannerText({ reachable: null, since: null, lastError: null })).toBeNull();
  expect(chainBannerText(undefined)).toBeNull();
});

test("a program with no resolved attempt reads pending, not 0 attempts at 0.0%", () => {
  expect(resolvedOr(0, "0.0%")).toBe("pending");
  expect(resolvedOr(null, "–")).toBe("pending");
  expect(resolvedOr(12, "91.7%")).toBe("91.7%");
});
