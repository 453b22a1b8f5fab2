// `txray idl fetch` and the deploys job read a program's on-chain Anchor IDL account (zlib-deflated
// JSON at the address Anchor derives) over SOLANA_RPC_URL and register it for the decoder.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { anchorIdlAddress, IDL_ACCOUNT_DISCRIMINATOR, loadIdls, refreshOnchainIdls } from "../../src/chain/idl";
import { createRpcClient } from "../../src/chain/rpc";
import { run } from "../../src/cli/commands";
import { randomAddress } from "../helpers/envelopes";
import { startRecordedRpc } from "../helpers/recorded-rpc";

const PUMP = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";
const idlText = readFileSync(join(import.meta.dir, "..", "fixtures", "mainnet", "07_idl_pumpfun_legacy.json"), "utf8");
function idlAccount(json: string): Uint8Array {
  const payload = deflateSync(Buffer.from(json));
  const data = new Uint8Array(44 + payload.length);
  data.set(IDL_ACCOUNT_DISCRIMINATOR, 0);
  new DataView(data.buffer).setUint32(40, payload.length, true);
  data.set(payload, 44);
  return data;
}
const rpc = startRecordedRpc([], { accounts: { [anchorIdlAddress(PUMP)]: idlAccount(idlText) } });
const dataDir = mkdtempSync(join(tmpdir(), "txray-idl-"));
afterAll(() => {
  rpc.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("idl fetch stores the published IDL; a program without one is a clear error", async () => {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (t: string) => (stdout += t),
    stderr: (t: string) => (stderr += t),
    env: { TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: rpc.url },
  };
  expect(await run(["idl", "fetch", PUMP], io)).toBe(0);
  expect(stdout).toContain(`stored on-chain IDL "pumpfun" for ${PUMP}`);
  const registry = loadIdls(dataDir);
  expect(registry.errorFor(PUMP, 6002)?.name).toBe("TooMuchSolRequired");
  expect(await run(["idl", "fetch", randomAddress()], io)).toBe(1);
  expect(stderr).toContain("publishes no Anchor IDL account");
});

test("the deploys job's refresh fetches IDLs for new and redeployed programs only", async () => {
  const other = randomAddress();
  const client = createRpcClient({ url: rpc.url });
  const first = await refreshOnchainIdls(join(dataDir, "second"), client, [PUMP, other], new Set());
  expect(first.fetched).toEqual([PUMP]);
  expect(existsSync(join(dataDir, "second", "idl", `${PUMP}.json`))).toBe(true);
  const calls = client.stats().calls;
  expect((await refreshOnchainIdls(join(dataDir, "second"), client, [PUMP], new Set())).fetched).toEqual([]);
  expect(client.stats().calls).toBe(calls); // already known, not redeployed: no RPC call
  expect((await refreshOnchainIdls(join(dataDir, "second"), client, [PUMP], new Set([PUMP]))).fetched).toEqual([PUMP]);
});
