// The ingest side of "flush on demand" (docs/lake.md): while the server runs, its spool node is
// registered in the control database with a heartbeat, and seal requests from jobs started in other
// processes are answered by sealing the active segment, so everything acknowledged so far becomes
// flushable. Polling the control database (not a signal or a loopback call) works the same for
// several ingest nodes on several hosts sharing one data directory and one control plane.

import { hostname } from "node:os";
import {
  type ControlDb,
  heartbeatIngestNode,
  markSealed,
  openSealRequests,
  registerIngestNode,
  unregisterIngestNode,
} from "../control";
import type { Logger } from "../shared/logger";
import { describeError } from "../shared/logger";
import type { Spool } from "./spool";

/** How often the node looks for seal requests; a job waits about this long plus one seal. */
export const SEAL_POLL_MS = 100;
/** How often the node refreshes its heartbeat; a node silent for much longer is presumed gone. */
export const HEARTBEAT_MS = 1000;

export type SealResponderDeps = {
  control: ControlDb;
  spool: Spool;
  nodeId: string;
  rpcUrl: string;
  clock: () => number;
  logger: Logger;
};

export function startSealResponder(deps: SealResponderDeps): { stop(): void } {
  const owner = `${hostname()}:${process.pid}`;
  registerIngestNode(deps.control, { nodeId: deps.nodeId, owner, rpcUrl: deps.rpcUrl }, deps.clock());
  let lastBeat = deps.clock();
  let busy = false;
  let stopped = false;
  const tick = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      const now = deps.clock();
      if (now - lastBeat >= HEARTBEAT_MS) {
        heartbeatIngestNode(deps.control, deps.nodeId, owner, now);
        lastBeat = now;
      }
      const ids = openSealRequests(deps.control, deps.nodeId);
      if (ids.length > 0) {
        await deps.spool.seal();
        if (!stopped) markSealed(deps.control, ids, deps.clock());
      }
    } catch (error) {
      deps.logger.warn("seal request handling failed", { error: describeError(error) });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), SEAL_POLL_MS);
  timer.unref?.();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      try {
        unregisterIngestNode(deps.control, deps.nodeId, owner);
      } catch {}
    },
  };
}
