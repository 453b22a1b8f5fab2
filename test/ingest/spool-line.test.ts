// The hand-built spool line parses back to exactly the envelope plus its attempt metadata.
import { expect, test } from "bun:test";
import { spoolLine, spoolLinePrefix } from "../../src/ingest/spool-line";
import { makeEnvelope, makePreflightEnvelope } from "../helpers/envelopes";

test("round-trips every field, including escaped free text and optional fields", () => {
  const prefix = spoolLinePrefix("acc_1", 1_763_700_000_123, "0192-batch");
  const envelopes = [
    makeEnvelope(),
    makeEnvelope({ rpcLabel: 'quote " and \\ backslash', walletAdapter: "Phantom\n", sdkVersion: "1.0.0-β", cuLimit: 1, cuPriceMicroLamports: 2, maxRetries: 0, skipPreflight: true, sendPath: "jito-bundle", nonce: false }),
    makePreflightEnvelope({ preflightError: 'Transaction simulation failed: {"InstructionError":[0,{"Custom":1}]}', simulationLogs: ["Program log: \u0000 odd", "line 2"] }),
    makeEnvelope({ payer: "0123456789abcdef0123456789abcdef" }),
  ];
  envelopes.forEach((envelope, index) => {
    const line = spoolLine(prefix, index, envelope);
    expect(line.endsWith("}\n")).toBe(true);
    expect(JSON.parse(line)).toEqual({ accountId: "acc_1", receivedAt: 1_763_700_000_123, attemptId: `0192-batch-${index.toString(36)}`, ...envelope });
  });
});
