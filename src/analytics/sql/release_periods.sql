-- Pre and post periods of each deploy per window length: pre = [t − w, t) but not before the
-- previous deploy; post = [t, t + w) but not past the next deploy nor the build's clock.
CREATE OR REPLACE TEMP TABLE release_periods AS
SELECT d.program, d.slot, l.win, 'pre' AS period,
  greatest(d.effective_at - l.length_ms, coalesce(d.previous_at, d.effective_at - l.length_ms)) AS starts, d.effective_at AS ends
FROM deploys d CROSS JOIN window_lengths l
UNION ALL
SELECT d.program, d.slot, l.win, 'post' AS period,
  d.effective_at AS starts, least(d.effective_at + l.length_ms, coalesce(d.next_at, d.effective_at + l.length_ms), {{until}} + 1) AS ends
FROM deploys d CROSS JOIN window_lengths l
