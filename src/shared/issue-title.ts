// The one wording of an issue's title, used by every surface (routes, MCP text, Slack, and through
// the answers' `title` the web app): what a person reads first. From the fields that make the issue
// (its fingerprint's parts), so every answer that names the issue names it the same way
// (docs/api.md#issue-titles): the error's name, else a custom code as the runtime reports it, else
// the drop class or the outcome; then the instruction it happened in.

export type TitleParts = {
  outcome: string;
  errName: string | null;
  errCode: number | null;
  dropClass: string | null;
  instruction: string | null;
};

const OUTCOME_WORDS: Record<string, string> = {
  failed_onchain: "Failed on chain",
  preflight: "Failed in preflight",
  dropped: "Dropped",
  landed: "Landed",
};

export function issueTitle(parts: TitleParts): string {
  if (parts.outcome === "dropped") return `Dropped: ${(parts.dropClass ?? "unknown").replaceAll("_", " ")}`;
  const error =
    parts.errName ??
    (parts.errCode !== null
      ? `Custom program error ${parts.errCode} (0x${parts.errCode.toString(16)})`
      : (OUTCOME_WORDS[parts.outcome] ?? parts.outcome));
  return parts.instruction ? `${error} in ${parts.instruction}` : error;
}

/** An issue's row as the serving tables store it (snake_case columns): its title. */
export function issueTitleOfRow(row: {
  outcome: string;
  err_name: string | null;
  err_code: number | bigint | null;
  drop_class: string | null;
  instruction: string | null;
}): string {
  return issueTitle({
    outcome: row.outcome,
    errName: row.err_name,
    errCode: row.err_code === null ? null : Number(row.err_code),
    dropClass: row.drop_class,
    instruction: row.instruction,
  });
}
