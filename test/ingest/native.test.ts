// The native ingest fast path against the JavaScript path it must never contradict: for valid SDK
// batches and 12,000 mutated bodies (bytes and fields), prepareBatch answers exactly
// the same with and without it (same verdict, same error, same spool bytes), and it does take the
// usual batches (otherwise it would be dead weight).
import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNativeEncoder, loadNativeEncoder } from "../../src/ingest/native";
import { type PrepareDeps, prepareBatch } from "../../src/ingest/prepare";
import { ENVELOPE_FIELDS } from "../../src/shared/envelope-fields";
import { spoolLinePrefix } from "../../src/spool/line-format";
import { makeEnvelope, makePreflightEnvelope, randomAddress, randomSignature } from "../helpers/envelopes";

const built = buildNativeEncoder();
const native = built === null ? loadNativeEncoder() : null;
const LIVE = "txr_live_fuzzkey";
const principal = (key: string) =>
  key === LIVE
    ? { accountId: "acc_fuzz", accountName: "fuzz", scope: "live" as const, keyId: "key_1" }
    : key === "txr_read_x"
      ? { accountId: "acc_fuzz", accountName: "fuzz", scope: "read" as const, keyId: "key_2" }
      : null;
const javascript: PrepareDeps = { principal, maxBatch: 50 };
const withNative: PrepareDeps = { principal, maxBatch: 50, native };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-/g;

function answer(body: Uint8Array, headerKey: string | null, deps: PrepareDeps) {
  const result = prepareBatch({ body, headerKey, receivedAt: 1_763_700_000_000 }, deps);
  return result.ok ? { ...result, lines: new TextDecoder().decode(result.lines).replace(UUID, "<batch>-") } : result;
}

function seededRandom(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
}

function sdkBatch(random: () => number) {
  const program = randomAddress();
  return Array.from({ length: 1 + Math.floor(random() * 20) }, (_, i) => {
    const options =
      random() < 0.5
        ? {
            cuLimit: Math.floor(random() * 1_400_000),
            cuPriceMicroLamports: Math.floor(random() * 1e9),
            maxRetries: 0,
            skipPreflight: random() < 0.5,
            sendPath: "rpc",
            ixPrefix: ["", "02", "0200000040420f00", "e517cb977ae3ad2a"][Math.floor(random() * 4)],
            ...(i % 3 === 0 ? { nonce: true, nonceAccount: randomAddress() } : { nonce: false }),
          }
        : {};
    const logs =
      random() < 0.5
        ? []
        : ["Program 11111111111111111111111111111111 invoke [1]", "Program log: Error: insufficient funds", ""];
    return random() < 0.15
      ? makePreflightEnvelope({
          program,
          simulationLogs: logs,
          ...(random() < 0.5 ? { sig: randomSignature() } : {}),
          ...options,
        })
      : makeEnvelope({ program, sentAt: 1_763_700_000_000 + i, ...options });
  });
}

const MUTANTS: unknown[] = [
  null,
  true,
  0,
  -0,
  1e3,
  1.5,
  -1,
  2 ** 53,
  "",
  " ",
  "x".repeat(70),
  "é",
  'a"b',
  "a\\b",
  "\t",
  "\u0000",
  "\ud800",
  "send",
  "preflight",
  [],
  ["log"],
  ["a", "", "b c"],
  Array(200).fill("x"),
  Array(201).fill("x"),
  ["x".repeat(2048)],
  ["x".repeat(2049)],
  ["tab\there"],
  ["é"],
  [1],
  {},
  "11111111111111111111111111111111",
  "0123456789abcdef",
  "0",
  "0a",
  "0A",
  "0123456789abcdef01",
  "zz",
];
// Every field of the envelope table, and one it does not know (ignored, never a 400).
const FIELDS = [...ENVELOPE_FIELDS.map((field) => field.name), "unknownField"];

test.skipIf(built !== null)("builds with this machine's C compiler", () => {
  expect(native).not.toBeNull();
});

test.skipIf(built !== null)("takes the usual SDK batches, with the key in the header or first in the body", () => {
  const random = seededRandom(1);
  for (let i = 0; i < 200; i++) {
    const envelopes = sdkBatch(random);
    const viaBody = new TextEncoder().encode(JSON.stringify({ apiKey: LIVE, envelopes }));
    const prefix = new TextEncoder().encode(spoolLinePrefix("acc_fuzz", 1, "b"));
    expect(native!.encode(viaBody, prefix, 50)).not.toBeNull();
    expect(answer(viaBody, null, withNative)).toEqual(answer(viaBody, null, javascript));
    const viaHeader = new TextEncoder().encode(JSON.stringify({ envelopes }, null, i % 2 ? 2 : undefined));
    expect(answer(viaHeader, LIVE, withNative)).toEqual(answer(viaHeader, LIVE, javascript));
  }
});

test.skipIf(built !== null)(
  "never answers differently from the JavaScript path on mutated bodies",
  () => {
    const random = seededRandom(2);
    let accepted = 0;
    for (let i = 0; i < 12_000; i++) {
      const envelopes: Record<string, unknown>[] = sdkBatch(random).map((e) => ({ ...e }));
      const target = envelopes[Math.floor(random() * envelopes.length)];
      const field = FIELDS[Math.floor(random() * FIELDS.length)];
      if (random() < 0.7) {
        const value = MUTANTS[Math.floor(random() * MUTANTS.length)];
        if (random() < 0.1) delete target[field];
        else target[field] = value;
      }
      const top: Record<string, unknown> =
        random() < 0.5 ? { apiKey: random() < 0.9 ? LIVE : "txr_read_x", envelopes } : { envelopes, apiKey: LIVE };
      if (random() < 0.05) top.extra = 1;
      let text = JSON.stringify(top);
      if (random() < 0.3) {
        // Byte-level damage: a duplicate key, a deleted or replaced character, an escape.
        const at = Math.floor(random() * text.length);
        const edits = [`"sig":null,`, "", "\\u0041", " ", ",", "}", "1e2", "-", "\u00e9"];
        text =
          text.slice(0, at) + edits[Math.floor(random() * edits.length)] + text.slice(at + (random() < 0.5 ? 1 : 0));
      }
      const body = new TextEncoder().encode(text);
      const headerKey = random() < 0.3 ? (random() < 0.8 ? LIVE : "txr_live_nope") : null;
      const expected = answer(body, headerKey, javascript);
      expect(answer(body, headerKey, withNative)).toEqual(expected);
      if (expected.ok) accepted++;
    }
    expect(accepted).toBeGreaterThan(2000); // both verdicts were exercised
  },
  60_000,
);

test("without a C compiler nothing is built and nothing is loaded: ingest stays JavaScript", () => {
  const cacheDir = mkdtempSync(join(tmpdir(), "txray-native-"));
  try {
    expect(buildNativeEncoder({ cacheDir, searchPath: "/nonexistent" })).toContain("no C compiler");
    expect(loadNativeEncoder({ cacheDir })).toBeNull();
    expect(readdirSync(cacheDir)).toEqual([]);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});
