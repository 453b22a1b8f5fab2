-- payerBotScore, version bot-v2 (docs/api.md): per payer over the 30-day window, across
-- all programs and the accounts that count in public (tables/payers.ts; a payer's behaviour is not
-- account data). Five features, each mapped
-- to a sub-score in [0,1], combined with fixed weights:
--   rate        attempts per active hour: log-scaled, 6/h → 0 … 360/h → 1            (weight 0.10)
--   regularity  quartile dispersion of inter-arrival gaps, (Q3 − Q1) / (Q3 + Q1): ≥ 0.5 → 0
--               (random arrivals are ≈ 0.66), ≤ 0.15 → 1; only with ≥ 5 gaps         (weight 0.30)
--   adapter     share of attempts from scripted / unknown wallet adapters             (weight 0.40)
--   failures    share of resolved attempts failed on chain or in preflight: 0.2 → 0, 0.8 → 1 (0.10)
--   breadth     distinct programs: ≤ 2 → 0, ≥ 8 → 1                                   (weight 0.10)
-- bot-v1 used the gaps' coefficient of variation, which one long pause (a deploy, a restart)
-- blows up for the most regular script, and weighed the rate most, which busy people share.
-- Segments: human < 0.3 ≤ mixed < 0.7 ≤ bot.
-- Input: payer_features, the payer's units over the window merged in time order (tables/payers.ts):
-- attempts, active hours, distinct programs, scripted-adapter attempts, failures, resolved, the
-- number of gaps between consecutive send times and their quartiles (interpolated, read from the
-- gaps' sketch: within 1% of the exact ones).
CREATE OR REPLACE TEMP TABLE payer_scores_new AS
WITH features AS (
  SELECT payer, attempts, active_hours, programs, gaps,
    attempts / greatest(active_hours, 1) AS attempts_per_active_hour,
    CASE WHEN gaps >= 5 AND gap_q3 + gap_q1 > 0 THEN (gap_q3 - gap_q1) / (gap_q3 + gap_q1) END AS gap_dispersion,
    scripted / attempts AS scripted_adapter_share,
    CASE WHEN resolved > 0 THEN failures / resolved ELSE 0 END AS failure_share
  FROM payer_features WHERE attempts > 0
), scored AS (
  SELECT *,
    least(1, greatest(0, (log10(greatest(attempts_per_active_hour, 1e-9)) - log10(6)) / (log10(360) - log10(6)))) AS s_rate,
    CASE WHEN gap_dispersion IS NULL THEN 0 ELSE least(1, greatest(0, (0.5 - gap_dispersion) / 0.35)) END AS s_regularity,
    scripted_adapter_share AS s_adapter,
    least(1, greatest(0, (failure_share - 0.2) / 0.6)) AS s_failures,
    least(1, greatest(0, (programs - 2) / 6)) AS s_breadth
  FROM features
)
SELECT payer, attempts, active_hours, attempts_per_active_hour, gaps, gap_dispersion, scripted_adapter_share, failure_share, programs, score,
  CASE WHEN score < 0.3 THEN 'human' WHEN score < 0.7 THEN 'mixed' ELSE 'bot' END AS segment
FROM (SELECT *, 0.10 * s_rate + 0.30 * s_regularity + 0.40 * s_adapter + 0.10 * s_failures + 0.10 * s_breadth AS score FROM scored)
