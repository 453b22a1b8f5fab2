// The resolved sends of the RECENT_SENDS_MS (20 minutes) before the newest one taken in (the
// clock's last 20 minutes when the resolver keeps up), kept in memory for drop classification
// (drops.ts), which compares each drop with every send within 15 minutes of it, and the retry
// check, which looks at the drop's payer's sends at the same program within 90 s. The resolver adds
// each run's resolved sends as it commits them; a process that starts reads the window from the
// lake once (envelopes ⋈ resolutions of its days). At 2,000 sends/s the window holds ~2.4M sends,
// ~40 bytes each as columns and ~40 more for the counts classification reads (send-history.ts);
// payers and signatures (what the retry check needs) are kept only for the newest RETRY_HOLD_MS of
// sends, and at most MAX_HELD_SENDS sends are held. A window reaching before what is held (a drop
// resolved long after the sends around it) is read from the lake; while the cap holds (more than
// MAX_HELD_SENDS resolved sends in 20 minutes: ~4,200/s), the windows are what is held instead
// (resolve.ts loadNeighbours): at 20,000 envelopes/s the lake read was tens of millions of rows per
// run, gigabytes of memory each time.

import type { Context } from "../../context";
import { daysBetween, partsOfDays } from "../../lake/day-parts";
import { readAgainAfterSwap, sqlString } from "../../lake/duckdb";
import { readLakeSql } from "../../lake/schema";
import { type HistoryRow, SendHistory } from "./send-history";
import type { Outcome, Resolution } from "./types";

/**
 * How far back sends are held: the 15-minute window before drops resolved up to 5 minutes after
 * they were sent (a blockhash lives ~60-90 s; the resolver looks again right after expiry).
 */
export const RECENT_SENDS_MS = 20 * 60_000;
/**
 * Payers and signatures are held this long: the retry window (±90 s) of drops resolved up to ~2.5 min after their send.
 */
export const RETRY_HOLD_MS = 4 * 60_000;
/**
 * At most this many sends are held (~570 MB of RSS measured: docs/operations.md); beyond, the oldest are let go and
 * windows before them are read from the lake.
 */
export const MAX_HELD_SENDS = 5_000_000;

/** What the lake gives back about one resolved send. */
type SendRow = HistoryRow & { payer: string };

export class RecentSends {
  /** Every resolved send (not preflight) with sent_at ≥ heldFrom, in send-time order, with its counts. */
  readonly sends = new SendHistory();
  heldFrom = Infinity;
  /** Whether the cap (not the 20 minutes) set heldFrom at the last trim: a busy instance. */
  capped = false;
  /** Payers and signatures are held for sends from here on. */
  private detailFrom = Infinity;
  private loaded = false;

  constructor(private readonly maxHeld = MAX_HELD_SENDS) {}

  /** Loads the window from the lake the first time (a process that starts holds nothing). */
  async ensureLoaded(ctx: Context, now: number): Promise<void> {
    if (this.loaded) return;
    const from = now - RECENT_SENDS_MS;
    const rows = await readResolvedSends(ctx, from, now);
    rows.sort((a, b) => a.sentAt - b.sentAt);
    for (const row of rows) this.sends.push(row);
    this.heldFrom = from;
    // Every send of the window was loaded with its payer; trim lets go of those before the hold.
    this.detailFrom = from;
    this.loaded = true;
    this.trim(now);
  }

  /** A run's committed resolutions (sends only), merged in send-time order. */
  add(resolutions: Resolution[], now: number): void {
    if (!this.loaded) return; // loaded from the lake, with these, when first needed
    const rows: HistoryRow[] = [];
    for (const r of resolutions) {
      if (r.outcome === "preflight" || r.attempt.sentAt < this.heldFrom) continue;
      const a = r.attempt;
      // Before the retry hold a send's payer is never read: it comes without (send-history.ts).
      const details = a.sentAt >= this.detailFrom;
      rows.push({
        sentAt: a.sentAt,
        rpcHash: a.rpcHash,
        program: a.program,
        outcome: r.outcome,
        price: a.cuPriceMicroLamports,
        payer: details ? a.payer : null,
        sig: details ? a.sig : null,
      });
    }
    rows.sort((a, b) => a.sentAt - b.sentAt);
    this.sends.insert(rows);
    this.trim(now);
  }

  /** The window [from, to] when it is held (NeighbourSet.held), or null when it reaches before what is held. */
  range(from: number, to: number): { from: number; to: number } | null {
    if (!this.loaded || from < this.heldFrom) return null;
    return { from, to };
  }

