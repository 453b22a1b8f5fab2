// The spool line format round-trips: what ingest encodes, flush's DuckDB reader decodes to exactly
// the envelope plus its attempt metadata, for awkward text as much as for ordinary values.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDuck } from "../../src/lake/duckdb";
import { spoolRowsSql } from "../../src/lake/flush-spool";
import { decodeSpoolLine, encodeSpoolBatch, SPOOL_COLUMNS } from "../../src/spool/line-format";
import { makeEnvelope, makePreflightEnvelope } from "../helpers/envelopes";

const dir = mkdtempSync(join(tmpdir(), "txray-spool-line-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("every field survives the spool, including escaped free text, logs and optional fields", async () => {
  const envelopes = [
    makeEnvelope(),
    makeEnvelope({
      rpcLabel: 'quote " and \\ backslash',
      walletAdapter: "Phantom\ttab\nnewline",
      sdkVersion: "1.0.0-β",
      cuLimit: 1,
      cuPriceMicroLamports: 2,
      maxRetries: 0,
      skipPreflight: true,
      sendPath: "jito-bundle",
      nonce: true,
      ixPrefix: "e517cb977ae3ad2a",
      nonceAccount: "Bnqf7Do8xpxv7bCbwxkuRLbGQVGvPd67NhqHcY2wG9Ku",
      sentSlot: 289_000_000,
    }),
    makeEnvelope({ ixPrefix: "" }),
    makePreflightEnvelope({
      preflightError: 'Transaction simulation failed: {"InstructionError":[0,{"Custom":1}]}',
      simulationLogs: ["Program log: \u0000 odd", "line 2\r\n", "emoji 🚀", "\\N"],
    }),
    makeEnvelope({
      payer: "0123456789abcdef0123456789abcdef",
      walletAdapter: "",
      rpcLabel: "\\N",
      sdkVersion: '"quoted"',
    }),
    makeEnvelope({ walletAdapter: "lone \ud800 surrogate", sendPath: "[]" }),
  ];
  const file = join(dir, "node-0000000000001-abcdef.sealed");
  writeFileSync(
    file,
    Buffer.concat([
      encodeSpoolBatch("acc_1", 1_763_700_000_123, "0192-batch", envelopes),
      encodeSpoolBatch("acc_2", 1_763_700_000_456, "0193-batch", [makeEnvelope()]),
    ]),
  );

  const duck = await openDuck();
  const rows = await duck.all<Record<string, unknown>>(
    `SELECT * FROM (${spoolRowsSql({ tsv: [file], ndjson: [] })}) ORDER BY attempt_id`,
  );
  duck.close();
  expect(rows).toHaveLength(7);
  envelopes.forEach((e, index) => {
    expect(rows[index]).toEqual({
      attempt_id: `0192-batch-${index.toString(36)}`,
      account_id: "acc_1",
      received_at: 1_763_700_000_123,
      spool_segment: "node-0000000000001-abcdef",
      sig: e.sig,
      blockhash: e.blockhash,
      last_valid_block_height: e.lastValidBlockHeight,
      sent_at: e.sentAt,
      rpc_hash: e.rpcHash,
      rpc_label: e.rpcLabel,
      wallet_adapter: e.walletAdapter.toWellFormed(),
      kind: e.kind,
      preflight_error: e.preflightError,
      simulation_logs: e.simulationLogs,
      payer: e.payer,
      sdk_version: e.sdkVersion,
      cu_limit: e.cuLimit ?? null,
      cu_price_micro_lamports: e.cuPriceMicroLamports ?? null,
      max_retries: e.maxRetries ?? null,
      skip_preflight: e.skipPreflight ?? null,
      send_path: e.sendPath ?? null,
      nonce: e.nonce ?? null,
      ix_prefix: e.ixPrefix ?? null,
      nonce_account: e.nonceAccount ?? null,
      sent_slot: e.sentSlot ?? null,
      program: e.program,
      day: "2025-11-21",
    });
  });
  expect(rows[6].account_id).toBe("acc_2");
});

test("a spool line never holds a raw tab or newline inside a field, whatever the text", () => {
  const nasty = ["\t", "\n", "\r", "a\tb", "\u2028", '"', "\\"].map((text) =>
    makeEnvelope({ rpcLabel: text, walletAdapter: text, sdkVersion: text, sendPath: text }),
  );
  const lines = new TextDecoder().decode(encodeSpoolBatch("acc_1", 1, "b", nasty)).split("\n");
  expect(lines.at(-1)).toBe("");
  for (const line of lines.slice(0, -1)) expect(line.split("\t")).toHaveLength(SPOOL_COLUMNS.length);
});

