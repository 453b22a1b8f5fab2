// Live ingest processes and seal requests, shared through the control database so that a job started
// outside the server (`txray jobs run <name>`) can have every live ingest process on
// the data directory seal its active spool segment first (docs/lake.md, "Flushing on demand").
//
// Each ingest process registers its node (spool owner `host:pid`, the origin of its SOLANA_RPC_URL and
// a short hash of the whole URL, never the URL itself: it may carry a key) and heartbeats. A job asks by
// inserting one seal request per live node and waits until the node marks it sealed. The tables are
// control-plane migration 2 (src/control/db.ts); the statements are portable (INSERT … ON CONFLICT) so
// they serve SQLite and PostgreSQL alike.

import { createHash, randomBytes } from "node:crypto";
import { rpcOrigin } from "../shared/rpc-identity";
import type { ControlDb } from "./types";

export { rpcOrigin };

export type IngestNode = {
  nodeId: string;
  owner: string;
  rpcOrigin: string;
  rpcFingerprint: string;
  startedAt: number;
  heartbeatAt: number;
};

/** Tells two RPC URLs apart without storing either: SHA-256 of the whole URL, 16 hex. */
export function rpcFingerprint(url: string): string {
  return createHash("sha256").update(url).digest("hex").slice(0, 16);
}

/** Registers (or refreshes) this ingest process as the live owner of `nodeId`. */
export function registerIngestNode(
  db: ControlDb,
  node: { nodeId: string; owner: string; rpcUrl: string },
  now: number,
): void {
  db.query(
    `INSERT INTO ingest_nodes (node_id, owner, rpc_origin, rpc_fingerprint, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (node_id) DO UPDATE SET owner = excluded.owner, rpc_origin = excluded.rpc_origin,
       rpc_fingerprint = excluded.rpc_fingerprint, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
  ).run(node.nodeId, node.owner, rpcOrigin(node.rpcUrl), rpcFingerprint(node.rpcUrl), now, now);
}

export function heartbeatIngestNode(db: ControlDb, nodeId: string, owner: string, now: number): void {
  db.query("UPDATE ingest_nodes SET heartbeat_at = ? WHERE node_id = ? AND owner = ?").run(now, nodeId, owner);
}

/** Removes the node's row if this owner still holds it (a clean stop). */
export function unregisterIngestNode(db: ControlDb, nodeId: string, owner: string): void {
  db.query("DELETE FROM ingest_nodes WHERE node_id = ? AND owner = ?").run(nodeId, owner);
}

/**
 * What a control plane restored from a dump must forget before a server starts on it, as one SQL
 * text for psql: the leases the backup held while it dumped, and any node records and seal requests.
 */
export const RESTORED_CONTROL_PLANE_RESET_SQL =
  "DELETE FROM meta WHERE key LIKE 'lease:%'; DELETE FROM seal_requests; DELETE FROM ingest_nodes";

/** Forgets every node and seal request: a restored copy of the control plane has no live ingest process yet. */
export function forgetAllIngestNodes(db: ControlDb): void {
  db.exec("DELETE FROM seal_requests");
  db.exec("DELETE FROM ingest_nodes");
}

export function listIngestNodes(db: ControlDb): IngestNode[] {
  return db
    .query<
      {
        node_id: string;
        owner: string;
        rpc_origin: string;
        rpc_fingerprint: string;
        started_at: number;
        heartbeat_at: number;
      },
      []
    >("SELECT node_id, owner, rpc_origin, rpc_fingerprint, started_at, heartbeat_at FROM ingest_nodes ORDER BY node_id")
    .all()
    .map((row) => ({
      nodeId: row.node_id,
      owner: row.owner,
      rpcOrigin: row.rpc_origin,
      rpcFingerprint: row.rpc_fingerprint,
      startedAt: row.started_at,
      heartbeatAt: row.heartbeat_at,
    }));
}

/** Asks `nodeId` to seal its active segment; returns the request's id. */
export function requestSeal(db: ControlDb, nodeId: string, now: number): string {
  const id = `seal_${now}_${randomBytes(6).toString("hex")}`;
  db.query("INSERT INTO seal_requests (id, node_id, requested_at) VALUES (?, ?, ?)").run(id, nodeId, now);
  return id;
}

/** The ids of the requests still waiting for `nodeId`. */
export function openSealRequests(db: ControlDb, nodeId: string): string[] {
  return db
    .query<{ id: string }, [string]>("SELECT id FROM seal_requests WHERE node_id = ? AND sealed_at IS NULL")
    .all(nodeId)
    .map((row) => row.id);
}

export function markSealed(db: ControlDb, ids: string[], now: number): void {
  const mark = db.query("UPDATE seal_requests SET sealed_at = ? WHERE id = ?");
  for (const id of ids) mark.run(now, id);
}

/** The time each request was answered (null while it waits). */
export function sealRequestState(db: ControlDb, id: string): number | null {
  return (
    db.query<{ sealed_at: number | null }, [string]>("SELECT sealed_at FROM seal_requests WHERE id = ?").get(id)
      ?.sealed_at ?? null
  );
}

/** Drops the requester's rows once it is done with them (answered or not). */
export function forgetSealRequests(db: ControlDb, ids: string[]): void {
  const drop = db.query("DELETE FROM seal_requests WHERE id = ?");
  for (const id of ids) drop.run(id);
}
