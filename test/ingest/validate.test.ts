// The hot-path validator must agree with the zod schema of record on every input: same verdict,
// same output (unknown fields dropped, fields in schema order). Fuzzed with valid envelopes and
// single-field mutations of every kind.
import { expect, test } from "bun:test";
import { fastEnvelope, validateIngestBody } from "../../src/ingest/validate";
import { envelopeSchema } from "../../src/shared/envelope";
import { ENVELOPE_FIELDS } from "../../src/shared/envelope-fields";
import { TxrayError } from "../../src/shared/errors";
import { makeEnvelope, makePreflightEnvelope, randomSignature } from "../helpers/envelopes";

// Every field of the envelope table, and one it does not know (ignored, never a 400).
const FIELDS = [...ENVELOPE_FIELDS.map((field) => field.name), "extra"];
const VALUES: unknown[] = [
  undefined,
  null,
  "",
  "x",
  "send",
  "preflight",
  0,
  -1,
  1.5,
  1_763_700_000_000,
  1_763_700_000,
  2 ** 53,
  1_400_001,
  1000,
  1001,
  true,
  false,
  [],
  ["log"],
  [1],
  {},
  "a1b2c3d4e5f60718",
  "A1B2C3D4E5F60718",
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "11111111111111111111111111111111",
  "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
  randomSignature(),
  "x".repeat(65),
  "deadbeefdeadbeef",
  "0".repeat(64),
  "0a",
  "0",
  "0a0b0c0d0e0f0a0b0c",
  "ABCD",
  Array.from({ length: 201 }, () => "l"),
  ["y".repeat(2049)],
  "e".repeat(8193),
];

function seededRandom(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

test("fast path and zod agree on 20,000 valid and mutated envelopes", () => {
  const random = seededRandom(42);
  let valid = 0;
  for (let i = 0; i < 20_000; i++) {
    const base: Record<string, unknown> =
      i % 3 === 0 ? { ...makePreflightEnvelope() } : { ...makeEnvelope({ cuLimit: 200_000 }) };
    const mutations = i % 10 === 0 ? 0 : 1 + Math.floor(random() * 2);
    for (let m = 0; m < mutations; m++) {
      const field = FIELDS[Math.floor(random() * FIELDS.length)];
      const value = VALUES[Math.floor(random() * VALUES.length)];
      if (value === undefined) delete base[field];
      else base[field] = value;
    }
    const fast = fastEnvelope(base);
    const zod = envelopeSchema.safeParse(base);
    if (zod.success !== (fast !== null)) throw new Error(`disagree on ${JSON.stringify(base)}: zod ${zod.success}`);
    if (zod.success) {
      valid++;
      expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
    }
  }
  expect(valid).toBeGreaterThan(2000); // the fuzz exercised both verdicts
});

test("a bad batch is named by zod's path", () => {
  const envelopes = [makeEnvelope(), { ...makeEnvelope(), rpcHash: "nope" }];
  try {
    validateIngestBody({ envelopes });
    throw new Error("expected a schema violation");
  } catch (error) {
    expect(error).toBeInstanceOf(TxrayError);
    expect((error as TxrayError).code).toBe("schema_violation");
    expect((error as TxrayError).message).toStartWith("envelopes[1].rpcHash:");
  }
});

test("batches (where checked addresses are remembered) get zod's verdict too", () => {
  const random = seededRandom(7);
  for (let i = 0; i < 3000; i++) {
    const shared = makeEnvelope();
    const batch: Record<string, unknown>[] = Array.from({ length: 4 }, () => ({
      ...makeEnvelope({ program: shared.program, blockhash: shared.blockhash, payer: shared.payer }),
    }));
    if (i % 2 === 0) {
      const target = batch[Math.floor(random() * batch.length)];
      const field = ["program", "blockhash", "payer", "sig"][Math.floor(random() * 4)];
      target[field] = VALUES[Math.floor(random() * VALUES.length)];
    }
    let fastOk = true;
    try {
      validateIngestBody({ envelopes: batch });
    } catch {
      fastOk = false;
    }
    const zodOk = batch.every((envelope) => envelopeSchema.safeParse(envelope).success);
    if (fastOk !== zodOk) throw new Error(`disagree on batch ${JSON.stringify(batch)}`);
  }
});
