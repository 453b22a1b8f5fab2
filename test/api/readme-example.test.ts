// The README's quick-start envelope, taken from the README itself, against the local chain: it is
// accepted and resolves (as `dropped`: its signature is made up and its blockhash long expired), so
// `why/…` and `diagnose-drop/…` answer as the README says, instead of it staying pending forever.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Localnet, startLocalnet } from "../../devkit/localnet";
import { loadIdls } from "../../src/chain/idl";
import { createRpcClient } from "../../src/chain/rpc";
import { flushJob } from "../../src/jobs/flush";
import { runJob } from "../../src/jobs/run";
import { resolveUntilSettled } from "../helpers/resolve";
import { type TestServer, testServer } from "../helpers/server";

let chain: Localnet;
let t: TestServer;
beforeAll(async () => {
  chain = await startLocalnet({ blockTimeMs: 0 });
  chain.advanceBlocks(3); // a chain past block height 0, like any running one
  t = await testServer({ SOLANA_RPC_URL: chain.url });
});
afterAll(async () => {
  await t?.stop();
  await chain?.stop();
});

/** The body of the README's `curl … /v1/ingest -d '…'`, with its shell substitutions done. */
function readmeBody(key: string): string {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const quoted = /\/v1\/ingest -H 'content-type: application\/json' -d '([\s\S]*?)'\n/.exec(readme)![1];
  return quoted.replace(`'$KEY'`, key).replace(`'$(date +%s000)'`, String(Date.now()));
}

test("the README's example envelope is accepted and resolves on the local chain", async () => {
  const body = JSON.parse(readmeBody(t.key("my-dapp")));
  const sig = body.envelopes[0].sig;
  expect((await t.ingest(body)).status).toBe(202);
  expect((await runJob(t.ctx, flushJob, { spool: t.server.spool ?? undefined })).ok).toBe(true);
  const rpc = createRpcClient({ url: chain.url });
  await resolveUntilSettled(t.ctx, { rpc, idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 5 }); // a drop's second look-up is a later run, as `txray jobs run resolve` does
  const why = await t.get(`/v1/why/${sig}`);
  expect(why.status).toBe(200);
  expect(why.body.outcome).toBe("dropped");
  const drop = await t.get(`/v1/diagnose-drop/${sig}`);
  expect(drop.body.dropClass).toBe("expired_blockhash");
});
