// SQL of the volume generator, as named template functions. Every per-envelope value is a pure
// function of the row number `i` and the seed through DuckDB's hash() (`u(i, salt)` is a uniform
// draw in [0,1)), so the envelopes and resolutions passes recompute identical attempts without
// materialising 10M rows, and a given seed always yields the same lake.

import { sqlString } from "../../src/lake/duckdb";
import { payerBucketSql } from "../../src/lake/schema";
import {
  BOT_ADAPTERS,
  DROP_CLASSES,
  ERROR_NAMES,
  ERROR_RANKS,
  HUMAN_ADAPTERS,
  INSTRUCTIONS,
  PREFLIGHT_ERRORS,
  PROVIDERS,
  REGRESSION_ERROR,
  SLOT_AT_END,
  TOKEN_PROGRAM,
  zipfThresholds,
} from "./catalog";

export type WorldParams = {
  envelopes: number;
  seed: number;
  endMs: number;
  days: number;
  humans: number;
  bots: number;
  programs: number;
  /** Time of the deploy after which program 0's `swap` regresses. */
  regressionAt: number;
  /**
   * 0 for a lake; another number for envelopes appended to it (generateLake's `append`): the same
   * programs, payers and providers, other draws, attempt ids and signatures.
   */
  variant: number;
  /**
   * Share of landed successes decoded from their transaction (the resolver's RESOLVE_SAMPLE_RATE; docs/lake.md "The
   * success sample").
   */
  successSampleRate: number;
};

/** The hash() arguments that make a draw or an id unique to the seed (and the variant, when appending). */
const salted = (p: WorldParams) => (p.variant === 0 ? `${p.seed}::BIGINT` : `${p.seed}::BIGINT, ${p.variant}::BIGINT`);
const sigSalt = (p: WorldParams) => (p.variant === 0 ? `${p.seed}` : `${p.seed}:${p.variant}`);

/** `CASE WHEN u < c1 THEN v1 ... ELSE vn END` over cumulative shares. */
function pick(u: string, choices: { sql: string; share: number }[]): string {
  const total = choices.reduce((a, c) => a + c.share, 0);
  let cumulative = 0;
  const whens = choices.slice(0, -1).map((c) => {
    cumulative += c.share / total;
    return `WHEN ${u} < ${cumulative.toFixed(6)} THEN ${c.sql}`;
  });
  return `CASE ${whens.join(" ")} ELSE ${choices[choices.length - 1].sql} END`;
}

const text = (value: string) => sqlString(value);

/** Macros and the small dimension tables; `gen_programs` and `gen_payers` are filled by the caller. */
export function worldSetupSql(p: WorldParams): string {
  return `
    CREATE OR REPLACE MACRO u(i, salt) AS (hash(i, salt, ${salted(p)}) % 1000003) / 1000003.0;
        CREATE TABLE gen_ids AS SELECT range AS i FROM range(${p.envelopes});
    CREATE TABLE gen_programs (pidx INTEGER PRIMARY KEY, program VARCHAR, account_a VARCHAR, account_b VARCHAR);
    CREATE TABLE gen_payers (payer_idx INTEGER PRIMARY KEY, payer VARCHAR);
    CREATE TABLE gen_providers AS SELECT * FROM (VALUES ${PROVIDERS.map(
      (r, k) => `(${k}, ${text(r.label)}, ${text(r.hash)}, ${r.dropRate}, ${r.landMs})`,
    ).join(", ")}) t(prov_idx, rpc_label, rpc_hash, drop_rate, land_ms);
    CREATE TABLE gen_instructions AS SELECT * FROM (VALUES ${INSTRUCTIONS.map((x, k) => `(${k}, ${text(x.name)}, ${x.baseCu})`).join(", ")}) t(iidx, name, base_cu);
  `;
}

/**
 * One row per attempt with every envelope and resolution column. Bots (the first 35% of rows)
 * send at a regular period with small jitter, mostly to one program, through fast providers with
 * keypair-style adapters and fail often; humans are Zipf-skewed over payers and programs.
 */
