// Settings: validated once, bad values named; the README's table lists every setting with its default.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, SETTINGS } from "../../src/config";

test("defaults load and bad values stop start-up naming each setting", () => {
  expect(loadConfig({}).API_PORT).toBe(8790);
  expect(() => loadConfig({ API_PORT: "http", TXRAY_SCHEDULER: "maybe" })).toThrow(ConfigError);
  try {
    loadConfig({ API_PORT: "http", TXRAY_SCHEDULER: "maybe" });
  } catch (error) {
    expect((error as Error).message).toContain("API_PORT");
    expect((error as Error).message).toContain("TXRAY_SCHEDULER");
  }
});

test("the README's settings table matches the settings, defaults and meanings", () => {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const rows = [...readme.matchAll(/^\| `([A-Z_]+)` \| (.+?) \| (.+?) \|$/gm)].map((m) => ({
    name: m[1],
    value: m[2],
    doc: m[3],
  }));
  expect(rows.map((r) => r.name)).toEqual(Object.keys(SETTINGS));
  for (const row of rows) {
    const setting = SETTINGS[row.name as keyof typeof SETTINGS];
    const parsed = (setting.schema as any).safeParse(undefined);
    expect(row.value).toBe(parsed.data === undefined ? "(unset)" : `\`${parsed.data}\``);
    expect(row.doc).toBe(setting.doc);
  }
});

test("compaction runs every minute by default: the small parts it has not merged yet are files every read of their day opens", () => {
  // Under a 10-minute default a wallet page at 10,000 envelopes/s paid for up to 10 minutes of
  // the resolver's parts (p95 1.6 s at minute 10 of a soak: bench/README.md, "Why the defaults").
  expect(loadConfig({}).COMPACT_INTERVAL_MS).toBeLessThanOrEqual(60_000);
  expect(loadConfig({}).COMPACT_INTERVAL_MS).toBeGreaterThanOrEqual(loadConfig({}).TABLES_INTERVAL_MS);
});
