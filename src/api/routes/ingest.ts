// POST /v1/ingest (docs/api.md#post-v1ingest, docs/architecture.md "Durability"): check the header's key, or charge
// the client's budget of requests without one (INGEST_UNAUTHENTICATED_PER_MINUTE) before reading a byte of the
// body, bound and read the body, prepare the batch (parse, authenticate, validate, encode: src/ingest/prepare.ts, on a worker thread when INGEST_WORKERS > 0),
// charge the key's token bucket, count the batch's programs against the account's quota of distinct
// programs per day (src/control/program-quota.ts), append to the spool and answer 202 only once the batch is durable.
// A batch is accepted whole or not at all, so a client retrying after any error never half-duplicates it.

import { type Principal, type ProgramQuota, scopeCanIngest, secondsToNextUtcDay } from "../../control";
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
  /** Per client IP: requests without a key that authenticates in `x-api-key` (INGEST_UNAUTHENTICATED_PER_MINUTE). */
  unauthenticated: TokenBuckets;
  /** The principal of a presented key (the same cache prepare asks), or null. */
  principal: (presentedKey: string) => Principal | null;
  quota: ProgramQuota;
  clock: () => number;
  maxBodyBytes: number;
};

/** The answer, and how many envelopes it acknowledged (0 unless it is the 202). */
/** `client`: who the per-IP limit counts (docs/security.md, "Client identity"). */
export async function handleIngest(
  request: Request,
  deps: IngestDeps,
  client: string,
): Promise<{ response: Response; accepted: number }> {
  // A key in the header is checked before the body is read: a bad one costs the server no parse of up to a MiB.
  // Requests without one that authenticates spend the client's budget first, so an address sending bad keys, or
  // bodies that never authenticate, is refused before its bodies are read.
  const headerKey = request.headers.get("x-api-key");
  const headerPrincipal = headerKey === null ? null : deps.principal(headerKey);
  if (headerPrincipal === null) {
    const gate = deps.unauthenticated.take(client);
    if (!gate.allowed)
      throw new TxrayError(
        "rate_limited",
        `too many ingest requests without a valid x-api-key from this address (INGEST_UNAUTHENTICATED_PER_MINUTE); retry in ${gate.retryAfterSeconds}s`,
        { retryAfterSeconds: gate.retryAfterSeconds },
      );
    if (headerKey !== null) throw new TxrayError("unauthorized", "invalid or revoked API key");
  } else if (!scopeCanIngest(headerPrincipal.scope))
    throw new TxrayError("forbidden", "this key is read-only (query-scoped); ingest needs an ingest or admin key");

  const body = await readBoundedBody(request, deps.maxBodyBytes);

  const prepared = await deps.prepare({ body, headerKey, receivedAt: deps.clock() });
  if (!prepared.ok)
    throw new TxrayError(
      prepared.code,
      prepared.message,
      prepared.code === "unavailable" ? { retryAfterSeconds: 1 } : {},
    );
  // The body's key authenticated: the request was not one the per-IP budget is for.
  if (headerPrincipal === null) deps.unauthenticated.refund(client);

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
    // Nothing of the batch is taken: the key keeps the envelopes it would have spent.
    deps.buckets.refund(prepared.keyId, prepared.accepted);
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
