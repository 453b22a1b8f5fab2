// The methodology text every snapshot carries (and the static page shows): the method in plain
// words with the parameters in force, so a reader of the file alone knows what the numbers mean.

export type MethodologyParams = {
  windowDays: number;
  graceMinutes: number;
  maxSampledSends: number;
  minimumSends: number;
  minimumAccounts: number;
  maxAccountShare: number;
  /** false: the cap applies only where more than 1 ÷ maxAccountShare accounts report a program. */
  capEveryProgram?: boolean;
  /** Drops one account may count per send of it the chain confirmed for the program (Infinity: no limit). */
  unconfirmedPerConfirmed?: number;
};

/** 100000 → "100,000", without the locale machinery (the text must be the same on every machine). */
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

export function methodologyText(p: MethodologyParams): string {
  const cap =
    p.maxAccountShare < 1
      ? `No account may carry more than ${Number((p.maxAccountShare * 100).toPrecision(6))}% of a program's counted sends: an account above that keeps only as many of its sampled sends (those with the lowest hash) as the cap allows.`
      : "No cap on one account's share is in force.";
  const where =
    p.maxAccountShare < 1 && p.capEveryProgram === false
      ? ` The cap applies where more than ${Number((1 / p.maxAccountShare).toPrecision(6))} accounts report a program (with fewer it could only make them equal).`
      : "";
  const drops =
    p.unconfirmedPerConfirmed !== undefined && Number.isFinite(p.unconfirmedPerConfirmed)
      ? ` An account's drops of a program count at most ${Number(p.unconfirmedPerConfirmed.toPrecision(6))} per send of it that the chain confirmed there (landed or failed on chain); above that it keeps those with the lowest hash, so an account whose sends never reached the chain moves nothing.`
      : "";
  return [
    `Landing Score: programs ranked by how reliably their sent transactions land, measured from txray client telemetry.`,
    `Window: the ${p.windowDays} UTC days ending at the end of the date (since inclusive, until exclusive), by the time txray received each attempt. Only send attempts count; preflight failures were never sent.`,
    `Sample: an attempt is sampled when the first 16 hex digits of md5(attempt_id), as a 64-bit number, are below sampleRate × 2^64. attempt_id is assigned by the server, so reporters cannot choose what is sampled. sampleRate is 1 for a program with at most ${thousands(p.maxSampledSends)} sends in the window, else ${thousands(p.maxSampledSends)} / sends (4 significant digits), so about that many are sampled.`,
    `Outcomes: a sampled send counts when its outcome was decided within ${p.graceMinutes} minutes after the window ends: landed (on chain, no error), failedOnchain (on chain with an error) or dropped (its blockhash expired and it never landed). Still-pending attempts are not counted. landingRate = landed / sends, dropRate = dropped / sends; ci95 is the 95% Wilson score interval of landingRate.`,
    `Trust: anyone with an API key can report attempts, including fake drops for someone else's program, and a drop never shows on chain. Each row shows how many accounts contributed (accounts) and the largest one's share (topAccountShare). A program needs reports from at least ${p.minimumAccounts} account${p.minimumAccounts === 1 ? "" : "s"} to be listed. ${cap}${where}${drops}`,
    `Listing and rank: programs with fewer than ${p.minimumSends} counted sends are not listed. The rest are ranked by the lower bound of ci95, highest first (ties: higher landingRate, more sends, then program id).`,
  ].join("\n\n");
}
