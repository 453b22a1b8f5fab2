// Merging runs of the signature index (store.ts decides which runs, and when): FANOUT adjacent runs
// read in signature order and written as one, an attempt held by several keeping the newest run's
// entry. A merge rewrites every entry it covers, and each entry is merged about once per size tier,
// which makes merges most of the index's cost: at 20,000 attempts/s about a quarter of a thread.
// So by default they run on a worker thread of their own (merge-worker.ts), beside the resolver and
// the requests; mergeRuns is the one implementation, on whichever thread runs it.

import { unlinkSync } from "node:fs";
import { compareEntries, lineKey, RunReader, RunWriter, type RunFooter } from "./run-file";

/** One input of a merge: its file and its order (a run covering newer sequence numbers has a higher one). */
export type MergeInput = { path: string; order: number };
export type MergeFields = Pick<RunFooter, "lo" | "hi" | "weight" | "batch" | "minAt" | "maxAt">;

/**
 * Writes the merge of `inputs` to `output` (through a temporary file, fsynced and renamed). `pause`
 * is awaited every 16 blocks written (the event loop runs meanwhile); `stopped` is asked after
 * each pause, and a merge told to stop leaves nothing behind.
 */
export async function mergeRuns(inputs: MergeInput[], output: string, fields: MergeFields, pause: () => Promise<void>, stopped: () => boolean = () => false): Promise<RunFooter> {
  const readers = inputs.map((input) => RunReader.open(input.path));
  const writer = new RunWriter(output);
  try {
    const heads = readers.map((reader, i) => ({ lines: reader.lines(), order: inputs[i].order, current: null as string | null, key: null as { sig: string; attemptId: string } | null }));
    const advance = (head: (typeof heads)[number]) => {
      const next = head.lines.next();
      head.current = next.done ? null : next.value;
      head.key = head.current === null ? null : lineKey(head.current);
    };
    heads.forEach(advance);
    let blocks = writer.blocks;
    for (;;) {
      let best: (typeof heads)[number] | null = null;
      for (const head of heads) {
        if (head.key === null) continue;
        const order = best === null ? -1 : compareEntries(head.key, best.key!);
        if (best === null || order < 0 || (order === 0 && head.order > best.order)) best = head;
      }
      if (best === null) break;
      const key = best.key!;
      writer.add(key.sig, best.current!);
      for (const head of heads) while (head.key !== null && compareEntries(head.key, key) === 0) advance(head);
      if (writer.blocks !== blocks) {
        blocks = writer.blocks;
        if (blocks % 16 === 0) {
          await pause();
          if (stopped()) throw new Error("signature index closed during a merge");
        }
      }
    }
    return writer.finish(fields);
  } catch (error) {
    writer.abandon();
    throw error;
  } finally {
    for (const reader of readers) reader.close();
  }
}

type Pending = { resolve: (footer: RunFooter) => void; reject: (error: Error) => void; output: string };

/**
 * The merge thread: one worker, started at the first merge and kept (unreferenced between merges:
 * it never keeps the process alive). A worker that fails or ends fails the merges it had (the upkeep retries next time)
 * and is replaced at the next merge.
 */
export class MergeThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  merge(inputs: MergeInput[], output: string, fields: MergeFields): Promise<RunFooter> {
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    // Referenced while it works: Bun's event loop spins on a promise that only an unreferenced
    // worker can settle when nothing else keeps the process alive (a CLI run, a benchmark).
    (worker as Worker & { ref(): void }).ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, output });
      worker.postMessage({ id, inputs, output, fields });
    });
  }

  /** Stops the thread; merges in progress fail and their temporary files are removed. */
  close(): void {
    this.worker?.terminate();
    this.worker = null;
    this.failAll("signature index closed during a merge");
  }

  private spawn(): Worker {
    const worker = new Worker(new URL("./merge-worker.ts", import.meta.url).href);
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
    worker.onerror = (event) => lost(`signature index merge thread failed: ${event.message ?? event}`);
    worker.addEventListener("close", () => lost("signature index merge thread ended"));
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
