-- The program's observed deploys with the time each took effect (block time, else detection time),
-- oldest first: the issue page marks them on its time series and names the one the issue followed.
-- $1 program.
SELECT slot, effective_at FROM deploys WHERE program = $1 ORDER BY slot
