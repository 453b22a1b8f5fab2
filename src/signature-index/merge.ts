// Merging runs of the signature index (store.ts decides which runs, and when): FANOUT adjacent runs
// read in signature order and written as one, an attempt held by several keeping the newest run's
// entry. A merge rewrites every entry it covers, and each entry is merged about once per size tier,
// which makes merges half of the index's cost. By default they run on the index's merge thread
// (index-thread.ts); mergeRuns is the one implementation, on whichever thread runs it.

import { compareEntries, type FooterFields, lineKey, type RunFooter, RunReader, RunWriter } from "./run-file";

/** One input of a merge: its file and its order (a run covering newer sequence numbers has a higher one). */
export type MergeInput = { path: string; order: number };

/**
 * Writes the merge of `inputs` to `output` (through a temporary file, fsynced and renamed). `pause`
 * is awaited every 16 blocks written (the event loop runs meanwhile); `stopped` is asked after
 * each pause, and a merge told to stop leaves nothing behind.
 */
export async function mergeRuns(
  inputs: MergeInput[],
  output: string,
  fields: FooterFields,
  pause: () => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<RunFooter> {
  const readers = inputs.map((input) => RunReader.open(input.path));
  // An attempt in several inputs is written once: the sum is the most the merge writes.
  const writer = new RunWriter(
    output,
    readers.reduce((sum, reader) => sum + reader.footer.entries, 0),
  );
  try {
    const heads = readers.map((reader, i) => ({
      lines: reader.lines(),
      order: inputs[i].order,
      current: null as string | null,
      key: null as { sig: string; attemptId: string } | null,
    }));
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
