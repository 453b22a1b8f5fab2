// A deploy's source from a verified-build record on the LiteSVM local chain: an upgradeable program
// deployed, then upgraded, each deploy followed by its upgrade authority writing its record account
// (the PDA ["otter_verify", signer, program] of the verify program), laid out as otter-sec/otter-verify
// `programs/otter-verify/src/lib.rs` declares it:
//   #[account] BuildParams { address: Pubkey, signer: Pubkey, version: String, git_url: String,
//                            commit: String, args: Vec<String>, deploy_slot: u64, bump: u8 }
// behind Anchor's 8-byte account discriminator sha256("account:BuildParams")[..8]; Update rewrites
// the same account, so one record names only the latest verified deploy. The deploys job reads the
// records through the chain's JSON-RPC, and release-diff names both commits and links the range, in
// its object and in the text MCP and Slack show with it.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import { type Localnet, startLocalnet } from "../../../devkit/localnet";
import { buildServingTables } from "../../../src/analytics/tables/build";
import { OTTER_VERIFY_PROGRAM_ID, verificationRecordAddress } from "../../../src/chain/deploys";
import { summarize } from "../../../src/contract";
import { addProgramCounts } from "../../../src/control";
import { deploysJob } from "../../../src/jobs/deploys";
import { runJob } from "../../../src/jobs/run";
import { type TestServer, testServer } from "../../helpers/server";

const REPOSITORY = "https://github.com/acme/vault";
const FIRST_COMMIT = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";
const SECOND_COMMIT = "89abcdef0123456789abcdef0123456789abcdef";

let localnet: Localnet;
let t: TestServer;

/** Borsh, as Anchor serializes the record: u32 LE lengths before strings and vectors. */
function buildParamsAccount(program: string, signer: string, commit: string, deploySlot: number, bump: number) {
  const string = (value: string) => {
    const bytes = Buffer.from(value, "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const count = Buffer.alloc(4);
  count.writeUInt32LE(2);
  const slot = Buffer.alloc(8);
  slot.writeBigUInt64LE(BigInt(deploySlot));
  return Buffer.concat([
    createHash("sha256").update("account:BuildParams").digest().subarray(0, 8),
    new PublicKey(program).toBuffer(),
    new PublicKey(signer).toBuffer(),
    string("0.4.8"),
    string(REPOSITORY),
    string(commit),
    count,
    string("--library-name"),
    string("vault"),
    slot,
    Buffer.from([bump]),
  ]);
}

/** What `solana-verify` leaves after a deploy: the signer's record naming `commit` and the deploy's slot. */
function writeRecord(program: string, signer: string, commit: string, deploySlot: number) {
  const [address, bump] = PublicKey.findProgramAddressSync(
    [Buffer.from("otter_verify"), new PublicKey(signer).toBuffer(), new PublicKey(program).toBuffer()],
    new PublicKey(OTTER_VERIFY_PROGRAM_ID),
  );
  expect(address.toBase58()).toBe(verificationRecordAddress(signer, program));
  const data = buildParamsAccount(program, signer, commit, deploySlot, bump);
  localnet.chain.setAccount(address.toBase58(), {
    lamports: localnet.chain.minimumBalanceForRentExemption(data.length),
    data,
    owner: OTTER_VERIFY_PROGRAM_ID,
    executable: false,
  });
}

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  t = await testServer({ SOLANA_RPC_URL: localnet.url });
});
afterAll(async () => {
  await t?.stop();
  await localnet?.stop();
});

test("an upgraded program's verified-build records: release-diff names both commits and the compare link", async () => {
  const first = localnet.deployProgram();
  const program = first.programId;
  addProgramCounts(t.ctx.control, [{ accountId: "acc_test", program, attempts: 1, lastSeen: 1 }]);
  writeRecord(program, first.authority!, FIRST_COMMIT, first.slot);
  expect((await runJob(t.ctx, deploysJob)).details).toMatchObject({ recorded: 1, sourcesFound: 1 });

  localnet.advanceBlocks(5);
  const upgrade = localnet.deployProgram(program, { template: "spl-token" });
  expect(upgrade.slot).toBeGreaterThan(first.slot);
  writeRecord(program, upgrade.authority!, SECOND_COMMIT, upgrade.slot);
  expect((await runJob(t.ctx, deploysJob)).details).toMatchObject({ recorded: 1, sourcesFound: 1 });

  await buildServingTables(t.ctx);
  const { status, body } = await t.get(`/v1/release-diff/${program}?window=7d`);
  expect(status).toBe(200);
  expect(body.deploy).toMatchObject({
    slot: upgrade.slot,
    authority: upgrade.authority,
    source: { repository: REPOSITORY, commit: SECOND_COMMIT },
  });
  expect(body.previousDeploy).toMatchObject({
    slot: first.slot,
    source: { repository: REPOSITORY, commit: FIRST_COMMIT },
  });
  expect(body.compareUrl).toBe(`${REPOSITORY}/compare/${FIRST_COMMIT}...${SECOND_COMMIT}`);
  // The text an MCP tool (and the Slack bot) gives next to the object says the commit and the range.
  expect(summarize("release_diff", body).lines).toContain(
    `Built from commit ${SECOND_COMMIT} of ${REPOSITORY}; changes since the previous deploy: ${body.compareUrl}.`,
  );
  // The older deploy asked for by slot keeps the commit read when it was the latest.
  const older = await t.get(`/v1/release-diff/${program}?window=7d&deploy=${first.slot}`);
  expect(older.body.deploy.source).toEqual({ repository: REPOSITORY, commit: FIRST_COMMIT });
});