export function attemptsViewSql(p: WorldParams): string {
  const spanMs = p.days * 86_400_000;
  const botRows = Math.floor(p.envelopes * 0.35);
  const perBot = Math.max(1, Math.floor(botRows / p.bots));
  // A bot sends about every 12 s while active (≈300/h): its activity covers the most recent part
  // of the range that this takes (at least 6 hours, at most the whole range).
  const botSpanMs = Math.min(spanMs, Math.max(6 * 3_600_000, perBot * 12_000));
  const botPeriod = Math.max(1, Math.floor(botSpanMs / perBot));
  const zipf = zipfThresholds(ERROR_RANKS, 1.3);
  const errorRank = `CASE ${zipf
    .slice(0, -1)
    .map((c, k) => `WHEN u13 < ${c.toFixed(6)} THEN ${k + 1}`)
    .join(" ")} ELSE ${ERROR_RANKS} END`;
  const humanProvider = pick(
    "u6",
    PROVIDERS.map((r, k) => ({ sql: String(k), share: r.humanShare })),
  );
  const botProvider = pick(
    "u6",
    PROVIDERS.map((r, k) => ({ sql: String(k), share: r.botShare })).filter((c) => c.share > 0),
  );
  const instruction = pick(
    "u9",
    INSTRUCTIONS.map((x, k) => ({ sql: String(k), share: x.share })),
  );
  const dropClass = pick(
    "u12",
    DROP_CLASSES.map((d) => ({ sql: text(d.name), share: d.share })),
  );
  const preflightIndex = pick(
    "u15",
    PREFLIGHT_ERRORS.map((e, k) => ({ sql: String(k), share: e.share })),
  );
  const preflightText = `[${PREFLIGHT_ERRORS.map((e) => text(e.text)).join(", ")}]`;
  const preflightKey = `[${PREFLIGHT_ERRORS.map((e) => text(e.key)).join(", ")}]`;
  const preflightCustom = `([${PREFLIGHT_ERRORS.map((e) => (e.custom === null ? "NULL" : String(e.custom))).join(", ")}]::BIGINT[])`;
  return `
  CREATE OR REPLACE VIEW gen_base AS
  SELECT *,
    i < ${botRows} AS is_bot,
    CASE WHEN i < ${botRows} THEN ${p.humans} + (i % ${p.bots}) ELSE least(${p.humans - 1}, floor(${p.humans} * pow(u1, 2.5)))::INTEGER END AS payer_idx,
    CASE WHEN i < ${botRows} THEN (CASE WHEN u2 < 0.8 THEN (i % ${p.bots}) % ${Math.min(3, p.programs)} ELSE least(${p.programs - 1}, floor(${p.programs} * u3))::INTEGER END)
         ELSE least(${p.programs - 1}, floor(${p.programs} * pow(u2, 1.8)))::INTEGER END AS pidx,
    CASE WHEN i < ${botRows} THEN ${p.endMs} - (i // ${p.bots}) * ${botPeriod} - floor(u4 * ${Math.floor(botPeriod * 0.1)})::BIGINT
         ELSE ${p.endMs} - floor(u4 * ${spanMs})::BIGINT END AS received_at,
    CASE WHEN i < ${botRows} THEN u5 < 0.02 ELSE u5 < 0.06 END AS is_preflight,
    CASE WHEN i < ${botRows} THEN ${botProvider} ELSE ${humanProvider} END AS prov_idx,
    ${instruction} AS iidx,
    ${errorRank} AS err_rank
  FROM (SELECT i, u(i, 1) AS u1, u(i, 2) AS u2, u(i, 3) AS u3, u(i, 4) AS u4, u(i, 5) AS u5, u(i, 6) AS u6, u(i, 7) AS u7, u(i, 8) AS u8, u(i, 9) AS u9, u(i, 10) AS u10, u(i, 11) AS u11, u(i, 12) AS u12, u(i, 13) AS u13, u(i, 14) AS u14, u(i, 15) AS u15, u(i, 16) AS u16, u(i, 17) AS u17, u(i, 18) AS u18, u(i, 19) AS u19, u(i, 20) AS u20, u(i, 21) AS u21, u(i, 22) AS u22, u(i, 23) AS u23, u(i, 24) AS u24, u(i, 25) AS u25 FROM gen_ids);

  CREATE OR REPLACE VIEW gen_attempts AS
  WITH b AS NOT MATERIALIZED (
    SELECT b.*, pr.program, CASE WHEN payer_idx % 2 = 0 THEN pr.account_a ELSE pr.account_b END AS account_id,
      py.payer, pv.rpc_label, pv.rpc_hash, pv.drop_rate, pv.land_ms, ins.name AS instruction_name, ins.base_cu,
      received_at - 50 - floor(u16 * 400)::BIGINT AS sent_at,
      (b.pidx = 0 AND ins.name = 'swap' AND received_at >= ${p.regressionAt}) AS regressed
    FROM gen_base b
    JOIN gen_programs pr USING (pidx) JOIN gen_payers py USING (payer_idx)
    JOIN gen_providers pv USING (prov_idx) JOIN gen_instructions ins USING (iidx)
  ), c AS NOT MATERIALIZED (
    SELECT *,
      CASE WHEN is_bot THEN (1.1 * base_cu)::INTEGER WHEN u17 < 0.5 THEN (1.4 * base_cu)::INTEGER ELSE NULL END AS cu_limit,
      (base_cu * (0.6 + 0.6 * u10) * CASE WHEN regressed THEN 1.25 ELSE 1 END)::BIGINT AS cu_would_use,
      NOT is_preflight AND u7 < drop_rate AS is_dropped,
      NOT is_preflight AND (u11 < 0.001 OR (received_at > ${p.endMs - 600_000} AND u11 < 0.5)) AS is_pending,
      u8 < CASE WHEN is_bot THEN 0.35 ELSE 0.07 END AS is_program_failure,
      regressed AND u18 < 0.06 AS is_regression_failure
    FROM b
  ), d AS NOT MATERIALIZED (
    SELECT *,
      coalesce(cu_limit, 200000) AS cu_requested,
      CASE WHEN is_preflight THEN 'preflight' WHEN is_dropped THEN 'dropped'
           WHEN is_regression_failure OR is_program_failure OR cu_would_use > coalesce(cu_limit, 200000) THEN 'failed_onchain'
           ELSE 'landed' END AS outcome,
      ${preflightIndex} + 1 AS preflight_pos
    FROM c
  ), e AS NOT MATERIALIZED (
    SELECT *,
      outcome = 'failed_onchain' AND NOT is_regression_failure AND NOT is_program_failure AS compute_exceeded,
      CASE WHEN outcome = 'failed_onchain' AND NOT is_regression_failure AND is_program_failure AND err_rank = 2 THEN '${TOKEN_PROGRAM}'
           WHEN outcome = 'failed_onchain' THEN program
           WHEN outcome = 'preflight' AND ${preflightCustom}[preflight_pos] IS NOT NULL THEN program END AS failing_program,
      CASE WHEN outcome = 'failed_onchain' AND is_regression_failure THEN ${REGRESSION_ERROR.code}
           WHEN outcome = 'failed_onchain' AND is_program_failure AND err_rank = 2 THEN 1
           WHEN outcome = 'failed_onchain' AND is_program_failure THEN 6000 + (pidx * 7 + iidx * 3 + err_rank) % ${ERROR_NAMES.length}
           WHEN outcome = 'preflight' THEN ${preflightCustom}[preflight_pos] END AS err_code,
      CASE WHEN outcome = 'dropped' THEN ${dropClass} END AS drop_class_raw
    FROM d
  )
  SELECT e.*,
    CASE WHEN drop_class_raw = 'rpc_not_forwarding' AND rpc_label NOT IN ('public', 'ankr') THEN 'unknown' ELSE drop_class_raw END AS drop_class,
    CASE WHEN outcome = 'dropped' THEN NULL ELSE instruction_name END AS instruction,
    CASE WHEN compute_exceeded THEN 'ComputationalBudgetExceeded'
         WHEN err_code = ${REGRESSION_ERROR.code} THEN '${REGRESSION_ERROR.name}'
         WHEN err_code = 1 AND outcome = 'failed_onchain' THEN 'InsufficientFunds'
         WHEN err_code IS NOT NULL THEN [${ERROR_NAMES.map(text).join(", ")}][err_code - 5999] END AS err_name,
    CASE WHEN outcome = 'preflight' THEN ${preflightText}[preflight_pos] END AS preflight_error,
    CASE WHEN outcome = 'preflight' THEN ${preflightKey}[preflight_pos]
         WHEN compute_exceeded THEN 'ComputationalBudgetExceeded'
         WHEN outcome = 'failed_onchain' THEN 'Custom:' || err_code END AS error_key_raw,
    CASE WHEN outcome IN ('landed', 'failed_onchain') THEN least(cu_would_use, cu_requested) END AS cu_used,
    CASE WHEN outcome IN ('landed', 'failed_onchain') THEN ((sent_at + (land_ms * (0.4 + 1.2 * u19))::BIGINT) // 1000) * 1000 END AS block_time,
    CASE WHEN is_preflight AND u20 < 0.5 THEN NULL ELSE '3' || replace(substr(md5(i::VARCHAR || ':s:${sigSalt(p)}') || md5(i::VARCHAR || ':t:${sigSalt(p)}') || md5(i::VARCHAR || ':u:${sigSalt(p)}'), 1, 87), '0', 'z') END AS sig,
    substr(h1, 1, 8) || '-' || substr(h1, 9, 4) || '-7' || substr(h1, 14, 3) || '-8' || substr(h2, 2, 3) || '-' || substr(h2, 5, 12) AS attempt_id,
    -- The targeted instruction's first 8 data bytes (an Anchor discriminator), sent by nine clients in ten.
    substr(sha256('global:' || instruction_name), 1, 16) AS prefix,
    CASE WHEN u25 < 0.9 THEN substr(sha256('global:' || instruction_name), 1, 16) END AS sent_prefix
  FROM (SELECT *, lower(lpad(to_hex(hash(i, 101, ${salted(p)})), 16, '0')) AS h1, lower(lpad(to_hex(hash(i, 102, ${salted(p)})), 16, '0')) AS h2 FROM e) e`;
}

