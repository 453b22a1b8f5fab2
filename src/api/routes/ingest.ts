// POST /v1/ingest (docs/api.md#post-v1ingest, docs/architecture.md "Durability"): bound and read the body, prepare the
// batch (parse, authenticate, validate, encode: src/ingest/prepare.ts, on a worker thread when INGEST_WORKERS > 0),
// charge the key's token bucket, count the batch's programs against the account's quota of distinct
// programs per day (src/control/program-quota.ts), append to the spool and answer 202 only once the batch is durable.
// A batch is accepted whole or not at all, so a client retrying after any error never half-duplicates it.

import { type ProgramQuota, secondsToNextUtcDay } from "../../control";
import type { PreparedBatch, PrepareRequest } from "../../ingest/prepare";
import { readBoundedBody } from "../../shared/bounded-body";
import { TxrayError } from "../../shared/errors";
import type { TokenBuckets } from "../../shared/token-buckets";
import type { Spool } from "../../spool";
import { json } from "../http";

export type IngestDeps = {
  prepare: (request: PrepareRequest) => PreparedBatch | Promise<PreparedBatch>;
  spool: Spool;
  buckets: TokenBuckets;
  quota: ProgramQuota;
  clock: () => number;
  maxBodyBytes: number;
};

/** The answer, and how many envelopes it acknowledged (0 unless it is the 202). */
export async function handleIngest(
  request: Request,
  deps: IngestDeps,
): Promise<{ response: Response; accepted: number }> {
  const body = await readBoundedBody(request, deps.maxBodyBytes);

  const prepared = await deps.prepare({ body, headerKey: request.headers.get("x-api-key"), receivedAt: deps.clock() });
  if (!prepared.ok)
    throw new TxrayError(
      prepared.code,
      prepared.message,
      prepared.code === "unavailable" ? { retryAfterSeconds: 1 } : {},
    );

  const rate = deps.buckets.take(prepared.keyId, prepared.accepted);
  if (!rate.allowed) {
    const error = {
      code: "rate_limited",
      message: `ingest rate limit exceeded for this key; retry in ${rate.retryAfterSeconds}s`,
    };
    return { response: json({ error }, 429, rate.headers), accepted: 0 };
  }
  // Programs admitted here count even when the append below fails: the quota errs towards refusing.
  if (!admitted(deps, prepared.accountId, prepared.programs)) {
    const retryAfterSeconds = secondsToNextUtcDay(deps.clock());
    throw new TxrayError(
      "rate_limited",
      `this account's envelopes named ${deps.quota.limit} distinct programs today (UTC), its daily limit (ACCOUNT_PROGRAMS_PER_DAY); a batch naming another program is refused whole; retry in ${retryAfterSeconds}s`,
      { retryAfterSeconds },
    );
  }
  if (prepared.accepted > 0) {
    try {
      await deps.spool.append(prepared.lines);
    } catch {
      throw new TxrayError("unavailable", "could not persist the batch; nothing was accepted, retry later", {
        retryAfterSeconds: 1,
      });
    }
  }
  return { response: json({ accepted: prepared.accepted }, 202, rate.headers), accepted: prepared.accepted };
}

/** The quota's verdict; a control plane that cannot be asked is a 503 to retry, not an internal error. */
function admitted(deps: IngestDeps, accountId: string, programs: readonly string[]): boolean {
  try {
    return deps.quota.admit(accountId, programs, deps.clock());
  } catch {
    throw new TxrayError(
      "unavailable",
      "could not check the account's program quota; nothing was accepted, retry later",
      {
        retryAfterSeconds: 1,
      },
    );
  }
}
