// Jobs run from outside the server (`txray jobs run`). A running server seals its active spool
// segment only on its own timer, so before a job that needs a sealed spool or a fresh lake (flush, a
// tables build) every live ingest node on the data directory is asked to seal through the control
// database (src/control/ingest-nodes.ts) and the run waits for the answers, bounded, naming any live
// node that does not answer. A job that needs a fresh lake runs after a flush (src/jobs/registry.ts
// plans it), so it sees what was acknowledged before it started. Jobs that reach the chain warn when a live server
// resolves against another SOLANA_RPC_URL.
// Mechanism and guarantees: docs/lake.md, "Flushing on demand".

import { existsSync, readdirSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Context } from "../context";
import {
  forgetSealRequests,
  type IngestNode,
  listIngestNodes,
  requestSeal,
  rpcFingerprint,
  rpcOrigin,
  sealRequestState,
} from "../control";
import { processAlive } from "../shared/process-alive";
import { liveOwner } from "../spool";
import { type Job, type JobNeed, type JobOutcome, runJob } from "./run";

/** How long a job waits for live ingest nodes to seal. */
export const SEAL_WAIT_MS = 10_000;
/** A node on another host not heard from for this long is presumed gone (its heartbeat is every second). */
export const NODE_SILENT_MS = 15_000;
/** How long a run from outside waits for the same job's run in another process to end. */
export const LEASE_WAIT_MS = 30 * 60_000;

export type SealOutcome = { sealed: string[]; unanswered: { nodeId: string; owner: string; reason: string }[] };
export type OutsideIo = { outcome(outcome: JobOutcome): void; warn(text: string): void };

const needs = (job: Job, ...what: JobNeed[]) => what.some((need) => job.needs?.includes(need));

/**
 * Runs `steps` in order as a process outside the server would; true when every step succeeded. The
 * steps come planned (src/jobs/registry.ts: a job that needs a fresh lake comes after a flush).
 */
export async function runJobsFromOutside(
  ctx: Context,
  steps: Job[],
  io: OutsideIo,
  options: { sealWaitMs?: number; signal?: AbortSignal } = {},
): Promise<boolean> {
  let ok = true;
  if (steps.some((job) => needs(job, "chain"))) {
    const warning = rpcMismatch(listIngestNodes(ctx.control), ctx.config.SOLANA_RPC_URL);
    if (warning) io.warn(warning);
  }
  if (steps.some((job) => needs(job, "sealed-spool", "fresh-lake"))) {
    const sealed = await sealLiveSpools(ctx, options.sealWaitMs ?? SEAL_WAIT_MS);
    for (const node of sealed.unanswered) {
      ok = false;
      io.warn(
        `ingest node ${node.nodeId} (${node.owner}) ${node.reason}; what it acknowledged in its last SPOOL_SEAL_MS ` +
          `(${ctx.config.SPOOL_SEAL_MS} ms) may be missing from this run (it is flushed by a later run)`,
      );
    }
  }
  for (const job of steps) {
    const outcome = await runJob(
      ctx,
      job,
      { signal: options.signal, untilCaughtUp: true },
      { waitForLeaseMs: LEASE_WAIT_MS },
    );
    io.outcome(outcome);
    ok &&= outcome.ok;
    if (options.signal?.aborted) break;
  }
  return ok;
}

/**
 * Asks every live ingest node on the data directory to seal its active segment and waits up to
 * `waitMs` for all of them. A node is live when its registered owner process is alive (same host)
 * or has heartbeated recently (another host); a spool directory held by a live owner that never
 * registered (an older server) cannot be asked and is reported.
 */
export async function sealLiveSpools(ctx: Context, waitMs: number): Promise<SealOutcome> {
  const self = `${hostname()}:${process.pid}`;
  const now = Date.now();
  // This process's own node is asked too (a server and a job in one process, as in tests): its
  // responder answers while this function waits.
  const nodes = listIngestNodes(ctx.control);
  const unanswered: SealOutcome["unanswered"] = [];
  const asked: { node: IngestNode; id: string }[] = [];
  for (const node of nodes) {
    const live = ownerAlive(node.owner, node.heartbeatAt, now);
    if (live === "gone") continue; // its spool is recovered and flushed as a dead owner's
    if (live === "silent") {
      unanswered.push({
        nodeId: node.nodeId,
        owner: node.owner,
        reason: `has not been heard from for ${Math.round((now - node.heartbeatAt) / 1000)} s`,
      });
      continue;
    }
    asked.push({ node, id: requestSeal(ctx.control, node.nodeId, now) });
  }
  const registered = new Set(nodes.map((node) => node.nodeId));
  for (const nodeId of spoolNodes(ctx.paths.spoolRoot)) {
    const owner = liveOwner(join(ctx.paths.spoolRoot, nodeId));
    if (owner !== null && owner !== self && !registered.has(nodeId)) {
      unanswered.push({
        nodeId,
        owner,
        reason: "holds its spool but is not registered in the control database (a txray older than this command?)",
      });
    }
  }
  const sealed: string[] = [];
  const deadline = Date.now() + waitMs;
  let waiting = asked;
  for (;;) {
    const still: typeof waiting = [];
    const current = new Map(listIngestNodes(ctx.control).map((node) => [node.nodeId, node]));
    for (const entry of waiting) {
      const stoppedCleanly =
        current.get(entry.node.nodeId)?.owner !== entry.node.owner &&
        ownerAlive(entry.node.owner, 0, Date.now()) !== "alive";
      if (sealRequestState(ctx.control, entry.id) !== null || stoppedCleanly) sealed.push(entry.node.nodeId);
      else still.push(entry);
    }
    waiting = still;
    if (waiting.length === 0 || Date.now() >= deadline) break;
    await Bun.sleep(25);
  }
  for (const entry of waiting) {
    unanswered.push({
      nodeId: entry.node.nodeId,
      owner: entry.node.owner,
      reason: `did not answer a seal request within ${Math.round(waitMs / 1000)} s`,
    });
  }
  forgetSealRequests(
    ctx.control,
    asked.map((entry) => entry.id),
  );
  return { sealed, unanswered };
}

/** A warning when a live ingest server resolves against another chain than this process would. */
export function rpcMismatch(nodes: IngestNode[], ownUrl: string): string | null {
  const own = rpcFingerprint(ownUrl);
  const now = Date.now();
  const differing = nodes.filter(
    (node) => node.rpcFingerprint !== own && ownerAlive(node.owner, node.heartbeatAt, now) === "alive",
  );
  if (differing.length === 0) return null;
  const theirs = [...new Set(differing.map((node) => node.rpcOrigin))].join(", ");
  const ours = rpcOrigin(ownUrl);
  const detail =
    theirs === ours
      ? `server and this command: ${ours}, with a different path or key`
      : `server: ${theirs}; this command: ${ours}`;
  return (
    `the running server (${differing.map((node) => `${node.nodeId} ${node.owner}`).join(", ")}) resolves against another SOLANA_RPC_URL ` +
    `than this command (${detail}); this command uses its own. Run it with the server's SOLANA_RPC_URL to use the same chain`
  );
}

function ownerAlive(owner: string, heartbeatAt: number, now: number): "alive" | "silent" | "gone" {
  const [host, pidText] = owner.split(":");
  if (host === hostname()) return processAlive(Number(pidText)) ? "alive" : "gone";
  return now - heartbeatAt <= NODE_SILENT_MS ? "alive" : "silent";
}

function spoolNodes(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).filter((name) => statSync(join(root, name)).isDirectory());
}