const slotOf = (timeExpr: string, endMs: number) => `(${SLOT_AT_END} - ((${endMs} - ${timeExpr}) // 400))`;

/** Envelope columns of the lake contract (schema.ts), plus the partition columns program and day. */
export function envelopesSelectSql(p: WorldParams): string {
  return `SELECT attempt_id, account_id, received_at, 'gen-${sigSalt(p)}' AS spool_segment, sig,
      'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N' AS blockhash,
      ${slotOf("sent_at", p.endMs)} + 150 AS last_valid_block_height,
      sent_at, rpc_hash, rpc_label,
      CASE WHEN is_bot THEN ${pick(
        "u14",
        BOT_ADAPTERS.map((a) => ({ sql: text(a.name), share: a.share })),
      )} ELSE ${pick(
        "u14",
        HUMAN_ADAPTERS.map((a) => ({ sql: text(a.name), share: a.share })),
      )} END AS wallet_adapter,
      CASE WHEN is_preflight THEN 'preflight' ELSE 'send' END AS kind,
      preflight_error,
      CASE WHEN is_preflight THEN ['Program ' || program || ' invoke [1]', 'Program log: Instruction: ' || instruction_name, 'Program ' || program || ' failed'] ELSE []::VARCHAR[] END AS simulation_logs,
      payer, '0.1.0' AS sdk_version, cu_limit,
      CASE WHEN is_bot THEN 100000 + floor(u21 * 900000)::BIGINT WHEN u21 < 0.6 THEN 1000 + floor(u22 * 49000)::BIGINT END AS cu_price_micro_lamports,
      CASE WHEN is_bot THEN 0 END AS max_retries,
      CASE WHEN is_bot THEN true END AS skip_preflight,
      CASE WHEN is_bot THEN 'sender' ELSE 'rpc' END AS send_path,
      false AS nonce,
      sent_prefix AS ix_prefix,
      NULL::VARCHAR AS nonce_account,
      -- The slot the client last saw, up to two behind its send's, sent by seven clients in ten; one in fifty of
      -- those reports a slot after its landing (a wrong slot: its time to land in slots is unknown).
      CASE WHEN NOT is_preflight AND hash(i, 103, ${salted(p)}) % 10 < 7 THEN
        CASE WHEN block_time IS NULL THEN ${slotOf("sent_at", p.endMs)} - (hash(i, 104, ${salted(p)}) % 3)::BIGINT
             WHEN hash(i, 103, ${salted(p)}) % 50 = 0 THEN ${slotOf("block_time", p.endMs)} + 3
             ELSE ${slotOf("block_time", p.endMs)} - (land_ms * (0.4 + 1.2 * u19))::BIGINT // 400 - (hash(i, 104, ${salted(p)}) % 3)::BIGINT END
      END AS sent_slot,
      program, strftime(make_timestamp(received_at * 1000), '%Y-%m-%d') AS day
    FROM gen_attempts`;
}

