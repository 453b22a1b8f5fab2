// The signature index's own worker thread (index-worker.ts): writing a run (sorting its lines,
// compressing blocks, building the Bloom filter, fsync and rename) and merging runs, off the
// thread that answers requests and runs the resolver. At 20,000 attempts/s the index writes
// ~35,000 entries a second and rewrites each about once per size tier; on the main thread that was
// the largest single part of the resolver's cost. Only the entries' text is made on the calling
// thread (their values are objects there). A SignatureIndex keeps two: one for its writes and one
// for its merges, so a write of a resolve run never waits behind a merge of large runs.

import { unlinkSync } from "node:fs";
import type { MergeInput } from "./merge";
import type { FooterFields, RunFooter } from "./run-file";

export type IndexJob =
  /**
   * `text`: the run's entry lines (any order), newline-separated, UTF-8: one buffer moved to the thread, not a copy per
   * line.
   */
  | { kind: "write"; path: string; text: Uint8Array; fields: FooterFields }
  | { kind: "merge"; inputs: MergeInput[]; output: string; fields: FooterFields };

type Pending = { resolve: (footer: RunFooter) => void; reject: (error: Error) => void; output: string };

/**
 * One worker, started at its first job and kept; referenced only while it has jobs (Bun's event
 * loop spins on a promise that only an unreferenced worker can settle when nothing else keeps the
 * process alive: a CLI run, a benchmark). A worker that fails or ends fails the jobs it had (a
 * write fails its resolve run, which runs again; a merge is retried by the next upkeep) and is
 * replaced at the next job.
 */
export class IndexThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  run(job: IndexJob): Promise<RunFooter> {
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    (worker as Worker & { ref(): void }).ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, output: job.kind === "write" ? job.path : job.output });
      // Posting the lines as strings cost ~10% of the main thread in a soak (a copy of each, with a
      // large heap); the bytes of a write are moved instead.
      worker.postMessage({ id, job }, job.kind === "write" ? [job.text.buffer as ArrayBuffer] : []);
    });
  }

  /** Stops the thread; its jobs in progress fail and their temporary files are removed. */
  close(): void {
    this.worker?.terminate();
    this.worker = null;
    this.failAll("signature index closed during a write or merge");
  }

  private spawn(): Worker {
    const worker = new Worker(new URL("./index-worker.ts", import.meta.url).href);
    worker.onmessage = (event: MessageEvent<{ id: number; footer?: RunFooter; error?: string }>) => {
      const { id, footer, error } = event.data;
      const pending = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) (worker as Worker & { unref(): void }).unref();
      if (error !== undefined) pending?.reject(new Error(error));
      else pending?.resolve(footer!);
    };
    const lost = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      worker.terminate();
      this.failAll(reason);
    };
    worker.onerror = (event) => lost(`signature index thread failed: ${event.message ?? event}`);
    worker.addEventListener("close", () => lost("signature index thread ended"));
    (worker as Worker & { unref(): void }).unref();
    this.worker = worker;
    return worker;
  }

  private failAll(reason: string): void {
    for (const { reject, output } of this.pending.values()) {
      try {
        unlinkSync(`${output}.tmp`);
      } catch {}
      reject(new Error(reason));
    }
    this.pending.clear();
  }
}
