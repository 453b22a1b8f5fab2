// The ingest worker pool: parsing, validating and encoding batches (prepareBatch) on worker threads,
// so ingest uses every core; measured in bench/README.md. Each job goes to the worker with the
// fewest jobs in flight. The request body is transferred, not copied, and so are the spool bytes that
// come back. A worker that dies fails its jobs with `unavailable` (the client retries; nothing was
// acknowledged) and is replaced.

import { availableParallelism } from "node:os";
import type { Logger } from "../shared/logger";
import type { PreparedBatch, PrepareRequest } from "./prepare";
import type { WorkerJob, WorkerSetup } from "./worker";

type Slot = { worker: Worker; inFlight: Map<number, (result: PreparedBatch) => void>; dead: boolean };

/** A dead worker is replaced after this pause, so a worker that cannot start never spins the CPU. */
const RESPAWN_MS = 100;
const UNAVAILABLE: PreparedBatch = {
  ok: false,
  code: "unavailable",
  message: "could not process the batch; nothing was accepted, retry later",
};

/** INGEST_WORKERS: `auto` is one per core (at most 8); 0 keeps ingest on the main thread. */
export function ingestWorkerCount(setting: string): number {
  return setting === "auto" ? Math.min(8, availableParallelism()) : Number(setting);
}

export class IngestWorkers {
  private slots: Slot[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    count: number,
    private readonly setup: WorkerSetup,
    private readonly logger: Logger,
  ) {
    for (let i = 0; i < count; i++) this.slots.push(this.spawn());
  }

  prepare(request: PrepareRequest): Promise<PreparedBatch> {
    let slot: Slot | null = null;
    for (const candidate of this.slots)
      if (!candidate.dead && (slot === null || candidate.inFlight.size < slot.inFlight.size)) slot = candidate;
    if (slot === null) return Promise.resolve(UNAVAILABLE); // every worker is being replaced
    const id = this.nextId++;
    // Only a buffer the body owns whole can be transferred (a pooled one would be taken from others).
    const body =
      request.body.byteOffset === 0 && request.body.byteLength === request.body.buffer.byteLength
        ? request.body
        : request.body.slice();
    const chosen = slot;
    return new Promise((resolve) => {
      chosen.inFlight.set(id, resolve);
      const job: WorkerJob = { id, ...request, body };
      chosen.worker.postMessage(job, [body.buffer as ArrayBuffer]);
    });
  }

  close(): void {
    this.closed = true;
    for (const slot of this.slots) {
      slot.dead = true;
      this.fail(slot);
      slot.worker.terminate();
    }
    this.slots = [];
  }

  private spawn(): Slot {
    const worker = new Worker(new URL("./worker.ts", import.meta.url).href);
    const slot: Slot = { worker, inFlight: new Map(), dead: false };
    worker.onmessage = (event: MessageEvent<{ id: number; result: PreparedBatch }>) => {
      const resolve = slot.inFlight.get(event.data.id);
      slot.inFlight.delete(event.data.id);
      resolve?.(event.data.result);
    };
    // An uncaught error, or the thread ending without close(): either way its jobs are lost.
    worker.onerror = (event) => this.replace(slot, String(event.message ?? event));
    worker.addEventListener("close", () => this.replace(slot, "the worker thread ended"));
    (worker as Worker & { unref(): void }).unref(); // Bun: the pool never keeps the process alive
    worker.postMessage({ setup: this.setup });
    return slot;
  }

  private replace(slot: Slot, reason: string): void {
    if (slot.dead) return;
    slot.dead = true;
    this.logger.error("ingest worker died; replacing it", { error: reason });
    this.fail(slot);
    slot.worker.terminate();
    setTimeout(() => {
      const at = this.slots.indexOf(slot);
      if (!this.closed && at >= 0) this.slots[at] = this.spawn();
    }, RESPAWN_MS).unref();
  }

  private fail(slot: Slot) {
    for (const resolve of slot.inFlight.values()) resolve(UNAVAILABLE);
    slot.inFlight.clear();
  }
}