/** The JSON text of the fingerprint key: errCode as a number, else the drop class or error key as a string. */
const fingerprintSql = `'v1:' || substr(sha256('[' || to_json(program) || ',' || to_json(outcome) || ',' ||
    coalesce(to_json(failing_program), 'null') || ',' || coalesce(to_json(instruction), 'null') || ',' ||
    coalesce(err_code::VARCHAR, to_json(coalesce(drop_class, error_key_raw)), 'null') || ']'), 1, 16)`;

/**
 * Resolution columns of the lake contract (layout version 2); pending attempts get no row. Day is
 * resolved_at's date. As the resolver writes them: a landed success outside the success sample is
 * decided from its status (no compute units, the envelope's limit, named by its prefix when the
 * client sent one); failures and sampled successes are decoded from their transaction.
 */
export function resolutionsSelectSql(p: WorldParams): string {
  const rate = Math.min(1, p.successSampleRate);
  return `SELECT attempt_id, account_id, outcome, resolved_at,
      CASE WHEN block_time IS NOT NULL THEN ${slotOf("block_time", p.endMs)} END AS slot, block_time,
      CASE WHEN outcome = 'failed_onchain' AND err_code IS NOT NULL THEN '{"InstructionError":[2,{"Custom":' || err_code || '}]}'
           WHEN compute_exceeded THEN '{"InstructionError":[2,"ComputationalBudgetExceeded"]}'
           WHEN outcome = 'preflight' THEN to_json(error_key_raw) END AS err,
      CASE WHEN status_only AND sent_prefix IS NULL THEN NULL ELSE instruction END AS instruction,
      CASE WHEN status_only THEN NULL WHEN instruction IS NOT NULL THEN CASE WHEN failing_program = '${TOKEN_PROGRAM}' THEN '2.1' ELSE '2' END END AS ix_path,
      CASE WHEN failing_program = '${TOKEN_PROGRAM}' THEN 1 WHEN outcome IN ('failed_onchain', 'preflight') THEN 0 END AS cpi_depth,
      err_code, err_name, failing_program,
      CASE WHEN failing_program = '${TOKEN_PROGRAM}' THEN 'Transfer' WHEN failing_program IS NOT NULL THEN instruction END AS failing_instruction,
      CASE WHEN status_only THEN NULL ELSE cu_used END AS cu_used,
      CASE WHEN status_only THEN cu_limit WHEN outcome IN ('landed', 'failed_onchain') THEN cu_requested END AS cu_requested,
      CASE WHEN outcome = 'failed_onchain' THEN compute_exceeded END AS compute_exceeded,
      drop_class,
      CASE WHEN outcome = 'dropped' THEN 0.6 + 0.3 * u23 END AS drop_confidence,
      CASE WHEN outcome = 'dropped' THEN '[{"kind":"block_height","detail":"expired","value":null}]' END AS drop_evidence,
      CASE WHEN outcome = 'landed' THEN NULL ELSE coalesce(drop_class, error_key_raw) END AS error_key,
      CASE WHEN outcome = 'landed' THEN NULL ELSE ${fingerprintSql} END AS fingerprint,
      CASE WHEN outcome = 'landed' THEN NULL ELSE []::VARCHAR[] END AS log_messages,
      CASE WHEN outcome IN ('landed', 'failed_onchain') AND NOT status_only THEN prefix ELSE sent_prefix END AS ix_prefix,
      outcome = 'landed' AND NOT status_only AS sampled,
      CASE WHEN outcome = 'landed' AND NOT status_only THEN ${1 / rate} WHEN outcome = 'failed_onchain' THEN 1.0 END AS sample_weight,
      ${payerBucketSql("payer")} AS payer_bucket,
      program, strftime(make_timestamp(resolved_at * 1000), '%Y-%m-%d') AS day
    FROM (SELECT *, received_at + CASE WHEN outcome = 'dropped' THEN 90000 ELSE 2000 + floor(u24 * 30000)::BIGINT END AS resolved_at,
            outcome = 'landed' AND ('0x' || substr(sha256(attempt_id), 1, 8))::UBIGINT / 4294967296.0 >= ${rate} AS status_only
          FROM gen_attempts WHERE NOT is_pending)`;
}