  /**
   * The held sends' payer+program pairs within [from, to] (NeighbourSet.heldSamePayer); null when their details are not
   * held that far back.
   */
  heldPairs(from: number, to: number): { sends: SendHistory; from: number; to: number } | null {
    if (!this.loaded || from < this.detailFrom) return null;
    return { sends: this.sends, from, to };
  }

  /**
   * Lets go of sends before the window (and the oldest beyond maxHeld), and of payers and signatures before the retry
   * hold.
   */
  private trim(now: number): void {
    // The window and the retry hold follow the newest send taken in, not the clock: a resolver
    // minutes behind decides drops sent minutes ago, whose 15-minute windows and payers' sends
    // would otherwise reach before what is held and be read from the lake every run (millions of
    // rows a run at 20,000/s).
    const newest = this.sends.length === 0 ? null : Math.min(now, this.sends.newest);
    this.heldFrom = Math.max(this.heldFrom, (newest ?? now) - RECENT_SENDS_MS);
    this.capped = this.sends.countFrom(this.heldFrom) > this.maxHeld;
    if (this.capped) this.heldFrom = this.sends.newestAt(this.maxHeld);
    const newDetailFrom = newest === null ? this.detailFrom : Math.max(this.detailFrom, newest - RETRY_HOLD_MS);
    this.sends.forgetDetails(this.detailFrom, newDetailFrom);
    this.detailFrom = newDetailFrom;
    this.sends.dropBefore(this.heldFrom);
  }
}

/**
 * Resolved sends (not preflight) with sent_at in [from, to], from the lake: envelopes of the days
 * around the window joined with resolutions of the days since (a send is resolved after it is sent).
 * `payerPrograms`: only the sends of these payer+program pairs (the retry check's), not the window's every send.
 */
export async function readResolvedSends(
  ctx: Context,
  from: number,
  to: number,
  payerPrograms?: { payer: string; program: string }[],
): Promise<SendRow[]> {
  const dayMs = 86_400_000;
  // Only the pairs' programs' partitions when pairs are asked for: a day may hold thousands of programs.
  const programs = payerPrograms ? new Set(payerPrograms.map((p) => p.program)) : null;
  const ofPrograms = (files: string[]) =>
    programs === null ? files : files.filter((f) => programs.has(/[/\\]program=([^/\\]+)[/\\]/.exec(f)?.[1] ?? ""));
  const envelopeFiles = ofPrograms(partsOfDays(ctx.paths, "envelopes", daysBetween(from - dayMs, to + dayMs)));
  const resolutionFiles = ofPrograms(partsOfDays(ctx.paths, "resolutions", daysBetween(from, ctx.clock() + dayMs)));
  if (envelopeFiles.length === 0 || resolutionFiles.length === 0 || payerPrograms?.length === 0) return [];
  const list = (files: string[]) => `[${files.map(sqlString).join(", ")}]`;
  // Base58 payers and programs hold no '/': the pair as one string.
  const pairs = payerPrograms
    ? ` AND e.payer || '/' || e.program IN (${payerPrograms.map((p) => sqlString(`${p.payer}/${p.program}`)).join(", ")})`
    : "";
  const sql = `SELECT e.sent_at, e.rpc_hash, e.program, r.outcome, e.cu_price_micro_lamports, e.payer, e.sig
    FROM ${readLakeSql("envelopes", list(envelopeFiles), "hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR}, union_by_name = true")} e
    JOIN ${readLakeSql("resolutions", list(resolutionFiles), "hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR}, union_by_name = true")} r USING (attempt_id)
    WHERE e.sent_at BETWEEN ${Math.floor(from)} AND ${Math.ceil(to)} AND r.outcome <> 'preflight'${pairs}`;
  const c = await readAgainAfterSwap(() =>
    ctx.duck.columns<{
      sent_at: number[];
      rpc_hash: string[];
      program: string[];
      outcome: Outcome[];
      cu_price_micro_lamports: (number | null)[];
      payer: string[];
      sig: (string | null)[];
    }>(sql),
  );
  return c.sent_at.map((sentAt, i) => ({
    sentAt: Number(sentAt),
    rpcHash: c.rpc_hash[i],
    program: c.program[i],
    outcome: c.outcome[i],
    price: c.cu_price_micro_lamports[i] === null ? null : Number(c.cu_price_micro_lamports[i]),
    payer: c.payer[i],
    sig: c.sig[i],
  }));
}