test("a batch whose envelopes share, then change, then share again their provider and options encodes each one's own values", async () => {
  const base = makeEnvelope({ cuLimit: 10 });
  const envelopes = [
    base,
    makeEnvelope({ cuLimit: 10 }),
    makeEnvelope({ cuLimit: 11 }),
    makeEnvelope({ cuLimit: 11, walletAdapter: "Solflare" }),
    makeEnvelope({ cuLimit: 10 }),
    makePreflightEnvelope({ simulationLogs: ["a"] }),
    makePreflightEnvelope({ simulationLogs: ["b"] }),
  ];
  const file = join(dir, "node-0000000000002-abcdef.sealed");
  writeFileSync(file, encodeSpoolBatch("acc_1", 1_763_700_000_123, "0194-batch", envelopes));
  const duck = await openDuck();
  const rows = await duck.all<Record<string, unknown>>(
    `SELECT sig, cu_limit, wallet_adapter, simulation_logs FROM (${spoolRowsSql({ tsv: [file], ndjson: [] })}) ORDER BY attempt_id`,
  );
  duck.close();
  expect(rows).toEqual(
    envelopes.map((e) => ({
      sig: e.sig,
      cu_limit: e.cuLimit ?? null,
      wallet_adapter: e.walletAdapter,
      simulation_logs: e.simulationLogs,
    })),
  );
});

/** The previous versions' bytes: the same lines without their last `drop` fields. */
function withoutLastFields(lines: string, drop: number): string {
  return lines
    .split("\n")
    .map((line) => (line === "" ? line : line.split("\t").slice(0, -drop).join("\t")))
    .join("\n");
}

test("lines written before ix_prefix, nonce_account and sent_slot existed (22, 23 and 24 fields) are still read, as null", async () => {
  const envelopes = [
    makeEnvelope({
      ixPrefix: "02000000",
      nonce: true,
      nonceAccount: "Bnqf7Do8xpxv7bCbwxkuRLbGQVGvPd67NhqHcY2wG9Ku",
      sentSlot: 289_000_000,
    }),
    makeEnvelope(),
  ];
  const current = new TextDecoder().decode(encodeSpoolBatch("acc_1", 1_763_700_000_123, "0195-batch", envelopes));
  const files = [3, 2, 1].map((drop, i) => {
    const file = join(dir, `node-000000000000${3 + i}-abcdef.sealed`);
    writeFileSync(file, withoutLastFields(current.replaceAll("0195-batch", `019${5 + i}-batch`), drop));
    return file;
  });
  const duck = await openDuck();
  const rows = await duck.all<Record<string, unknown>>(
    `SELECT sig, nonce, ix_prefix, nonce_account, sent_slot FROM (${spoolRowsSql({ tsv: files, ndjson: [] })}) ORDER BY attempt_id`,
  );
  duck.close();
  const row = (e: (typeof envelopes)[number], kept: number) => ({
    sig: e.sig,
    nonce: e.nonce ?? null,
    ix_prefix: kept > 0 ? (e.ixPrefix ?? null) : null,
    nonce_account: kept > 1 ? (e.nonceAccount ?? null) : null,
    sent_slot: null,
  });
  expect(rows).toEqual([0, 1, 2].flatMap((kept) => envelopes.map((e) => row(e, kept))));
});

test("a line read back from the spool gives its fields (why reads envelopes not flushed yet)", () => {
  const e = makeEnvelope({ walletAdapter: 'quote " tab\t', cuLimit: 5, ixPrefix: "0a0b", nonce: true });
  const [line] = new TextDecoder().decode(encodeSpoolBatch("acc_1", 1_763_700_000_123, "0196-batch", [e])).split("\n");
  const fields = decodeSpoolLine(line)!;
  expect(fields).toMatchObject({
    account_id: "acc_1",
    received_at: "1763700000123",
    attempt_id: "0196-batch-0",
    sig: e.sig,
    wallet_adapter: 'quote " tab\t',
    cu_limit: "5",
    ix_prefix: "0a0b",
    nonce: "true",
    max_retries: null,
    simulation_logs: "[]",
  });
  expect(decodeSpoolLine("not\ta\tline")).toBeNull();
});
