// A deploy's source from its verified-build record (OtterSec verify program): the record's layout,
// which signers are believed, the per-deploy cache, and release-diff naming the commits.

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withSources } from "../../../src/analytics/queries/release-diff";
import {
  compareUrl,
  decodeVerificationRecord,
  deploySource,
  fetchDeploySource,
  OTTERSEC_SIGNERS,
  refreshDeploySources,
  verificationRecordAddress,
} from "../../../src/chain/deploys";
import { randomAddress } from "../../helpers/envelopes";
import { accountsRpc, verificationRecord } from "./verified-records";

const PROGRAM = randomAddress();
const AUTHORITY = randomAddress();
const STRANGER = randomAddress();
const REPO = "https://github.com/acme/vault";

const record = (signer: string, commit: string, deployedSlot: number, repository = REPO) =>
  [
    verificationRecordAddress(signer, PROGRAM),
    verificationRecord({ program: PROGRAM, signer, repository, commit, deployedSlot }),
  ] as const;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("a record decodes; truncated or hostile data is no record", () => {
  const data = verificationRecord({
    program: PROGRAM,
    signer: AUTHORITY,
    repository: REPO,
    commit: "abc123",
    deployedSlot: 42,
  });
  expect(decodeVerificationRecord(data)).toEqual({
    program: PROGRAM,
    signer: AUTHORITY,
    version: "0.4.3",
    repository: REPO,
    commit: "abc123",
    args: ["--library-name", "vault"],
    deployedSlot: 42,
  });
  for (let cut = 0; cut < data.length - 1; cut += 7) expect(decodeVerificationRecord(data.subarray(0, cut))).toBeNull();
  // A record from before the program stored `deploy_slot`: the args, then the bump.
  const withoutSlot = Buffer.concat([data.subarray(0, data.length - 9), data.subarray(data.length - 1)]);
  expect(decodeVerificationRecord(withoutSlot)).toBeNull();
  const huge = data.slice();
  new DataView(huge.buffer).setUint32(72, 0xffffffff, true); // version length far past the data
  expect(decodeVerificationRecord(huge)).toBeNull();
  const badUtf8 = data.slice();
  badUtf8[76] = 0xff;
  expect(decodeVerificationRecord(badUtf8)).toBeNull();
});

test("only the authority's or OtterSec's record for this very deploy names its source", async () => {
  const accounts = new Map<string, Uint8Array>([record(STRANGER, "evil", 100, "https://github.com/evil/fake")]);
  const rpc = accountsRpc(accounts);
  expect(await fetchDeploySource(rpc, PROGRAM, 100, AUTHORITY)).toBeNull(); // a stranger's claim is ignored
  accounts.set(...record(AUTHORITY, "old111", 90));
  expect(await fetchDeploySource(rpc, PROGRAM, 100, AUTHORITY)).toBeNull(); // left from the release before
  accounts.set(...record(OTTERSEC_SIGNERS[0], "fedcba9", 100));
  expect(await fetchDeploySource(rpc, PROGRAM, 100, null)).toEqual({ repository: REPO, commit: "fedcba9" });
  accounts.set(...record(AUTHORITY, "abc1234", 100));
  expect(await fetchDeploySource(rpc, PROGRAM, 100, AUTHORITY)).toEqual({ repository: REPO, commit: "abc1234" });
  expect(rpc.calls).toBe(4); // one getMultipleAccounts per look
  for (const [repository, commit] of [
    ["javascript:alert(1)", "abc1234"],
    ["https://user:pw@github.com/acme/vault", "abc1234"],
    [REPO, "abc 1234"],
    [REPO, "../../x"],
  ]) {
    const only = accountsRpc(new Map([record(AUTHORITY, commit, 7, repository)]));
    expect(await fetchDeploySource(only, PROGRAM, 7, AUTHORITY)).toBeNull();
  }
});

test("sources are cached per deploy; release-diff names both commits and links the range", async () => {
  const dir = mkdtempSync(join(tmpdir(), "txray-verified-"));
  dirs.push(dir);
  const accounts = new Map<string, Uint8Array>([record(AUTHORITY, "1111aaa", 100)]);
  const rpc = accountsRpc(accounts);
  const now = 1_790_000_000_000;
  const deploys = [
    { program: PROGRAM, slot: 100, authority: AUTHORITY },
    { program: PROGRAM, slot: 200, authority: AUTHORITY },
  ];
  expect(await refreshDeploySources(dir, rpc, deploys, now)).toEqual({ found: 1, checked: 2, failed: 0 });
  // The record for slot 200 is uploaded later: asked again only after an hour.
  accounts.set(...record(AUTHORITY, "2222bbb", 200));
  expect((await refreshDeploySources(dir, rpc, deploys, now + 60_000)).checked).toBe(0);
  expect(await refreshDeploySources(dir, rpc, deploys, now + 3_600_000)).toEqual({ found: 1, checked: 1, failed: 0 });
  expect(deploySource(dir, PROGRAM, 100)).toEqual({ repository: REPO, commit: "1111aaa" });
  expect(deploySource(dir, PROGRAM, 200)).toEqual({ repository: REPO, commit: "2222bbb" });

  const answer = {
    program: PROGRAM,
    deploy: { slot: 200, deployedAt: null, detectedAt: null, effectiveAt: 1, authority: AUTHORITY },
    previousDeploy: { slot: 100, deployedAt: 0 },
  } as never;
  const diff = withSources(dir, answer);
  expect(diff.deploy.source).toEqual({ repository: REPO, commit: "2222bbb" });
  expect(diff.previousDeploy?.source).toEqual({ repository: REPO, commit: "1111aaa" });
  expect(diff.compareUrl).toBe("https://github.com/acme/vault/compare/1111aaa...2222bbb");
  expect(withSources(dir, { ...(answer as object), program: randomAddress() } as never).compareUrl).toBeNull();
});

test("compare links only within one GitHub repository", () => {
  const at = (repository: string, commit: string) => ({ repository, commit });
  expect(compareUrl(at(`${REPO}.git`, "a1"), at(REPO, "b2"))).toBe(`${REPO}/compare/a1...b2`);
  expect(compareUrl(at(REPO, "a1"), at("https://github.com/other/vault", "b2"))).toBeNull();
  expect(compareUrl(at("https://gitlab.com/acme/vault", "a1"), at("https://gitlab.com/acme/vault", "b2"))).toBeNull();
  expect(compareUrl(null, at(REPO, "b2"))).toBeNull();
  expect(compareUrl(at(REPO, "v1.0/x"), at(REPO, "b2"))).toBe(`${REPO}/compare/v1.0%2Fx...b2`);
});
