// The ingest worker pool: parsing, validating and encoding batches (prepareBatch) on worker threads,
// so ingest uses every core; measured in bench/README.md. Each job goes to the worker with the
// fewest jobs in flight. The request body is transferred, not copied, and so are the spool bytes that
// come back. A worker that dies fails its jobs with `unavailable` (the client retries; nothing was
// acknowledged) and is replaced.

import { availableParallelism } from "node:os";
import type { Logger } from "../shared/logger";
import type { PreparedBatch, PrepareRequest } from "./prepare";
import type { WorkerJob, WorkerSetup } from "./worker";

type Slot = { worker: Worker; inFlight: Map<number, (result: PreparedBatch) => void> };

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
    let slot = this.slots[0];
    for (const candidate of this.slots) if (candidate.inFlight.size < slot.inFlight.size) slot = candidate;
    const id = this.nextId++;
    // Only a buffer the body owns whole can be transferred (a pooled one would be taken from others).
    const body = request.body.byteOffset === 0 && request.body.byteLength === request.body.buffer.byteLength ? request.body : request.body.slice();
    return new Promise((resolve) => {
      slot.inFlight.set(id, resolve);
      const job: WorkerJob = { id, ...request, body };
      slot.worker.postMessage(job, [body.buffer as ArrayBuffer]);
    });
  }

  close(): void {
    this.closed = true;
    for (const slot of this.slots) {
      this.fail(slot);
      slot.worker.terminate();
    }
    this.slots = [];
  }

  private spawn(): Slot {
    const worker = new Worker(new URL("./worker.ts", import.meta.url).href);
    const slot: Slot = { worker, inFlight: new Map() };
    worker.onmessage = (event: MessageEvent<{ id: number; result: PreparedBatch }>) => {
      const resolve = slot.inFlight.get(event.data.id);
      slot.inFlight.delete(event.data.id);
      resolve?.(event.data.result);
    };
    worker.onerror = (event) => {
      this.logger.error("ingest worker died; replacing it", { error: String(event.message ?? event) });
      this.fail(slot);
      worker.terminate();
      if (!this.closed) this.slots[this.slots.indexOf(slot)] = this.spawn();
    };
    (worker as Worker & { unref(): void }).unref(); // Bun: the pool never keeps the process alive
    worker.postMessage({ setup: this.setup });
    return slot;
  }

  private fail(slot: Slot) {
    for (const resolve of slot.inFlight.values()) resolve({ ok: false, code: "unavailable", message: "could not process the batch; nothing was accepted, retry later" });
    slot.inFlight.clear();
  }
}
