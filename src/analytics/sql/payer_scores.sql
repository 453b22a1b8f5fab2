-- payerBotScore, version bot-v1 (docs/api.md): per payer over the 30-day window, across
-- all programs and accounts (a payer's behaviour is not account data). Five features, each mapped
-- to a sub-score in [0,1], combined with fixed weights:
--   rate        attempts per active hour: log-scaled, 6/h → 0 … 360/h → 1            (weight 0.30)
--   regularity  coefficient of variation of inter-arrival gaps: CV ≥ 1 → 0, CV ≤ 0.3 → 1,
--               only with ≥ 5 gaps                                                    (weight 0.25)
--   adapter     share of attempts from scripted / unknown wallet adapters             (weight 0.25)
--   failures    share of resolved attempts failed on chain or in preflight: 0.2 → 0, 0.8 → 1 (0.10)
--   breadth     distinct programs: ≤ 2 → 0, ≥ 8 → 1                                   (weight 0.10)
-- Segments: human < 0.3 ≤ mixed < 0.7 ≤ bot.
-- Input: payer_features, the payer's units over the window merged in time order (tables/payers.ts):
-- attempts, active hours, distinct programs, scripted-adapter attempts, failures, resolved, and the
-- gaps between consecutive send times (count, sum, sum of squares, exact integers).
CREATE OR REPLACE TEMP TABLE payer_scores_new AS
WITH regularity AS (
  SELECT *, gap_sum / gaps AS gap_mean, sqrt(greatest((gaps * gap_sq - gap_sum::HUGEINT * gap_sum)::DOUBLE, 0)) / gaps AS gap_sd
  FROM payer_features WHERE attempts > 0
), features AS (
  SELECT payer, attempts, active_hours, programs, gaps,
    attempts / greatest(active_hours, 1) AS attempts_per_active_hour,
    CASE WHEN gaps >= 5 AND gap_mean > 0 THEN gap_sd / gap_mean END AS gap_cv,
    scripted / attempts AS scripted_adapter_share,
    CASE WHEN resolved > 0 THEN failures / resolved ELSE 0 END AS failure_share
  FROM regularity
), scored AS (
  SELECT *,
    least(1, greatest(0, (log10(greatest(attempts_per_active_hour, 1e-9)) - log10(6)) / (log10(360) - log10(6)))) AS s_rate,
    CASE WHEN gap_cv IS NULL THEN 0 ELSE least(1, greatest(0, (1 - gap_cv) / 0.7)) END AS s_regularity,
    scripted_adapter_share AS s_adapter,
    least(1, greatest(0, (failure_share - 0.2) / 0.6)) AS s_failures,
    least(1, greatest(0, (programs - 2) / 6)) AS s_breadth
  FROM features
)
SELECT payer, attempts, active_hours, attempts_per_active_hour, gaps, gap_cv, scripted_adapter_share, failure_share, programs,
  0.30 * s_rate + 0.25 * s_regularity + 0.25 * s_adapter + 0.10 * s_failures + 0.10 * s_breadth AS score,
  CASE WHEN 0.30 * s_rate + 0.25 * s_regularity + 0.25 * s_adapter + 0.10 * s_failures + 0.10 * s_breadth < 0.3 THEN 'human'
       WHEN 0.30 * s_rate + 0.25 * s_regularity + 0.25 * s_adapter + 0.10 * s_failures + 0.10 * s_breadth < 0.7 THEN 'mixed'
       ELSE 'bot' END AS segment
FROM scored
